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
// dead ends it sees without a turn of their own, about 28% of the nodes (see the turn). Its form since the
// thirty-second session is the one an H200 timed fastest in the thirty-first (results/gpu.md): the row ahead
// taken one column over (the twenty-third session's NQ_AHEAD_XOR: one instruction fewer a turn), the nodes
// counted as each turn's children (the twenty-fourth's NQ_AHEAD_CHILDREN: one population count of a word the
// turn makes anyway), the last row closed without a turn (NQ_AHEAD_LAST: its squares are solutions, counted
// with the children), and the push's step of the stack's top after the turn's accesses of the stack
// (NQ_PUSH_LAST), so that the next entry's load waits for the push's test alone. Those names are taken and
// change nothing now. SASS on sm_90, nodes counted, the block's threads fixed as the program builds it: 476
// instructions for sixteen turns on square boards 19 to 24 wide, for 0.708 of a turn a node: 21.1 a node (482
// on a rectangle, whose count of solutions is 64-bit: NQ_WIDE_SOLUTIONS). On an H200
// it took n = 21 in 7.62 s of kernels where the look-ahead's first form (530 instructions) took 8.43 s, n = 20
// in 0.97 s where that took 1.10 s. On a square board its stack has no level for the last row
// (NQ_LAST_UNPUSHED, which the program defines: 24 bytes a thread fewer, a sixth block a multiprocessor at
// n = 20). Without the look-ahead (NQ_PLAIN, the default to the twenty-first session), 320 and 167 for sixteen
// and eight turns, a turn a node, and 328 and 168 with the turn written in C (NQ_PLAIN NQ_TURN_C). Variants
// that a GPU measured slower are gone from this source; results/gpu.md (the twenty-seventh and thirty-second
// sessions) names them and the commits that still have them. Not yet timed: the look-ahead's row taken with
// its frame (NQ_AHEAD_FRAME, below), 500 instructions for sixteen turns on a square board with a solution
// counted a turn without a population count (NQ_SOLUTION_A_TURN), for 0.636 of a turn a node: 19.9 a node,
// 19.0 with the nodes uncounted (477).
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
//   bit 31 among them, which no board's column is, so the search is over when the next entry holds bit 31
//   (a sentinel's squares are taken from the lowest, so it holds bit 31 until it is popped). The loop tests
//   that once every NQ_UNROLL turns; the turns after the task's end (at most NQ_UNROLL - 1) take the
//   sentinels' squares one by one, the top sentinel's first, then, once it is popped, the next one's. There
//   are enough sentinels never to run out of squares (NQ_SENTINELS), so the last is never popped. Those
//   turns find nothing to push or count (their rows of the table have no square and no mark, or the
//   sentinel's right diagonals, all ones, leave its child no square), and the squares left on the sentinels
//   say how many there were, so the nodes are the turns less those. A sentinel's `ld` word holds the squares
//   of the sentinels below it, for that count: its diagonals are never used.
//   Since the thirty-third session the program builds one sentinel of 32 squares, the whole word, for every
//   board (src/gpu/task.rs): its squares below bit 28 are columns of the board too, and a turn that takes
//   one of them reads a row of the task's table rather than the sentinels' (its free columns less that
//   column), which is harmless: the sentinel's right diagonals leave its child no square, and that row is
//   not the end's, whose mark NQ_PLAIN counts, since every task has three rows or more (src/gpu/task.rs,
//   `split`). One level of stack a thread, 16 bytes, where sixteen turns took two sentinels of eight squares
//   on boards 19 to 24 wide, and boards 25 to 28 wide, which took eight turns on two sentinels of four
//   squares, take sixteen.
// - The rows' constraints (the frame of the full symmetry mode: its side rows, and the squares its border
//   queens attack) come from a table of each row's open squares, one word a row, copied into shared memory
//   when the thread takes a task. With the popped rows gone from the stack, a level no longer names its row:
//   the number of free columns does (each row takes one), so the table is indexed by `popc(fc)`.
// - The last row is marked by NQ_LAST in the table (never a column): the look-ahead counts its free squares
//   as solutions, a child each, where a turn would take each, so a rectangle's last line counts each of its
//   free squares. Without the look-ahead (NQ_PLAIN), the row after the last is marked by bit 31: a queen whose
//   child row carries the mark completes a solution, counted with a shift and an add, the last row searched
//   like any other.
// - A node is a queen placed, as the CPU kernel counts them: the task's first row's squares and every turn's
//   children (without the look-ahead, every turn on the task's rows is one). The task's counters of solutions
//   and passes are 32-bit (a 64-bit one costs a turn an instruction), added to its unit once the task is done;
//   on a rectangle, whose turns may each count up to 28 solutions (the last row's free squares), a pass's
//   solutions are added up in 32 bits and the task's in 64 (NQ_WIDE_SOLUTIONS). They are exact if the task
//   took fewer than 2^32 turns (NQ_TRUSTED_TURNS_LOG): fewer than 2^32 / NQ_UNROLL passes, which the task's
//   end tests, as long as the count of passes did not wrap. A turn is more than 16 instructions (the
//   SASS count), issued in order at most one a cycle, so a pass takes more than 16 * NQ_UNROLL cycles and a
//   task that took fewer than 2^36 * NQ_UNROLL cycles of the multiprocessor's clock (about 4.6 minutes with
//   eight turns a pass) made fewer than 2^32 passes. (The bound was 2^36 cycles, 35 s, until tasks of n = 26
//   were seen to take up to 20 s.) A task past either bound marks its unit in `trouble`, and the host counts
//   that unit again on the CPU.
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
// and the squares of each sentinel: 1, 2, 4, 8 or 16 (the board at most 32 - NQ_SENTINEL_SQUARES wide), or
// 32, the whole word (any board the kernel takes, at most 28 wide). The program passes both
// (src/gpu/task.rs: sixteen turns for boards 19 to 28 wide, eight for narrower ones, one sentinel of 32
// squares); the defaults are its build for boards 25 to 28 wide, so they take every board.
#ifndef NQ_UNROLL
#define NQ_UNROLL 16u
#endif
#ifndef NQ_SENTINEL_SQUARES
#define NQ_SENTINEL_SQUARES 32u
#endif
// The sentinels below a task's first row: enough squares for the NQ_UNROLL - 1 turns a pass may take after
// the task's end.
#define NQ_SENTINELS ((NQ_UNROLL - 1u) / NQ_SENTINEL_SQUARES + 1u)
// A sentinel's squares, and the square every sentinel holds until it is popped, which no board's column is.
#define NQ_SENTINEL (~0u << (32u - NQ_SENTINEL_SQUARES))
#define NQ_SENTINEL_LOW 0x80000000u
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
// A task's count of solutions starts from 0; the tests start it near 2^32, to see a rectangle's count go past
// what 32 bits hold (NQ_WIDE_SOLUTIONS).
#ifndef NQ_SOLUTIONS_FROM
#define NQ_SOLUTIONS_FROM 0u
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
// (results/gpu.md names the commit that has them), and since the thirty-second the look-ahead's first form and
// NQ_AHEAD_KEPT_FIRST (commit 4b1082b has them): asking for one is an error, not the default in disguise.
#if defined(NQ_AOS) || defined(NQ_SOA) || defined(NQ_PACKED) || defined(NQ_PAIRS_C) || defined(NQ_AHEAD_MULHI) || \
    defined(NQ_AHEAD_BOTTOM) || defined(NQ_PROBE_ALU) || defined(NQ_PROBE_STS)
