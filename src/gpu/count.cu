// The GPU kernel: counts the completions of tasks (src/gpu/task.rs), one task per thread at a time.
//
// Compiled at run time by NVRTC; the host compiles the same source as C++ in the tests (tests/gpu_kernel.rs),
// with a header that stands in for CUDA's built-ins, and checks it against the CPU kernel unit by unit; and
// tests/gpu_ptx.rs runs the PTX that NVRTC makes of it (the `__CUDA_ARCH__` paths and the inline PTX too)
// through an interpreter, against the CPU kernel as well.
// `scripts/gpu-sass-count.sh` counts the SASS instructions of its search loop; results/gpu.md records them.
//
// The search loop takes one queen a turn, branch-free, and tests for the task's end every NQ_UNROLL turns.
// (The SASS counts below are as each session measured them. ptxas allocates the loop's registers anew with any
// change of the kernel, off the loop too: the launch's budget, the twenty-fifth session's, moved several by
// 2 to 5 instructions either way, the default's 530 and NQ_AHEAD_LAST's 476 not. results/gpu.md holds the
// latest table, `scripts/gpu-sass-count.sh --all` makes it.)
// It looks a row ahead (the look-ahead, NQ_AHEAD: the default since the twenty-second session) and counts the
// dead ends it sees without a turn of their own, about 28% of the nodes (see the turn). SASS on sm_90, nodes
// counted, the block's threads fixed as the program builds it: 530 instructions for sixteen turns on boards 19
// to 24 wide, 270 for eight on the others to 28 wide, for 0.71 of a turn a node: 23.6 a node. Without the
// look-ahead (NQ_PLAIN, the default to the twenty-first session), 320 and 167, 20.0 and 20.9 a node, and 328
// and 168 with the turn written in C (NQ_PLAIN NQ_TURN_C). Instructions a node are not what bound the loop:
// without the look-ahead it ran at 98% of what its nine wavefronts of shared memory a turn allow, and the
// look-ahead takes 29% fewer turns for as many wavefronts a turn. On an H200, the look-ahead took
// n = 21 in 8.5 s of kernels where NQ_PLAIN NQ_TURN_C took 9.86 s, and n = 22 in 73.9 s where it took 85.5 s
// (results/gpu.md, the twenty-second session). Variants that a GPU measured slower are gone from this source;
// results/gpu.md (the twenty-seventh session) names them and the commit that still has them.
// NQ_AHEAD_XOR (the twenty-third session's, not yet timed on a GPU) looks at the row ahead one column over, for
// the same dead ends in 514 instructions for sixteen turns (22.8 a node; 483 with NQ_UNCOUNTED); with
// NQ_AHEAD_CHILDREN and NQ_AHEAD_LAST (the twenty-fourth session's, not yet timed either: the nodes counted as
// each turn's children, the last row closed without a turn), 476 with the nodes counted (21.1 a node); on a
// square board that loop's stack has no level for the last row (NQ_LAST_UNPUSHED, the twenty-sixth session's:
// 24 bytes a thread fewer, a sixth block a multiprocessor at n = 20).
// - The stack lives in shared memory, four words a level: the row's untried squares `avail`, its free
//   columns `fc` (the board's columns not taken), and the diagonal masks `ld` and `rd` of the queens above it.
//   A turn takes the top entry's lowest square, stores the rest back, and pushes the child row's entry if the
//   child has a free square. A row whose last square is taken is popped in the same turn (the child, if any,
//   takes its place), so an entry on the stack always has a square left: no turn is spent backing up. After a
//   push the next turn's entry is the child's, in registers; otherwise it is loaded.
// - A level's words are two pairs of 8 bytes, (`avail`, `rd`) and (`fc`, `ld`), each pair in an array of its
//   own, a pair a thread, and a level's pairs for all threads of a block consecutive: every access of a warp
//   is two wavefronts of shared memory (256 bytes) whatever level each thread is at, and a turn takes five
//   accesses where four words apart took eight. A turn stores the rest with the row's `rd` (which the push
//   then need not store), reads the table, and where a child is pushed stores its free columns and left
//   diagonals, else loads the entry below (two pairs). A warp issues both in most turns: 9 wavefronts, as
//   many as the four words apart took (the kernel of the eleventh and twelfth sessions: 200 instructions for
//   eight turns); 6% less time at n = 20 to 22 on an H200 (results/gpu.md). One 16-byte entry a level (19.9
//   instructions a node, 13 wavefronts) took 14.5 s at n = 21 on an H100 where the four words apart took
//   11.2 s; entries stored only on a push and loaded only on a pop (16 bytes each, 27 instructions), one
//   atomic exchange for a push and a pop, and the levels packed in three words (7 wavefronts a turn, 28.9
//   instructions, 4 to 9% longer) were slower too (results/gpu.md).
// - What bounds the loop (probes, H200, results/gpu.md): one 32-bit store more a turn (a wavefront) takes 10%
//   longer, one instruction more in 16 1.2%. Without the look-ahead the two pairs meet both limits: 9
//   wavefronts a turn at one a cycle a multiprocessor, 21.75 instructions at the 2.3 to 3 a cycle this loop
//   sustains. With it the loop runs at 80% of its wavefronts' bound, about 11.3 cycles of a multiprocessor a
//   warp's turn against 9 wavefronts and 8.3 issue slots: what binds it waits for a profile,
//   `scripts/gpu-session.sh profile`.
// - Below the task's first row lie the sentinels: their squares are the word's top NQ_SENTINEL_SQUARES bits,
//   beyond any column of a board at most 32 - NQ_SENTINEL_SQUARES wide, so the search is over when the next
//   entry holds one of them. The loop tests that once every NQ_UNROLL turns; the turns after the task's end
//   (at most NQ_UNROLL - 1) take the sentinels' squares one by one, the top sentinel's first, then, once it
//   is popped, the next one's. There are enough sentinels never to run out of squares (NQ_SENTINELS), so
//   the last is never popped. Those turns find nothing to push or count (their rows of the table have no
//   square and no mark), and the squares left on the sentinels say how many there were, so the nodes are the
//   turns less those. A sentinel's `ld` word holds the squares of the sentinels below it, for that count: its
//   diagonals are never used, the table's row having no square.
//   With eight turns, boards to 24 wide take one sentinel of eight squares, wider ones (to 28) two of four
//   (src/gpu/task.rs): the loop is the same, only the task's start stores one entry more.
// - The rows' constraints (the frame of the full symmetry mode: its side rows, and the squares its border
//   queens attack) come from a table of each row's open squares, one word a row, copied into shared memory
//   when the thread takes a task. With the popped rows gone from the stack, a level no longer names its row:
//   the number of free columns does (each row takes one), so the table is indexed by `popc(fc)`.
// - The row after the last is marked by bit 31 in the table (never a column): a queen whose child
//   row carries the mark completes a solution, counted with a shift and an add. So the last row is searched
//   like any other, which needs no test for it, and a rectangle's last line counts each of its free squares.
// - A node is a queen placed, as the CPU kernel counts them: every turn on the task's rows is one. The
//   task's counters of solutions and passes are 32-bit (a 64-bit one costs a turn an instruction), added to
//   its unit once the task is done. They are exact if the task took fewer than 2^32 turns
//   (NQ_TRUSTED_TURNS_LOG): fewer than 2^32 / NQ_UNROLL passes, which the task's end tests, as long as the
//   count of passes did not wrap. A turn is more than 16 instructions (the SASS count), issued in order at
//   most one a cycle, so a pass takes more than 16 * NQ_UNROLL cycles and a task that took fewer than
//   2^36 * NQ_UNROLL cycles of the multiprocessor's clock (about 4.6 minutes with eight turns a pass) made
//   fewer than 2^32 passes. (The bound was 2^36 cycles, 35 s, until tasks of n = 26 were seen to take up to
//   20 s.) A task past either bound marks its unit in `trouble`, and the host counts that unit again on the
//   CPU.
// - Threads take tasks from one atomic counter, so tasks of any size mix. A thread whose task ends takes the
//   next one inside the search loop, while the other threads of its warp wait only for that: with a loop
//   for each task, the warp waited at its end for its longest task (about half the lanes idle, by the
//   sizes of the tasks; on an H200, n = 21 took 16.1 s rather than 18.6 s once changed).
// - The table is laid out as the stack is, a word a thread: the same row of it for all threads of a block
//   consecutive, one wavefront a read.

