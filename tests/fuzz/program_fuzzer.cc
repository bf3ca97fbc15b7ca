// Fuzz target: a tensor-expression program as the job service receives it (text of up to
// 1 MiB from the network). Parsing, canonical printing, elaboration with every shape variable
// bound, lowering of the plain schedule, and the generated space (defined, then three of its
// configs scheduled and lowered) give a program or a status, never a crash. The
// canonical text must read back as itself (checked: a mismatch aborts, so the fuzzer reports
// it).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "compiler/codegen/target.h"
#include "compiler/lang/elaborate.h"
#include "compiler/lang/parser.h"
#include "compiler/lang/printer.h"
#include "compiler/lower/lower.h"
#include "compiler/schedule/schedule.h"
#include "tuner/generated/generated_space.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<tunefarm::lang::Program> program = tunefarm::lang::ParseProgram(text);
  if (!program.ok()) return 0;
  const std::string canonical = tunefarm::lang::CanonicalText(*program);
  absl::StatusOr<tunefarm::lang::Program> again = tunefarm::lang::ParseProgram(canonical);
  if (!again.ok() || tunefarm::lang::CanonicalText(*again) != canonical) std::abort();

  // Small shapes, varied by the input, keep each run cheap.
  tunefarm::lang::ShapeBindings shapes;
  int64_t value = 1 + static_cast<int64_t>(size % 7);
  for (const std::string& name : tunefarm::lang::ShapeVariables(*program)) {
    shapes[name] = value;
    value = value % 9 + 2;
  }
  absl::StatusOr<tunefarm::lang::ElaboratedProgram> e = tunefarm::lang::Elaborate(*program, shapes);
  if (!e.ok()) return 0;
  auto sch = tunefarm::schedule::Schedule::Create({e->output()});
  if (!sch.ok()) return 0;
  (void)tunefarm::lower::Lower(**sch, e->args(), "kernel", tunefarm::lower::LowerOptions());

  // The generated space's rules (sketch, split reductions, packing) run on what the network
  // sent: the first, a middle and the last config of the space.
  static const tunefarm::codegen::Target host = tunefarm::codegen::HostTarget();
  tunefarm::tuner::ConfigSpace space;
  if (!tunefarm::tuner::DefineGeneratedSpace(e->args(), host, &space, e->weights).ok()) return 0;
  for (int64_t index : {int64_t{0}, space.size() / 2, space.size() - 1}) {
    absl::StatusOr<tunefarm::tuner::Config> config = space.Get(index);
    if (!config.ok()) continue;
    absl::StatusOr<tunefarm::tuner::Instance> g =
        tunefarm::tuner::ApplyGeneratedSchedule(e->args(), host, *config, e->weights);
    if (!g.ok()) continue;
    (void)tunefarm::lower::Lower(*g->sch, g->args, "kernel", tunefarm::lower::LowerOptions());
    for (const tunefarm::tuner::Prepack& p : g->prepacks) {
      (void)tunefarm::lower::Lower(*p.sch, p.args, "pack", tunefarm::lower::LowerOptions());
    }
  }
  return 0;
}
