// The GPU kernel: counts the completions of tasks (src/gpu/task.rs), one task per thread at a time.
//
// Compiled at run time by NVRTC; the host compiles the same source as C++ in the tests (tests/gpu_kernel.rs),
// with a header that stands in for CUDA's built-ins, and checks it against the CPU kernel unit by unit.
// `scripts/gpu-sass-count.sh` counts the SASS instructions of its search loop; results/gpu.md records them.
//
// The search loop takes one queen a turn, branch-free (24 SASS instructions on sm_90 with nodes counted, 22
// without; results/gpu.md):
// - The stack lives in shared memory, one 16-byte entry a level: the row's untried squares `avail`, its free
//   columns `fc` (the board's columns not taken), and the diagonal masks `ld` and `rd` of the queens above it.
//   A turn takes the top entry's lowest square, stores the rest back, and pushes the child row's entry if the
//   child has a free square. A row whose last square is taken is popped in the same turn (the child, if any,
//   takes its place), so an entry on the stack always has a square left: no turn is spent backing up. The
//   next turn's entry is loaded at the end of the turn: after a push it is the entry just stored, which the
//   compiler keeps in registers (the load is skipped). Below the task's first row lies an entry with no
//   square, so the search ends when the next entry is empty.
// - The rows' constraints (the frame of the full symmetry mode: its side rows, and the squares its border
//   queens attack) come from a table of each row's open squares, one word a row, copied into shared memory
//   when the thread takes a task. With the popped rows gone from the stack, a level no longer names its row:
//   the number of free columns does (each row takes one), so the table is indexed by `popc(fc)`.
// - The row after the last is marked by bit 31 in the table (boards are at most 31 wide): a queen whose child
//   row carries the mark completes a solution, counted with a shift and an add. So the last row is searched
//   like any other, which needs no test for it, and a rectangle's last line counts each of its free squares.
// - A node is a queen placed, as the CPU kernel counts them: every turn is one. Its counter is 64-bit, the
//   solutions' 32-bit, both added to the task's unit once the task is done; a task that could have carried the
//   solution counter past 2^32 (more than 2^32 nodes) is reported in `trouble` and the host refuses the run.
// - Threads take tasks from one atomic counter, so tasks of any size mix.
// - Entries of one level for all threads of a block are consecutive (16 bytes a thread), so a warp's 128-bit
//   loads and stores use every bank whatever level each thread is at; the table is laid out the same way.

typedef unsigned int u32;
typedef unsigned long long u64;

// The layout of `Task` in src/gpu/task.rs: eight 32-bit words.
struct Task {
    u32 avail, fc, ld, rd;
    // The task's unit, numbered within its batch, and the lowest table index its rows use.
    u32 slot, low;
    u32 pad[2];
};

// The table's words a unit has: one for each possible count of free columns.
#define NQ_TABLE 32u
// The mark of the row after the last.
#define NQ_END 0x80000000u

#ifndef NQ_STACK
#define NQ_STACK(name) extern __shared__ __align__(16) char name[]
#endif

// Count the nodes (1), or leave them uncounted (0: only for measuring what counting costs with
// scripts/gpu-sass-count.sh; the program refuses it, as its journals and reports have no way to say "not
// counted").
#ifndef NQ_NODES
#define NQ_NODES 1
#endif

extern "C" __global__ void count_tasks(const Task* __restrict__ tasks, u32 count, u32* next,
                                       const u32* __restrict__ tables, u64* solutions, u64* nodes,
                                       u32* trouble, u32 levels)
{
    NQ_STACK(shared);
    // Bytes from one level of the stack to the next, and from one row of the table to the next.
    const u32 level = 16u * blockDim.x;
    const u32 step = 4u * blockDim.x;
    // The stack's levels 0 (the empty entry) to `levels`, then the table.
    const u32 table = (levels + 1u) * level + 4u * threadIdx.x;
    for (;;) {
        const u32 t = atomicAdd(next, 1u);
        if (t >= count) {
            return;
        }
        const Task task = tasks[t];
        const u32* const rows = tables + NQ_TABLE * task.slot;
        const u32 high = __popc(task.fc);
        for (u32 m = task.low; m < high; m++) {
            *(u32*)(shared + table + (m - task.low) * step) = rows[m];
        }
        // The table's row for `m` free columns is at `tab + m * step`. Opaque to the compiler, which would
        // otherwise take `low` back out of it in every turn.
        u32 tab = table - task.low * step;
#ifdef __CUDA_ARCH__
        asm("" : "+r"(tab));
#endif
        // Level 0 holds an entry with no square: the search ends when it comes back to it.
        *(uint4*)(shared + 16u * threadIdx.x) = make_uint4(0u, 0u, 0u, 0u);
        u32 top = 16u * threadIdx.x + level;
        *(uint4*)(shared + top) = make_uint4(task.avail, task.fc, task.ld, task.rd);
        uint4 e = *(const uint4*)(shared + top);
        u32 sol = 0;
        u64 nod = 0;
        do {
            const u32 rest = e.x & (e.x - 1u);
            *(u32*)(shared + top) = rest;
            // e.x ^ rest is the queen's square, which is free: in fc, in neither diagonal.
            const u32 fc = e.y ^ e.x ^ rest;
            const u32 ld = (e.z | (e.x ^ rest)) << 1;
            const u32 rd = (e.w | (e.x ^ rest)) >> 1;
            const u32 open = *(const u32*)(shared + tab + __popc(fc) * step);
            const u32 free = fc & ~(ld | rd) & open;
            sol += open >> 31;
#if NQ_NODES
            nod += 1;
#endif
            // Pop the row if this was its last square (as a predicated subtraction: ptxas makes a select and
            // an add of the plain `if`), then push the child over it or above it.
#ifdef __CUDA_ARCH__
            asm("{\n\t.reg .pred p;\n\tsetp.eq.u32 p, %1, 0;\n\t@p sub.u32 %0, %0, %2;\n\t}"
                : "+r"(top)
                : "r"(rest), "r"(level));
#else
            if (rest == 0u) {
                top -= level;
            }
#endif
            if (free != 0u) {
                top += level;
                *(uint4*)(shared + top) = make_uint4(free, fc, ld, rd);
            }
            e = *(const uint4*)(shared + top);
        } while (e.x != 0u);
        if (nod >> 32) {
            atomicAdd(trouble, 1u);
        }
        atomicAdd(&solutions[task.slot], (u64)sol);
        atomicAdd(&nodes[task.slot], nod);
    }
}
