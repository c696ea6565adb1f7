// Runs the GPU kernel's source on the host (see host.h): reads tasks from standard input, writes each slot's
// solutions and nodes to standard output.
//
// Input, little-endian 32-bit words: the number of tasks, the number of slots, the closing rule (1 for a
// rectangle), the board's squares as a mask, then the tasks, sixteen words each.
#include <cstdio>
#include <vector>

struct Task;
extern "C" void count_tasks(const Task* tasks, unsigned count, unsigned* next, unsigned long long* solutions,
                            unsigned long long* nodes, unsigned wide, unsigned board);

int main() {
    unsigned head[4];
    if (fread(head, 4, 4, stdin) != 4) return 2;
    std::vector<unsigned> words(16u * head[0] + 1);
    if (fread(words.data(), 4, 16u * head[0], stdin) != 16u * head[0]) return 2;
    std::vector<unsigned long long> solutions(head[1]), nodes(head[1]);
    unsigned next = 0;
    count_tasks(reinterpret_cast<const Task*>(words.data()), head[0], &next, solutions.data(), nodes.data(),
                head[2], head[3]);
    for (unsigned s = 0; s < head[1]; s++) printf("%llu %llu\n", solutions[s], nodes[s]);
    return 0;
}
