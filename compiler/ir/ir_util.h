// Small IR utilities shared by passes: substitution and variable-use queries.
#ifndef TUNEFARM_COMPILER_IR_IR_UTIL_H_
#define TUNEFARM_COMPILER_IR_IR_UTIL_H_

#include <functional>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "compiler/ir/ir.h"

namespace tunefarm::ir {

// Variable -> replacement, keyed by node identity.
using VarMap = absl::flat_hash_map<const VarNode*, Expr>;

// Replaces every use of the mapped variables.
Expr Substitute(const Expr& e, const VarMap& vmap);
Stmt Substitute(const Stmt& s, const VarMap& vmap);

// True when `e` mentions any variable for which `pred` holds.
bool UsesVar(const Expr& e, const std::function<bool(const VarNode*)>& pred);
bool UsesVar(const Stmt& s, const std::function<bool(const VarNode*)>& pred);

// True when `e` reads memory (contains a Load).
bool ContainsLoad(const Expr& e);

// The largest n such that integer `e` is provably a multiple of n, from constants, sums,
// products, floordiv and floormod by constants (1 when nothing is known; large for 0).
int64_t KnownMultiple(const Expr& e);

// The set of variables `e` mentions.
absl::flat_hash_set<const VarNode*> VarsOf(const Expr& e);

}  // namespace tunefarm::ir

#endif  // TUNEFARM_COMPILER_IR_IR_UTIL_H_