#error "this variant of the kernel was measured slower and removed (results/gpu.md, the twenty-seventh session)"
#endif
#if defined(NQ_AHEAD_KEPT_FIRST)
#error "this variant of the kernel was measured slower and removed (results/gpu.md, the thirty-second session)"
#endif
// NQ_AHEAD: the look-ahead (see the turn): the default, unless NQ_PLAIN asks for the loop without it.
#if !defined(NQ_PLAIN) && !defined(NQ_AHEAD)
#define NQ_AHEAD
#endif
// The names of the look-ahead's form (the twenty-third and twenty-fourth sessions' switches) and of the push's
// step last are taken, and change nothing; a set that contradicts itself is refused.
#if defined(NQ_PLAIN) && \
    (defined(NQ_AHEAD) || defined(NQ_AHEAD_XOR) || defined(NQ_AHEAD_CHILDREN) || defined(NQ_AHEAD_LAST))
#error "NQ_PLAIN is the loop without the look-ahead (NQ_AHEAD)"
#endif
#if defined(NQ_PUSH_LAST) && defined(NQ_TURN_C)
#error "NQ_PUSH_LAST is a form of the turn's accesses written in PTX (not NQ_TURN_C)"
#endif
// NQ_UNCOUNTED (the twenty-second session's probe; `count --uncounted-nodes` since the twenty-third): the
// look-ahead's nodes not counted, and no node reported (474 SASS instructions for sixteen turns rather than 476:
// counting the nodes as children costs next to nothing; an H200 timed the look-ahead's first form 3% faster
// so, 494 rather than 530, in the thirty-first session). The
// host then marks the units the GPU counted as without their nodes (src/gpu/batch.rs, `finish`).
#if defined(NQ_UNCOUNTED) && !defined(NQ_AHEAD)
#error "NQ_UNCOUNTED leaves the look-ahead's nodes uncounted: it takes the look-ahead"
#endif
// NQ_LAST_UNPUSHED (the twenty-sixth session's), with the look-ahead, where every task's rows end with no free
// column (`low` 0: a square board's; the host builds it for square boards alone, src/gpu/task.rs
// `Turns::unpushed_last`): the stack and the table without what that loop never uses there. The last row has
// one free column, and the row after it none, so the look-ahead keeps none of the last row's squares: it is
// never pushed, and no turn reads the end's row of the table (a task has two rows or more: the host counts a
// task of the last row alone itself, src/gpu/task.rs `split`). So the host passes `levels` one fewer, and the
// table keeps the rows from the last to the one after the first, `levels` words where it kept `levels + 1` (the
// task's rows but the first, the end's and the sentinels'). The sentinels read the last row's word: a
// sentinel's child has no square but bit 31 (its `rd` is all ones), and bit 31 marks the end's row alone.
// 24 bytes of shared memory a thread fewer: n = 20 (14 levels) 292 rather than 316 with sixteen turns, a sixth
// block of 128 threads on an H100's or H200's multiprocessor (at most 296); n = 21 312 rather than 336 (five
// still), or 296 with eight turns (six). With the one sentinel of the whole word (the thirty-third session's)
// 16 bytes fewer again: n = 20 276, n = 21 296 with sixteen turns, six blocks. The loop is the same; ptxas
// allocates its registers a little differently (a few instructions either way).
#if defined(NQ_LAST_UNPUSHED) && !defined(NQ_AHEAD)
#error "NQ_LAST_UNPUSHED sizes the stack for the look-ahead's loop, which never pushes a square board's last row"
#endif
// NQ_AHEAD_FRAME (the thirty-second session's, not yet timed by us on a GPU; since the thirty-fifth session a
// large run times it against the program's loop on the GPU at hand and counts with the faster, the host's
// src/gpu/trial.rs, which holds the two loops' counts of the same tasks equal): the look-ahead's row (the one
// after the child's) taken with its own frame, its word of the unit's table (the row below the child's, one load more
// from the same address less a row, one wavefront): a square of the child's row is then a dead end exactly
// when no square of the next row is left to it, so fewer turns (0.898 of the default's at n = 19, by the PTX
// interpreter's count of a sample: 63.6% of the nodes take a turn rather than 70.8%), for two instructions
// more a turn (an AND and the load: 511 SASS instructions for sixteen turns on a square board where the default
// takes 476; 20.3 a node rather than 21.1; 500 and 19.9 since the thirty-third session's NQ_SOLUTION_A_TURN,
// below) and a wavefront (10 a turn, as many a node as the default's). Every
// turn reads the next row's word, so the end's row must be in the table: with NQ_LAST_UNPUSHED the stack has
// no level for the last row, but the table keeps the end's row (4 bytes a thread more: n = 20's 296, still six
// blocks of 128 threads a multiprocessor; n = 21's 300, five where the default's 296 holds six). A child on
// the last row is never kept (the end's row has no square), so no turn reads below the end's row. The word
// it reads there cannot change what it keeps, but the row cannot be left out as the default's is: its place
// would be another thread's word of the stack, read unsynchronised (results/gpu.md, the thirty-fourth
// session).
#if defined(NQ_AHEAD_FRAME) && !defined(NQ_AHEAD)
#error "NQ_AHEAD_FRAME is a form of the look-ahead (not NQ_PLAIN)"
#endif
// A turn counts at most one solution without the look-ahead, and with it on a square board (its last row has
// one free column: NQ_LAST_UNPUSHED is the program's build for them), so a task's 32-bit count of solutions
// holds as long as its count of turns does. On a rectangle a turn of the look-ahead counts the last row's free
// squares, up to 28: 2^32 turns could wrap a 32-bit count, so the task's count is 64-bit, a pass's solutions
// added to it once a pass (at most 28 * 16 of them), for an instruction or two a pass.
#if defined(NQ_AHEAD) && !defined(NQ_LAST_UNPUSHED)
#define NQ_WIDE_SOLUTIONS
#endif
// The look-ahead counts a pass's nodes and solutions in one word on boards at most 24 wide (see the turn), and
// where the nodes are not counted, or the board is wider, its solutions apart: a pass's on a rectangle
// (NQ_PASS_SOLUTIONS), else a task's.
// NQ_SOLUTION_A_TURN (the thirty-third session's), with NQ_AHEAD_FRAME on a square board (NQ_LAST_UNPUSHED):
// a turn whose child is on the last row counts one solution, `open >> 30` (one LEA.HI), rather than its
// children's population count times that. With the frame, the look-ahead keeps a square of the row before the
// last exactly when the last row has a square left to it, and the last row has one free column: so every turn
// there has one child, a solution. That holds for the squares the look-ahead kept, so for every turn but those
// of a task's first row, which is never the row before the last: the host counts a task of the last two rows
// itself (src/gpu/task.rs, `split`). The sentinels' turns after a task's end read the last row's word too (see
// NQ_LAST_UNPUSHED): one each, taken back at the task's end, where their number is known. Where the nodes are
// counted, the children's count goes on alone in 32 bits a pass (ptxas adds two turns' in one IADD3), so no
// pass is unpacked. 500 SASS instructions for sixteen turns where the frame took 511, 477 uncounted where
// it took 506: 19.9 and 19.0 a node.
#if defined(NQ_AHEAD_FRAME) && defined(NQ_LAST_UNPUSHED)
#define NQ_SOLUTION_A_TURN
#endif
// NQ_NARROW: the board is at most 24 wide, so a table's top byte holds its marks alone. Sentinels of 8 or 16
// squares in the top bits say so themselves; the program passes it with its sentinel of 32 squares.
#if defined(NQ_NARROW) || (NQ_SENTINEL_SQUARES >= 8u && NQ_SENTINEL_SQUARES < 32u)
#define NQ_MARKS_BYTE
#endif
#if defined(NQ_AHEAD) && defined(NQ_MARKS_BYTE) && !defined(NQ_UNCOUNTED) && !defined(NQ_SOLUTION_A_TURN)
#define NQ_PASS_PACKED
#elif defined(NQ_WIDE_SOLUTIONS)
#define NQ_PASS_SOLUTIONS
#endif
// The table's rows for a stack of `levels` levels (see NQ_LAST_UNPUSHED), and the rows it leaves out below
// its first (the end's, with NQ_LAST_UNPUSHED but for NQ_AHEAD_FRAME): the table's row for `m` free columns is
// where it would be with them, so that the turn reads it as it does without.
#if defined(NQ_LAST_UNPUSHED) && !defined(NQ_AHEAD_FRAME)
#define NQ_TABLE_ROWS(levels) (levels)
#define NQ_TABLE_LEFT_OUT 1u
#else
#define NQ_TABLE_ROWS(levels) ((levels) + 1u)
#define NQ_TABLE_LEFT_OUT 0u
#endif
// The mark of the last row in a unit's table (task.rs, `LAST`): never a column.
#define NQ_LAST 0x40000000u
// The look-ahead's count of a pass's nodes, in the low bits of a word whose high bits count its solutions.
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
#ifdef NQ_WIDE_SOLUTIONS
    u32 slot = NQ_NO_TASK, passes = 0u;
    u64 sol = 0u;
