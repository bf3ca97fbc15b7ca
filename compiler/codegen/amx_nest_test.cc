// The AMX nest matcher and emitter refuse what tile instructions cannot compute, with the loop
// and the reason; a well-formed nest builds to tile instructions for an AMX CPU only.
#include "compiler/codegen/amx_nest.h"

#include "compiler/codegen/build.h"
#include "compiler/codegen/target.h"
#include "compiler/ir/ir_operators.h"
#include "compiler/lower/lower.h"
#include "gtest/gtest.h"

namespace tunefarm::codegen {
namespace {

using ir::DataType;
using ir::Expr;
using ir::Var;
using te::Tensor;

// C[M, N] = Σ_k Σ_u int32(A[i, 4k + u]) · int32(W[j / 16, k, j % 16, u]) with the given
// operand types, tensorized for AMX at a block of `rows` rows and 16 · tiles columns with
// the reduction split by `groups` groups of four.
struct Case {
  DataType a_type = DataType::UInt(8), w_type = DataType::Int(8), c_type = DataType::Int(32);
  int m = 32, n = 32, k = 128;
  int rows = 16, tiles = 2, groups = 16;
  int products = 4;
};

absl::StatusOr<std::string> Build(const Case& c, const std::string& target) {
  Tensor a = te::Placeholder({c.m, c.k}, c.a_type, "A");
  Tensor w = te::Placeholder({c.n / 16, c.k / 4, 16, 4}, c.w_type, "W");
  auto q = te::ReduceAxis(c.k / 4, "q");
  auto out = te::Compute(
      {c.m, c.n},
      [&](const std::vector<Var>& i) {
        Expr sum;
        for (int u = 0; u < c.products; ++u) {
          Expr t = ir::cast(c.c_type, a({i[0], Expr(4) * q->var + Expr(u)})) *
                   ir::cast(c.c_type, w({ir::floordiv(i[1], Expr(16)), q->var,
                                         ir::floormod(i[1], Expr(16)), Expr(u)}));
          sum = u == 0 ? t : sum + t;
        }
        return te::Sum(sum, {q});
      },
      "C");
  if (!out.ok()) return out.status();
  auto sch = schedule::Schedule::Create({*out});
  if (!sch.ok()) return sch.status();
  auto stage = (*sch)->StageOf(*out);
  if (!stage.ok()) return stage.status();
  schedule::Stage& s = **stage;
  auto is = s.Split(s.axis(0), c.rows);
  auto js = s.Split(s.axis(1), 16 * c.tiles);
  if (!is.ok() || !js.ok()) return absl::InternalError("split");
  auto ts = s.Split(js->second, 16);
  auto ks = s.Split(s.reduce_axis(0), c.groups);
  if (!ts.ok() || !ks.ok()) return absl::InternalError("split");
  if (absl::Status st = s.Reorder(
          {is->first, js->first, ks->first, is->second, ts->first, ts->second, ks->second});
      !st.ok()) {
    return st;
  }
  if (absl::Status st = s.Tensorize(is->second, schedule::TensorIntrinsic::kAmxDotProduct);
      !st.ok()) {
    return st;
  }
  auto f = lower::Lower(**sch, {a, w, *out}, "kernel");
  if (!f.ok()) return f.status();
  auto t = ParseTarget(target);
  if (!t.ok()) return t.status();
  return BuildAssembly({*f}, *t);
}

constexpr char kAmx[] = "llvm -mcpu=sapphirerapids";

void ExpectRefused(const Case& c, const std::string& target, const std::string& why) {
  absl::StatusOr<std::string> out = Build(c, target);
  ASSERT_FALSE(out.ok()) << why;
  EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument) << out.status();
  EXPECT_NE(out.status().message().find(why), std::string::npos) << out.status();
}

TEST(AmxNestTest, WellFormed_BuildsTileInstructions) {
  absl::StatusOr<std::string> out = Build(Case{}, kAmx);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_NE(out->find("tdpbusd"), std::string::npos);
  EXPECT_NE(out->find("tileloadd"), std::string::npos);
  EXPECT_NE(out->find("tilestored"), std::string::npos);
  EXPECT_NE(out->find("tf_tile_permit"), std::string::npos);  // The kernel asks Linux first.
}

TEST(AmxNestTest, NoAmxOnTheTarget_Refused) {
  ExpectRefused(Case{}, "llvm -mcpu=znver4", "has no AMX-INT8");
  // Another architecture's backend would count the unknown amx-int8 feature as present.
  ExpectRefused(Case{}, "llvm -mtriple=aarch64-linux-gnu -mcpu=neoverse-n1",
                "need an x86-64 Linux target");
}

TEST(AmxNestTest, WrongTypes_Refused) {
  Case signed_a;
  signed_a.a_type = DataType::Int(8);
  ExpectRefused(signed_a, kAmx, "int32(uint8 load) * int32(int8 load)");
  Case float_c;
  float_c.a_type = DataType::Float(32);
  float_c.w_type = DataType::Float(32);
  float_c.c_type = DataType::Float(32);
  ExpectRefused(float_c, kAmx, "int32 buffer");
}

TEST(AmxNestTest, WrongShapes_Refused) {
  Case two_products;
  two_products.products = 2;
  ExpectRefused(two_products, kAmx, "four products");
  Case short_step;  // 8 groups of four: 32 bytes, half a tdpbusd step.
  short_step.groups = 8;
  ExpectRefused(short_step, kAmx, "multiple of 16 groups");
  Case too_many;  // 32 rows (two tiles) by 4 column tiles: 8 accumulators.
  too_many.n = 64;
  too_many.tiles = 4;
  too_many.rows = 32;
  ExpectRefused(too_many, kAmx, "exceed the 8 tile registers");
}

}  // namespace
}  // namespace tunefarm::codegen
