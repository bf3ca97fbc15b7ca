// Fuzz target: a tensor-expression program as the job service receives it (text of up to
// 1 MiB from the network). Parsing, canonical printing, elaboration with every shape variable
// bound, lowering of the plain schedule, and the generated space (defined, then three of its
// configs scheduled and lowered; for a program with uint8 in it also for an AMX CPU with
// shapes of 64 or 128) give a program or a status, never a crash. The
// canonical text must read back as itself (checked: a mismatch aborts, so the fuzzer reports
// it).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "compiler/codegen/target.h"
#include "compiler/lang/elaborate.h"
#include "compiler/lang/parser.h"
#include "compiler/lang/printer.h"
#include "compiler/lower/lower.h"
#include "compiler/schedule/schedule.h"
#include "tuner/generated/generated_space.h"

namespace {

// The generated space of `args` on `target`, defined, then its first, a middle and its last
// config scheduled and lowered.
void ExerciseGeneratedSpace(const std::vector<tunefarm::te::Tensor>& args,
                            const std::vector<tunefarm::te::Tensor>& weights,
                            const tunefarm::codegen::Target& target) {
  tunefarm::tuner::ConfigSpace space;
  if (!tunefarm::tuner::DefineGeneratedSpace(args, target, &space, weights).ok()) return;
  for (int64_t index : {int64_t{0}, space.size() / 2, space.size() - 1}) {
    absl::StatusOr<tunefarm::tuner::Config> config = space.Get(index);
    if (!config.ok()) continue;
    absl::StatusOr<tunefarm::tuner::Instance> g =
        tunefarm::tuner::ApplyGeneratedSchedule(args, target, *config, weights);
    if (!g.ok()) continue;
    (void)tunefarm::lower::Lower(*g->sch, g->args, "kernel", tunefarm::lower::LowerOptions());
    for (const tunefarm::tuner::Prepack& p : g->prepacks) {
      (void)tunefarm::lower::Lower(*p.sch, p.args, "pack", tunefarm::lower::LowerOptions());
    }
  }
}

}  // namespace

// Elaborates `program` with `shapes`, lowers its plain schedule and exercises its generated
// space on `target`.
void ExerciseProgram(const tunefarm::lang::Program& program,
                     const tunefarm::lang::ShapeBindings& shapes,
                     const tunefarm::codegen::Target& target) {
  absl::StatusOr<tunefarm::lang::ElaboratedProgram> e = tunefarm::lang::Elaborate(program, shapes);
  if (!e.ok()) return;
  auto sch = tunefarm::schedule::Schedule::Create({e->output()});
  if (!sch.ok()) return;
  (void)tunefarm::lower::Lower(**sch, e->args(), "kernel", tunefarm::lower::LowerOptions());
  ExerciseGeneratedSpace(e->args(), e->weights, target);
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<tunefarm::lang::Program> program = tunefarm::lang::ParseProgram(text);
  if (!program.ok()) return 0;
  const std::string canonical = tunefarm::lang::CanonicalText(*program);
  absl::StatusOr<tunefarm::lang::Program> again = tunefarm::lang::ParseProgram(canonical);
  if (!again.ok() || tunefarm::lang::CanonicalText(*again) != canonical) std::abort();

  // Small shapes, varied by the input, keep each run cheap. The generated space's rules
  // (sketch, split reductions, packing) run on what the network sent.
  tunefarm::lang::ShapeBindings shapes;
  int64_t value = 1 + static_cast<int64_t>(size % 7);
  for (const std::string& name : tunefarm::lang::ShapeVariables(*program)) {
    shapes[name] = value;
    value = value % 9 + 2;
  }
  static const tunefarm::codegen::Target host = tunefarm::codegen::HostTarget();
  ExerciseProgram(*program, shapes, host);

  // A program with bytes in it, again for an AMX CPU with every shape variable 64 or 128 (a
  // tile's 64-byte rows, 16-column tiles; one value for all, or a window's weights outgrow the
  // element limit), so the AMX rule (tuner/generated/amx_tiling.h) can match it: its match,
  // its check by the compiler and its schedules run on what the network sent too, on any
  // machine (nothing runs).
  if (text.find("uint8") == std::string::npos) return 0;
  static const tunefarm::codegen::Target amx = [] {
    absl::StatusOr<tunefarm::codegen::Target> t =
        tunefarm::codegen::ParseTarget("llvm -mcpu=sapphirerapids");
    if (!t.ok()) std::abort();
    return *t;
  }();
  for (auto& [name, v] : shapes) v = 64 * (1 + static_cast<int64_t>(size % 2));
  ExerciseProgram(*program, shapes, amx);
  return 0;
}
