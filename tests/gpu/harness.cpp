// Runs the GPU kernel's source on the host (see host.h): reads tasks from standard input, writes each slot's
// solutions, nodes and troubled tasks to standard output, then the launches it took (`launches N`: more than
// one where a launch's budget ended it before every task was taken, as src/gpu/cuda.rs launches a batch again),
// then the turns the tasks took (`turns N`).
//
// Input, little-endian 32-bit words: the number of tasks, the number of slots, the levels of stack, how far
// the clock moves at each reading (as a power of two; 0 for not at all), the levels of the sentinels below a
// task (as the kernel is built: count.cu's NQ_SENTINELS), a launch's budget (count.cu's `budget`: units of
// 2^16 cycles; 0 for none), then each slot's table (32 words), then the tasks, four words each.
//
// The kernel runs as one thread of a block (host.h); its block's shared memory is filled with a pattern
// first, and a byte changed in another thread's words of the stack or the table, or outside both, fails the
// run (exit code 4): a layout that mixes the threads' words would count wrong on a GPU alone.
#include <cstdio>
#include <cstring>
#include <vector>

struct Task;
long long nq_clock_step = 0;
unsigned long long nq_turns = 0;
alignas(16) char nq_stack[NQ_HOST_SHARED];

// The thread whose word of the block's shared memory `at` is, for a stack of `sentinels` and `levels` levels
// and its table after it (count.cu's layout), or NQ_HOST_THREADS for a byte of neither.
static unsigned owner(unsigned at, unsigned levels, unsigned sentinels) {
    const unsigned stack = (levels + sentinels) * 16u * NQ_HOST_THREADS;
    // A row of table for each level of stack, and one more, but where the stack has no level for the last
    // row (NQ_LAST_UNPUSHED) and the look-ahead reads no end's row (not NQ_AHEAD_FRAME): then as many as its
    // levels.
#if defined(NQ_LAST_UNPUSHED) && !defined(NQ_AHEAD_FRAME)
    const unsigned table = levels * 4u * NQ_HOST_THREADS;
#else
    const unsigned table = (levels + 1u) * 4u * NQ_HOST_THREADS;
#endif
    if (at < stack) {
        // Two pairs of words a level, each pair in an array of its own.
        return at % (8u * NQ_HOST_THREADS) / 8u;
    }
    if (at < stack + table) return (at - stack) % (4u * NQ_HOST_THREADS) / 4u;
    return NQ_HOST_THREADS;
}
extern "C" void count_tasks(const Task* tasks, unsigned count, unsigned* next, const unsigned* tables,
                            unsigned long long* solutions, unsigned long long* nodes, unsigned* trouble,
                            unsigned levels, unsigned budget);

int main() {
    unsigned head[6];
    if (fread(head, 4, 6, stdin) != 6) return 2;
    nq_clock_step = head[3] ? 1ll << head[3] : 0;
    std::vector<unsigned> tables(32u * head[1] + 1);
    if (fread(tables.data(), 4, 32u * head[1], stdin) != 32u * head[1]) return 2;
    std::vector<unsigned> words(4u * head[0] + 1);
    if (fread(words.data(), 4, 4u * head[0], stdin) != 4u * head[0]) return 2;
    if (head[2] > 60 || head[4] < 1 || head[4] > 4) return 3;
    std::vector<unsigned long long> solutions(head[1]), nodes(head[1]);
    std::vector<unsigned> trouble(head[1]);
    unsigned next = 0;
    memset(nq_stack, 0xa5, sizeof nq_stack);
    // Launched again while tasks are left, as the host does; a launch that takes none would never end.
    unsigned launches = 0;
    do {
        const unsigned before = next;
        count_tasks(reinterpret_cast<const Task*>(words.data()), head[0], &next, tables.data(), solutions.data(),
                    nodes.data(), trouble.data(), head[2], head[5]);
        launches++;
        if (next == before && next < head[0]) return 5;
    } while (next < head[0]);
    for (unsigned at = 0; at < sizeof nq_stack; at++) {
        if (static_cast<unsigned char>(nq_stack[at]) != 0xa5 && owner(at, head[2], head[4]) != NQ_HOST_THREADS - 1u) {
            fprintf(stderr, "byte %u of shared memory (levels %u) is not this thread's\n", at, head[2]);
            return 4;
        }
    }
    for (unsigned s = 0; s < head[1]; s++) printf("%llu %llu %u\n", solutions[s], nodes[s], trouble[s]);
    printf("launches %u\n", launches);
    printf("turns %llu\n", nq_turns);
    return 0;
}
