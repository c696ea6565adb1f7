/* A classic bitmask N-Queens counter in the style of Jeff Somers (2002), for comparisons with nqueens on the
 * same machine: an explicit array stack, the lowest free bit taken first, and mirror symmetry (first-row queen
 * in the left half, counted twice; the middle column of odd boards counted once). One thread.
 *
 *   gcc -O3 -march=native -o somers benches/c/somers.c && ./somers 17
 *
 * Written for this repository as a yardstick; it is not part of the build. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static uint64_t count_from(int n, uint32_t full, uint32_t cols, uint32_t ld, uint32_t rd, int row) {
    uint32_t avail[32], scols[32], sld[32], srd[32];
    uint64_t count = 0;
    int sp = row;
    avail[sp] = full & ~(cols | ld | rd);
    scols[sp] = cols; sld[sp] = ld; srd[sp] = rd;
    while (sp >= row) {
        uint32_t a = avail[sp];
        if (a == 0) { sp--; continue; }
        uint32_t bit = a & -a;
        avail[sp] = a ^ bit;
        if (sp == n - 1) { count++; continue; }
        uint32_t c = scols[sp] | bit, l = (sld[sp] | bit) << 1, r = (srd[sp] | bit) >> 1;
        sp++;
        scols[sp] = c; sld[sp] = l; srd[sp] = r;
        avail[sp] = full & ~(c | l | r);
    }
    return count;
}

int main(int argc, char **argv) {
    int n = argc > 1 ? atoi(argv[1]) : 16;
    if (n < 1 || n > 31) { fprintf(stderr, "n must be 1..31\n"); return 2; }
    uint32_t full = (n == 32) ? 0xffffffffu : ((1u << n) - 1);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    uint64_t total = 0;
    for (int c = 0; c < n / 2; c++) {
        uint32_t bit = 1u << c;
        total += 2 * count_from(n, full, bit, bit << 1, bit >> 1, 1);
    }
    if (n % 2 == 1) {
        uint32_t bit = 1u << (n / 2);
        total += count_from(n, full, bit, bit << 1, bit >> 1, 1);
    }
    if (n == 1) total = 1;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double s = (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
    printf("%d\t%llu\t%.3f\n", n, (unsigned long long)total, s);
    return 0;
}
