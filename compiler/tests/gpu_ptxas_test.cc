// PTX from the NVPTX backend must assemble with ptxas for sm_80 and sm_90. Skips (visibly)
// when the CUDA toolkit is not installed.
#include <set>
#include <string>

#include "compiler/codegen/codegen_nvptx.h"
#include "compiler/codegen/target.h"
#include "compiler/ir/ir_operators.h"
#include "compiler/lower/lower.h"
#include "compiler/tests/gpu_schedule.h"
#include "compiler/tests/programs.h"
#include "compiler/tests/ptxas.h"
#include "gtest/gtest.h"

namespace tunefarm::testing {
namespace {

TEST(GpuPtxas, TiledMatmulTilings_Assemble) {
  auto ptxas = FindPtxas();
  if (!ptxas.ok()) GTEST_SKIP() << ptxas.status().message();
  Program p = Matmul(128, 128, 64);
  // The PTX of every tiling and architecture that assembled: each must be a kernel of its own
  // (a tiling that changed nothing, or an -arch that was ignored, would repeat one).
  std::set<std::string> assembled;
  for (const GpuMatmulTiles& t :
       {GpuMatmulTiles{}, GpuMatmulTiles{32, 64, 4, 4, 8, 4}, GpuMatmulTiles{64, 64, 8, 8, 16, 4},
        GpuMatmulTiles{8, 128, 1, 8, 4, 2}}) {
    auto sch = schedule::Schedule::Create(p.outputs);
    ASSERT_TRUE(sch.ok());
    ASSERT_TRUE(ScheduleGpuMatmul(p, sch->get(), t).ok());
    auto f = lower::Lower(**sch, p.args(), "matmul_gpu");
    ASSERT_TRUE(f.ok()) << f.status();
    for (const char* arch : {"sm_80", "sm_90"}) {
      auto k =
          codegen::BuildGpuKernel(*f, *codegen::ParseTarget(std::string("cuda -arch=") + arch));
      ASSERT_TRUE(k.ok()) << k.status();
      absl::Status s = AssemblePtx(*ptxas, k->ptx, arch);
      EXPECT_TRUE(s.ok()) << s << "\n" << k->ptx;
      if (s.ok()) assembled.insert(k->ptx);
    }
  }
  EXPECT_EQ(assembled.size(), 8u);
}

TEST(GpuPtxas, MathIntrinsics_Assemble) {
  auto ptxas = FindPtxas();
  if (!ptxas.ok()) GTEST_SKIP() << ptxas.status().message();
  using ir::DataType;
  te::Tensor x = te::Placeholder({1024}, DataType::Float(32), "X");
  te::Tensor y = te::Compute(
                     {1024},
                     [&](const std::vector<ir::Var>& i) {
                       ir::Expr v = x(i[0]);
                       return ir::CallNode::Make(DataType::Float(32), "exp", {v}) +
                              ir::CallNode::Make(DataType::Float(32), "tanh", {v}) +
                              ir::CallNode::Make(DataType::Float(32), "sqrt", {v * v});
                     },
                     "Y")
                     .value();
  auto sch = schedule::Schedule::Create({y});
  ASSERT_TRUE(sch.ok());
  schedule::Stage& s = (**sch)[y];
  auto sp = s.Split(s.axis(0), 128);
  ASSERT_TRUE(sp.ok());
  ASSERT_TRUE(s.Bind(sp->first, "blockIdx.x").ok());
  ASSERT_TRUE(s.Bind(sp->second, "threadIdx.x").ok());
  auto f = lower::Lower(**sch, {x, y}, "math");
  ASSERT_TRUE(f.ok()) << f.status();
  auto k = codegen::BuildGpuKernel(*f, *codegen::ParseTarget("cuda -arch=sm_90"));
  ASSERT_TRUE(k.ok()) << k.status();
  absl::Status st = AssemblePtx(*ptxas, k->ptx, "sm_90");
  EXPECT_TRUE(st.ok()) << st << "\n" << k->ptx;
}

TEST(GpuPtxas, CrossThreadReduction_Assembles) {
  auto ptxas = FindPtxas();
  if (!ptxas.ok()) GTEST_SKIP() << ptxas.status().message();
  auto x = te::Placeholder({256, 1000}, ir::DataType::Float(32), "X");
  auto j = te::ReduceAxis(1000, "j");
  auto r =
      te::Compute(
          {256}, [&](const std::vector<ir::Var>& i) { return te::Max(x(i[0], j->var), {j}); }, "R")
          .value();
  auto sch = schedule::Schedule::Create({r});
  ASSERT_TRUE(sch.ok());
  schedule::Stage& rs = (**sch)[r];
  auto cols = rs.Split(rs.reduce_axis(0), 128);
  ASSERT_TRUE(cols.ok());
  ASSERT_TRUE(rs.Bind(rs.axis(0), "blockIdx.x").ok());
  ASSERT_TRUE(rs.Bind(cols->second, "threadIdx.x").ok());
  auto f = lower::Lower(**sch, {x, r}, "row_max");
  ASSERT_TRUE(f.ok()) << f.status();
  for (const char* arch : {"sm_80", "sm_90"}) {
    auto k = codegen::BuildGpuKernel(*f, *codegen::ParseTarget(std::string("cuda -arch=") + arch));
    ASSERT_TRUE(k.ok()) << k.status();
    absl::Status s = AssemblePtx(*ptxas, k->ptx, arch);
    EXPECT_TRUE(s.ok()) << s;
  }
}

}  // namespace
}  // namespace tunefarm::testing
