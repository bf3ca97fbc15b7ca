// The runner of a compiled model: C source that calls the model's kernels in order over one
// arena and the weights, behind the model's C ABI (the header below), compiled with the system
// C compiler and linked with the kernels into the model's shared library. Like TVM's
// ahead-of-time executor, it is straight-line calls over a static plan: no graph
// interpretation at run time.
//
// The C ABI (model.h):
//   tf_model* tf_model_create(const void* weights, size_t size);  // NULL: see tf_model_error()
//   tf_model* tf_model_create_from_file(const char* weights_path);
//   int tf_model_run(tf_model*, const float* const* inputs, float* const* outputs);
//   int tf_model_run_profiled(tf_model*, inputs, outputs, double* seconds_per_call);
//   void tf_model_free(tf_model*);
//   const char* tf_model_error(void);
// plus the inputs' and outputs' names and shapes and the calls' names.
#ifndef TUNEFARM_GRAPH_EMIT_RUNNER_H_
#define TUNEFARM_GRAPH_EMIT_RUNNER_H_

#include <cstdint>
#include <string>
#include <vector>

namespace tunefarm::graph {

// Magic at the start of a weights file; then the payload's size and checksum (FNV-1a, 64
// bits), each a little-endian uint64, and the payload from byte kWeightsHeaderBytes.
inline constexpr char kWeightsMagic[8] = {'T', 'F', 'M', 'W', '0', '0', '0', '1'};
inline constexpr int64_t kWeightsHeaderBytes = 64;

uint64_t WeightsChecksum(const std::string& payload);

struct RunnerArg {
  enum class Kind { kArena, kWeights, kInput, kOutput };
  Kind kind = Kind::kArena;
  // Byte offset in the arena or the weights payload; the index of an input or output.
  int64_t offset = 0;
  // The shape the kernel takes (its DLTensor's).
  std::vector<int64_t> shape;
};

struct RunnerCall {
  std::string symbol;
  // For people (profiles): "g3 conv_add_relu".
  std::string label;
  std::vector<RunnerArg> args;
};

struct RunnerTensor {
  std::string name;
  std::vector<int64_t> shape;
};

struct RunnerPlan {
  std::vector<RunnerCall> calls;
  std::vector<RunnerTensor> inputs;
  std::vector<RunnerTensor> outputs;
  int64_t arena_bytes = 0;
  int64_t weights_bytes = 0;
  uint64_t weights_checksum = 0;
};

// The runner's C source.
std::string EmitRunnerSource(const RunnerPlan& plan);

// The model's header: the C ABI, with the inputs' and outputs' shapes in its comments and as
// macros. `description` heads it (the model, target and what was tuned).
std::string EmitRunnerHeader(const RunnerPlan& plan, const std::string& description);

}  // namespace tunefarm::graph

#endif  // TUNEFARM_GRAPH_EMIT_RUNNER_H_
