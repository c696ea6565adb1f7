// The GPU kernel: counts the completions of tasks (src/gpu/task.rs), one task per thread at a time.
//
// Compiled at run time by NVRTC; the host compiles the same source as C++ in the tests (tests/gpu_kernel.rs),
// with a header that stands in for CUDA's built-ins, and checks it against the CPU kernel unit by unit. The
// measurements behind each choice are in results/gpu.md.
//
// Why it looks like this:
// - Threads fetch tasks from one atomic counter, so tasks of any size mix. A thread takes its next task
//   inside its search loop, not in a loop around it: a loop around it holds every thread of a warp until the
//   warp's longest task ends (n = 21 on an H100: 68.3 s, against 48.7 s).
// - Each row's state is in shared memory: its untried squares (with its queen's square still set: the queen
//   is the lowest of them, since squares are tried from the lowest) and its two diagonal masks. Backing up
//   reads them back; the column mask is undone with the queen's bit. A thread's three words of a level are
//   consecutive and a level spans 3 * blockDim words: 3 is odd, so the 32 threads of a warp use 32 banks
//   whatever level each is at.
// - The loop (NQ_LOOP 2) is 32-bit. The alternative (NQ_LOOP 0) keeps one word a row and 64-bit diagonals
//   that shift back without loss. It uses less shared memory but more instructions: 48.5 s against 40.7 s at
//   n = 21. The kernel is bound by its integer instructions (Nsight Compute), so instructions decide.
// - The fixed queens (the bottom queen and the side queens of the full symmetry mode) are diagonal masks
//   indexed by diagonal: one funnel shift each gives their attacks on any row.
// - Looking one row ahead: a child whose next row has no free square on the whole board is counted (its
//   queens are nodes) without being visited (5% at n = 20 and 21).
// - The last row is never entered: a queen on the row before it closes the board, counting the free squares
//   of the last (one at most on a square board, a population count on a rectangle).
// - A node is a queen placed, as the CPU kernel counts them: on any row before the last, and on the last
//   for each solution.

typedef unsigned int u32;
typedef unsigned long long u64;

// The layout of `Task` in src/gpu/task.rs: sixteen 32-bit words.
struct Task {
    u32 cols, ld, rd, avail, rows, base, side;
    u32 ld_fixed_lo, ld_fixed_hi, rd_fixed_lo, rd_fixed_hi;
    u32 slot;
    u32 pad[4];
};

#ifndef NQ_STACK
#define NQ_STACK(name) extern __shared__ u32 name[]
#endif

// Loop 0: back up and try the next square in the same turn (1), or take a turn for each (0).
#ifndef NQ_FUSED
#define NQ_FUSED 1
#endif

// The loop: 2, three words of stack a row and 32-bit arithmetic; 0, one word a row and 64-bit diagonals
// shifted back on backing up.
#ifndef NQ_LOOP
#define NQ_LOOP 2
#endif

// Look one row further before descending (see above).
#ifndef NQ_AHEAD
#define NQ_AHEAD 1
#endif

