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
// - The loop is 32-bit. An earlier one kept one word a row and 64-bit diagonals that shift back without loss:
//   less shared memory, more instructions, 48.5 s against 40.7 s at n = 21. The kernel is bound by its integer
//   instructions (Nsight Compute), so instructions decide.
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

// Look one row further before descending (see above); 0 turns it off, for comparison.
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
    // The search: the row being filled, its untried squares, the masks of the queens above it, and its
    // counts so far.
    u32 r = 0;
    u32 avail = 0;
    u32 cols = 0;
    u32 ld = 0;
    u32 rd = 0;
    u64 sol = 0;
    u64 nod = 0;
    // The row's slot in the stack. This thread's three words of a level are consecutive; a level of all
    // threads spans 3 * stride words, and 3 is odd, so the threads of a warp still use 32 different banks.
    u32* const mine = stack + 3u * threadIdx.x;
    const u32 level = 3u * stride;
    u32* top = mine;
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
            top = mine;
            avail = task.avail;
            cols = task.cols;
            ld = task.ld;
            rd = task.rd;
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
            ld = top[1];
            rd = top[2];
        }
        const bool has = avail != 0u;
        const u32 b = avail & (0u - avail);
        avail ^= b;
        nod += has ? 1u : 0u;
        const u32 k = r + 1u;
        const u32 ccols = cols | b;
        const u32 cld = (ld | b) << 1;
        const u32 crd = (rd | b) >> 1;
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
            top[1] = ld;
            top[2] = rd;
            top += level;
            r = k;
            avail = free;
            cols = ccols;
            ld = cld;
            rd = crd;
        }
    }
}
