// Runs the GPU kernel's source on the host (see host.h): reads tasks from standard input, writes each slot's
// solutions and nodes to standard output, then the number of tasks reported in trouble.
//
// Input, little-endian 32-bit words: the number of tasks, the number of slots, the levels of stack, then
// each slot's table (32 words), then the tasks, eight words each.
#include <cstdio>
#include <vector>

struct Task;
extern "C" void count_tasks(const Task* tasks, unsigned count, unsigned* next, const unsigned* tables,
                            unsigned long long* solutions, unsigned long long* nodes, unsigned* trouble,
                            unsigned levels);

int main() {
    unsigned head[3];
    if (fread(head, 4, 3, stdin) != 3) return 2;
    std::vector<unsigned> tables(32u * head[1] + 1);
    if (fread(tables.data(), 4, 32u * head[1], stdin) != 32u * head[1]) return 2;
    std::vector<unsigned> words(8u * head[0] + 1);
    if (fread(words.data(), 4, 8u * head[0], stdin) != 8u * head[0]) return 2;
    if (head[2] > 60) return 3;
    std::vector<unsigned long long> solutions(head[1]), nodes(head[1]);
    unsigned next = 0, trouble = 0;
    count_tasks(reinterpret_cast<const Task*>(words.data()), head[0], &next, tables.data(), solutions.data(),
                nodes.data(), &trouble, head[2]);
    for (unsigned s = 0; s < head[1]; s++) printf("%llu %llu\n", solutions[s], nodes[s]);
    printf("%u\n", trouble);
    return 0;
}