extern "C" __global__ void count_tasks(const Task* __restrict__ tasks, u32 count, u32* next,
                                       u64* solutions, u64* nodes, u32 wide, u32 board)
{
    NQ_STACK(stack);
    const u32 stride = blockDim.x;
    // The task in hand.
    u32 slot = ~0u;
    u32 row0 = 0, closing = 0, left = 0, right = 0, base = 0, side = 0;
    u32 ld_fixed_lo = 0, ld_fixed_hi = 0, rd_fixed_lo = 0, rd_fixed_hi = 0;
    // The search: the row being filled, its untried squares, and the masks of the queens above it.
    u32 r = 0;
    u32 avail = 0;
    u32 cols = 0;
    u64 sol = 0;
    u64 nod = 0;
#if NQ_LOOP == 2
    // This thread's three words of a level are consecutive; a level of all threads spans 3 * stride words,
    // and 3 is odd, so the threads of a warp still use 32 different banks.
    u32* const mine3 = stack + 3u * threadIdx.x;
    const u32 level = 3u * stride;
    u32* top = mine3;
    u32 ld32 = 0;
    u32 rd32 = 0;
    for (;;) {
        const bool empty = avail == 0u;
        if (empty && r == row0) {
            // The task is done: add its counts (each solution's last queen is a node too), take the next.
            if (slot != ~0u) {
                atomicAdd(&solutions[slot], sol);
                atomicAdd(&nodes[slot], nod + sol);
            }
            const u32 t = atomicAdd(next, 1u);
            if (t >= count) {
                return;
            }
            const Task task = tasks[t];
            slot = task.slot;
            row0 = task.rows & 255u;
            closing = ((task.rows >> 8) & 255u) - 2u;
            left = (task.rows >> 16) & 255u;
            right = task.rows >> 24;
            base = task.base;
            side = task.side;
            ld_fixed_lo = task.ld_fixed_lo;
            ld_fixed_hi = task.ld_fixed_hi;
            rd_fixed_lo = task.rd_fixed_lo;
            rd_fixed_hi = task.rd_fixed_hi;
            r = row0;
            top = mine3;
            avail = task.avail;
            cols = task.cols;
            ld32 = task.ld;
            rd32 = task.rd;
            sol = 0;
            nod = 0;
            continue;
        }
        // Every turn may back up one row (when the row is exhausted) and then place the next queen (when the
        // row has one).
        if (empty) {
            top -= level;
            r -= 1u;
            const u32 stored = top[0];
            const u32 pb = stored & (0u - stored);
            avail = stored ^ pb;
            cols ^= pb;
            ld32 = top[1];
            rd32 = top[2];
        }
        const bool has = avail != 0u;
        const u32 b = avail & (0u - avail);
        avail ^= b;
        nod += has ? 1u : 0u;
        const u32 k = r + 1u;
        const u32 ccols = cols | b;
        const u32 cld = (ld32 | b) << 1;
        const u32 crd = (rd32 | b) >> 1;
        const u32 fixed = __funnelshift_l(ld_fixed_lo, ld_fixed_hi, k) |
                          __funnelshift_r(rd_fixed_lo, rd_fixed_hi, k);
        u32 open = base & ~fixed;
        open = (k == right) ? side : open;
        open = (k == left) ? 1u : open;
        const u32 free = open & ~(ccols | cld | crd);
        const bool closes = has && r == closing;
        sol += closes ? (wide ? (u64)__popc(free) : (u64)(free != 0u)) : 0u;
        bool descends = has && r != closing && free != 0u;
#if NQ_AHEAD
        const u32 ahead = board & ~(ccols | (cld << 1) | (crd >> 1));
        nod += (descends && ahead == 0u) ? (u64)__popc(free) : 0u;
        descends = descends && ahead != 0u;
#endif
        if (descends) {
            top[0] = avail | b;
            top[1] = ld32;
            top[2] = rd32;
            top += level;
            r = k;
            avail = free;
            cols = ccols;
            ld32 = cld;
            rd32 = crd;
        }
    }
#else
    // One word a level: the threads of a warp use consecutive words of every level.
    u32* const mine = stack + threadIdx.x;
    u64 ld = 0;
    u64 rd = 0;
    for (;;) {
        if (avail == 0u) {
            if (r == row0) {
                // The task is done: add its counts (each solution's last queen is a node too), take the next.
                if (slot != ~0u) {
                    atomicAdd(&solutions[slot], sol);
                    atomicAdd(&nodes[slot], nod + sol);
                }
                const u32 t = atomicAdd(next, 1u);
                if (t >= count) {
                    return;
                }
                const Task task = tasks[t];
                slot = task.slot;
                row0 = task.rows & 255u;
                closing = ((task.rows >> 8) & 255u) - 2u;
                left = (task.rows >> 16) & 255u;
                right = task.rows >> 24;
                base = task.base;
                side = task.side;
                ld_fixed_lo = task.ld_fixed_lo;
                ld_fixed_hi = task.ld_fixed_hi;
                rd_fixed_lo = task.rd_fixed_lo;
                rd_fixed_hi = task.rd_fixed_hi;
                r = row0;
                avail = task.avail;
                cols = task.cols;
                ld = (u64)task.ld;
                rd = (u64)task.rd << 32;
                sol = 0;
                nod = 0;
                continue;
            }
            // Back up: the row above's queen is the lowest of its stored squares.
            r -= 1u;
            avail = mine[(r - row0) * stride];
            const u32 b = avail & (0u - avail);
            avail ^= b;
            cols ^= b;
            ld = (ld >> 1) ^ (u64)b;
            rd = (rd << 1) ^ ((u64)b << 32);
#if NQ_FUSED
            if (avail == 0u) {
                continue;
            }
#else
            continue;
#endif
        }
        const u32 b = avail & (0u - avail);
        avail ^= b;
        nod += 1u;
        const u32 k = r + 1u;
        const u32 ccols = cols | b;
        const u64 cld = (ld | (u64)b) << 1;
        const u64 crd = (rd | ((u64)b << 32)) >> 1;
        const u32 fixed = __funnelshift_r(ld_fixed_lo, ld_fixed_hi, 32u - k) |
                          __funnelshift_r(rd_fixed_lo, rd_fixed_hi, k);
        u32 open = base & ~fixed;
        open = (k == right) ? side : open;
        open = (k == left) ? 1u : open;
        const u32 free = open & ~(ccols | (u32)cld | (u32)(crd >> 32));
        if (r == closing) {
            sol += wide ? (u64)__popc(free) : (u64)(free != 0u);
        } else if (free != 0u) {
#if NQ_AHEAD
            const u32 ahead = board & ~(ccols | (u32)(cld << 1) | (u32)(crd >> 33));
            if (ahead == 0u) {
                nod += (u64)__popc(free);
                continue;
            }
#endif
            mine[(r - row0) * stride] = avail | b;
            r = k;
            avail = free;
            cols = ccols;
            ld = cld;
            rd = crd;
        }
    }
#endif
}
