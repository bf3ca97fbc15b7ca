#include "compiler/codegen/wmma_nest.h"

#include <map>
#include <optional>
#include <vector>

#include "absl/strings/str_cat.h"
#include "compiler/arith/analyzer.h"
#include "compiler/ir/ir_equality.h"
#include "compiler/ir/ir_operators.h"
#include "compiler/ir/ir_printer.h"
#include "compiler/ir/ir_util.h"

namespace tunefarm::codegen {
namespace {

using ir::Expr;
using schedule::TensorIntrinsic;

constexpr int64_t kTile = 16;

// index = base + Σ coef[v]·v for the nest's variables.
struct Affine {
  Expr base;
  std::map<const ir::VarNode*, int64_t> coef;
};

std::optional<Affine> AffineIn(const Expr& index, const std::vector<ir::Var>& vars) {
  arith::Analyzer an;
  auto at = [&](const ir::VarNode* one, int64_t value) {
    ir::VarMap m;
    for (const ir::Var& v : vars) m[v.get()] = Expr(v.get() == one ? static_cast<int>(value) : 0);
    return an.Simplify(ir::Substitute(index, m));
  };
  Affine out;
  out.base = at(nullptr, 0);
  for (const ir::Var& v : vars) {
    const Expr step = an.Simplify(at(v.get(), 1) - out.base);
    // Linear in v over the whole tile, not just at 1.
    const Expr span = an.Simplify(at(v.get(), kTile - 1) - out.base);
    const int64_t* c = ir::AsConstInt(step);
    const int64_t* last = ir::AsConstInt(span);
    if (c == nullptr || last == nullptr || *last != *c * (kTile - 1)) return std::nullopt;
    out.coef[v.get()] = *c;
  }
  return out;
}

const ir::LoadNode* AsLoad(const Expr& e) {
  if (const auto* c = e.as<ir::CastNode>()) return c->value.as<ir::LoadNode>();
  return e.as<ir::LoadNode>();
}

bool IsZero(const Expr& e) {
  if (const auto* f = e.as<ir::FloatImmNode>()) return f->value == 0.0;
  if (const auto* c = e.as<ir::CastNode>()) return IsZero(c->value);
  const int64_t* i = ir::AsConstInt(e);
  return i != nullptr && *i == 0;
}

// WMMA loads and stores need a 32-byte aligned tile start and rows a multiple of 16 bytes
// apart; the buffers themselves are aligned (shared arrays to 128 bytes, device allocations to
// 256), so the element offset decides.
absl::Status CheckAligned(ir::DataType dtype, int64_t ldm, const Expr& base) {
  const int64_t bytes = dtype.bytes();
  if (ldm * bytes % 16 != 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "rows are ", ldm, " elements apart; WMMA needs a multiple of 16 bytes (pad the rows)"));
  }
  if (ir::KnownMultiple(base) * bytes % 32 != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("the tile starts at element ", ir::ToString(base),
                     ", which is not provably 32-byte aligned as WMMA requires"));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<WmmaNest> MatchWmmaNest(const ir::ForNode* op) {
  auto it = op->pragmas.find(schedule::kTensorizePragma);
  if (it == op->pragmas.end()) return absl::InvalidArgumentError("not a tensorized loop");
  WmmaNest nest;
  nest.op = static_cast<TensorIntrinsic>(it->second);
  auto fail = [&](const std::string& why) {
    return absl::InvalidArgumentError(
        absl::StrCat("tensorize at loop '", op->var.name(), "': ", why));
  };
  // The perfectly nested loops of extent 16 and the single store inside.
  std::vector<ir::Var> vars;
  const ir::StoreNode* store = nullptr;
  for (const ir::ForNode* f = op; f != nullptr;) {
    const int64_t* mn = ir::AsConstInt(f->min);
    const int64_t* ext = ir::AsConstInt(f->extent);
    if (mn == nullptr || *mn != 0 || ext == nullptr || *ext != kTile) {
      return fail(absl::StrCat("loop '", f->var.name(), "' must run over [0, 16)"));
    }
    vars.push_back(f->var);
    store = f->body.as<ir::StoreNode>();
    f = f->body.as<ir::ForNode>();
  }
  if (store == nullptr || store->indices.size() != 1 || store->value.type().lanes != 1) {
    return fail("the nest's body must be one scalar store");
  }
  auto affine = [&](const Expr& index, const char* what) -> absl::StatusOr<Affine> {
    auto a = AffineIn(index, vars);
    if (!a)
      return fail(absl::StrCat("the ", what, " index ", ir::ToString(index), " is not affine"));
    return *a;
  };
  auto coef = [](const Affine& a, const ir::Var& v) { return a.coef.at(v.get()); };
  auto dst = affine(store->indices[0], "stored");
  if (!dst.ok()) return dst.status();
  const std::string& dst_scope = store->buffer->scope;

  // A 16×16 tile: the outer variable steps rows (any stride), the inner one columns (stride 1).
  auto tile = [&](const Affine& a, const ir::Var& row, const ir::Var& col, const char* what,
                  int64_t* ldm) -> absl::Status {
    if (coef(a, col) != 1 || coef(a, row) < kTile) {
      return fail(absl::StrCat("the ", what, " tile must be row-major over (", row.name(), ", ",
                               col.name(), ") with at least 16 elements per row"));
    }
    if (ldm != nullptr) *ldm = coef(a, row);
    return absl::OkStatus();
  };

  switch (nest.op) {
    case TensorIntrinsic::kWmmaLoadA:
    case TensorIntrinsic::kWmmaLoadB: {
      const char* scope =
          nest.op == TensorIntrinsic::kWmmaLoadA ? "wmma.matrix_a" : "wmma.matrix_b";
      const ir::LoadNode* src = AsLoad(store->value);
      if (vars.size() != 2 || dst_scope != scope || src == nullptr || src->indices.size() != 1 ||
          src->buffer->dtype != ir::DataType::Float(16)) {
        return fail(absl::StrCat("expected ", scope, "[r][c] = float16 memory[r][c] over 16 x 16"));
      }
      auto s = affine(src->indices[0], "loaded");
      if (!s.ok()) return s.status();
      if (absl::Status t = tile(*dst, vars[0], vars[1], "fragment", nullptr); !t.ok()) return t;
      if (absl::Status t = tile(*s, vars[0], vars[1], "source", &nest.ldm); !t.ok()) return t;
      nest.fragment = {store->buffer.get(), dst->base};
      nest.memory = {src->buffer.get(), s->base};
      if (absl::Status a = CheckAligned(src->buffer->dtype, nest.ldm, s->base); !a.ok()) {
        return fail(std::string(a.message()));
      }
      break;
    }
    case TensorIntrinsic::kWmmaMma: {
      if (dst_scope != "wmma.accumulator") return fail("the mma nest must write an accumulator");
      if (vars.size() == 2 && IsZero(store->value)) {
        if (absl::Status t = tile(*dst, vars[0], vars[1], "accumulator", nullptr); !t.ok()) {
          return t;
        }
        nest.fill = true;
        nest.fragment = {store->buffer.get(), dst->base};
        break;
      }
      const auto* add = store->value.as<ir::BinaryNode>();
      if (vars.size() != 3 || add == nullptr || add->op != ir::BinaryOp::kAdd) {
        return fail("expected C[i][j] = C[i][j] + A[i][k] * B[j][k] over 16 x 16 x 16");
      }
      Expr acc = add->a, prod = add->b;
      if (AsLoad(acc) == nullptr || AsLoad(acc)->buffer.get() != store->buffer.get()) {
        std::swap(acc, prod);
      }
      const auto* mul = prod.as<ir::BinaryNode>();
      const ir::LoadNode* c = AsLoad(acc);
      if (c == nullptr || c->buffer.get() != store->buffer.get() || mul == nullptr ||
          mul->op != ir::BinaryOp::kMul) {
        return fail("expected C[i][j] = C[i][j] + A[i][k] * B[j][k]");
      }
      const ir::LoadNode* a = AsLoad(mul->a);
      const ir::LoadNode* b = AsLoad(mul->b);
      if (a != nullptr && b != nullptr && a->buffer->scope == "wmma.matrix_b") std::swap(a, b);
      if (a == nullptr || b == nullptr || a->buffer->scope != "wmma.matrix_a" ||
          b->buffer->scope != "wmma.matrix_b") {
        return fail("the product must read a wmma.matrix_a and a wmma.matrix_b fragment");
      }
      auto ai = affine(a->indices[0], "A");
      auto bi = affine(b->indices[0], "B");
      auto ci = affine(c->indices[0], "C");
      if (!ai.ok()) return ai.status();
      if (!bi.ok()) return bi.status();
      if (!ci.ok()) return ci.status();
      // The reduction variable is the one the accumulator does not use.
      int k = -1;
      for (int v = 0; v < 3; ++v) {
        if (coef(*dst, vars[v]) == 0) k = v;
      }
      if (k < 0) return fail("no reduction loop of extent 16 in the mma nest");
      std::vector<ir::Var> ij;
      for (int v = 0; v < 3; ++v) {
        if (v != k) ij.push_back(vars[v]);
      }
      const ir::Var& i = ij[0];
      const ir::Var& j = ij[1];
      if (absl::Status t = tile(*dst, i, j, "accumulator", nullptr); !t.ok()) return t;
      if (coef(*ai, j) != 0 || coef(*bi, i) != 0) {
        return fail("A must not depend on j nor B on i");
      }
      if (absl::Status t = tile(*ai, i, vars[k], "A", nullptr); !t.ok()) return t;
      if (absl::Status t = tile(*bi, j, vars[k], "B", nullptr); !t.ok()) return t;
      if (!ir::StructuralEqual(ci->base, dst->base) || ci->coef != dst->coef) {
        return fail("the accumulator is read and written at different elements");
      }
      nest.fragment = {store->buffer.get(), dst->base};
      nest.a = {a->buffer.get(), ai->base};
      nest.b = {b->buffer.get(), bi->base};
      break;
    }
    case TensorIntrinsic::kWmmaStore: {
      const ir::LoadNode* src = AsLoad(store->value);
      if (vars.size() != 2 || src == nullptr || src->buffer->scope != "wmma.accumulator" ||
          store->buffer->dtype != ir::DataType::Float(32) ||
          (dst_scope != "global" && dst_scope != "shared")) {
        return fail("expected float32 memory[i][j] = accumulator[i][j] over 16 x 16");
      }
      auto s = affine(src->indices[0], "accumulator");
      if (!s.ok()) return s.status();
      if (absl::Status t = tile(*s, vars[0], vars[1], "accumulator", nullptr); !t.ok()) return t;
      if (absl::Status t = tile(*dst, vars[0], vars[1], "destination", &nest.ldm); !t.ok()) {
        return t;
      }
      nest.fragment = {src->buffer.get(), s->base};
      nest.memory = {store->buffer.get(), dst->base};
      if (absl::Status a = CheckAligned(store->buffer->dtype, nest.ldm, dst->base); !a.ok()) {
        return fail(std::string(a.message()));
      }
      break;
    }
    case TensorIntrinsic::kAmxDotProduct:
      return fail("AMX tiles (kAmxDotProduct) need an x86 CPU target with AMX-INT8, not cuda");
    default:
      return fail(absl::StrCat("unknown tensor intrinsic ", it->second));
  }
  return nest;
}

}  // namespace tunefarm::codegen
