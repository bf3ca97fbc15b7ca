// `tunefarm compile`: a prepared model and the tuning log → one shared library with the
// model's C ABI (emit_runner.h), its header and its weights file. Each fused group's kernel is
// the best config the log holds for its program (rebuilt exactly as it was measured, as
// `tunefarm export` does); a group never tuned runs its program's unscheduled loop nest and is
// reported (and warned about) as untuned. Weights are folded into the layouts the kernels
// read at compile time: blocked filters, batch norm, and the packs a tuned config makes ahead
// of time (run here, once, by the JIT), so the deployed kernels are the measured ones.
#ifndef TUNEFARM_GRAPH_COMPILE_MODEL_H_
#define TUNEFARM_GRAPH_COMPILE_MODEL_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "db/tuning_log.h"
#include "graph/prepare_model.h"

namespace tunefarm::graph {

struct CompileOptions {
  // The target the kernels are built for (and were tuned for); empty: this machine.
  std::string target;
  // Use records of this device key only; empty: any.
  std::string device_key;
  std::string library_path;  // model.so
  std::string header_path;   // model.h
  std::string weights_path;  // model.weights
  // Heads the header's comment: the model's name.
  std::string model_name;
  // GB/s at which a kernel streams its weights from memory, for choosing among a group's tuned
  // algorithms: each is charged its tuned time plus its weights' bytes at this rate (a
  // Winograd filter is 4x its direct filter; at batch 1 a model reads every weight once per
  // inference, from memory, while tuning re-ran one kernel on weights its caches kept).
  // Negative: measured on this machine (MeasureReadBandwidthGBs); 0: weights cost nothing.
  double weight_read_gbs = -1;
};

struct CompiledGroup {
  // The call's label: "g3 conv_add_relu".
  std::string label;
  // The workload (program name and hash) its kernel was tuned as.
  std::string workload;
  std::string args;
  double flop = 0;
  bool tuned = false;
  // The tuned kernel's measured mean time (0 when untuned).
  double tuned_seconds = 0;
  std::string config_json;
};

struct CompileReport {
  std::vector<CompiledGroup> calls;
  int untuned = 0;
  // Σ tuned_seconds: the latency the tuning log predicts (untuned calls not counted).
  double predicted_seconds = 0;
  int64_t arena_bytes = 0;
  int64_t unshared_bytes = 0;
  int64_t weights_bytes = 0;
  // The weight-read rate the choices used (GB/s; 0: not needed or disabled), and a line for
  // each group whose faster-tuned algorithm lost on the weights it reads.
  double weight_read_gbs = 0;
  std::vector<std::string> notes;
};

// InvalidArgument: a bad target (or one that is not this machine's: the library is linked
// here); the errors of ModelTasks. FailedPrecondition: a best record from an older version of
// its space (tune again); no `cc`. Internal: compiling, running a pack or linking failed.
absl::StatusOr<CompileReport> CompileModel(const PreparedModel& model, const db::TuningLog* log,
                                           const CompileOptions& options);

}  // namespace tunefarm::graph

#endif  // TUNEFARM_GRAPH_COMPILE_MODEL_H_
