// Schedules: how each stage of a tensor computation becomes loops, in TVM's style.
//
//   Schedule s = Schedule::Create({C});
//   Stage& c = s[C];
//   auto [mo, no, mi, ni] = *c.Tile(c.axis(0), c.axis(1), 8, 32);
//   Tensor CC = *s.CacheWrite(C, "local");          // accumulate in registers
//   s[CC].ComputeAt(s[C], no);
//   s[C].Vectorize(ni);  s[C].Parallel(mo);
//
// Every primitive validates its arguments and returns absl::Status; a schedule that would
// produce wrong code is rejected with InvalidArgument or FailedPrecondition, never run.
#ifndef TUNEFARM_COMPILER_SCHEDULE_SCHEDULE_H_
#define TUNEFARM_COMPILER_SCHEDULE_SCHEDULE_H_

#include <array>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "compiler/te/tensor.h"

namespace tunefarm::schedule {

using ir::Expr;
using ir::Var;
using te::IterVar;
using te::Tensor;

// How a split or fuse relates iteration variables.
struct Relation {
  enum class Kind { kSplit, kFuse };
  Kind kind;
  // Split: parent -> (outer, inner). Fuse: (outer, inner) -> fused.
  IterVar parent, outer, inner, fused;
  // Split by factor (inner extent) when factor > 0, else by nparts (outer extent).
  int64_t factor = 0;
  int64_t nparts = 0;
};

// Warp-level matrix operations of CUDA's WMMA API (16×16×16 tiles, float16 inputs, float32
// accumulator) that replace a loop nest at GPU code generation (Stage::Tensorize). The nest
// keeps its scalar meaning everywhere else (bound inference, host emulation):
//   kWmmaLoadA   F[r][c] = S[r][c]      F in "wmma.matrix_a", S row-major (m × k), 16 × 16
//   kWmmaLoadB   F[r][c] = S[r][c]      F in "wmma.matrix_b", S row-major (n × k), 16 × 16
//   kWmmaMma     C[i][j] += A[i][k]·B[j][k] over 16³ (or the accumulator's init C[i][j] = 0)
//   kWmmaStore   D[i][j] = C[i][j]      C in "wmma.accumulator", D float32 row-major
enum class TensorIntrinsic : int64_t {
  kWmmaLoadA = 1,
  kWmmaLoadB = 2,
  kWmmaMma = 3,
  kWmmaStore = 4,
  // Intel AMX on x86 CPUs (codegen/amx_nest.h): a whole nest
  //   C[i][j] = C[i][j] + Σ_u int32(A[..i..k.. + u]) · int32(W[..j..k.. + u])   (u = 0..3,
  // A uint8, W int8 in the VNNI layout, C int32), or its initialization C[i][j] = 0, as tile
  // loads, tdpbusd and tile stores: rows of up to 16 per tile, 16 columns, 64 bytes of the
  // reduction per step.
  kAmxDotProduct = 5,
};
// The loop pragma Tensorize sets (value: the TensorIntrinsic).
inline constexpr char kTensorizePragma[] = "tensorize";
// The prefix of the loop pragma Stage::Prefetch sets: "prefetch:<tensor name>", valued the
// distance in bytes (lower/inject_prefetch.h).
inline constexpr char kPrefetchPragmaPrefix[] = "prefetch:";
// A loop pragma (value 1): loop partitioning (lower/loop_partition.h) also splits the loop on
// the conditions of the selects in its body that guard a load, such as a padding's bounds.
inline constexpr char kPartitionSelectsPragma[] = "partition_selects";

// Per-loop annotations.
struct IterVarAttr {
  ir::ForKind kind = ir::ForKind::kSerial;
  std::string thread_tag;
  std::map<std::string, int64_t> pragmas;
};

class Stage;

// Where a stage's loop nest is placed.
struct Attach {
  enum class Kind { kRoot, kInline, kScope };
  Kind kind = Kind::kRoot;
  // For kScope: the consumer stage and the loop inside which this stage is computed.
  const Stage* stage = nullptr;
  IterVar ivar;
};

// storage_align: pad dimension `axis`'s stride so stride % factor == offset.
struct StorageAlign {
  int axis;
  int64_t factor;
  int64_t offset;
};

// The schedule of one operation.
class Stage {
 public:
  Stage(std::shared_ptr<const te::OperationNode> op, Expr body);