typedef unsigned int u32;
typedef unsigned long long u64;

// The layout of `Task` in src/gpu/task.rs: four 32-bit words, 16 bytes (a batch's tasks are copied to the GPU:
// they were 32 bytes, with the first row's squares, which the kernel now takes from the unit's table). Not
// declared 16-byte aligned: with `__align__(16)` ptxas allocated the search loop's registers worse (177 SASS
// instructions for eight turns rather than 174).
struct Task {
    // The columns no queen takes, and the first row's squares attacked along each diagonal.
    u32 fc, ld, rd;
    // The task's unit, numbered within its batch (the high bits, from NQ_LOW_BITS up), and the lowest table
    // index its rows use (the low NQ_LOW_BITS).
    u32 unit;
};
#define NQ_LOW_BITS 5u

// The table's words a unit has: one for each possible count of free columns.
#define NQ_TABLE 32u
// The mark of the row after the last.
#define NQ_END 0x80000000u

#ifndef NQ_STACK
#define NQ_STACK(name) extern __shared__ __align__(16) char name[]
#endif
// The host's tests (tests/gpu/host.h) end a task that runs far longer than any of theirs, so that a loop that
// never ends its tasks fails them rather than hangs them. On the GPU it is never true.
#ifndef NQ_HOST_GUARD
#define NQ_HOST_GUARD(passes) false
#endif
// The host's tests add up the turns each task took (`turns`), to see the look-ahead (NQ_AHEAD) take fewer turns
// than the nodes it counts. On the GPU it does nothing.
#ifndef NQ_HOST_TURNS
#define NQ_HOST_TURNS(turns)
#endif

// Turns a pass of the search loop takes before it tests for the task's end (see above): 1, 2, 4, 8 or 16,
// and the squares of each sentinel: 1, 2, 4, 8 or 16, the board at most 32 - NQ_SENTINEL_SQUARES wide. The
// program passes both (src/gpu/task.rs: sixteen turns on two sentinels of eight squares for boards 19 to 24
// wide, 20.5 SASS instructions a node; eight turns, 21.0 a node, elsewhere: one sentinel of eight squares on
// narrower boards, two of four on wider ones); the defaults take every board to 28 wide.
#ifndef NQ_UNROLL
#define NQ_UNROLL 8u
#endif
#ifndef NQ_SENTINEL_SQUARES
#define NQ_SENTINEL_SQUARES 4u
#endif
// The sentinels below a task's first row: enough squares for the NQ_UNROLL - 1 turns a pass may take after
// the task's end.
#define NQ_SENTINELS ((NQ_UNROLL - 1u) / NQ_SENTINEL_SQUARES + 1u)
// A sentinel's squares, and the lowest of them.
#define NQ_SENTINEL (~0u << (32u - NQ_SENTINEL_SQUARES))
#define NQ_SENTINEL_LOW (1u << (32u - NQ_SENTINEL_SQUARES))
// No task's slot: the thread's, before its first task.
#define NQ_NO_TASK 0xffffffffu
// log2(NQ_UNROLL).
#define NQ_UNROLL_LOG \
    (NQ_UNROLL >= 16u ? 4u : NQ_UNROLL >= 8u ? 3u : NQ_UNROLL >= 4u ? 2u : NQ_UNROLL >= 2u ? 1u : 0u)
