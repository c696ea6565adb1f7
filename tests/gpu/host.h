// Stands in for CUDA's built-ins so that src/gpu/count.cu compiles as C++ on the host: one block of one
// thread, its shared memory a static array, atomics plain additions. See tests/gpu_kernel.rs.
#include <cstdint>
struct NqDim3 {
    unsigned x, y, z;
};
static const NqDim3 threadIdx = {0, 0, 0};
static const NqDim3 blockDim = {1, 1, 1};
#define __global__
struct uint4 {
    unsigned x, y, z, w;
};
static inline uint4 make_uint4(unsigned x, unsigned y, unsigned z, unsigned w) { return uint4{x, y, z, w}; }
// 64 levels of stack and of table for the one thread: more than any task needs.
alignas(16) static char nq_stack[64 * (16 + 4)];
#define NQ_STACK(name) char* name = nq_stack
// The tests' tasks take at most a few thousand passes of the loop: one that takes a million is a loop that
// would never end (a pop that never comes), and is stopped, its counts wrong, so the test fails.
#define NQ_HOST_GUARD(passes) (((passes) >> 20) != 0u)
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
// The multiprocessor's clock: it moves on by nq_clock_step at each reading (set by the harness), so a test can
// make every task seem to run long.
extern long long nq_clock_step;
static inline long long clock64() {
    static long long now = 0;
    now += nq_clock_step;
    return now;
}
