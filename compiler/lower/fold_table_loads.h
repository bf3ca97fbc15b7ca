// Table folding: a load from a table at a constant index becomes the table's value.
//
// A table is a stage computed from its indices alone (no tensor read, no reduction): a
// constant(...) table of the language, whose element is a select tree over its row-major index.
// The generated schedules compute a table read by a reduction once per call at the top level,
// so each read is a load. Where unrolling makes a read's index a constant (a Winograd
// transform whose loops over the matrix are unrolled whole), the load is replaced by the value
// itself: the simplifier then drops the terms multiplied by 0, and the others multiply by a
// constant instead of a broadcast load of the element. A table whose
// every read folded is no longer computed.
#ifndef TUNEFARM_COMPILER_LOWER_FOLD_TABLE_LOADS_H_
#define TUNEFARM_COMPILER_LOWER_FOLD_TABLE_LOADS_H_

#include "compiler/ir/ir.h"
#include "compiler/ir/ir_util.h"

namespace tunefarm::lower {

// Runs after storage flattening and unrolling (loads have one flat index, unrolled indices
// are constants). `bindings` resolve symbolic shape variables in a table's shape and body.
ir::Stmt FoldTableLoads(ir::Stmt s, const ir::VarMap& bindings);

}  // namespace tunefarm::lower

#endif  // TUNEFARM_COMPILER_LOWER_FOLD_TABLE_LOADS_H_