// A task's counters are trusted below 2^NQ_TRUSTED_TURNS_LOG turns (32: they are 32-bit); the tests ask for
// fewer, to see a unit marked.
#ifndef NQ_TRUSTED_TURNS_LOG
#define NQ_TRUSTED_TURNS_LOG 32u
#endif

// The turn takes the square's rest after the child's free columns, and the child's diagonals from the free
// columns' change, so that ptxas need not copy the right diagonals a turn (see the turn; 328 SASS instructions
// for sixteen turns without the look-ahead, where the seventeenth session's turn took 336). Its shared
// accesses are written in PTX, their addresses the stack's top and the table's row in the shared window, the
// pop and the push in one block, so that ptxas need not copy the top either (320 without the look-ahead; on
// the GPU with the block's threads fixed, as the program builds it), unless NQ_TURN_C asks for them in C, to
// measure against. (NQ_TURN_PTX, the switch that asked for the PTX to the twenty-first session, is the default
// now, and changes nothing.)
#if !defined(NQ_TURN_C) && defined(NQ_THREADS) && defined(__CUDA_ARCH__)
#define NQ_TURN_IN_PTX
#endif
// Switches of variants that a GPU measured slower, gone from this source since the twenty-seventh session
// (results/gpu.md names the commit that has them): asking for one is an error, not the default in disguise.
#if defined(NQ_AOS) || defined(NQ_SOA) || defined(NQ_PACKED) || defined(NQ_PAIRS_C) || defined(NQ_AHEAD_MULHI) || \
    defined(NQ_AHEAD_BOTTOM) || defined(NQ_PROBE_ALU) || defined(NQ_PROBE_STS)
