// Human-readable text of IR trees, the equivalent of printing TVM's `lower(...)`:
//
//   parallel (i.outer, 0, 32) {
//     allocate C.local[float32 * 8 * 32] local
//     for (k, 0, 1024) {
//       C.local[i.c, ramp(0, 1, 32)] = C.local[...] + x4(A[...]) * B[...]
//     }
//   }
#ifndef TUNEFARM_COMPILER_IR_IR_PRINTER_H_
#define TUNEFARM_COMPILER_IR_IR_PRINTER_H_

#include <ostream>
#include <string>

#include "compiler/ir/ir.h"

namespace tunefarm::ir {

std::string ToString(const Expr& e);
std::string ToString(const Stmt& s);
std::ostream& operator<<(std::ostream& os, const Expr& e);
std::ostream& operator<<(std::ostream& os, const Stmt& s);

}  // namespace tunefarm::ir

#endif  // TUNEFARM_COMPILER_IR_IR_PRINTER_H_