  const te::OperationNode* op() const { return op_.get(); }
  const std::shared_ptr<const te::OperationNode>& op_ptr() const { return op_; }
  bool is_placeholder() const { return op_->op_kind == te::OperationNode::Kind::kPlaceholder; }
  // The body this stage computes (rewritten by cache_read/cache_write); undefined for inputs.
  const Expr& body() const { return body_; }
  // Data-parallel axes and reduce axes of the operation, outermost first.
  const std::vector<IterVar>& root_axes() const { return root_axes_; }
  const std::vector<IterVar>& reduce_axes() const { return reduce_axes_; }
  // The i-th data-parallel or reduce axis; null when i is out of range, which every primitive
  // rejects with InvalidArgument (so a template's wrong index fails its job, not the process).
  IterVar axis(int i) const;
  IterVar reduce_axis(int i) const;
  // Loops from outermost to innermost.
  const std::vector<IterVar>& leaf_ivars() const { return leaf_; }
  const std::vector<Relation>& relations() const { return relations_; }
  const IterVarAttr& attr(const IterVar& iv) const;
  const Attach& attach() const { return attach_; }
  const std::string& scope() const { return scope_; }
  const std::vector<StorageAlign>& storage_aligns() const { return aligns_; }

  // Splits `parent` into (outer, inner) with inner extent `factor`. A factor that does not
  // divide the extent adds a guard (removed from the main body by loop partitioning).
  // InvalidArgument: parent is not a leaf of this stage, or factor < 1.
  absl::StatusOr<std::pair<IterVar, IterVar>> Split(const IterVar& parent, int64_t factor);
  // Splits `parent` into `nparts` outer iterations.
  absl::StatusOr<std::pair<IterVar, IterVar>> SplitByNParts(const IterVar& parent, int64_t nparts);
  // Splits x and y and orders the result (x.outer, y.outer, x.inner, y.inner).
  absl::StatusOr<std::array<IterVar, 4>> Tile(const IterVar& x, const IterVar& y, int64_t x_factor,
                                              int64_t y_factor);
  // Fuses two adjacent leaf loops, outer first, into one.
  // InvalidArgument: not leaves of this stage, or not adjacent in that order.
  absl::StatusOr<IterVar> Fuse(const IterVar& outer, const IterVar& inner);
  // Puts the given leaves in this relative order; the other leaves keep their positions.
  // InvalidArgument: a variable that is not a leaf of this stage, or one listed twice.
  absl::Status Reorder(const std::vector<IterVar>& order);
  // Loop annotations. InvalidArgument: not a leaf of this stage. Vectorize and Unroll also
  // reject reduce axes of unknown extent at lowering; Vectorize rejects reduce axes.
  absl::Status Vectorize(const IterVar& iv);
  // Runs a reduce axis of constant extent in vector lanes combined by one horizontal operation
  // (llvm.vector.reduce.*), where its loop holds only the reduction's update: a sum's lanes are
  // then added in a tree, not in order. Elsewhere (another statement in the loop, a combiner
  // other than sum, max or min) the loop stays serial. InvalidArgument: not a leaf of this
  // stage, or a data-parallel axis (use Vectorize).
  absl::Status VectorizeReduction(const IterVar& iv);
  absl::Status Unroll(const IterVar& iv);
  absl::Status Parallel(const IterVar& iv);
  // Binds a loop to a GPU index: "blockIdx.x|y|z", "threadIdx.x|y|z" or "vthread".
  // A reduce loop bound to threadIdx becomes a cross-thread reduction (see lower/schedule_ops).
  // InvalidArgument: an unknown tag, a tag already bound in this stage, a reduce axis bound to
  // blockIdx.
  absl::Status Bind(const IterVar& iv, const std::string& thread_tag);
  // A hint on a loop, e.g. ("auto_unroll_max_step", 16): unroll inner loops whose total
  // trip count is at most the value; or (kPartitionSelectsPragma, 1).
  absl::Status Pragma(const IterVar& iv, const std::string& key, int64_t value);
  // Software prefetch, as TVM's `prefetch`, but with the distance in bytes: at the start of each
  // iteration of loop `iv`, prefetches (into L1, for reading) the elements of `t` that the loop's
  // body reads `distance_bytes` further along each of its streams (the iteration that many bytes
  // ahead, rounded up to whole iterations), so the memory system fetches them before they are
  // needed instead of after a miss. Only a hint: the results never change, and a read that the
  // lowering cannot describe as a few affine streams is left without one. InvalidArgument: not a
  // leaf of this stage, t not read by this stage, or distance_bytes < 1.
  absl::Status Prefetch(const Tensor& t, const IterVar& iv, int64_t distance_bytes);
  // Marks the loop nest starting at `iv` (its two or three innermost leaves, each of extent
  // 16) to become `op` at GPU code generation; the code generator checks that the nest has
  // the intrinsic's form and rejects it otherwise. InvalidArgument: not a leaf of this stage.
  absl::Status Tensorize(const IterVar& iv, TensorIntrinsic op);
  // Computes this stage inside `parent`'s loop `iv`, over just the region it needs there.
  // InvalidArgument: iv is not a leaf of parent; FailedPrecondition: parent does not read
  // this stage, this stage is an input or an output, or the attachment forms a cycle.
  absl::Status ComputeAt(const Stage& parent, const IterVar& iv);
  // Substitutes this stage's body into its consumers. FailedPrecondition: a reduction, an
  // input, or an output.
  absl::Status ComputeInline();
  // Computes this stage at the top level (the default).
  absl::Status ComputeRoot();
  // Pads a dimension's stride (see StorageAlign). InvalidArgument: bad axis or factor.
  absl::Status SetStorageAlign(int axis, int64_t factor, int64_t offset);
  // Storage scope of this stage's buffer when it is not a kernel argument.
  void SetScope(std::string scope) { scope_ = std::move(scope); }