#else
    u32 slot = NQ_NO_TASK, sol = 0u, passes = 0u;
#endif
#ifdef NQ_AHEAD
    // The task's nodes as the look-ahead counts them: each turn's children, every free square of the child's
    // row, from the task's first row's squares on (the turns are not counted: the dead ends take none). A
    // 32-bit count a pass (at most 28 a turn), added up in 64 bits.
    u64 ahead_nodes = 0u;
#endif
#ifdef NQ_PASS_PACKED
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
#ifdef NQ_SOLUTION_A_TURN
                // The sentinels' turns counted one each (NQ_SOLUTION_A_TURN).
                sol -= passes * NQ_UNROLL - nod;
#endif
                NQ_HOST_TURNS(nod);
                if (((unsigned long long)(clock64() - began) >> (36u + NQ_UNROLL_LOG)) != 0u ||
                    ((u64)passes >> (NQ_TRUSTED_TURNS_LOG - NQ_UNROLL_LOG)) != 0u) {
                    atomicAdd(&trouble[slot], 1u);
                }
                atomicAdd(&solutions[slot], (u64)sol);
#if defined(NQ_UNCOUNTED)
                // No node reported (the probe: see above).
#elif defined(NQ_AHEAD)
                atomicAdd(&nodes[slot], ahead_nodes);
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
            // The sentinels (levels 0 to NQ_SENTINELS - 1): squares the turns after the task's last take one
            // each, never popping the last; free columns that, with the square taken, read the sentinels' row
            // of the table, which has no square (or with a square of the board's columns taken, a row of the
            // task's, see above), and all-ones right diagonals, so they push nothing; in `ld`, the
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
            // (No task's first row is the last, whose squares the look-ahead would count here: the host counts
            // such a task itself, src/gpu/task.rs `split`.)
            sol = NQ_SOLUTIONS_FROM;
            passes = 0u;
