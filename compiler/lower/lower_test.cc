#include "compiler/lower/lower.h"

#include <functional>
#include <iostream>
#include <sstream>

#include "compiler/ir/ir_operators.h"
#include "compiler/ir/ir_printer.h"
#include "gtest/gtest.h"

namespace tunefarm::lower {
namespace {

using ir::DataType;
using ir::Expr;
using ir::Var;
using te::Tensor;

TEST(Lower, TiledGemmWithCacheWrite_PrintsNest) {
  Tensor A = te::Placeholder({64, 32}, DataType::Float(32), "A");
  Tensor B = te::Placeholder({32, 48}, DataType::Float(32), "B");
  auto k = te::ReduceAxis(32, "k");
  Tensor C = te::Compute(
                 {64, 48},
                 [&](const std::vector<Var>& i) {
                   return te::Sum(A(i[0], k->var) * B(k->var, i[1]), {k});
                 },
                 "C")
                 .value();
  auto sch = *schedule::Schedule::Create({C});
  Tensor CC = *sch->CacheWrite(C, "local");
  auto& c = (*sch)[C];
  auto t = *c.Tile(c.axis(0), c.axis(1), 8, 16);
  ASSERT_TRUE((*sch)[CC].ComputeAt(c, t[1]).ok());
  auto& cc = (*sch)[CC];
  auto ks = *cc.Split(cc.reduce_axis(0), 4);
  ASSERT_TRUE(cc.Reorder({ks.first, cc.axis(0), ks.second, cc.axis(1)}).ok());
  ASSERT_TRUE(cc.Vectorize(cc.axis(1)).ok());
  ASSERT_TRUE(cc.Unroll(cc.axis(0)).ok());
  ASSERT_TRUE(c.Vectorize(t[3]).ok());
  ASSERT_TRUE(c.Parallel(t[0]).ok());
  std::ostringstream dump;
  LowerOptions opts;
  opts.dump_to = &dump;
  auto f = Lower(*sch, {A, B, C}, "gemm", opts);
  ASSERT_TRUE(f.ok()) << f.status();
  std::cout << dump.str().substr(0, 6000) << "\n";
}

TEST(Lower, NonDivisibleSplit_Partitioned) {
  Tensor A = te::Placeholder({10}, DataType::Float(32), "A");
  Tensor B = te::Compute(
                 {10}, [&](const std::vector<Var>& i) { return A(i[0]) * 2.0f; }, "B")
                 .value();
  auto sch = *schedule::Schedule::Create({B});
  auto& b = (*sch)[B];
  auto s = *b.Split(b.axis(0), 4);
  auto f = Lower(*sch, {A, B}, "scale");
  ASSERT_TRUE(f.ok()) << f.status();
  std::cout << f->body << "\n";
}

// A padding whose condition does not depend on the vector lane (the lanes are a channel block)
// is vectorized as a branch around vector stores; one whose condition does (the lanes run along
// the padded axis) stays a scalar loop, since a vector select would load the guarded lanes.
TEST(Lower, PaddingSelect_LaneInvariantConditionBranches) {
  Tensor X = te::Placeholder({5, 7, 16}, DataType::Float(32), "X");
  // Rows 1..5 of `shape` copy X (`index` picks the element), the rest are zero; the last axis
  // is vectorized. Returns the lowered IR as text.
  auto lowered_padding = [&](std::vector<int> shape,
                             std::function<Expr(const std::vector<Var>&)> index) {
    std::vector<Expr> dims;
    for (int d : shape) dims.push_back(Expr(d));
    Tensor P = te::Compute(
                   dims,
                   [&](const std::vector<Var>& i) {
                     return ir::select(i[0] >= 1 && i[0] <= 5, index(i), Expr(0.0f));
                   },
                   "P")
                   .value();
    auto sch = *schedule::Schedule::Create({P});
    EXPECT_TRUE((*sch)[P].Vectorize((*sch)[P].axis(static_cast<int>(shape.size()) - 1)).ok());
    auto f = Lower(*sch, {X, P}, "pad");
    EXPECT_TRUE(f.ok()) << f.status();
    return f.ok() ? ir::ToString(f->body) : std::string();
  };
  const std::string text = lowered_padding(
      {7, 7, 16}, [&](const std::vector<Var>& i) { return X(i[0] - 1, i[1], i[2]); });
  EXPECT_NE(text.find("if ("), std::string::npos) << text;
  EXPECT_NE(text.find("P[ramp("), std::string::npos) << text;
  EXPECT_NE(text.find("X[ramp("), std::string::npos) << text;

  // Lanes along the padded axis: the condition varies by lane, the loop stays scalar.
  const std::string scalar =
      lowered_padding({16}, [&](const std::vector<Var>& i) { return X(i[0] - 1, 0, 0); });
  EXPECT_FALSE(scalar.empty());
  EXPECT_EQ(scalar.find("ramp("), std::string::npos) << scalar;
}

// An RGB image's padding, its pixels and channels fused into one run per row and split into
// vectors of 16: with kPartitionSelectsPragma on the run's outer loop, loop partitioning splits
// it on the padding's bounds (on floordiv(run, 3), a bound on the run itself), so the row's
// middle copies whole vectors with no select; on the lanes' loop too, the vectors at its ends are
// split where the image starts and ends, and no select is left. Without the pragma
// the select stays in every element of the row's vectors, which then stay scalar.
TEST(Lower, PaddingSelectOnFusedRun_PartitionedWhereThePragmaAsks) {
  Tensor X = te::Placeholder({4, 11, 3}, DataType::Float(32), "X");  // 11 pixels per row.
  auto lowered = [&](bool pragma) {
    Tensor P = te::Compute(
                   {Expr(4), Expr(17), Expr(3)},
                   [&](const std::vector<Var>& i) {
                     return ir::select(i[1] >= 3 && i[1] < 14, X(i[0], i[1] - 3, i[2]), Expr(0.0f));
                   },
                   "P")
                   .value();
    auto sch = *schedule::Schedule::Create({P});
    auto& p = (*sch)[P];
    auto run = *p.Fuse(p.axis(1), p.axis(2));  // 51 elements: 3 vectors of 16 and 3 more.
    auto [o, lanes] = *p.Split(run, 16);
    if (pragma) {
      EXPECT_TRUE(p.Pragma(o, schedule::kPartitionSelectsPragma, 1).ok());
      EXPECT_TRUE(p.Pragma(lanes, schedule::kPartitionSelectsPragma, 1).ok());
    }
    EXPECT_TRUE(p.Vectorize(lanes).ok());
    auto f = Lower(*sch, {X, P}, "pad");
    EXPECT_TRUE(f.ok()) << f.status();
    return f.ok() ? ir::ToString(f->body) : std::string();
  };
  // Elements 9..41 of a row are pixels 3..13: the vector of elements 16..31 lies inside them.
  const std::string text = lowered(true);
  EXPECT_NE(text.find("P[ramp(((i * 51) + 16), 1, 16)] = X[ramp(((i * 33) + 7), 1, 16)]"),
            std::string::npos)
      << text;
  // The vectors at the ends are split down to whole pixels (the bound on floordiv(16·o + lane,
  // 3) inside a sum is a bound on the lane): elements 9..15 and 32..41 copied, the rest zero.
  EXPECT_NE(text.find("P[ramp(((i * 51) + 9), 1, 7)] = X[ramp((i * 33), 1, 7)]"), std::string::npos)
      << text;
  EXPECT_NE(text.find("P[ramp(((i * 51) + 32), 1, 10)] = X[ramp(((i * 33) + 23), 1, 10)]"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("select("), std::string::npos) << text;
  const std::string without = lowered(false);
  EXPECT_NE(without.find("select("), std::string::npos) << without;
  EXPECT_EQ(without.find(", 1, 16)"), std::string::npos) << without;
}

// A padding inlined into a strided convolution (1-D: 9 inputs padded by 3, a window of 7,
// stride 2, 5 outputs), with kPartitionSelectsPragma on the output's and the window's loops:
// output 2 reads no padding; outputs 0, 1, 3 and 4 each read some, a different number of
// taps, so their edges are peeled output by output and each one's window partitioned where the
// image starts or ends. The taps in the padding multiply a constant zero and are dropped: 27
// taps of 35 are left, and no select. Without the pragma every tap keeps its select.
TEST(Lower, InlinedPaddingOfAStridedWindow_EdgesPeeledAndPaddingTapsDropped) {
  Tensor X = te::Placeholder({9}, DataType::Float(32), "X");
  Tensor W = te::Placeholder({7}, DataType::Float(32), "W");
  auto lowered = [&](bool pragma) {
    te::IterVar r = te::ReduceAxis(Expr(7), "r");
    Tensor Y =
        te::Compute(
            {Expr(5)},
            [&](const std::vector<Var>& i) {
              Expr h = i[0] * 2 + r->var;
              return te::Sum(ir::select(h >= 3 && h < 12, X(h - 3), Expr(0.0f)) * W(r->var), {r});
            },
            "Y")
            .value();
    auto sch = *schedule::Schedule::Create({Y});
    auto& y = (*sch)[Y];
    if (pragma) {
      EXPECT_TRUE(y.Pragma(y.axis(0), schedule::kPartitionSelectsPragma, 1).ok());
      EXPECT_TRUE(y.Pragma(y.reduce_axis(0), schedule::kPartitionSelectsPragma, 1).ok());
    }
    auto f = Lower(*sch, {X, W, Y}, "window");
    EXPECT_TRUE(f.ok()) << f.status();
    return f.ok() ? ir::ToString(f->body) : std::string();
  };
  const std::string text = lowered(true);
  EXPECT_EQ(text.find("select("), std::string::npos) << text;
  // Output 0 reads taps 3..6, output 1 taps 1..6, output 3 taps 0..5, output 4 taps 0..3.
  EXPECT_NE(text.find("for (r, 3, 4)"), std::string::npos) << text;
  EXPECT_NE(text.find("for (r, 1, 6)"), std::string::npos) << text;
  EXPECT_NE(text.find("for (r, 0, 6)"), std::string::npos) << text;
  EXPECT_NE(text.find("for (r, 0, 4)"), std::string::npos) << text;
  // Output 0's taps 0..2 are gone, not left as a loop that adds nothing.
  EXPECT_EQ(text.find("for (r, 0, 3)"), std::string::npos) << text;
  const std::string without = lowered(false);
  EXPECT_NE(without.find("select("), std::string::npos) << without;
}

// A 3×3 window over a 6×6 image padded by 1, loops i, j (rows, columns), ry, rx, each with
// kPartitionSelectsPragma. The rows' bounds (y + ry in the image) are checked once per filter
// row, around the loop over its columns, instead of peeling the first and last output rows off
// as copies of the whole row of outputs: i stays one loop. The columns' bounds are read by the
// innermost loop, which has no loop inside to check them around: j's edges are peeled as
// before, output 0 reading taps 1..2 and output 5 taps 0..1. No select is left.
TEST(Lower, InlinedPaddingOfAWindowsRows_CheckedPerFilterRow) {
  Tensor X = te::Placeholder({6, 6}, DataType::Float(32), "X");
  Tensor W = te::Placeholder({3, 3}, DataType::Float(32), "W");
  te::IterVar ry = te::ReduceAxis(Expr(3), "ry");
  te::IterVar rx = te::ReduceAxis(Expr(3), "rx");
  Tensor Y = te::Compute(
                 {Expr(6), Expr(6)},
                 [&](const std::vector<Var>& i) {
                   Expr h = i[0] + ry->var, w = i[1] + rx->var;
                   return te::Sum(ir::select(h >= 1 && h <= 6 && w >= 1 && w <= 6, X(h - 1, w - 1),
                                             Expr(0.0f)) *
                                      W(ry->var, rx->var),
                                  {ry, rx});
                 },
                 "Y")
                 .value();
  auto sch = *schedule::Schedule::Create({Y});
  auto& y = (*sch)[Y];
  for (const te::IterVar& iv : {y.axis(0), y.axis(1), y.reduce_axis(0), y.reduce_axis(1)}) {
    EXPECT_TRUE(y.Pragma(iv, schedule::kPartitionSelectsPragma, 1).ok());
  }
  auto f = Lower(*sch, {X, W, Y}, "window");
  ASSERT_TRUE(f.ok()) << f.status();
  const std::string text = ir::ToString(f->body);
  EXPECT_EQ(text.find("select("), std::string::npos) << text;
  // The output rows (i) in one loop, their bounds checked inside the filter's rows (ry); the
  // output columns (j) split: column 0, columns 1..4 and column 5.
  EXPECT_NE(text.find("for (i, 0, 6)"), std::string::npos) << text;
  EXPECT_NE(text.find("for (ry, 0, 3) {\n    if ((((i + ry) >= 1) && ((i + ry) <= 6)))"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("for (j, 1, 4)"), std::string::npos) << text;
  EXPECT_NE(text.find("for (rx, 1, 2)"), std::string::npos) << text;
  EXPECT_NE(text.find("for (rx, 0, 2)"), std::string::npos) << text;
}

// A clamp written as selects, select(x > c, c, select(x < -c, -c, x)), loads in its branches
// only what its conditions already load in every lane: it is widened (erf's clamp, inside a
// GELU epilogue). A select whose branch loads something its condition does not stays scalar.
TEST(Lower, ClampSelect_BranchLoadsInCondition_Vectorized) {
  Tensor X = te::Placeholder({64}, DataType::Float(32), "X");
  Tensor Z = te::Placeholder({64}, DataType::Float(32), "Z");
  auto lowered = [&](std::function<Expr(const Expr&)> body, std::vector<Tensor> args) {
    Tensor Y = te::Compute(
                   {Expr(64)}, [&](const std::vector<Var>& i) { return body(X(i[0])); }, "Y")
                   .value();
    auto sch = *schedule::Schedule::Create({Y});
    auto split = *(*sch)[Y].Split((*sch)[Y].axis(0), 16);
    EXPECT_TRUE((*sch)[Y].Vectorize(split.second).ok());
    args.push_back(Y);
    auto f = Lower(*sch, args, "clamp");
    EXPECT_TRUE(f.ok()) << f.status();
    return f.ok() ? ir::ToString(f->body) : std::string();
  };
  const std::string clamp = lowered(
      [](const Expr& x) {
        return ir::select(x > Expr(3.0f), Expr(3.0f), ir::select(x < Expr(-3.0f), Expr(-3.0f), x));
      },
      {X});
  EXPECT_NE(clamp.find("Y[ramp("), std::string::npos) << clamp;
  const std::string other =
      lowered([&](const Expr& x) { return ir::select(x > Expr(3.0f), Z(Expr(0)), x); }, {X, Z});
  EXPECT_FALSE(other.empty());
  EXPECT_EQ(other.find("Y[ramp("), std::string::npos) << other;
}

// A local accumulator computed at a loop that fuses the outer parts of two split axes covers
// one tile: the fused loop's value is a point, and so are the floordiv and floormod that
// recover each outer index (they once widened a floormod of a floordiv to the whole axis, and
// the accumulator held 55 rows instead of 1).
TEST(Lower, ComputeAtFusedLoop_RegionIsOneTile) {
  Tensor X = te::Placeholder({4, 55, 58}, DataType::Float(32), "X");
  auto r = te::ReduceAxis(3, "r");
  Tensor Y =
      te::Compute(
          {4, 55, 56},
          [&](const std::vector<Var>& i) { return te::Max(X(i[0], i[1], i[2] + r->var), {r}); },
          "Y")
          .value();
  auto sch = *schedule::Schedule::Create({Y});
  Tensor YL = *sch->CacheWrite(Y, "local");
  auto& y = (*sch)[Y];
  auto c = *y.Split(y.axis(0), 1);
  auto h = *y.Split(y.axis(1), 1);
  auto w = *y.Split(y.axis(2), 4);
  ASSERT_TRUE(y.Reorder({c.first, h.first, w.first, c.second, h.second, w.second}).ok());
  auto fused = *y.Fuse(*y.Fuse(c.first, h.first), w.first);
  ASSERT_TRUE((*sch)[YL].ComputeAt(y, fused).ok());
  auto f = Lower(*sch, {X, Y}, "pool");
  ASSERT_TRUE(f.ok()) << f.status();
  const std::string body = ir::ToString(f->body);
  EXPECT_NE(body.find("allocate Y.local[float32 * 1 * 1 * 4]"), std::string::npos) << body;
}

// A stage computed inside an output's block whose readers are the output and a stage attached
// inside another attached stage (the row sum's local accumulator, computed inside the row sum,
// itself inside the block): the region is one block of rows, not the whole tensor.
TEST(Lower, ComputeAt_ReaderNestedInAnotherAttachedStage_RegionIsOneBlock) {
  Tensor A = te::Placeholder({8, 16}, DataType::Float(32), "A");
  Tensor E =
      te::Compute(
          {8, 16}, [&](const std::vector<Var>& i) { return A(i[0], i[1]) * Expr(2.0f); }, "E")
          .value();
  auto j = te::ReduceAxis(16, "j");
  Tensor Z = te::Compute(
                 {8}, [&](const std::vector<Var>& i) { return te::Sum(E(i[0], j->var), {j}); }, "Z")
                 .value();
  Tensor Y = te::Compute(
                 {8, 16}, [&](const std::vector<Var>& i) { return E(i[0], i[1]) / Z(i[0]); }, "Y")
                 .value();
  auto sch = *schedule::Schedule::Create({Y});
  Tensor ZL = *sch->CacheWrite(Z, "local");
  auto& y = (*sch)[Y];
  auto block = *y.Split(y.axis(0), 2);
  auto& z = (*sch)[Z];
  ASSERT_TRUE((*sch)[ZL].ComputeAt(z, z.axis(0)).ok());
  ASSERT_TRUE(z.ComputeAt(y, block.first).ok());
  ASSERT_TRUE((*sch)[E].ComputeAt(y, block.first).ok());
  auto f = Lower(*sch, {A, Y}, "row_block");
  ASSERT_TRUE(f.ok()) << f.status();
  const std::string body = ir::ToString(f->body);
  EXPECT_NE(body.find("allocate E[float32 * 2 * 16]"), std::string::npos) << body;
  EXPECT_NE(body.find("allocate Z[float32 * 2]"), std::string::npos) << body;
}

// A table (a stage of its indices alone, te::AsTable) read by a reduction: where the loops over
// its indices are unrolled, each read folds to the table's value (fold_table_loads.h), the
// products by its zeros drop out, and the table is no longer computed. Looped, the reads stay
// loads of the computed table.
TEST(Lower, TableReadAtUnrolledIndices_FoldsToItsValues) {
  // T = [[1, 0, 2], [0, -1, 0]]; Y[r, n] = sum(k: T[r, k] * X[n, k]).
  Tensor X = te::Placeholder({8, 3}, DataType::Float(32), "X");
  Tensor T =
      te::Compute(
          {2, 3},
          [&](const std::vector<Var>& i) {
            return ir::select(ir::eq(i[0], Expr(0)),
                              ir::select(ir::eq(i[1], Expr(0)), Expr(1.0f),
                                         ir::select(ir::eq(i[1], Expr(1)), Expr(0.0f), Expr(2.0f))),
                              ir::select(ir::eq(i[1], Expr(1)), Expr(-1.0f), Expr(0.0f)));
          },
          "T")
          .value();
  ASSERT_NE(te::AsTable(T.op_ptr()), nullptr);
  ASSERT_EQ(te::AsTable(X.op_ptr()), nullptr);
  auto k = te::ReduceAxis(3, "k");
  Tensor Y = te::Compute(
                 {2, 8},
                 [&](const std::vector<Var>& i) {
                   return te::Sum(T(i[0], k->var) * X(i[1], k->var), {k});
                 },
                 "Y")
                 .value();
  ASSERT_EQ(te::AsTable(Y.op_ptr()), nullptr);  // A reduction.
  auto lowered = [&](bool unroll, bool unroll_n = false) {
    auto sch = *schedule::Schedule::Create({Y});
    auto& y = (*sch)[Y];
    if (unroll) {
      EXPECT_TRUE(y.Unroll(y.axis(0)).ok());
      EXPECT_TRUE(y.Unroll(y.reduce_axis(0)).ok());
    }
    if (unroll_n) EXPECT_TRUE(y.Unroll(y.axis(1)).ok());
    auto f = Lower(*sch, {X, Y}, "table");
    EXPECT_TRUE(f.ok()) << f.status();
    return f.ok() ? ir::ToString(f->body) : std::string();
  };
  const std::string folded = lowered(true);
  EXPECT_EQ(folded.find("T["), std::string::npos) << folded;
  // One term per nonzero: X[n, 0] and X[n, 2] for r = 0, X[n, 1] for r = 1.
  int terms = 0;
  for (size_t at = folded.find("X["); at != std::string::npos; at = folded.find("X[", at + 1)) {
    ++terms;
  }
  EXPECT_EQ(terms, 3) << folded;
  EXPECT_NE(folded.find("2f"), std::string::npos) << folded;
  // With n unrolled too, each element of T is read 8 times (its value is computed once): every
  // read folds.
  const std::string all = lowered(true, true);
  EXPECT_EQ(all.find("T["), std::string::npos) << all;
  terms = 0;
  for (size_t at = all.find("X["); at != std::string::npos; at = all.find("X[", at + 1)) ++terms;
  EXPECT_EQ(terms, 3 * 8) << all;

  const std::string looped = lowered(false);
  EXPECT_NE(looped.find("allocate T["), std::string::npos) << looped;
  int reads = 0;  // The allocation, the table's store and the reduction's load.
  for (size_t at = looped.find("T["); at != std::string::npos; at = looped.find("T[", at + 1)) {
    ++reads;
  }
  EXPECT_GE(reads, 3) << looped;
}

}  // namespace
}  // namespace tunefarm::lower
