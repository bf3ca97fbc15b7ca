// Simplification: canonical integer arithmetic (compiler/arith), constant folding, proven
// conditions removed, loops of extent 1 replaced by their body, loops of extent 0 and empty
// branches dropped.
#ifndef TUNEFARM_COMPILER_LOWER_SIMPLIFY_H_
#define TUNEFARM_COMPILER_LOWER_SIMPLIFY_H_

#include "compiler/ir/ir.h"

namespace tunefarm::lower {

ir::Stmt Simplify(ir::Stmt s);

}  // namespace tunefarm::lower

#endif  // TUNEFARM_COMPILER_LOWER_SIMPLIFY_H_
