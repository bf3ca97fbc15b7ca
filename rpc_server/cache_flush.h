// Cold-cache timing: evicting a kernel's data from the CPU caches before a timed run, as TVM's
// `enable_cpu_cache_flush` does. A layer inside a network finds its weights cold (the rest of
// the network ran since it last read them) while a kernel timed back to back finds them in L2:
// tuned that way, a network's 9 MB layers ran 1.5x slower in the model than in tuning.
#ifndef TUNEFARM_RPC_SERVER_CACHE_FLUSH_H_
#define TUNEFARM_RPC_SERVER_CACHE_FLUSH_H_

#include <dlpack/dlpack.h>

#include <cstddef>
#include <cstdint>

namespace tunefarm {

// Writes back and evicts every cache line of [data, data + bytes) from every cache level
// (clflushopt on x86-64, `dc civac` on AArch64; elsewhere FlushDataCache), then fences.
void FlushRange(const void* data, size_t bytes);

// FlushRange over the host tensors args[first .. num_args) (compact: bytes from the shape and
// dtype). TVM's convention passes first = 1: the first argument is the layer's input, which
// the previous layer has just written and finds hot; weights and outputs are cold.
void FlushArguments(DLTensor* const* args, int32_t num_args, int32_t first);

// Evicts the data caches by writing a buffer larger than the last-level cache.
void FlushDataCache();

}  // namespace tunefarm

#endif  // TUNEFARM_RPC_SERVER_CACHE_FLUSH_H_
