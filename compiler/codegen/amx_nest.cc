#include "compiler/codegen/amx_nest.h"

#include <map>
#include <optional>
#include <string>

#include "absl/strings/str_cat.h"
#include "compiler/arith/analyzer.h"
#include "compiler/ir/ir_equality.h"
#include "compiler/ir/ir_operators.h"
#include "compiler/ir/ir_printer.h"
#include "compiler/ir/ir_util.h"
#include "compiler/ir/ir_visitor.h"

namespace tunefarm::codegen {
namespace {

using ir::DataType;
using ir::Expr;

constexpr int64_t kTileRows = kAmxTileRows;
constexpr int64_t kColumns = kAmxTileRows;        // int32 columns of an accumulator tile.
constexpr int64_t kGroupStep = kAmxRowBytes / 4;  // Groups of four inputs per tdpbusd.
constexpr int64_t kTileRegisters = 8;             // tmm0..tmm7.

struct Loop {
  ir::Var var;
  int64_t extent;
};

// index = base + Σ coef[v]·v over the nest's loops, checked at every loop's last value, at
// each pair of last values and at 16 points inside the nest (an index that is affine in each
// loop alone but not jointly, such as a floordiv of a sum of loops, fails there). A check by
// samples, not a proof: every kernel is also checked against its reference when measured.
struct Affine {
  Expr base;
  std::map<const ir::VarNode*, int64_t> coef;
  int64_t of(const ir::Var& v) const { return coef.at(v.get()); }
};

std::optional<Affine> AffineIn(const Expr& index, const std::vector<Loop>& loops) {
  arith::Analyzer an;
  auto at = [&](const std::map<const ir::VarNode*, int64_t>& values) {
    ir::VarMap m;
    for (const Loop& l : loops) {
      auto it = values.find(l.var.get());
      m[l.var.get()] = Expr(static_cast<int>(it == values.end() ? 0 : it->second));
    }
    return an.Simplify(ir::Substitute(index, m));
  };
  Affine out;
  out.base = at({});
  auto offset = [&](const std::map<const ir::VarNode*, int64_t>& values) -> std::optional<int64_t> {
    const Expr diff = an.Simplify(at(values) - out.base);
    const int64_t* c = ir::AsConstInt(diff);
    if (c == nullptr) return std::nullopt;
    return *c;
  };
  for (const Loop& l : loops) {
    std::optional<int64_t> step = offset({{l.var.get(), 1}});
    if (!step) return std::nullopt;
    out.coef[l.var.get()] = *step;
  }
  auto check = [&](const std::map<const ir::VarNode*, int64_t>& values) {
    int64_t want = 0;
    for (const auto& [v, x] : values) want += out.coef.at(v) * x;
    std::optional<int64_t> got = offset(values);
    return got && *got == want;
  };
  for (size_t i = 0; i < loops.size(); ++i) {
    const Loop& li = loops[i];
    if (!check({{li.var.get(), li.extent - 1}})) return std::nullopt;
    for (size_t j = i + 1; j < loops.size(); ++j) {
      const Loop& lj = loops[j];
      if (!check({{li.var.get(), li.extent - 1}, {lj.var.get(), lj.extent - 1}})) {
        return std::nullopt;
      }
    }
  }
  // And at points inside the nest (a fixed pseudo-random sequence), where a sum of loops
  // divided by a constant first crosses a boundary.
  uint64_t x = 0x9E3779B97F4A7C15ull;
  for (int sample = 0; sample < 16; ++sample) {
    std::map<const ir::VarNode*, int64_t> values;
    for (const Loop& l : loops) {
      x ^= x << 13;
      x ^= x >> 7;
      x ^= x << 17;
      values[l.var.get()] = static_cast<int64_t>(x % static_cast<uint64_t>(l.extent));
    }
    if (!check(values)) return std::nullopt;
  }
  return out;
}

// The load under int32(...) of a byte of type `t`.
const ir::LoadNode* ByteLoad(const Expr& e, DataType t) {
  const auto* cast = e.as<ir::CastNode>();
  if (cast == nullptr || cast->type != DataType::Int(32)) return nullptr;
  const auto* load = cast->value.as<ir::LoadNode>();
  if (load == nullptr || load->indices.size() != 1 || load->buffer->dtype != t) return nullptr;
  return load;
}

bool IsZero(const Expr& e) {
  const int64_t* i = ir::AsConstInt(e);
  return i != nullptr && *i == 0;
}

}  // namespace

bool AmxBlockFits(int64_t rows, int64_t col_tiles) {
  const int64_t tiles_m = (rows + kTileRows - 1) / kTileRows;
  return tiles_m * col_tiles + tiles_m + 1 <= kTileRegisters;
}

bool IsAmxLoop(const ir::ForNode* op) {
  auto it = op->pragmas.find(schedule::kTensorizePragma);
  return it != op->pragmas.end() &&
         it->second == static_cast<int64_t>(schedule::TensorIntrinsic::kAmxDotProduct);
}

namespace {

class AmxLoopFinder : public ir::IRVisitor {
 public:
  std::vector<const ir::ForNode*> found;

