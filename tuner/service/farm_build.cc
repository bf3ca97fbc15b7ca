#include "tuner/service/farm_build.h"

#include <atomic>
#include <map>
#include <memory>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "common/content_hash.h"
#include "compiler/codegen/target.h"
#include "tuner/generated/program_template.h"
#include "tuner/service/task_spec.h"

namespace tunefarm::tuner {
namespace {

// Tasks made for builds, by serialized task spec and target. Bounded: a builder serves a few
// tasks at a time; past the bound the cache starts over.
class TaskCache {
 public:
  absl::StatusOr<std::shared_ptr<const TuneTask>> Get(const v1::BuildSpec& spec) {
    std::string key;
    if (!spec.task().SerializeToString(&key)) {
      return absl::InvalidArgumentError("build spec: task does not serialize");
    }
    absl::StrAppend(&key, "|", spec.target());
    {
      absl::MutexLock lock(&mu_);
      auto it = tasks_.find(key);
      if (it != tasks_.end()) return it->second;
    }
    auto task = MakeTaskFromSpec(spec.task(), spec.target(), "builder");
    if (!task.ok()) return task.status();
    auto shared = std::make_shared<const TuneTask>(*std::move(task));
    absl::MutexLock lock(&mu_);
    if (tasks_.size() >= kMaxTasks) tasks_.clear();
    tasks_.emplace(key, shared);
    return shared;
  }

 private:
  static constexpr size_t kMaxTasks = 64;
  absl::Mutex mu_;
  absl::flat_hash_map<std::string, std::shared_ptr<const TuneTask>> tasks_ ABSL_GUARDED_BY(mu_);
};

TaskCache& Cache() {
  static TaskCache* cache = new TaskCache;
  return *cache;
}

// The target spelled out in full (triple, CPU and features), so a builder on another machine
// compiles for the measuring devices' CPU, not its own; "llvm" alone means the host's CPU
// there, and LLVM may know this CPU only as "generic", its features coming from the host.
std::string ExplicitTarget(const codegen::Target& t) {
  if (t.kind != codegen::Target::Kind::kLLVM) return t.str;
  std::string s = absl::StrCat("llvm -mtriple=", t.triple, " -mcpu=", t.cpu);
  if (!t.features.empty()) absl::StrAppend(&s, " -mattr=", t.features);
  return s;
}

v1::MeasureResult BuildError(absl::string_view message) {
  v1::MeasureResult r;
  r.set_error(v1::BUILD_ERROR);
  r.set_message(std::string(message));
  return r;
}

}  // namespace

v1::MeasureResult BuildFromSpec(const v1::BuildSpec& spec) {
  if (spec.config_index() < -1) return BuildError("negative config index");
  auto task = Cache().Get(spec);
  if (!task.ok()) return BuildError(task.status().ToString());
  std::optional<int64_t> index;
  if (spec.config_index() >= 0) index = spec.config_index();
  BuildResult b = BuildConfig(**task, index);
  if (!b.status.ok()) return BuildError(b.status.ToString());
  v1::MeasureResult r;
  v1::BuiltArtifact* built = r.mutable_built();
  built->mutable_artifact()->set_hash(b.artifact_hash);
  built->mutable_artifact()->set_content(std::move(b.artifact));
  for (v1::TensorArg& t : b.tensors) *built->add_tensors() = std::move(t);
  for (v1::PackedArg& p : b.packed_args) *built->add_packed_args() = std::move(p);
  built->set_build_seconds(b.build_seconds);
  return r;
}

absl::StatusOr<v1::TaskSpec> TaskSpecOf(const TuneTask& task) {
  v1::TaskSpec spec;
  if (const auto* program = dynamic_cast<const ProgramTemplate*>(task.tmpl.get())) {
    // The builder parses the canonical text again: the same name and hash, so the same
    // workload, and the shape variables bound to the task's args in their order.
    const std::vector<std::string>& vars = program->shape_variables();
    if (vars.size() != task.workload.args.size()) {
      return absl::InternalError(absl::StrCat("program ", program->name(), " has ", vars.size(),
                                              " shape variables but its task ",
                                              task.workload.args.size(), " args"));
    }
    spec.set_program(program->canonical_text());
    spec.set_program_name(program->program_name());
    for (size_t i = 0; i < vars.size(); ++i)
      (*spec.mutable_shapes())[vars[i]] = task.workload.args[i];
    return spec;
  }
  spec.set_template_name(task.workload.template_name);
  for (int64_t a : task.workload.args) spec.add_args(a);
  spec.set_dtype(task.workload.dtype.ToString());
  return spec;
}

absl::StatusOr<std::vector<BuildResult>> BuildOnFarm(
    TrackerClient& client, const std::string& job_id, const std::string& builder_key,
    const TuneTask& task, const std::vector<int64_t>& indices, absl::Duration timeout) {
  auto spec = TaskSpecOf(task);
  if (!spec.ok()) return spec.status();
  // Request ids unique across this process's rounds.
  static std::atomic<int64_t> next{0};
  std::vector<v1::MeasureRequest> requests;
  std::map<std::string, size_t> slot;
  for (size_t i = 0; i < indices.size(); ++i) {
    v1::MeasureRequest r;
    r.set_request_id(absl::StrCat(job_id, "/build/", next++));
    r.set_kernel_name(kKernelName);
    v1::BuildSpec* b = r.mutable_build();
    *b->mutable_task() = *spec;
    b->set_target(ExplicitTarget(task.target));
    b->set_config_index(indices[i]);
    slot[r.request_id()] = i;
    requests.push_back(std::move(r));
  }
  auto results = client.MeasureBatch(job_id + "/build", builder_key, 0, requests, timeout);
  if (!results.ok()) return results.status();
  std::vector<BuildResult> out(indices.size());
  for (size_t i = 0; i < indices.size(); ++i) {
    out[i].index = indices[i];
    out[i].status = absl::UnavailableError("no answer from the builders");
  }
  for (const v1::MeasureResult& r : *results) {
    auto it = slot.find(r.request_id());
    if (it == slot.end()) continue;
    BuildResult& b = out[it->second];
    if (r.error() == v1::BUILD_ERROR) {
      b.status = absl::InternalError(absl::StrCat("builder ", r.worker_id(), ": ", r.message()));
      continue;
    }
    if (r.error() != v1::ERROR_NONE) {
      // The farm failed this build (its builders were lost, it timed out): not the config's
      // fault, so the caller builds the round itself rather than log it as a build error.
      return absl::UnavailableError(absl::StrCat("the builders did not build config ",
                                                 indices[it->second], ": ", r.message()));
    }
    const v1::BuiltArtifact& built = r.built();
    // A builder is trusted no more than a worker: the bytes must be what their hash says.
    if (built.artifact().content().empty() ||
        ContentHash(built.artifact().content()) != built.artifact().hash()) {
      b.status = absl::DataLossError(absl::StrCat(
          "builder ", r.worker_id(), " sent an artifact that does not match its hash"));
      continue;
    }
    b.status = absl::OkStatus();
    b.artifact = built.artifact().content();
    b.artifact_hash = built.artifact().hash();
    b.tensors.assign(built.tensors().begin(), built.tensors().end());
    b.packed_args.assign(built.packed_args().begin(), built.packed_args().end());
    b.build_seconds = built.build_seconds();
  }
  return out;
}

}  // namespace tunefarm::tuner