#ifdef NQ_AHEAD
            // Every node but the first row's is a child of a turn.
            ahead_nodes = (u64)__popc(avail);
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
#ifdef NQ_PASS_SOLUTIONS
        u32 pass_sol = 0u;
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
            const u32 rd = nq_lop3<0xf6u>(e.w, e.y, fc) >> 1;
#ifdef NQ_TURN_IN_PTX
            u32 open;
#ifdef NQ_AHEAD_FRAME
            // The child's row's word and, a row of the table below it, the next row's (NQ_AHEAD_FRAME).
            u32 next;
            asm volatile("{\n\t.reg .u32 a;\n\tmov.u32 a, %2;\n\tld.shared.u32 %0, [a];\n\t"
                         "ld.shared.u32 %1, [a+%3];\n\t}"
                         : "=r"(open), "=r"(next)
                         : "r"(tab + __popc(fc) * step), "n"(-4 * (int)NQ_THREADS)
                         : "memory");
#else
            asm volatile("ld.shared.u32 %0, [%1];" : "=r"(open) : "r"(tab + __popc(fc) * step) : "memory");
#endif
#else
            const u32 open = *(const u32*)(shared + tab + __popc(fc) * step);
#ifdef NQ_AHEAD_FRAME
            const u32 next = *(const u32*)(shared + tab + __popc(fc) * step - step);