 private:
  friend class Schedule;
  absl::Status CheckLeaf(const IterVar& iv, const char* primitive) const;
  int LeafIndex(const IterVar& iv) const;
  IterVarAttr& MutableAttr(const IterVar& iv);
  std::string Name() const { return op_->name; }

  std::shared_ptr<const te::OperationNode> op_;
  Expr body_;
  std::vector<IterVar> root_axes_;
  std::vector<IterVar> reduce_axes_;
  std::vector<IterVar> leaf_;
  std::vector<Relation> relations_;
  std::map<const te::IterVarNode*, IterVarAttr> attrs_;
  Attach attach_;
  std::string scope_ = "global";
  std::vector<StorageAlign> aligns_;
  bool is_output_ = false;
  // Set by Schedule so ComputeAt can check what reads what.
  const class Schedule* schedule_ = nullptr;
};

// All stages needed to compute some output tensors, producers before consumers.
class Schedule {
 public:
  // InvalidArgument: no outputs, or an output that is an input placeholder.
  static absl::StatusOr<std::unique_ptr<Schedule>> Create(const std::vector<Tensor>& outputs);

  // The stage of `t`. InvalidArgument when t is not part of this schedule. Templates, which
  // run inside the job service, use this form.
  absl::StatusOr<Stage*> StageOf(const Tensor& t);
  // The stage of `t` for code whose programs are fixed (tests, benchmarks): aborts when t is
  // not part of this schedule.
  Stage& operator[](const Tensor& t);
  const Stage* Find(const te::OperationNode* op) const;
  Stage* FindMutable(const te::OperationNode* op);
  const std::vector<std::unique_ptr<Stage>>& stages() const { return stages_; }
  const std::vector<Tensor>& outputs() const { return outputs_; }

  // Adds a stage that computes `t` into a buffer of `scope`; `t` becomes a copy of it. Call
  // before splitting `t`'s stage. FailedPrecondition: t is an input or already transformed.
  absl::StatusOr<Tensor> CacheWrite(const Tensor& t, const std::string& scope);
  // Adds a stage that copies `t` into `scope`; `readers` read the copy instead.
  // InvalidArgument: a reader that does not read t.
  absl::StatusOr<Tensor> CacheRead(const Tensor& t, const std::string& scope,
                                   const std::vector<Tensor>& readers);

  // Stages whose bodies read `op`.
  std::vector<const Stage*> ConsumersOf(const te::OperationNode* op) const;

 private:
  Schedule() = default;
  void AddStage(std::unique_ptr<Stage> stage, size_t position);
  size_t IndexOf(const te::OperationNode* op) const;

  std::vector<std::unique_ptr<Stage>> stages_;
  std::vector<Tensor> outputs_;
};

}  // namespace tunefarm::schedule

#endif  // TUNEFARM_COMPILER_SCHEDULE_SCHEDULE_H_
