#include "compiler/lower/lower.h"

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

}  // namespace
}  // namespace tunefarm::lower