#endif
#endif
#if defined(NQ_AHEAD)
            // The look-ahead (NQ_AHEAD): a square of the child's row whose queen would leave the row after it no
            // square is a dead end, a node that takes no turn here: counted, not pushed. The row after the
            // child's has the squares `ahead` free of the queens placed so far (a superset: its own frame is
            // left out, which only keeps some dead ends), and a queen on square c of the child's row takes c
            // and its two neighbours from it (its column and diagonals). So c leaves a square there exactly
            // when one of `ahead` lies two columns or more from c. The row is taken one column over (column c
            // at bit c + 1), from `rd` itself rather than a shift of its own (the twenty-third session's
            // NQ_AHEAD_XOR, an instruction fewer than the row as it lies): then c is kept if it is at most the
            // highest less two (`high`: 0x1fffffff shifted right by the shift that takes the highest to bit
            // 31), or not among the bits up to the lowest one (`ahead ^ (ahead - 1)`). The last row's squares
            // are that row's solutions, counted with the children (below), never pushed: so the row after the
            // last, the end's, needs no exception (a far bit, as the first form took), and a square board's
            // last row, whose one free column the row after it never leaves two columns away, has none kept.
            // All of it but the free squares' last AND is made from registers, beside the table's load, off
            // the chain from a loaded entry to the next. By a count of the tree (the border units of n = 10 to
            // 16, results/gpu.md), 27% of the nodes are dead ends caught so, and the last row's solutions are
            // 0.5% of the turns at n = 19: 0.708 of a turn a node.
