// Small IR utilities shared by passes: substitution and variable-use queries.
#ifndef TUNEFARM_COMPILER_IR_IR_UTIL_H_
#define TUNEFARM_COMPILER_IR_IR_UTIL_H_

#include <functional>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "compiler/ir/ir.h"

namespace tunefarm::ir {

// Variable -> replacement, keyed by node identity.
using VarMap = absl::flat_hash_map<const VarNode*, Expr>;

// Replaces every use of the mapped variables; replacements are not substituted again. The
// variables that For, Let, LetStmt and Reduce bind, and buffer shapes, are left as they are.
// Returns the input itself when nothing changed.
Expr Substitute(const Expr& e, const VarMap& vmap);
Stmt Substitute(const Stmt& s, const VarMap& vmap);

// True when `e` mentions any variable for which `pred` holds. For a statement, every For's
// loop variable counts as mentioned even where the body never uses it, as do variables in an
// Allocate's shape; a Let's or Reduce's variable counts only where it is used.
bool UsesVar(const Expr& e, const std::function<bool(const VarNode*)>& pred);
bool UsesVar(const Stmt& s, const std::function<bool(const VarNode*)>& pred);

// True when `e` reads memory (contains a Load).
bool ContainsLoad(const Expr& e);

// True when every Load in `e` is also in `other` (structurally equal): a select whose branches
// read only what its condition reads already loads nothing more when both branches are
// evaluated in every lane.
bool LoadsAllIn(const Expr& e, const Expr& other);

// The statements and expressions in `s`, counted as visited (a shared subexpression once per
// use): the size of a lowered kernel, which bounds what LLVM has to compile.
int64_t CountNodes(const Stmt& s);

// A number that integer `e` is provably a multiple of (not always the largest), derived from
// constants, casts, sums, differences, products, and floordiv and floormod by positive
// constants; 1 when nothing is known. 0 counts as a multiple of 2^30; products are capped there.
int64_t KnownMultiple(const Expr& e);

// The operands of a tree of additions, left to right ((a + b) + c -> a, b, c); `e` itself
// when it is not an addition.
std::vector<Expr> SumTerms(const Expr& e);

// The set of variables `e` uses (a Let's or Reduce's variable only where it is used).
absl::flat_hash_set<const VarNode*> VarsOf(const Expr& e);

}  // namespace tunefarm::ir

#endif  // TUNEFARM_COMPILER_IR_IR_UTIL_H_
