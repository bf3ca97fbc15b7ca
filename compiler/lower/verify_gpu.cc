#include "compiler/lower/verify_gpu.h"

#include <algorithm>
#include <map>
#include <set>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "compiler/ir/ir_visitor.h"
#include "compiler/lower/insert_barriers.h"
#include "compiler/lower/storage_flatten.h"

namespace tunefarm::lower {
namespace {

const char* const kTags[2][3] = {{"blockIdx.x", "blockIdx.y", "blockIdx.z"},
                                 {"threadIdx.x", "threadIdx.y", "threadIdx.z"}};

int64_t BufferBytes(const ir::BufferNode& b) {
  std::optional<int64_t> elems = AllocationElements(b);
  return elems ? *elems * b.dtype.bytes() : -1;
}

class LaunchExtents : public ir::IRVisitor {
 public:
  std::map<std::string, int64_t> extents;

 protected:
  void Visit_(const ir::ForNode* op) override {
    if (op->for_kind == ir::ForKind::kThreadBinding && op->thread_tag != "vthread") {
      // A non-constant extent (rejected by the verifier) still names the index.
      const int64_t* ext = ir::AsConstInt(op->extent);
      int64_t& e = extents[op->thread_tag];
      e = std::max({e, int64_t{1}, ext != nullptr ? *ext : 1});
    }
    IRVisitor::Visit_(op);
  }
};

class Verifier : public ir::IRVisitor {
 public:
  Verifier(const GpuLimits& limits, std::map<std::string, int64_t> extents)
      : extents(std::move(extents)), limits_(limits) {}

  absl::Status status;
  const std::map<std::string, int64_t> extents;  // By tag.
  int64_t shared_bytes = 0;
  int64_t local_bytes = 0;
  bool has_tensorized = false;
  // Every store to a kernel argument, with the tags bound around it.
  std::vector<std::pair<std::string, std::set<std::string>>> arg_stores;

 protected:
  void Visit_(const ir::ForNode* op) override {
    if (!status.ok()) return;
    if (op->pragmas.count("tensorize")) {
      VisitTensorized(op);
      return;
    }
    bool bound = op->for_kind == ir::ForKind::kThreadBinding && op->thread_tag != "vthread";
    if (!bound) {
      IRVisitor::Visit_(op);
      return;
    }
    const int64_t* mn = ir::AsConstInt(op->min);
    const int64_t* ext = ir::AsConstInt(op->extent);
    if (mn == nullptr || *mn != 0 || ext == nullptr) {
      Fail(absl::StrCat("loop '", op->var.name(), "' bound to ", op->thread_tag,
                        " must start at 0 and have a constant extent"));
      return;
    }
    // A loop shorter than the launch dimension runs under `index < extent`.
    bool partial = *ext < extents.at(op->thread_tag);
    conditions_ += partial;
    bool fresh = tags_.insert(op->thread_tag).second;
    IRVisitor::Visit_(op);
    if (fresh) tags_.erase(op->thread_tag);
    conditions_ -= partial;
  }
  void Visit_(const ir::IfThenElseNode* op) override {
    ++conditions_;
    IRVisitor::Visit_(op);
    --conditions_;
  }

  void Visit_(const ir::EvaluateNode* op) override {
    if (conditions_ > 0 && IsBarrierCall(op->value)) {
      Fail(
          "a barrier (__syncthreads) sits under a condition, where threads that skip it would "
          "deadlock the block; use tile sizes that divide the extents of the stages that fill "
          "shared memory");
      return;
    }
    IRVisitor::Visit_(op);
  }

  void Visit_(const ir::AllocateNode* op) override {
    const ir::BufferNode& b = *op->buffer;
    int64_t bytes = BufferBytes(b);
    if (bytes < 0) {
      Fail(absl::StrCat("buffer '", b.name, "' has a non-constant size"));
      return;
    }
    if (b.scope == "shared") {
      shared_bytes += bytes;
    } else if (b.scope == "local") {
      local_bytes += bytes;
    } else if (b.scope.rfind("wmma.", 0) == 0) {
      local_bytes += bytes / 32;  // A fragment is spread over the warp's registers.
    } else {
      Fail(absl::StrCat("buffer '", b.name, "' is a temporary in ", b.scope,
                        " memory, which needs a kernel launch of its own; compute it inside "
                        "the block (compute_at) in \"shared\" or \"local\" scope, or inline it"));
      return;
    }
    IRVisitor::Visit_(op);
  }

  void Visit_(const ir::StoreNode* op) override {
    CheckVector(op->buffer.get(), op->value.type());
    if (op->buffer->scope == "global") {
      std::set<std::string> tags = tags_;
      // A warp-wide store: the 32 lanes of threadIdx.x write it together.
      if (tensorized_ > 0) tags.insert("threadIdx.x");
      arg_stores.emplace_back(op->buffer->name, tags);
    }
    IRVisitor::Visit_(op);
  }

  void Visit_(const ir::LoadNode* op) override {
    CheckVector(op->buffer.get(), op->type);
    IRVisitor::Visit_(op);
  }