#ifdef NQ_AHEAD_FRAME
            // The next row's free columns within its frame (its word's marks are no columns).
            const u32 ahead = nq_lop3<0x10u>((fc & next) << 1, ld << 2, rd);
#else
            const u32 ahead = nq_lop3<0x10u>(fc << 1, ld << 2, rd);
#endif
            const u32 high = nq_shr(0x1fffffffu, nq_shift_to_top(ahead));
            const u32 all = nq_lop3<0x10u>(fc, ld, rd);
            // The child's row's free squares, every one a node (counted below), and those kept of them. Written
            // in C: ptxas makes `high | ~low` one three-way operation of `high`, `ahead` and `ahead - 1`, and the
            // AND the push's test (the same written with nq_lop3 ran ptxas for more than ten minutes without an
            // end, ptxas 13.5). The kept squares made before the table's word comes, so that the push's test is
            // one operation after the load rather than two, took an operation more a turn and 3 to 5% longer on an
            // H200 (NQ_AHEAD_KEPT_FIRST, the thirty-first session).
            const u32 children = all & open;
            const u32 free = children & (high | ~(ahead ^ (ahead - 1u)));
            // The last row's squares (its table's word marked NQ_LAST) are the solutions of the child's queens,
            // a child each: counted here, where a turn each took them before.
            const u32 kids = (u32)__popc(children);
#if defined(NQ_SOLUTION_A_TURN)
            // One solution on the last row, none elsewhere (NQ_SOLUTION_A_TURN).
            sol += open >> 30;
#ifndef NQ_UNCOUNTED
            pass_ahead_nodes += kids;
#endif
#elif defined(NQ_PASS_PACKED)
            // On boards at most 24 wide the table's top byte holds the marks alone: one multiply-add counts the
            // children as nodes (the pass's low 22 bits) and, on the last row, as solutions (from bit 22 up:
            // its byte is NQ_LAST's, 0x40, there; the end's row has no child). At most 28 a turn either way,
            // so neither field overflows in a pass of up to sixteen turns.
            pass_ahead_nodes += kids * nq_prmt(open, one, 0x5354u);
#else
            // `open >> 30` is 1 on the last row, 0 on the others but the end's, where there is no child.
#ifdef NQ_PASS_SOLUTIONS
            pass_sol += kids * (open >> 30);
#else
            sol += kids * (open >> 30);
#endif
#ifndef NQ_UNCOUNTED
            pass_ahead_nodes += kids;
#endif
#endif
#else
            const u32 free = nq_lop3<0x10u>(fc, ld, rd) & open;
            // The row after the last is marked by bit 31: a queen whose child row is it completes a solution.
            sol += open >> 31;
#endif
#if defined(NQ_TURN_IN_PTX)
            // As below, in one block with the pop: written in C, ptxas kept the stack's top in two registers, a
            // copy a turn, the push's store and the loads addressed from the top before the push. The child's
            // pair is stored a level above the top, then the top stepped up (the twenty-fourth session's
            // NQ_PUSH_LAST), so that the next entry's load waits for the push's test alone: 0.7 and 1.6% faster
            // at n = 20 and 21 on an H200 than the step first (the thirty-first session).
            e = make_uint4(free, fc, ld, rd);
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
#ifdef NQ_PASS_PACKED
        // The pass's nodes and solutions in one word (see the turn).
        ahead_nodes += pass_ahead_nodes & NQ_PASS_NODES;
        sol += pass_ahead_nodes >> 22;
#elif defined(NQ_AHEAD)
        ahead_nodes += pass_ahead_nodes;
#endif
#ifdef NQ_PASS_SOLUTIONS
        sol += pass_sol;
#endif
    }
}