#error "this variant of the kernel was measured slower and removed (results/gpu.md, the twenty-seventh session)"
#endif
// NQ_AHEAD: the look-ahead of the nineteenth session (see the turn): the default, unless NQ_PLAIN asks for the
// loop without it.
#if !defined(NQ_PLAIN) && !defined(NQ_AHEAD)
#define NQ_AHEAD
#endif
#if defined(NQ_AHEAD) && defined(NQ_PLAIN)
#error "NQ_PLAIN is the loop without the look-ahead (NQ_AHEAD)"
#endif
// NQ_UNCOUNTED (the twenty-second session's probe; `count --uncounted-nodes` since the twenty-third): the
// look-ahead's dead ends not counted, and no node reported (a population count, an AND and an add a turn: 494
// SASS instructions for sixteen turns rather than 530, two population counts a turn rather than three). The
// host then marks the units the GPU counted as without their nodes (src/gpu/batch.rs, `finish`).
#if defined(NQ_UNCOUNTED) && !defined(NQ_AHEAD)
#error "NQ_UNCOUNTED leaves the look-ahead's dead ends uncounted: it takes the look-ahead"
#endif
#if defined(NQ_AHEAD_XOR) && !defined(NQ_AHEAD)
#error "NQ_AHEAD_XOR is a form of NQ_AHEAD"
#endif
// NQ_AHEAD_CHILDREN (the twenty-fourth session's, not yet timed on a GPU): the look-ahead's nodes counted as
// each turn's children (every free square of the child's row, one population count of a word the turn makes
// anyway) rather than as its dead ends (a three-way operation more): a task's nodes are then its first row's
// squares and its turns' children. With NQ_AHEAD_XOR, 498 instructions for sixteen turns rather than 514.
#if defined(NQ_AHEAD_CHILDREN) && !defined(NQ_AHEAD)
#error "NQ_AHEAD_CHILDREN counts the look-ahead's nodes: it takes the look-ahead"
#endif
// NQ_AHEAD_KEPT_FIRST (the twenty-fourth session's, not yet timed on a GPU), with NQ_AHEAD_CHILDREN: the kept
// squares of the child's row made from its free squares before the table's word comes, as the look-ahead
// without NQ_AHEAD_CHILDREN does, so that the push's test is one operation after the load rather than two
// (the children, then the free squares among them), for an operation more a turn: 495 instructions for
// sixteen turns with NQ_AHEAD_XOR NQ_AHEAD_LAST, rather than 476. Which counts more, the chain or the
// instructions, only a GPU says.
#if defined(NQ_AHEAD_KEPT_FIRST) && !defined(NQ_AHEAD_CHILDREN)
#error "NQ_AHEAD_KEPT_FIRST is a form of NQ_AHEAD_CHILDREN"
#endif
// NQ_AHEAD_LAST (the twenty-fourth session's, not yet timed on a GPU): the last row closed without a turn. Its
// table's word carries the mark NQ_LAST, and a turn whose child's row it is adds the child's squares (every
// one a solution) to the solutions; the look-ahead then needs no far bit, and drops them all (a square board's
// last row has one free column, which the row after it, taken from that row's columns, never leaves two
// columns away). A turn a solution fewer (0.5% of the turns at n = 19), two instructions fewer a turn for the
// far bit, and on boards at most 24 wide one multiply-add a turn for the nodes and the solutions together
// (the population count of the children is NQ_AHEAD_CHILDREN's). With NQ_AHEAD_XOR, 476 instructions for
// sixteen turns (29.75 a turn, 21.1 a node), where NQ_AHEAD_XOR alone takes 514 and the default 530; with
// NQ_UNCOUNTED too, 475: counting the nodes then costs next to nothing.
#if defined(NQ_AHEAD_LAST) && !defined(NQ_AHEAD_CHILDREN)
#error "NQ_AHEAD_LAST counts the last row's squares with the turn's children: it takes NQ_AHEAD_CHILDREN"
#endif
// NQ_LAST_UNPUSHED (the twenty-sixth session's, not yet timed on a GPU), with NQ_AHEAD_LAST, where every task's
// rows end with no free column (`low` 0: a square board's; the host builds it for square boards alone,
// src/gpu/task.rs `Turns::unpushed_last`): the stack and the table without what that loop never uses there. The
// last row has one free column, and the row after it none, so the look-ahead keeps none of the last row's
// squares: it is never pushed, and no turn reads the end's row of the table (a task has two rows or more: the
// host counts a task of the last row alone itself, src/gpu/task.rs `split`). So the host passes `levels` one
// fewer, and the table keeps the rows from the last to the one after the first, `levels` words where it kept
// `levels + 1` (the task's rows but the first, the end's and the sentinels'). The sentinels read the last row's
// word: a sentinel's child has no square but bit 31 (its `rd` is all ones), and bit 31 marks the end's row
// alone. 24 bytes of shared memory a thread fewer: n = 20 (14 levels) 292 rather than 316 with sixteen turns, a
// sixth block of 128 threads on an H100's or H200's multiprocessor (at most 296); n = 21 312 rather than 336
// (five still), or 296 with eight turns (six). The loop is the same; ptxas allocates its registers a little
// differently: 479 SASS instructions for sixteen turns rather than 476, 248 for eight as before.
#if defined(NQ_LAST_UNPUSHED) && !defined(NQ_AHEAD_LAST)
#error "NQ_LAST_UNPUSHED sizes the stack for NQ_AHEAD_LAST's loop, which never pushes a square board's last row"
#endif
// The table's rows for a stack of `levels` levels (see NQ_LAST_UNPUSHED), and the rows it leaves out below
// its first (the end's, with NQ_LAST_UNPUSHED): the table's row for `m` free columns is where it would be with
// them, so that the turn reads it as it does without.
#ifdef NQ_LAST_UNPUSHED
#define NQ_TABLE_ROWS(levels) (levels)
#define NQ_TABLE_LEFT_OUT 1u
#else
#define NQ_TABLE_ROWS(levels) ((levels) + 1u)
#define NQ_TABLE_LEFT_OUT 0u
#endif
// NQ_PUSH_LAST (the twenty-fourth session's, not yet timed on a GPU): the push's step of the stack's top
// after the turn's accesses of the stack, which then address it from the top before the push, so that the
// next entry's load waits for the push's test alone. Fewer instructions with NQ_UNCOUNTED (478 for sixteen
// turns with NQ_AHEAD_XOR, rather than 483: fewer copies of the top between registers), a few more without.
#if defined(NQ_PUSH_LAST) && !defined(NQ_TURN_IN_PTX)
#error "NQ_PUSH_LAST is a form of the turn's accesses written in PTX (not NQ_TURN_C)"
#endif
// The look-ahead's far bit (bit 30: never a column of a board at most 28 wide), set where the row after the
// child's is the end's.
#define NQ_AHEAD_FAR 0x40000000u
// The mark of the last row in a unit's table (task.rs, `LAST`): never a column.
#define NQ_LAST 0x40000000u
// NQ_AHEAD_LAST's count of a pass's nodes, in the low bits of a word whose high bits count its solutions.
#define NQ_PASS_NODES 0x003fffffu
// PTX's three-way logical operation (lop3.b32): bit i of the result is bit (a_i * 4 + b_i * 2 + c_i) of `lut`,
// the table's bits being those of 0xf0, 0xcc and 0xaa combined as the operation combines a, b and c.
template <u32 lut>
__device__ __forceinline__ u32 nq_lop3(u32 a, u32 b, u32 c)
{
#ifdef __CUDA_ARCH__
    u32 r;
    asm("lop3.b32 %0, %1, %2, %3, %4;" : "=r"(r) : "r"(a), "r"(b), "r"(c), "n"(lut));
    return r;
#else
    u32 r = 0u;
    for (u32 i = 0u; i < 32u; i++) {
        const u32 k = (((a >> i) & 1u) << 2) | (((b >> i) & 1u) << 1) | ((c >> i) & 1u);
        r |= ((lut >> k) & 1u) << i;
    }
    return r;
#endif
}

// PTX's byte permutation (prmt.b32, its default mode): byte i of the result is byte (s >> 4i) & 7 of the
// pair (x, y), x's bytes first, or that byte's sign across all eight bits where (s >> 4i) & 8 is set.
__device__ __forceinline__ u32 nq_prmt(u32 x, u32 y, u32 s)
{
#ifdef __CUDA_ARCH__
    u32 r;
    asm("prmt.b32 %0, %1, %2, %3;" : "=r"(r) : "r"(x), "r"(y), "r"(s));
    return r;
#else
    const unsigned long long xy = ((unsigned long long)y << 32) | x;
    u32 r = 0u;
    for (u32 i = 0u; i < 4u; i++) {
        const u32 c = (s >> (4u * i)) & 15u;
        u32 b = (u32)(xy >> (8u * (c & 7u))) & 0xffu;
        if (c & 8u) {
            b = (b & 0x80u) ? 0xffu : 0u;
        }
        r |= b << (8u * i);
    }
    return r;
#endif
}

