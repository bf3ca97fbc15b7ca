// Human-readable text of IR trees, the equivalent of printing TVM's `lower(...)`:
//
//   parallel (i.outer, 0, 32) {
//     allocate C.local[float32 * 8 * 32] local
//     for (k, 0, 1024) {
//       C.local[i.c, ramp(0, 1, 32)] = C.local[...] + x32(A[...]) * B[...]
//     }
//   }
#ifndef TUNEFARM_COMPILER_IR_IR_PRINTER_H_
#define TUNEFARM_COMPILER_IR_IR_PRINTER_H_

#include <ostream>
#include <string>

#include "compiler/ir/ir.h"

namespace tunefarm::ir {

// An expression on one line, e.g. "(i + 1)", "floordiv(x, 4)", "x8(1f)"; "<undef>" for an
// undefined handle. Bool constants print as true/false; 64-bit integer and non-float32 float
// constants carry their width ("4i64", "0.5f16").
std::string ToString(const Expr& e);
// A statement as indented lines (two spaces per level), each ending in "\n"; "" for an
// undefined handle. A For's pragmas come first, as "// pragma" comment lines.
std::string ToString(const Stmt& s);
// The same text, written to `os`.
std::ostream& operator<<(std::ostream& os, const Expr& e);
std::ostream& operator<<(std::ostream& os, const Stmt& s);

}  // namespace tunefarm::ir

#endif  // TUNEFARM_COMPILER_IR_IR_PRINTER_H_