 private:
  void CheckVector(const ir::BufferNode* b, ir::DataType t) {
    if (b->scope == "local" || t.lanes == 1) return;
    int64_t bytes = int64_t{t.lanes} * b->dtype.bytes();
    if (bytes > limits_.max_vector_bytes) {
      Fail(absl::StrCat("a vector access of ", t.lanes, " x ", b->dtype.ToString(), " (", bytes,
                        " bytes) to '", b->name, "' is wider than the widest GPU load/store (",
                        limits_.max_vector_bytes, " bytes); vectorize fewer lanes"));
    }
  }
  void Fail(const std::string& message) {
    if (status.ok()) status = absl::FailedPreconditionError(message);
  }

  // A nest that becomes a warp-wide WMMA operation: every lane of the warp must run it with
  // the same operands, so no threadIdx.x loop encloses it and no condition guards it.
  void VisitTensorized(const ir::ForNode* op) {
    has_tensorized = true;
    if (tags_.count("threadIdx.x")) {
      Fail(absl::StrCat("the tensorized nest at loop '", op->var.name(),
                        "' is inside a loop bound to threadIdx.x; WMMA operations are warp-wide, "
                        "so threadIdx.x must be the 32 lanes of a warp and stay out of the nest's "
                        "stage (bind warps to threadIdx.y/z)"));
      return;
    }
    if (conditions_ > 0) {
      Fail(absl::StrCat("the tensorized nest at loop '", op->var.name(),
                        "' is under a condition; WMMA operations must be reached by the whole "
                        "warp (use tile sizes that divide the extents)"));
      return;
    }
    ++tensorized_;
    IRVisitor::Visit_(op);
    --tensorized_;
  }

  const GpuLimits& limits_;
  std::set<std::string> tags_;
  int conditions_ = 0;
  int tensorized_ = 0;
};

}  // namespace

std::map<std::string, int64_t> IndexExtents(const ir::Stmt& body) {
  LaunchExtents launch_extents;
  launch_extents.Visit(body);
  return launch_extents.extents;
}

absl::StatusOr<GpuLimits> GpuLimits::ForArch(const std::string& arch) {
  int sm = 0;
  if (arch.rfind("sm_", 0) != 0 || !absl::SimpleAtoi(arch.substr(3), &sm) || sm < 50) {
    return absl::InvalidArgumentError(absl::StrCat("unknown CUDA architecture '", arch,
                                                   "' (expected sm_50 or newer, e.g. sm_90)"));
  }
  GpuLimits limits;  // Identical for every architecture since sm_50 (static shared memory).
  return limits;
}

absl::StatusOr<GpuLaunch> VerifyGpuKernel(const LoweredFunc& f, const GpuLimits& limits) {
  Verifier v(limits, IndexExtents(f.body));
  v.Visit(f.body);
  if (!v.status.ok()) {
    return absl::FailedPreconditionError(absl::StrCat(f.name, ": ", v.status.message()));
  }
  auto fail = [&](const std::string& m) {
    return absl::FailedPreconditionError(absl::StrCat(f.name, ": ", m));
  };
  GpuLaunch launch;
  for (int kind = 0; kind < 2; ++kind) {
    for (int d = 0; d < 3; ++d) {
      auto it = v.extents.find(kTags[kind][d]);
      if (it == v.extents.end()) continue;
      (kind == 0 ? launch.grid : launch.block)[d] = it->second;
      int64_t max = (kind == 0 ? limits.max_grid : limits.max_block)[d];
      if (it->second > max) {
        return fail(absl::StrCat(kTags[kind][d], " has extent ", it->second, ", more than the ",
                                 max, " the GPU allows"));
      }
    }
  }
  if (launch.threads_per_block() > limits.max_threads_per_block) {
    return fail(absl::StrCat(launch.threads_per_block(), " threads per block (",
                             absl::StrJoin(launch.block, " x "), ") exceed the limit of ",
                             limits.max_threads_per_block));
  }
  if (v.has_tensorized && launch.block[0] != 32) {
    return fail(
        absl::StrCat("tensor-core (WMMA) operations need threadIdx.x to be the 32 lanes "
                     "of a warp, but its extent is ",
                     launch.block[0]));
  }
  launch.shared_bytes = v.shared_bytes;
  launch.local_bytes = v.local_bytes;
  if (v.shared_bytes > limits.max_shared_bytes) {
    return fail(absl::StrCat("the shared buffers need ", v.shared_bytes,
                             " bytes per block, more than the ", limits.max_shared_bytes,
                             " bytes of static shared memory"));
  }
  if (v.local_bytes > limits.max_local_bytes) {
    return fail(absl::StrCat("the local buffers need ", v.local_bytes,
                             " bytes per thread, more than the limit of ", limits.max_local_bytes,
                             " (smaller register tiles)"));
  }
  for (const auto& [buffer, tags] : v.arg_stores) {
    for (const auto& [tag, extent] : v.extents) {
      if (extent > 1 && !tags.count(tag)) {
        return fail(absl::StrCat("the store to '", buffer, "' is not inside a loop bound to ", tag,
                                 ", so the ", extent,
                                 " threads that differ in it would all write the same elements; "
                                 "bind a loop of the output to ",
                                 tag));
      }
    }
  }
  return launch;
}

}  // namespace tunefarm::lower
