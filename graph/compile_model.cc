#include "graph/compile_model.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/machine_peak.h"
#include "common/scratch_dir.h"
#include "compiler/codegen/build.h"
#include "compiler/codegen/linker.h"
#include "compiler/runtime/ndarray.h"
#include "db/query_best.h"
#include "graph/emit_runner.h"
#include "graph/model_tasks.h"
#include "graph/plan_memory.h"
#include "tuner/export/export_library.h"
#include "tuner/tuning/builder.h"

namespace tunefarm::graph {
namespace {

int64_t Elements(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

absl::Status WriteFile(const std::string& path, const std::string& data) {
  std::ofstream out(path, std::ios::binary);
  out << data;
  out.close();
  if (!out) return absl::InternalError(absl::StrCat("cannot write ", path));
  return absl::OkStatus();
}

// The declared input of program `p` that a kernel argument named `name` is; nullptr if none.
const ProgramArg* ArgNamed(const GroupProgram& p, const std::string& name) {
  for (const ProgramArg& x : p.args) {
    if (x.name == name) return &x;
  }
  return nullptr;
}

// The bytes of weights a lowered kernel of program `p` reads per call: each weight as the
// kernel declares it, or as its ahead-of-time pack writes it.
int64_t WeightBytes(const GroupProgram& p, const tuner::LoweredConfig& lowered) {
  int64_t bytes = 0;
  const std::vector<lower::FuncArg>& args = lowered.kernel.args;
  for (size_t a = 0; a + 1 < args.size(); ++a) {
    const tuner::LoweredPack* pack = nullptr;
    for (const tuner::LoweredPack& k : lowered.packs) {
      if (k.arg_index == static_cast<int>(a)) pack = &k;
    }
    const ProgramArg* pa =
        ArgNamed(p, pack ? pack->func.args[0].buffer->name : args[a].buffer->name);
    if (pa != nullptr && pa->weight) {
      bytes += 4 * Elements(pack ? pack->func.args[1].shape : args[a].shape);
    }
  }
  return bytes;
}

// Where each tensor lives at run time.
struct Storage {
  RunnerArg::Kind kind = RunnerArg::Kind::kArena;
  // Input/output index, or the arena buffer's index.
  int64_t index = 0;
};

}  // namespace

absl::StatusOr<CompileReport> CompileModel(const PreparedModel& model, const db::TuningLog* log,
                                           const CompileOptions& options) {
  absl::StatusOr<codegen::Target> target =
      codegen::ParseTarget(options.target.empty() ? "llvm" : options.target);
  if (!target.ok()) return target.status();
  if (!target->IsHost() || target->kind == codegen::Target::Kind::kCUDA) {
    return absl::InvalidArgumentError(absl::StrCat(
        "a compiled model is linked for this machine's CPU; '", target->str, "' is not it"));
  }
  absl::StatusOr<std::vector<ModelTask>> tasks = ModelTasks(model, options.target, "compile");
  if (!tasks.ok()) return tasks.status();

  // Tensors → storage: the model's inputs and outputs are the caller's buffers; a view is its
  // source's storage; everything else is an arena buffer.
  const Graph& g = model.graph;
  std::map<std::string, std::string> alias;
  for (size_t i = 0; i < model.groups.size(); ++i) {
    const FusedGroup& group = model.groups[i];
    if (group.kind != GroupKind::kView) continue;
    std::string src = g.nodes[group.nodes[0]].inputs[0];
    auto renamed = model.layouts.read_as[i].find(src);
    if (renamed != model.layouts.read_as[i].end()) src = renamed->second;
    alias[group.output] = src;
  }
  auto root = [&](std::string t) {
    for (auto it = alias.find(t); it != alias.end(); it = alias.find(t)) t = it->second;
    return t;
  };
  std::map<std::string, Storage> storage;
  for (size_t i = 0; i < g.inputs.size(); ++i) {
    storage[g.inputs[i]] = {RunnerArg::Kind::kInput, static_cast<int64_t>(i)};
  }
  for (size_t i = 0; i < model.layouts.outputs.size(); ++i) {
    const std::string r = root(model.layouts.outputs[i]);
    if (storage.count(r)) {
      return absl::UnimplementedError(absl::StrCat("output '", model.layouts.outputs[i],
                                                   "' is an input or another output of the model"));
    }
    storage[r] = {RunnerArg::Kind::kOutput, static_cast<int64_t>(i)};
  }
  std::vector<BufferUse> uses;
  std::vector<int> call_of_group(model.groups.size(), -1);
  int calls = 0;
  for (size_t i = 0; i < model.groups.size(); ++i) {
    if (model.groups[i].kind != GroupKind::kView) call_of_group[i] = calls++;
  }
  auto touch = [&](const std::string& tensor, int call, int64_t bytes) {
    const std::string r = root(tensor);
    auto it = storage.find(r);
    if (it == storage.end()) {
      it = storage.emplace(r, Storage{RunnerArg::Kind::kArena, static_cast<int64_t>(uses.size())})
               .first;
      uses.push_back({bytes, call, call});
    }
    if (it->second.kind == RunnerArg::Kind::kArena) {
      BufferUse& u = uses[it->second.index];
      u.first = std::min(u.first, call);
      u.last = std::max(u.last, call);
      u.bytes = std::max(u.bytes, bytes);
    }
    return it->second;
  };

  // Each task's best record; each group runs the fastest tuned of its tasks (its program's or
  // an alternative algorithm's), its own program untuned where none is tuned; the chosen tasks'
  // best configs are lowered, their packs run below, per group.
  CompileReport report;
  struct TaskBuild {
    std::optional<int64_t> index;
    bool tuned = false;
    double seconds = 0;
    // Timed cold (records' cold_cache): `seconds` already includes streaming the weights.
    bool cold = false;
    std::string config = "{} (untuned)";
    bool used = false;
    bool lowered_ok = false;
    tuner::LoweredConfig lowered;
    int64_t weight_bytes = 0;
  };
  // The program a task's kernel computes (the same text for every group it serves).
  auto program_of = [&](size_t t) -> const GroupProgram& {
    const int grp = (*tasks)[t].groups[0];
    const int variant = (*tasks)[t].variant;
    return variant == 0 ? model.programs[grp] : model.alternatives[grp][variant - 1];
  };
  std::vector<TaskBuild> builds(tasks->size());
  for (size_t t = 0; t < tasks->size(); ++t) {
    const ModelTask& mt = (*tasks)[t];
    TaskBuild& b = builds[t];
    if (log == nullptr) continue;
    const db::Workload w = mt.task.DbWorkload();
    absl::StatusOr<std::vector<db::BestRecord>> best =
        db::BestPerWorkload(*log, {w}, target->str, options.device_key);
    if (best.ok()) {
      absl::StatusOr<std::optional<int64_t>> rebuilt = tuner::IndexToRebuild(mt.task, (*best)[0]);
      if (!rebuilt.ok()) return rebuilt.status();
      b.index = *rebuilt;
      b.tuned = b.index.has_value();
      b.seconds = (*best)[0].cost_s;  // its score, as best-k ranked it
      b.cold = (*best)[0].record.cold_cache;
      b.config = (*best)[0].record.config_json;
    } else if (best.status().code() != absl::StatusCode::kNotFound) {
      return best.status();
    }
  }
  // Groups with more than one tuned algorithm choose by time plus weight streaming: their
  // candidates are lowered here to count the bytes their kernels read. A time measured cold
  // already holds the streaming, and is charged nothing more.
  std::map<int, int> tuned_per_group;
  for (size_t t = 0; t < tasks->size(); ++t) {
    for (int grp : (*tasks)[t].groups) tuned_per_group[grp] += builds[t].tuned ? 1 : 0;
  }
  for (size_t t = 0; t < tasks->size(); ++t) {
    TaskBuild& b = builds[t];
    const bool competes = std::any_of((*tasks)[t].groups.begin(), (*tasks)[t].groups.end(),
                                      [&](int grp) { return tuned_per_group[grp] > 1; });
    if (!b.tuned || !competes) continue;
    absl::StatusOr<tuner::LoweredConfig> lowered = tuner::LowerConfig((*tasks)[t].task, b.index);
    if (!lowered.ok()) return lowered.status();
    b.lowered = *std::move(lowered);
    b.lowered_ok = true;
    b.weight_bytes = WeightBytes(program_of(t), b.lowered);
    if (report.weight_read_gbs == 0 && options.weight_read_gbs != 0) {
      report.weight_read_gbs =
          options.weight_read_gbs > 0 ? options.weight_read_gbs : MeasureReadBandwidthGBs();
    }
  }
  auto cost = [&](const TaskBuild& b) {
    return b.seconds + (report.weight_read_gbs > 0 && !b.cold
                            ? b.weight_bytes / (report.weight_read_gbs * 1e9)
                            : 0);
  };
  std::map<int, int> task_of_group;
  for (size_t t = 0; t < tasks->size(); ++t) {
    for (int grp : (*tasks)[t].groups) {
      auto it = task_of_group.find(grp);
      const TaskBuild& b = builds[t];
      const bool better =
          it == task_of_group.end()
              ? true
              : (b.tuned && (!builds[it->second].tuned || cost(b) < cost(builds[it->second]))) ||
                    (!b.tuned && !builds[it->second].tuned && (*tasks)[t].variant == 0);
      if (better) task_of_group[grp] = static_cast<int>(t);
    }
  }
  for (const auto& [grp, chosen] : task_of_group) {
    for (size_t t = 0; t < tasks->size(); ++t) {
      const TaskBuild& b = builds[t];
      const TaskBuild& c = builds[chosen];
      if (!b.tuned || static_cast<int>(t) == chosen || b.seconds >= c.seconds ||
          std::find((*tasks)[t].groups.begin(), (*tasks)[t].groups.end(), grp) ==
              (*tasks)[t].groups.end()) {
        continue;
      }
      report.notes.push_back(absl::StrFormat(
          "g%d: %s (%.3f ms tuned, %.1f MB of weights) runs, not %s (%.3f ms, %.1f MB): "
          "weights read at %.1f GB/s",
          grp, program_of(chosen).name, c.seconds * 1e3, c.weight_bytes / 1e6, program_of(t).name,
          b.seconds * 1e3, b.weight_bytes / 1e6, report.weight_read_gbs));
    }
  }
  std::vector<lower::LoweredFunc> kernels, packs;
  for (const auto& [grp, t] : task_of_group) {
    TaskBuild& b = builds[t];
    if (b.used) continue;
    b.used = true;
    if (!b.lowered_ok) {
      absl::StatusOr<tuner::LoweredConfig> lowered = tuner::LowerConfig((*tasks)[t].task, b.index);
      if (!lowered.ok()) return lowered.status();
      b.lowered = *std::move(lowered);
    }
    b.lowered.kernel.name = absl::StrCat("tf_model_k", t);
    kernels.push_back(b.lowered.kernel);
    for (tuner::LoweredPack& p : b.lowered.packs) {
      p.func.name = absl::StrCat("tf_model_k", t, "_pack", p.arg_index);
      packs.push_back(p.func);
    }
  }
  std::unique_ptr<codegen::JitModule> pack_jit;
  if (!packs.empty()) {
    absl::StatusOr<std::unique_ptr<codegen::JitModule>> jit = codegen::BuildJit(packs, *target);
    if (!jit.ok()) return jit.status();
    pack_jit = *std::move(jit);
  }

  // The calls, their arguments and the weights payload.
  RunnerPlan plan;
  std::string payload;
  auto add_weight = [&](const float* data, int64_t count) {
    payload.resize((payload.size() + kTensorAlignment - 1) / kTensorAlignment * kTensorAlignment);
    const int64_t offset = static_cast<int64_t>(payload.size());
    payload.append(reinterpret_cast<const char*>(data), count * sizeof(float));
    return offset;
  };
  std::vector<std::pair<size_t, size_t>> arena_args;  // (call, arg) whose offset is patched
  for (size_t i = 0; i < model.groups.size(); ++i) {
    if (call_of_group[i] < 0) continue;
    const int call = call_of_group[i];
    const int t = task_of_group.at(static_cast<int>(i));
    const int variant = (*tasks)[t].variant;
    const GroupProgram& p = variant == 0 ? model.programs[i] : model.alternatives[i][variant - 1];
    const TaskBuild& b = builds[t];
    RunnerCall rc;
    rc.symbol = b.lowered.kernel.name;
    rc.label = absl::StrCat("g", i, " ", p.name);
    const std::vector<lower::FuncArg>& args = b.lowered.kernel.args;
    for (size_t a = 0; a < args.size(); ++a) {
      RunnerArg ra;
      ra.shape = args[a].shape;
      const int64_t count = Elements(ra.shape);
      if (a + 1 == args.size()) {
        Storage s = touch(p.output, call, count * 4);
        ra.kind = s.kind;
        ra.offset = s.index;
        if (s.kind == RunnerArg::Kind::kArena) arena_args.emplace_back(plan.calls.size(), a);
        rc.args.push_back(ra);
        continue;
      }
      const tuner::LoweredPack* pack = nullptr;
      for (const tuner::LoweredPack& k : b.lowered.packs) {
        if (k.arg_index == static_cast<int>(a)) pack = &k;
      }
      const std::string name = pack ? pack->func.args[0].buffer->name : args[a].buffer->name;
      const ProgramArg* pa = ArgNamed(p, name);
      if (pa == nullptr) {
        return absl::InternalError(absl::StrCat("group ", i, ": kernel argument '", name,
                                                "' is not an input of its program"));
      }
      if (pa->weight) {
        ra.kind = RunnerArg::Kind::kWeights;
        if (pack == nullptr) {
          if (static_cast<int64_t>(pa->data.size()) != count) {
            return absl::InternalError(absl::StrCat("group ", i, ": weight '", name, "' size"));
          }
          ra.offset = add_weight(pa->data.data(), count);
        } else {
          absl::StatusOr<TfKernelFn> fn = pack_jit->Lookup(pack->func.name);
          if (!fn.ok()) return fn.status();
          auto in = runtime::NDArray::Empty(pack->func.args[0].shape, ir::DataType::Float(32));
          auto out = runtime::NDArray::Empty(pack->func.args[1].shape, ir::DataType::Float(32));
          if (!in.ok() || !out.ok()) return absl::ResourceExhaustedError("pack buffers");
          if (Elements(pack->func.args[0].shape) != static_cast<int64_t>(pa->data.size())) {
            return absl::InternalError(
                absl::StrCat("group ", i, ": packed weight '", name, "' size"));
          }
          std::copy(pa->data.begin(), pa->data.end(), in->data<float>());
          DLTensor* pack_args[] = {in->dl(), out->dl()};
          if (int32_t code = (*fn)(pack_args, 2); code != 0) {
            return absl::InternalError(absl::StrCat("packing weight '", name, "' of group ", i,
                                                    " failed with code ", code));
          }
          ra.offset = add_weight(out->data<float>(), Elements(pack->func.args[1].shape));
        }
      } else {
        Storage s = touch(pa->tensor, call, count * 4);
        ra.kind = s.kind;
        ra.offset = s.index;
        if (s.kind == RunnerArg::Kind::kArena) arena_args.emplace_back(plan.calls.size(), a);
      }
      rc.args.push_back(ra);
    }
    CompiledGroup cg;
    cg.label = rc.label;
    const db::Workload w = (*tasks)[t].task.DbWorkload();
    cg.workload = w.template_name;
    cg.args = w.args;
    // The group's FLOPs by its own program (the direct algorithm), so an alternative
    // algorithm's GFLOP/s is comparable.
    cg.flop = (*tasks)[t].task.workload.flop;
    for (const ModelTask& other : *tasks) {
      if (other.variant == 0 && std::find(other.groups.begin(), other.groups.end(),
                                          static_cast<int>(i)) != other.groups.end()) {
        cg.flop = other.task.workload.flop;
      }
    }
    cg.tuned = b.tuned;
    cg.tuned_seconds = b.seconds;
    cg.config_json = b.config;
    if (!b.tuned) ++report.untuned;
    report.predicted_seconds += b.seconds;
    report.calls.push_back(cg);
    plan.calls.push_back(std::move(rc));
  }
  const MemoryPlan memory = PlanMemory(uses);
  for (const auto& [c, a] : arena_args) {
    RunnerArg& ra = plan.calls[c].args[a];
    ra.offset = memory.offsets[ra.offset];
  }
  for (const std::string& in : g.inputs) plan.inputs.push_back({in, g.Find(in)->shape});
  for (size_t i = 0; i < g.outputs.size(); ++i) {
    plan.outputs.push_back({g.outputs[i], g.Find(model.layouts.outputs[i])->shape});
  }
  plan.arena_bytes = memory.arena_bytes;
  plan.weights_bytes = static_cast<int64_t>(payload.size());
  plan.weights_checksum = WeightsChecksum(payload);
  report.arena_bytes = memory.arena_bytes;
  report.unshared_bytes = memory.unshared_bytes;
  report.weights_bytes = plan.weights_bytes;

  // The library: kernels and the kernel runtime (LLVM) + runner (C), linked; its header and weights
  // beside it.
  absl::StatusOr<ScratchDir> scratch = ScratchDir::Make("tunefarm-compile");
  if (!scratch.ok()) return scratch.status();
  const ScratchDir& dir = *scratch;
  absl::StatusOr<std::string> object = codegen::BuildObject(kernels, *target);
  if (!object.ok()) return object.status();
  if (absl::Status s = WriteFile(dir.File("kernels.o"), *object); !s.ok()) return s;
  absl::StatusOr<std::string> runtime = codegen::KernelRuntimeObject(*target);
  if (!runtime.ok()) return runtime.status();
  if (absl::Status s = WriteFile(dir.File("runtime.o"), *runtime); !s.ok()) return s;
  if (absl::Status s = WriteFile(dir.File("runner.c"), EmitRunnerSource(plan)); !s.ok()) return s;
  if (absl::Status s = codegen::CompileCSource(dir.File("runner.c"), dir.File("runner.o"));
      !s.ok()) {
    return s;
  }
  if (absl::Status s = codegen::LinkSharedLibrary(
          {dir.File("kernels.o"), dir.File("runtime.o"), dir.File("runner.o")},
          options.library_path);
      !s.ok()) {
    return s;
  }
  const std::string description = absl::StrCat(
      "Generated by `tunefarm compile` from ", options.model_name, " for target \"", target->str,
      "\": ", plan.calls.size(), " kernel calls, ", report.untuned, " of them untuned.");
  if (absl::Status s = WriteFile(options.header_path, EmitRunnerHeader(plan, description));
      !s.ok()) {
    return s;
  }
  std::string header(kWeightsHeaderBytes, '\0');
  std::copy(kWeightsMagic, kWeightsMagic + 8, header.begin());
  for (int k = 0; k < 8; ++k) {
    header[8 + k] = static_cast<char>((static_cast<uint64_t>(payload.size()) >> (8 * k)) & 0xff);
    header[16 + k] = static_cast<char>((plan.weights_checksum >> (8 * k)) & 0xff);
  }
  if (absl::Status s = WriteFile(options.weights_path, header + payload); !s.ok()) return s;
  return report;
}

}  // namespace tunefarm::graph
