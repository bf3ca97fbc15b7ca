// Fuzz target: a tensor-expression program as the job service receives it (text of up to
// 1 MiB from the network). Parsing, canonical printing, elaboration with every shape variable
// bound, and lowering of the plain schedule give a program or a status, never a crash. The
// canonical text must read back as itself (checked: a mismatch aborts, so the fuzzer reports
// it).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "compiler/lang/elaborate.h"
#include "compiler/lang/parser.h"
#include "compiler/lang/printer.h"
#include "compiler/lower/lower.h"
#include "compiler/schedule/schedule.h"

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
  return 0;
}