 protected:
  void Visit_(const ir::ForNode* op) override {
    if (IsAmxLoop(op)) {
      found.push_back(op);
      return;  // A nest holds no other.
    }
    IRVisitor::Visit_(op);
  }
};

}  // namespace

std::vector<const ir::ForNode*> FindAmxLoops(const ir::Stmt& body) {
  AmxLoopFinder finder;
  finder.Visit(body);
  return finder.found;
}

absl::StatusOr<AmxNest> MatchAmxNest(const ir::ForNode* op) {
  auto fail = [&](const std::string& why) {
    return absl::InvalidArgumentError(
        absl::StrCat("tensorize (AMX) at loop '", op->var.name(), "': ", why));
  };
  std::vector<Loop> loops;
  const ir::StoreNode* store = nullptr;
  // With the reduction loops inside the nest, lowering puts the initialization C = 0 in the
  // innermost spatial loop, before the reduction: {C = 0; for (reduction) C = C + ...}.
  const ir::StoreNode* init = nullptr;
  size_t init_at = 0;
  for (const ir::ForNode* f = op; f != nullptr;) {
    const int64_t* mn = ir::AsConstInt(f->min);
    const int64_t* ext = ir::AsConstInt(f->extent);
    if (mn == nullptr || *mn != 0 || ext == nullptr || *ext <= 0) {
      return fail(
          absl::StrCat("loop '", f->var.name(), "' must start at 0 with a constant extent"));
    }
    loops.push_back({f->var, *ext});
    const auto* seq = f->body.as<ir::SeqNode>();
    if (seq != nullptr && init == nullptr && seq->stmts.size() == 2) {
      const auto* zero = seq->stmts[0].as<ir::StoreNode>();
      const auto* reduction = seq->stmts[1].as<ir::ForNode>();
      if (zero != nullptr && reduction != nullptr && IsZero(zero->value)) {
        init = zero;
        init_at = loops.size();
        f = reduction;
        continue;
      }
    }
    store = f->body.as<ir::StoreNode>();
    f = f->body.as<ir::ForNode>();
  }
  if (store == nullptr || store->indices.size() != 1 || store->value.type().lanes != 1 ||
      store->buffer->dtype != DataType::Int(32)) {
    return fail("the nest's body must be one scalar store to an int32 buffer");
  }
  AmxNest nest;
  nest.c = store->buffer.get();
  auto affine = [&](const Expr& index, const char* what) -> absl::StatusOr<Affine> {
    std::optional<Affine> a = AffineIn(index, loops);
    if (!a) {
      return fail(absl::StrCat("the ", what, " index ", ir::ToString(index),
                               " is not affine in the nest's loops"));
    }
    return *a;
  };
  auto c_index = affine(store->indices[0], "stored");
  if (!c_index.ok()) return c_index.status();

  // The spatial loops: rows, the optional column tiles, the 16 columns.
  if (loops.size() < 2) return fail("expected loops over rows and the 16 columns of a tile");
  size_t next = 1;
  const Loop rows = loops[0];
  std::optional<Loop> tiles;
  if (!(loops[1].extent == kColumns && c_index->of(loops[1].var) == 1)) {
    tiles = loops[1];
    next = 2;
  }
  if (next >= loops.size() || loops[next].extent != kColumns || c_index->of(loops[next].var) != 1) {
    return fail(
        "the loop after the rows (and the column tiles) must run over the 16 "
        "consecutive columns of C");
  }
  const Loop cols = loops[next++];
  nest.rows = rows.extent;
  nest.col_tiles = tiles ? tiles->extent : 1;
  nest.c_base = c_index->base;
  nest.c_row_stride = c_index->of(rows.var);
  nest.c_tile_stride = tiles ? c_index->of(tiles->var) : 0;
  // The block's elements are distinct (the tiles are loaded once and stored once): its rows of
  // 16 · col_tiles elements side by side, or its column tiles of `rows` rows one after another.
  const int64_t span_tiles = nest.c_tile_stride * (nest.col_tiles - 1) + kColumns;
  const int64_t span_rows = nest.c_row_stride * (nest.rows - 1) + kColumns;
  const bool rows_apart =
      nest.c_row_stride >= span_tiles && (nest.col_tiles == 1 || nest.c_tile_stride >= kColumns);
  const bool tiles_apart =
      nest.col_tiles > 1 && nest.c_tile_stride >= span_rows && nest.c_row_stride >= kColumns;
  if (!rows_apart && !tiles_apart) {
    return fail("the block's rows and column tiles of C overlap");
  }
  if (!AmxBlockFits(nest.rows, nest.col_tiles)) {
    const int64_t tiles_m = (nest.rows + kTileRows - 1) / kTileRows;
    return fail(absl::StrCat(tiles_m, " x ", nest.col_tiles, " accumulator tiles, ", tiles_m,
                             " A tiles and a W tile exceed the 8 tile registers"));
  }

  if (init != nullptr) {
    if (init_at != next || init->buffer.get() != nest.c || init->indices.size() != 1 ||
        !ir::StructuralEqual(init->indices[0], store->indices[0]) || IsZero(store->value)) {
      return fail(
          "the initialization C = 0 inside the nest must precede the reduction loops "
          "and write the element the reduction updates");
    }
    nest.starts_at_zero = true;
  }
  if (IsZero(store->value)) {
    if (next != loops.size()) return fail("the initialization C = 0 has no reduction loops");
    nest.zero = true;
    return nest;
  }

  // The update: C[c] = C[c] + Σ products, over the reduction loops.
  const std::vector<Expr> terms = ir::SumTerms(store->value);
  if (terms.size() != 5) {
    return fail("expected C = C + four products int32(uint8) * int32(int8)");
  }
  const auto* acc = terms[0].as<ir::LoadNode>();
  if (acc == nullptr || acc->buffer.get() != nest.c || acc->indices.size() != 1 ||
      !ir::StructuralEqual(acc->indices[0], store->indices[0])) {
    return fail("the sum must start with the element it stores, C = C + ...");
  }
  std::vector<const ir::LoadNode*> a_loads, w_loads;
  for (size_t t = 1; t < terms.size(); ++t) {
    const auto* mul = terms[t].as<ir::BinaryNode>();
    if (mul == nullptr || mul->op != ir::BinaryOp::kMul) {
      return fail("expected C = C + four products int32(uint8) * int32(int8)");
    }
    const ir::LoadNode* a = ByteLoad(mul->a, DataType::UInt(8));
    const ir::LoadNode* w = ByteLoad(mul->b, DataType::Int(8));
    if (a == nullptr || w == nullptr) {
      a = ByteLoad(mul->b, DataType::UInt(8));
      w = ByteLoad(mul->a, DataType::Int(8));
    }
    if (a == nullptr || w == nullptr) {
      return fail("each product must be int32(uint8 load) * int32(int8 load) (tdpbusd's types)");
    }
    if (!a_loads.empty() && (a->buffer != a_loads[0]->buffer || w->buffer != w_loads[0]->buffer)) {
      return fail("the four products must read one A and one W buffer");
    }
    a_loads.push_back(a);
    w_loads.push_back(w);
  }
  nest.a = a_loads[0]->buffer.get();
  nest.w = w_loads[0]->buffer.get();
  auto a_index = affine(a_loads[0]->indices[0], "A");
  if (!a_index.ok()) return a_index.status();
  auto w_index = affine(w_loads[0]->indices[0], "W");
  if (!w_index.ok()) return w_index.status();
  arith::Analyzer an;
  for (int u = 1; u < 4; ++u) {
    const Expr da = an.Simplify(a_loads[u]->indices[0] - a_loads[0]->indices[0]);
    const Expr dw = an.Simplify(w_loads[u]->indices[0] - w_loads[0]->indices[0]);
    const int64_t* ca = ir::AsConstInt(da);
    const int64_t* cw = ir::AsConstInt(dw);
    if (ca == nullptr || cw == nullptr || *ca != u || *cw != u) {
      return fail(
          "product u must read A and W one byte after product u - 1 (four consecutive "
          "inputs, the VNNI layout)");
    }
  }
  // Spatial loops: A follows the rows only, W the columns only.
  if (a_index->of(cols.var) != 0 || (tiles && a_index->of(tiles->var) != 0) ||
      w_index->of(rows.var) != 0) {
    return fail("A must not depend on the columns nor W on the rows");
  }
  if (w_index->of(cols.var) != 4) {
    return fail("W's 16 columns must be 4 bytes apart (the VNNI layout [..][K/4][16][4])");
  }
  nest.a_row_stride = a_index->of(rows.var);
  nest.w_tile_stride = tiles ? w_index->of(tiles->var) : 0;
  nest.a_base = a_index->base;
  nest.w_base = w_index->base;

  // Reduction loops: C does not follow them; the innermost steps groups of four inputs.
  if (next == loops.size()) return fail("no reduction loop inside the columns");
  for (size_t r = next; r < loops.size(); ++r) {
    if (c_index->of(loops[r].var) != 0) {
      return fail(absl::StrCat("loop '", loops[r].var.name(),
                               "' inside the columns must be a reduction (C must not follow it)"));
    }
  }
  const Loop groups = loops.back();
  if (groups.extent % kGroupStep != 0 || a_index->of(groups.var) != 4) {
    return fail(absl::StrCat("the innermost loop '", groups.var.name(),
                             "' must step A by 4 bytes (groups of four inputs) over a multiple "
                             "of 16 groups, 64 bytes per tdpbusd"));
  }
  nest.w_row_stride = w_index->of(groups.var);
  if (nest.w_row_stride < 4 * kColumns) {
    return fail("W's groups must be at least 64 bytes apart (16 columns of four inputs)");
  }
  // The steps: every value of the outer reduction loops, then 16 groups at a time.
  std::vector<std::pair<int64_t, int64_t>> steps = {{0, 0}};
  for (size_t r = next; r < loops.size(); ++r) {
    const Loop& l = loops[r];
    const bool inner = r + 1 == loops.size();
    const int64_t count = inner ? l.extent / kGroupStep : l.extent;
    const int64_t stride = inner ? kGroupStep : 1;
    // Checked before the steps are listed: a reduction loop may be arbitrarily long.
    if (count > kAmxMaxSteps / static_cast<int64_t>(steps.size())) {
      return fail(absl::StrCat("more than ", kAmxMaxSteps,
                               " steps of 64 bytes in one nest (split the reduction)"));
    }
    std::vector<std::pair<int64_t, int64_t>> more;
    for (const auto& [a, w] : steps) {
      for (int64_t x = 0; x < count; ++x) {
        more.push_back({a + a_index->of(l.var) * stride * x, w + w_index->of(l.var) * stride * x});
      }
    }
    steps = std::move(more);
  }
  for (const auto& [a, w] : steps) {
    nest.a_steps.push_back(a);
    nest.w_steps.push_back(w);
  }
  return nest;
}

}  // namespace tunefarm::codegen
