// Stands in for CUDA's built-ins so that src/gpu/count.cu compiles as C++ on the host: one block of one
// thread, its shared memory a static array, atomics plain additions. See tests/gpu_kernel.rs.
#include <cstdint>
struct NqDim3 {
    unsigned x, y, z;
};
static const NqDim3 threadIdx = {0, 0, 0};
static const NqDim3 blockDim = {1, 1, 1};
#define __global__
static unsigned nq_stack[3 * 64];
#define NQ_STACK(name) unsigned* name = nq_stack
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
// CUDA's __funnelshift_r: the low word of hi:lo shifted right by s mod 32.
static inline unsigned __funnelshift_r(unsigned lo, unsigned hi, unsigned s) {
    return (unsigned)(((((unsigned long long)hi) << 32) | lo) >> (s & 31u));
}
// CUDA's __funnelshift_l: the high word of hi:lo shifted left by s mod 32.
static inline unsigned __funnelshift_l(unsigned lo, unsigned hi, unsigned s) {
    return (unsigned)(((((unsigned long long)hi) << 32) | lo) << (s & 31u) >> 32);
}
static inline int __popc(unsigned x) { return __builtin_popcount(x); }
