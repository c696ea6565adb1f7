// Stands in for CUDA's built-ins so that src/gpu/count.cu compiles as C++ on the host: the last thread of a
// block of four, run alone, its block's shared memory an array (so that the stack's and table's layouts are
// used with a thread's own offsets, and the harness can check that it wrote nothing of the others'), atomics
// plain additions. See tests/gpu_kernel.rs.
#include <cstdint>
struct NqDim3 {
    unsigned x, y, z;
};
#define NQ_HOST_THREADS 4u
static const NqDim3 threadIdx = {NQ_HOST_THREADS - 1u, 0, 0};
static const NqDim3 blockDim = {NQ_HOST_THREADS, 1, 1};
#define __global__
#define __device__
#define __forceinline__ inline
struct uint4 {
    unsigned x, y, z, w;
};
struct uint2 {
    unsigned x, y;
};
static inline uint2 make_uint2(unsigned x, unsigned y) { return uint2{x, y}; }
static inline uint4 make_uint4(unsigned x, unsigned y, unsigned z, unsigned w) { return uint4{x, y, z, w}; }
// The block's shared memory: 64 levels of stack and of table for each thread, more than any task needs
// (harness.cpp).
#define NQ_HOST_SHARED (64u * (16u + 4u) * NQ_HOST_THREADS)
extern char nq_stack[];
#define NQ_STACK(name) char* name = nq_stack
// The tests' tasks take fewer than 2^12 passes of the loop, even one turn a pass (a guard at 2^10 fails a
// test, at 2^12 none): one that takes 2^16 is a loop that would never end (a pop that never comes), and is
// stopped, its counts wrong, so the test fails. (At 2^20, such a mutant took its test about ten minutes.)
#define NQ_HOST_GUARD(passes) (((passes) >> 16) != 0u)
static inline unsigned atomicAdd(unsigned* p, unsigned v) {
    unsigned old = *p;
    *p += v;
    return old;
}
static inline unsigned long long atomicAdd(unsigned long long* p, unsigned long long v) {
    unsigned long long old = *p;
    *p += v;
    return old;
}
static inline int __popc(unsigned x) { return __builtin_popcount(x); }
// The turns of every task, added up (count.cu's NQ_HOST_TURNS); the harness prints them.
extern unsigned long long nq_turns;
#define NQ_HOST_TURNS(turns) (nq_turns += (turns))
// The multiprocessor's clock: it moves on by nq_clock_step at each reading (set by the harness), so a test can
// make every task seem to run long.
extern long long nq_clock_step;
static inline long long clock64() {
    static long long now = 0;
    now += nq_clock_step;
    return now;
}
