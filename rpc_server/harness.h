// What the sandbox child does with one request: allocate and seed the tensors, obtain the
// reference outputs (cached by reference hash, seed and shapes), load the candidate, run it
// once on poisoned outputs, check it, then time it. Runs inside the sandbox process only: a
// crash here costs the sandbox, never the worker.
#ifndef TUNEFARM_RPC_SERVER_HARNESS_H_
#define TUNEFARM_RPC_SERVER_HARNESS_H_

#include <cstdint>
#include <list>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "proto/sandbox.pb.h"

namespace tunefarm {

class Harness {
 public:
  // `max_tensor_bytes` bounds the tensors of one request.
  explicit Harness(int64_t max_tensor_bytes) : max_tensor_bytes_(max_tensor_bytes) {}

  // Measures one request. Never throws; every failure is an error class in the result.
  v1::MeasureResult Measure(const v1::SandboxMeasure& measure);

  // Runs the built-in calibration kernel `repeats` times; returns seconds per repeat.
  std::vector<double> Calibrate(int repeats);

 private:
  // Reference outputs for a key of (reference hash, kernel, seed, shapes).
  const std::vector<std::string>* FindReference(const std::string& key);
  void StoreReference(const std::string& key, std::vector<std::string> outputs);

  const int64_t max_tensor_bytes_;
  // LRU of reference outputs, bounded by kReferenceCacheBytes.
  std::list<std::pair<std::string, std::vector<std::string>>> reference_lru_;
  absl::flat_hash_map<std::string, decltype(reference_lru_)::iterator> reference_index_;
  int64_t reference_bytes_ = 0;
};

}  // namespace tunefarm

#endif  // TUNEFARM_RPC_SERVER_HARNESS_H_