// `x >> s`, 0 where s is 32 or more (PTX's shr clamps the shift; C leaves it undefined).
__device__ __forceinline__ u32 nq_shr(u32 x, u32 s)
{
#ifdef __CUDA_ARCH__
    u32 r;
    asm("shr.b32 %0, %1, %2;" : "=r"(r) : "r"(x), "r"(s));
    return r;
#else
    return s >= 32u ? 0u : x >> s;
#endif
}

// The shift that takes x's highest bit to bit 31 (31 less its place), 0xffffffff for x = 0 (PTX's bfind with
// .shiftamt: one instruction, where __clz took two, a bfind and a subtraction).
__device__ __forceinline__ u32 nq_shift_to_top(u32 x)
{
#ifdef __CUDA_ARCH__
    u32 r;
    asm("bfind.shiftamt.u32 %0, %1;" : "=r"(r) : "r"(x));
    return r;
#else
    return x ? (u32)__builtin_clz(x) : 0xffffffffu;
#endif
}

extern "C" __global__ void count_tasks(const Task* __restrict__ tasks, u32 count, u32* next,
                                       const u32* __restrict__ tables, u64* solutions, u64* nodes,
                                       u32* trouble, u32 levels, u32 budget)
{
    NQ_STACK(shared);
    // Bytes from one level of the stack to the next, and from one row of the table to the next.
#if defined(NQ_THREADS)
    // The block's threads fixed at compile time, so that the arrays' words are reached with immediate
    // offsets (the four words apart: 25.0 SASS instructions a node with eight turns, 29 with `blockDim.x`).
    const u32 level = 16u * NQ_THREADS;
    const u32 step = 4u * NQ_THREADS;
#ifdef __CUDA_ARCH__
    // Launched with other blocks than compiled for, the threads' words would overlap: fail the launch.
    if (blockDim.x != NQ_THREADS) {
        __trap();
    }
#endif
#else
    const u32 level = 16u * blockDim.x;
    const u32 step = 4u * blockDim.x;
#endif
    // The stack's levels: the sentinels', then the task's `levels`; then the table's NQ_TABLE_ROWS(levels) rows,
    // `table` the place of its end's row (with NQ_LAST_UNPUSHED, not kept: the stack's last level's).
    const u32 table = (levels + NQ_SENTINELS) * level - NQ_TABLE_LEFT_OUT * step + 4u * threadIdx.x;
#ifdef NQ_TURN_IN_PTX
    // The block's shared memory in the shared window: the turn's PTX addresses the stack and the table there.
    const u32 window = (u32)__cvta_generic_to_shared(shared);
#endif
    // The thread's task: its unit, the turns of the search loop and the solutions it found, the clock when it
    // began. `slot` is NQ_NO_TASK before the first task, which has nothing to add.
    u32 slot = NQ_NO_TASK, sol = 0u, passes = 0u;
#ifdef NQ_AHEAD
    // The task's nodes that the look-ahead counts apart from its turns: its dead ends (nodes all the same,
    // without a turn), or with NQ_AHEAD_CHILDREN each turn's children, every free square of the child's row
    // (from the task's first row's squares on: those are the task's nodes then, its turns not counted). A
    // 32-bit count a pass (at most 28 a turn), added up in 64 bits.
    u64 ahead_nodes = 0u;
#endif
#if defined(NQ_AHEAD) && !defined(NQ_AHEAD_LAST)
    // The free columns of the end's row plus two: a child row with one fewer than that is the last searched.
    u32 end_plus_two = 0u;
#endif
#if defined(NQ_AHEAD_LAST) && NQ_SENTINEL_SQUARES >= 8 && !defined(NQ_UNCOUNTED)
    // 1, in a register of its own: PRMT takes one constant, and ptxas otherwise copies the other into a
    // register in every turn.
    const u32 one = (levels >> 31) + 1u;
#endif
    long long began = 0;
    // The launch's start, in units of 2^16 cycles of the multiprocessor's clock. A thread takes no task but
    // its first once `budget` such units have gone since (0: no bound), so that a launch ends soon after:
    // a GPU that drives a display has its driver stop kernels that run for more than a few seconds. The
    // host launches the batch again until every task is taken (`next` counts them across launches, and the
    // counters add up across them); a thread's first task of a launch is always taken, so each launch
    // takes some.
    const u32 launched = (u32)((unsigned long long)clock64() >> 16);
    // The stack's top entry (the search loop's state), its place, and where the table's row for no free
    // column is. The entry starts as a sentinel's, so that the first pass takes a task.
    uint4 e = make_uint4(NQ_SENTINEL, 0u, 0u, 0u);
    u32 top = 0u, tab = 0u;
    // One loop for all the thread's tasks: a thread whose task ends takes the next one here and goes on while
    // the warp's other threads go on with theirs. (A loop for each task would make every thread of a warp wait
    // at its end for the warp's longest task: about half the lanes idle, results/gpu.md.)
    for (;;) {
        if (e.x >= NQ_SENTINEL_LOW || NQ_HOST_GUARD(passes)) {
            if (slot != NQ_NO_TASK) {
                // The turns after the task's last took the sentinels' squares: those left are the top
                // sentinel's and, in its `ld` word, those of the sentinels below it.
                const u32 nod = passes * NQ_UNROLL + __popc(e.x) + e.z - NQ_SENTINELS * NQ_SENTINEL_SQUARES;
                NQ_HOST_TURNS(nod);
                if (((unsigned long long)(clock64() - began) >> (36u + NQ_UNROLL_LOG)) != 0u ||
                    ((u64)passes >> (NQ_TRUSTED_TURNS_LOG - NQ_UNROLL_LOG)) != 0u) {
                    atomicAdd(&trouble[slot], 1u);
                }
                atomicAdd(&solutions[slot], (u64)sol);
#if defined(NQ_UNCOUNTED)
                // No node reported (the probe: see above).
#elif defined(NQ_AHEAD_CHILDREN)
                atomicAdd(&nodes[slot], ahead_nodes);
#elif defined(NQ_AHEAD)
                atomicAdd(&nodes[slot], (u64)nod + ahead_nodes);
#else
                atomicAdd(&nodes[slot], (u64)nod);
#endif
                if (budget != 0u && (u32)((unsigned long long)clock64() >> 16) - launched >= budget) {
                    return;
                }
            }
            const u32 t = atomicAdd(next, 1u);
            if (t >= count) {
                return;
            }
            const Task task = tasks[t];
            slot = task.unit >> NQ_LOW_BITS;
            const u32 low = task.unit & ((1u << NQ_LOW_BITS) - 1u);
            const u32* const rows = tables + NQ_TABLE * slot;
            const u32 high = __popc(task.fc);
            // The task's rows but the first, and the end's (with NQ_LAST_UNPUSHED, from the last row on: at least
            // that, a task having two rows or more).
            for (u32 m = low + NQ_TABLE_LEFT_OUT; m < high; m++) {
                *(u32*)(shared + table + (m - low) * step) = rows[m];
            }
#ifndef NQ_LAST_UNPUSHED
            // The sentinels' row: no square, no end mark. (With NQ_LAST_UNPUSHED they read the last row's.)
            *(u32*)(shared + table + (high - low) * step) = 0u;
#endif
            // The first row's squares: its open squares (the unit's table has the row, at its count of free
            // columns) that no queen attacks.
            const u32 avail = task.fc & ~(task.ld | task.rd) & rows[high];
            // The table's row for `m` free columns is at `tab + m * step`. Opaque to the compiler, which would
            // otherwise take `low` back out of it in every turn.
            tab = table - low * step;
#ifdef __CUDA_ARCH__
            asm("" : "+r"(tab));
#endif
            // The sentinels (levels 0 to NQ_SENTINELS - 1): squares beyond the board, so the turns after the
            // task's last take one each and never pop the last; free columns that, with the square taken,
            // read the sentinels' row of the table, which has no square, so they push nothing; in `ld`, the
            // squares of the sentinels below, for the count of nodes. (Their columns are not the task's:
            // ptxas allocates the loop's registers worse when the same value is stored twice.) With
            // NQ_LAST_UNPUSHED they read the last row's word, which has no bit 31 either: their columns are
            // the end's count, `low`.
#if defined(NQ_LAST_UNPUSHED)
            const u32 cols = (1u << low) - 1u;
#else
            const u32 cols = (1u << (high - 1u)) - 1u;
#endif
            top = 8u * threadIdx.x;
            for (u32 s = 0u; s < NQ_SENTINELS; s++, top += level) {
                *(uint2*)(shared + top) = make_uint2(NQ_SENTINEL, ~0u);
                *(uint2*)(shared + top + 2u * step) = make_uint2(cols, s * NQ_SENTINEL_SQUARES);
            }
            // The task's row: its free columns and left diagonals here, its squares and right diagonals
            // stored by its first turn.
            *(uint2*)(shared + top + 2u * step) = make_uint2(task.fc, task.ld);
            e = make_uint4(avail, task.fc, task.ld, task.rd);
            // (No task's first row is the last, whose squares NQ_AHEAD_LAST would count here: the host counts
            // such a task itself, src/gpu/task.rs `split`.)
            sol = 0u;
            passes = 0u;
#ifdef NQ_AHEAD
#ifdef NQ_AHEAD_CHILDREN
            // Every node but the first row's is a child of a turn.
            ahead_nodes = (u64)__popc(avail);
#else
            ahead_nodes = 0u;
#endif
#ifndef NQ_AHEAD_LAST
            end_plus_two = low + 2u;
#endif
#endif
            began = clock64();
#ifdef NQ_TURN_IN_PTX
            top += window;
            tab += window;
#endif
        }
#ifdef NQ_AHEAD
        u32 pass_ahead_nodes = 0u;
#endif
#ifdef __CUDA_ARCH__
#pragma unroll
#endif
        for (u32 i = 0; i < NQ_UNROLL; i++) {
            // The square is the lowest of e.x, e.x & ~below: the child's free columns are e.y less it. The rest,
            // e.x & below, is taken after them (its third operand, fc, is not used: lop3's table 0xc0 is a & b),
            // so that e.x is then used no more and the rest can take its register, beside e.w's for the pair's
            // store. (Taken first, as the seventeenth session's turn did, ptxas copied e.w in every turn.)
            const u32 below = e.x - 1u;
            const u32 fc = nq_lop3<0xb4u>(e.y, e.x, below);
            const u32 rest = nq_lop3<0xc0u>(e.x, below, fc);
#ifdef NQ_TURN_IN_PTX
            asm volatile("st.shared.v2.u32 [%0], {%1, %2};" ::"r"(top), "r"(rest), "r"(e.w) : "memory");
#else
            *(uint2*)(shared + top) = make_uint2(rest, e.w);
#endif
            // Pop the row if this was its last square, then (below) push the child over it or above it.
            // Written here, as a predicated subtraction right after the store, ptxas makes the rest and
            // its test in one instruction and keeps the next turn's load predicated (tested after the table's
            // look-up, 9 or 10 instructions more for four turns; as a plain `if`, a select and an add).
#if defined(NQ_TURN_IN_PTX)
            // Popped with the push, at the turn's end.
#elif defined(__CUDA_ARCH__)
            asm("{\n\t.reg .pred p;\n\tsetp.eq.u32 p, %1, 0;\n\t@p sub.u32 %0, %0, %2;\n\t}"
                : "+r"(top)
                : "r"(rest), "r"(level));
#else
            if (rest == 0u) {
                top -= level;
            }
#endif
            // The queen's square is free: in fc, in neither diagonal. The queen is the free columns' change,
            // e.y ^ fc.
            const u32 ld = nq_lop3<0xf6u>(e.z, e.y, fc) << 1;
            const u32 rd_pre = nq_lop3<0xf6u>(e.w, e.y, fc);
            const u32 rd = rd_pre >> 1;
#ifdef NQ_TURN_IN_PTX
            u32 open;
            asm volatile("ld.shared.u32 %0, [%1];" : "=r"(open) : "r"(tab + __popc(fc) * step) : "memory");
#else
            const u32 open = *(const u32*)(shared + tab + __popc(fc) * step);
#endif
#if defined(NQ_AHEAD)
            // The look-ahead (NQ_AHEAD): a square of the child's row whose queen would leave the row after it no
            // square is a dead end, a node that takes no turn here: counted, not pushed. The row after the
            // child's has the squares `ahead` free of the queens placed so far (a superset: its own frame is
            // left out, which only keeps some dead ends), and a queen on square c of the child's row takes c
            // and its two neighbours from it (its column and diagonals). So c leaves a square there exactly
            // when one of `ahead` lies two columns or more from c: c at most the highest less two (`high`, the
            // bits up to there: 0x3fffffff shifted right by the shift that takes the highest to bit 31), or at
            // least the lowest plus two (the bits from the lowest of z = ahead << 2 up: z | -z). None is dead
            // if the row after the child's is the end's (the child's row has one free column more than the
            // end's): then `ahead` takes a far bit, bit 30 of m - end_plus_two, from the child's count m.
            // All of it but the free squares' last AND is made from registers, beside the table's load, off
            // the chain from a loaded entry to the next. By a count of the tree (the border units of n = 10 to
            // 16, results/gpu.md), 27% of the nodes are dead ends caught so, for 13.1 more SASS instructions a
            // turn (530 for sixteen turns, against 320 without the look-ahead), half of them integer logic.
#ifdef NQ_AHEAD_XOR
            // NQ_AHEAD_XOR: the row after the child's taken one column over (column c at bit c + 1), from `rd`
            // itself rather than a shift of its own: then the squares to keep below the lowest plus two are
            // those above the lowest bit's, one subtraction and one XOR (`low`), where the row as it lies
            // took a shift and a negation. One instruction fewer a turn (see below).
            u32 unseen = nq_lop3<0x10u>(fc << 1, ld << 2, rd);
#else
            u32 unseen = nq_lop3<0x10u>(fc, ld << 1, rd_pre >> 2);
#endif
#ifdef NQ_AHEAD_XOR
            // Shifted, the far bit is bit 31, and the highest bit a column's place plus one: the squares up to
            // the highest less two are 0x1fffffff shifted right by the shift that takes it to bit 31. The squares
            // up to the lowest plus one are the bits up to the lowest one, `low`; the squares kept are those
            // up to the highest less two, or not in `low`, one three-way operation with the row's free squares.
#ifdef NQ_AHEAD_LAST
            // No far bit (NQ_AHEAD_LAST): the last row's squares are its solutions, counted below, not pushed.
            const u32 ahead = unseen;
#else
            const u32 ahead = nq_lop3<0xf8u>(unseen, (u32)__popc(fc) - end_plus_two, NQ_AHEAD_FAR << 1);
#endif
            const u32 high = nq_shr(0x1fffffffu, nq_shift_to_top(ahead));
            const u32 all = nq_lop3<0x10u>(fc, ld, rd);
#ifdef NQ_AHEAD_CHILDREN
            // The child's row's free squares, every one a node (NQ_AHEAD_CHILDREN: counted below), and those
            // kept of them. Written in C: ptxas makes `high | ~low` one three-way operation of `high`, `ahead`
            // and `ahead - 1`, and the AND the push's test (the same written with nq_lop3 ran ptxas for more
            // than ten minutes without an end, ptxas 13.5).
            const u32 children = all & open;
#ifdef NQ_AHEAD_KEPT_FIRST
            // The kept squares made before the table's word comes (NQ_AHEAD_KEPT_FIRST, see above).
            const u32 kept = nq_lop3<0xd0u>(all, high, ahead ^ (ahead - 1u));
            const u32 free = kept & open;
#else
            const u32 free = children & (high | ~(ahead ^ (ahead - 1u)));
#endif
#else
            const u32 low = ahead ^ (ahead - 1u);
            // all & (high | ~low).
            const u32 kept = nq_lop3<0xd0u>(all, high, low);
#ifndef NQ_UNCOUNTED
            // The dead ends: all & ~kept & open.
            pass_ahead_nodes += (u32)__popc(nq_lop3<0x20u>(all, kept, open));
#endif
            const u32 free = kept & open;
#endif
#else
#ifdef NQ_AHEAD_LAST
            const u32 ahead = unseen;
#else
            const u32 ahead = nq_lop3<0xf8u>(unseen, (u32)__popc(fc) - end_plus_two, NQ_AHEAD_FAR);
#endif
            const u32 high = nq_shr(0x3fffffffu, nq_shift_to_top(ahead));
            const u32 keep = nq_lop3<0xfeu>(high, ahead << 2, ahead * 0xfffffffcu);
            const u32 all = nq_lop3<0x10u>(fc, ld, rd);
#ifdef NQ_AHEAD_CHILDREN
            // As above: every free square of the child's row a node, counted below.
            const u32 children = all & open;
#ifdef NQ_AHEAD_KEPT_FIRST
            u32 kept = all & keep;
#ifdef __CUDA_ARCH__
            asm("" : "+r"(kept));
#endif
            const u32 free = kept & open;
#else
            const u32 free = children & keep;
#endif
#else
#ifndef NQ_UNCOUNTED
            pass_ahead_nodes += (u32)__popc(nq_lop3<0x40u>(all, open, keep));
#endif
            // The AND of the table's word last and in C, so that ptxas makes the push's test with it (made
            // opaque, `kept` is not taken apart again: ptxas put the table's word in first). (NQ_AHEAD_XOR's
            // `kept` is a three-way operation in PTX, opaque already.)
            u32 kept = all & keep;
#ifdef __CUDA_ARCH__
            asm("" : "+r"(kept));
#endif
            const u32 free = kept & open;
#endif
#endif
#if defined(NQ_AHEAD_LAST)
            // The last row's squares (its table's word marked NQ_LAST) are the solutions of the child's queens,
            // a child each: counted here, where a turn each took them before (NQ_AHEAD_LAST, see above).
            const u32 kids = (u32)__popc(children);
#if NQ_SENTINEL_SQUARES >= 8 && !defined(NQ_UNCOUNTED)
            // On boards at most 24 wide the table's top byte holds the marks alone: one multiply-add counts the
            // children as nodes (the pass's low 22 bits) and, on the last row, as solutions (from bit 22 up:
            // its byte is NQ_LAST's, 0x40, there; the end's row has no child). At most 28 a turn either way,
            // so neither field overflows in a pass of up to sixteen turns.
            pass_ahead_nodes += kids * nq_prmt(open, one, 0x5354u);
#else
            // `open >> 30` is 1 on the last row, 0 on the others but the end's, where there is no child.
            sol += kids * (open >> 30);
#ifndef NQ_UNCOUNTED
            pass_ahead_nodes += kids;
#endif
#endif
#elif defined(NQ_AHEAD_CHILDREN) && !defined(NQ_UNCOUNTED)
            pass_ahead_nodes += (u32)__popc(children);
#endif
#else
            const u32 free = nq_lop3<0x10u>(fc, ld, rd) & open;
#endif
#ifndef NQ_AHEAD_LAST
            sol += open >> 31;
#endif
#if defined(NQ_TURN_IN_PTX)
            // As below, in one block with the pop: written in C, ptxas kept the stack's top in two registers, a
            // copy a turn, the push's store and the loads addressed from the top before the push.
            e = make_uint4(free, fc, ld, rd);
#ifdef NQ_PUSH_LAST
            // The child's pair a level above the top, then the top stepped up (NQ_PUSH_LAST, see above).
            asm volatile("{\n\t.reg .pred pop, push;\n\t"
                         "setp.eq.u32 pop, %5, 0;\n\t"
                         "@pop sub.u32 %4, %4, %6;\n\t"
                         "setp.ne.u32 push, %0, 0;\n\t"
                         "@push st.shared.v2.u32 [%4+%8], {%1, %2};\n\t"
                         "@!push ld.shared.v2.u32 {%0, %3}, [%4];\n\t"
                         "@!push ld.shared.v2.u32 {%1, %2}, [%4+%7];\n\t"
                         "@push add.u32 %4, %4, %6;\n\t}"
                         : "+r"(e.x), "+r"(e.y), "+r"(e.z), "+r"(e.w), "+r"(top)
                         : "r"(rest), "r"(level), "n"(2u * step), "n"(16u * NQ_THREADS + 2u * step)
                         : "memory");
#else
            asm volatile("{\n\t.reg .pred pop, push;\n\t"
                         "setp.eq.u32 pop, %5, 0;\n\t"
                         "@pop sub.u32 %4, %4, %6;\n\t"
                         "setp.ne.u32 push, %0, 0;\n\t"
                         "@push add.u32 %4, %4, %6;\n\t"
                         "@push st.shared.v2.u32 [%4+%7], {%1, %2};\n\t"
                         "@!push ld.shared.v2.u32 {%0, %3}, [%4];\n\t"
                         "@!push ld.shared.v2.u32 {%1, %2}, [%4+%7];\n\t}"
                         : "+r"(e.x), "+r"(e.y), "+r"(e.z), "+r"(e.w), "+r"(top)
                         : "r"(rest), "r"(level), "n"(2u * step)
                         : "memory");
#endif
#else
            // The pushed row's squares and right diagonals need no store: its first turn stores them.
            if (free != 0u) {
                top += level;
                *(uint2*)(shared + top + 2u * step) = make_uint2(fc, ld);
                e = make_uint4(free, fc, ld, rd);
            } else {
                const uint2 a = *(const uint2*)(shared + top);
                const uint2 b = *(const uint2*)(shared + top + 2u * step);
                e = make_uint4(a.x, b.x, b.y, a.y);
            }
#ifdef __CUDA_ARCH__
            // Opaque: 174 instructions for eight turns, 186 without (the seventeenth session's turn).
            asm("" : "+r"(top));
#endif
#endif
        }
        // Passes, not turns: ptxas keeps a copy of a counter of turns for after the loop.
        passes++;
#if defined(NQ_AHEAD_LAST) && NQ_SENTINEL_SQUARES >= 8 && !defined(NQ_UNCOUNTED)
        // The pass's nodes and solutions in one word (see the turn).
        ahead_nodes += pass_ahead_nodes & NQ_PASS_NODES;
        sol += pass_ahead_nodes >> 22;
#elif defined(NQ_AHEAD)
        ahead_nodes += pass_ahead_nodes;
#endif
    }
}
