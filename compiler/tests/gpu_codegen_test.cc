// GPU lowering and NVPTX code generation without a GPU: PTX comes out with the launch the
// schedule implies, barriers where shared memory is filled, and the schedule's results checked
// by running the same kernel on the host, threads in lockstep between barriers
// (lower/emulate_gpu.h). Invalid GPU
// schedules are rejected with FailedPrecondition.
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "compiler/codegen/build.h"
#include "compiler/codegen/codegen_nvptx.h"
#include "compiler/codegen/target.h"
#include "compiler/ir/ir_mutator.h"
#include "compiler/ir/ir_operators.h"
#include "compiler/ir/ir_printer.h"
#include "compiler/lower/emulate_gpu.h"
#include "compiler/lower/insert_barriers.h"
#include "compiler/lower/lower.h"
#include "compiler/lower/verify_gpu.h"
#include "compiler/runtime/ndarray.h"
#include "compiler/tests/gpu_schedule.h"
#include "compiler/tests/programs.h"
#include "gtest/gtest.h"

namespace tunefarm::testing {
namespace {

codegen::Target Cuda(const std::string& arch = "sm_90") {
  return *codegen::ParseTarget("cuda -arch=" + arch);
}

absl::StatusOr<lower::LoweredFunc> LowerGpuMatmul(const Program& p, const GpuMatmulTiles& t) {
  auto sch = schedule::Schedule::Create(p.outputs);
  if (!sch.ok()) return sch.status();
  if (absl::Status s = ScheduleGpuMatmul(p, sch->get(), t); !s.ok()) return s;
  return lower::Lower(**sch, p.args(), "matmul_gpu");
}

// Runs `f` serially on the host and compares it with the program's reference.
void ExpectEmulationMatches(const Program& p, const lower::LoweredFunc& f) {
  auto emulated = lower::EmulateGpuKernel(f);
  ASSERT_TRUE(emulated.ok()) << emulated.status();
  auto jit = codegen::BuildJit({*emulated}, codegen::HostTarget());
  ASSERT_TRUE(jit.ok()) << jit.status();
  auto fn = (*jit)->Lookup(f.name);
  ASSERT_TRUE(fn.ok()) << fn.status();
  std::vector<runtime::NDArray> args = MakeArgs(p, 7);
  std::vector<runtime::NDArray> refs = ReferenceOutputs(p, args);
  std::vector<runtime::NDArray*> ptrs;
  for (auto& a : args) ptrs.push_back(&a);
  ASSERT_TRUE(runtime::Call(*fn, ptrs).ok());
  EXPECT_LE(runtime::MaxRelError(args.back(), refs[0], 1e-4, 1e-4), 1.0) << ir::ToString(f.body);
}

TEST(GpuCodegen, TiledMatmul_PtxLaunchAndBarriers) {
  Program p = Matmul(64, 96, 32);
  GpuMatmulTiles t;  // 16x32 block tile, 2x4 per thread: 8x8 threads.
  auto f = LowerGpuMatmul(p, t);
  ASSERT_TRUE(f.ok()) << f.status();
  auto k = codegen::BuildGpuKernel(*f, Cuda());
  ASSERT_TRUE(k.ok()) << k.status() << "\n" << ir::ToString(f->body);
  EXPECT_EQ(k->launch.grid, (std::array<int64_t, 3>{3, 4, 1}));
  EXPECT_EQ(k->launch.block, (std::array<int64_t, 3>{8, 8, 1}));
  // A: 16x8, B: 8x32 floats per block.
  EXPECT_EQ(k->launch.shared_bytes, (16 * 8 + 8 * 32) * 4);
  EXPECT_EQ(k->launch.local_bytes, 2 * 4 * 4);
  EXPECT_TRUE(absl::StrContains(k->ptx, ".entry matmul_gpu")) << k->ptx;
  EXPECT_TRUE(absl::StrContains(k->ptx, ".target sm_90"));
  EXPECT_TRUE(absl::StrContains(k->ptx, "bar.sync"));
  EXPECT_TRUE(absl::StrContains(k->ptx, "ld.shared"));
  EXPECT_TRUE(absl::StrContains(k->ptx, "st.global"));
  EXPECT_TRUE(absl::StrContains(k->ptx, ".maxntid 8, 8, 1"));
  // The register tile lives in registers, not in local memory.
  EXPECT_FALSE(absl::StrContains(k->ptx, "__local_depot")) << k->ptx;
  ExpectEmulationMatches(p, *f);
}

TEST(GpuCodegen, SingleBlock_RegisterTileIndicesStayConstant) {
  // One block: the blockIdx loops have extent 1 and their variables become 0, so the
  // accumulator's indices are constants and it is held in registers.
  Program p = Matmul(16, 32, 32);
  auto f = LowerGpuMatmul(p, GpuMatmulTiles{16, 32, 2, 4, 8, 1});
  ASSERT_TRUE(f.ok()) << f.status();
  auto k = codegen::BuildGpuKernel(*f, Cuda());
  ASSERT_TRUE(k.ok()) << k.status();
  EXPECT_EQ(k->launch.grid, (std::array<int64_t, 3>{1, 1, 1}));
  EXPECT_FALSE(absl::StrContains(k->ptx, "__local_depot")) << k->ptx;
  ExpectEmulationMatches(p, *f);
}

TEST(GpuCodegen, BarrierPass_FencesTheSharedFillInTheReductionLoop) {
  Program p = Matmul(32, 32, 32);
  auto f = LowerGpuMatmul(p, GpuMatmulTiles{});
  ASSERT_TRUE(f.ok()) << f.status();
  std::string ir = ir::ToString(f->body);
  // One barrier before the fill (the previous step's readers) and one after it.
  size_t first = ir.find(lower::kBarrierIntrinsic);
  ASSERT_NE(first, std::string::npos) << ir;
  size_t second = ir.find(lower::kBarrierIntrinsic, first + 1);
  ASSERT_NE(second, std::string::npos) << ir;
  EXPECT_EQ(ir.find(lower::kBarrierIntrinsic, second + 1), std::string::npos) << ir;
}

int CountBarriers(const ir::Stmt& s) {
  std::string text = ir::ToString(s);
  int n = 0;
  for (size_t at = text.find(lower::kBarrierIntrinsic); at != std::string::npos;
       at = text.find(lower::kBarrierIntrinsic, at + 1)) {
    ++n;
  }
  return n;
}

// Emulation runs the threads in lockstep between barriers: without the barriers, a thread
// reads shared tiles the others have not filled yet, and the result is wrong.
TEST(GpuCodegen, Emulation_MissingBarriersGiveWrongResults) {
  Program p = Matmul(32, 64, 32);
  auto f = LowerGpuMatmul(p, GpuMatmulTiles{16, 32, 2, 4, 8, 1});
  ASSERT_TRUE(f.ok()) << f.status();
  class DropBarriers : public ir::IRMutator {
   protected:
    ir::Stmt Mutate_(const ir::EvaluateNode* op, const ir::Stmt& self) override {
      return lower::IsBarrier(self) ? ir::EvaluateNode::Make(0) : self;
    }
  };
  lower::LoweredFunc racy = *f;
  racy.body = DropBarriers().Mutate(f->body);
  auto emulated = lower::EmulateGpuKernel(racy);
  ASSERT_TRUE(emulated.ok()) << emulated.status();
  auto jit = codegen::BuildJit({*emulated}, codegen::HostTarget());
  ASSERT_TRUE(jit.ok()) << jit.status();
  auto fn = (*jit)->Lookup(racy.name);
  ASSERT_TRUE(fn.ok());
  std::vector<runtime::NDArray> args = MakeArgs(p, 7);
  std::vector<runtime::NDArray> refs = ReferenceOutputs(p, args);
  std::vector<runtime::NDArray*> ptrs;
  for (auto& a : args) ptrs.push_back(&a);
  ASSERT_TRUE(runtime::Call(*fn, ptrs).ok());
  EXPECT_GT(runtime::MaxRelError(args.back(), refs[0], 1e-4, 1e-4), 1.0);
  ExpectEmulationMatches(p, *f);  // with the barriers: right
}

TEST(GpuCodegen, BarrierPass_ReadAfterWriteInsideARunAndAcrossIterations) {
  using ir::Expr;
  auto f32 = ir::DataType::Float(32);
  ir::Buffer x = ir::MakeBuffer("X", f32, {Expr(64)});
  ir::Buffer y = ir::MakeBuffer("Y", f32, {Expr(64)});
  ir::Buffer s1 = ir::MakeBuffer("S1", f32, {Expr(64)}, "shared");
  ir::Buffer s2 = ir::MakeBuffer("S2", f32, {Expr(64)}, "shared");
  ir::Var tx("tx", ir::DataType::Int(32)), k("k", ir::DataType::Int(32));
  auto thread_loop = [&](ir::Stmt body) {
    return ir::AllocateNode::Make(
        s1, ir::AllocateNode::Make(
                s2, ir::ForNode::Make(tx, Expr(0), Expr(32), ir::ForKind::kThreadBinding, body,
                                      "threadIdx.x")));
  };
  // S1 filled, S2 computed from another thread's S1 (reads and writes), Y from S2.
  ir::Stmt chain = thread_loop(
      ir::SeqNode::Make({ir::StoreNode::Make(s1, ir::LoadNode::Make(x, {tx}), {tx}),
                         ir::StoreNode::Make(s2, ir::LoadNode::Make(s1, {tx + Expr(1)}), {tx}),
                         ir::StoreNode::Make(y, ir::LoadNode::Make(s2, {tx + Expr(1)}), {tx})}));
  EXPECT_EQ(CountBarriers(lower::InsertBarriers(chain)), 2)
      << ir::ToString(lower::InsertBarriers(chain));
  // A loop that reads S1, then refills it for the next iteration.
  ir::Stmt carried = thread_loop(ir::ForNode::Make(
      k, Expr(0), Expr(4), ir::ForKind::kSerial,
      ir::SeqNode::Make(
          {ir::StoreNode::Make(y, ir::LoadNode::Make(s1, {tx + Expr(1)}), {tx}),
           ir::StoreNode::Make(s1, ir::LoadNode::Make(x, {k * Expr(8) + tx}), {tx})})));
  ir::Stmt fenced = lower::InsertBarriers(carried);
  // Before the refill (its readers are done) and at the end (the next iteration reads it).
  EXPECT_EQ(CountBarriers(fenced), 2) << ir::ToString(fenced);
}

TEST(GpuCodegen, VectorizedFill_UsesWideGlobalLoads) {
  Program p = Matmul(64, 64, 32);
  GpuMatmulTiles t;
  t.vector = 4;
  auto f = LowerGpuMatmul(p, t);
  ASSERT_TRUE(f.ok()) << f.status();
  auto k = codegen::BuildGpuKernel(*f, Cuda("sm_80"));
  ASSERT_TRUE(k.ok()) << k.status();
  EXPECT_TRUE(absl::StrContains(k->ptx, "ld.global.nc.v4.f32") ||
              absl::StrContains(k->ptx, "ld.global.v4.f32"))
      << k->ptx;
  ExpectEmulationMatches(p, *f);
}

TEST(GpuCodegen, RandomTilings_EmulateCorrectly) {
  Program p = Matmul(64, 64, 48);
  int checked = 0;
  for (int64_t by : {8, 16, 32}) {
    for (int64_t bx : {16, 32, 64}) {
      for (int64_t tk : {4, 8, 16}) {
        GpuMatmulTiles t{by, bx, by / 8 > 0 ? by / 8 : 1, 4, tk, (tk % 4 == 0) ? 4 : 1};
        auto f = LowerGpuMatmul(p, t);
        ASSERT_TRUE(f.ok()) << f.status();
        ASSERT_TRUE(codegen::BuildGpuKernel(*f, Cuda()).ok());
        ExpectEmulationMatches(p, *f);
        ++checked;
      }
    }
  }
  EXPECT_EQ(checked, 27);
}

TEST(GpuCodegen, Float16InputsAccumulateInFloat32) {
  using ir::DataType;
  te::Tensor a = te::Placeholder({64, 32}, DataType::Float(16), "A");
  te::Tensor b = te::Placeholder({32, 64}, DataType::Float(16), "B");
  auto kk = te::ReduceAxis(32, "k");
  te::Tensor c = te::Compute(
                     {64, 64},
                     [&](const std::vector<ir::Var>& i) {
                       return te::Sum(ir::cast(DataType::Float(32), a(i[0], kk->var)) *
                                          ir::cast(DataType::Float(32), b(kk->var, i[1])),
                                      {kk});
                     },
                     "C")
                     .value();
  Program p{"matmul_f16", {a, b}, {c}, nullptr};
  auto f = LowerGpuMatmul(p, GpuMatmulTiles{});
  ASSERT_TRUE(f.ok()) << f.status();
  auto k = codegen::BuildGpuKernel(*f, Cuda());
  ASSERT_TRUE(k.ok()) << k.status();
  EXPECT_TRUE(absl::StrContains(k->ptx, ".b16") || absl::StrContains(k->ptx, ".f16")) << k->ptx;
  EXPECT_TRUE(absl::StrContains(k->ptx, "cvt.f32.f16")) << k->ptx;
}

TEST(GpuCodegen, TooManyThreads_Rejected) {
  Program p = Matmul(256, 256, 32);
  GpuMatmulTiles t{128, 64, 2, 2, 8, 1};  // 64 x 32 = 2048 threads per block.
  auto f = LowerGpuMatmul(p, t);
  ASSERT_TRUE(f.ok()) << f.status();
  auto k = codegen::BuildGpuKernel(*f, Cuda());
  ASSERT_EQ(k.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_TRUE(absl::StrContains(k.status().message(), "2048 threads per block")) << k.status();
}

TEST(GpuCodegen, TooMuchSharedMemory_Rejected) {
  Program p = Matmul(256, 256, 256);
  GpuMatmulTiles t{128, 128, 8, 8, 64, 1};  // (128 + 128) x 64 floats = 64 KB.
  auto f = LowerGpuMatmul(p, t);
  ASSERT_TRUE(f.ok()) << f.status();
  auto k = codegen::BuildGpuKernel(*f, Cuda());
  ASSERT_EQ(k.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_TRUE(absl::StrContains(k.status().message(), "shared")) << k.status();
}

TEST(GpuCodegen, TooLargeRegisterTile_Rejected) {
  Program p = Matmul(256, 256, 32);
  GpuMatmulTiles t{64, 64, 32, 64, 8, 1};  // 32 x 64 floats per thread = 8 KB.
  auto f = LowerGpuMatmul(p, t);
  ASSERT_TRUE(f.ok()) << f.status();
  auto k = codegen::BuildGpuKernel(*f, Cuda());
  ASSERT_EQ(k.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_TRUE(absl::StrContains(k.status().message(), "local")) << k.status();
}

TEST(GpuCodegen, UnboundOutput_RejectedAsRace) {
  Program p = Matmul(32, 32, 8);
  auto sch = schedule::Schedule::Create(p.outputs);
  ASSERT_TRUE(sch.ok());
  schedule::Stage& cs = (**sch)[p.outputs[0]];
  auto x = cs.Split(cs.axis(1), 8);
  ASSERT_TRUE(x.ok());
  ASSERT_TRUE(cs.Bind(x->second, "threadIdx.x").ok());
  // The y loop is left serial, but another stage binds threadIdx.y: every y-thread would write.
  te::Tensor c2 = p.outputs[0];
  auto f = lower::Lower(**sch, p.args(), "k");
  ASSERT_TRUE(f.ok()) << f.status();
  auto ok = codegen::BuildGpuKernel(*f, Cuda());
  EXPECT_TRUE(ok.ok()) << ok.status();  // Only threadIdx.x is used: fine.

  Program q = Matmul(32, 32, 8);
  auto sch2 = schedule::Schedule::Create(q.outputs);
  ASSERT_TRUE(sch2.ok());
  auto cc = (*sch2)->CacheWrite(q.outputs[0], "local");
  ASSERT_TRUE(cc.ok());
  schedule::Stage& qs = (**sch2)[q.outputs[0]];
  auto y = qs.Split(qs.axis(0), 4);
  ASSERT_TRUE(y.ok());
  ASSERT_TRUE(qs.Bind(y->first, "threadIdx.x").ok());
  schedule::Stage& ccs = (**sch2)[*cc];
  ASSERT_TRUE(ccs.ComputeAt(qs, y->first).ok());
  auto ycc = ccs.Split(ccs.axis(1), 4);
  ASSERT_TRUE(ycc.ok());
  ASSERT_TRUE(ccs.Bind(ycc->first, "threadIdx.y").ok());
  auto g = lower::Lower(**sch2, q.args(), "k");
  ASSERT_TRUE(g.ok()) << g.status();
  auto bad = codegen::BuildGpuKernel(*g, Cuda());
  ASSERT_EQ(bad.status().code(), absl::StatusCode::kFailedPrecondition) << bad.status();
  EXPECT_TRUE(absl::StrContains(bad.status().message(), "threadIdx.y")) << bad.status();
}

TEST(GpuCodegen, ShorterBoundLoop_GuardedAndNoBarrierInside) {
  // The fill of a 4x8 tile by 8x8 threads: threadIdx.y runs 4 of 8, the rest skip it.
  Program p = Matmul(32, 64, 32);
  GpuMatmulTiles t{16, 32, 2, 4, 2, 1};
  auto f = LowerGpuMatmul(p, t);
  ASSERT_TRUE(f.ok()) << f.status();
  auto k = codegen::BuildGpuKernel(*f, Cuda());
  ASSERT_TRUE(k.ok()) << k.status();
  EXPECT_EQ(k->launch.block, (std::array<int64_t, 3>{8, 8, 1}));
  ExpectEmulationMatches(p, *f);

  // A barrier inside such a loop would deadlock the threads that skip it.
  ir::Var tx("tx", ir::DataType::Int(32)), tx2("tx2", ir::DataType::Int(32));
  lower::LoweredFunc g;
  g.name = "k";
  g.body = ir::SeqNode::Make(
      {ir::ForNode::Make(tx, ir::Expr(0), ir::Expr(32), ir::ForKind::kThreadBinding,
                         ir::EvaluateNode::Make(0), "threadIdx.x"),
       ir::ForNode::Make(tx2, ir::Expr(0), ir::Expr(16), ir::ForKind::kThreadBinding,
                         lower::MakeBarrier(), "threadIdx.x")});
  auto bad = codegen::BuildGpuKernel(g, Cuda());
  ASSERT_EQ(bad.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_TRUE(absl::StrContains(bad.status().message(), "deadlock")) << bad.status();
}

TEST(GpuCodegen, BarrierUnderCondition_Rejected) {
  ir::Var tx("tx", ir::DataType::Int(32));
  lower::LoweredFunc f;
  f.name = "k";
  f.body = ir::ForNode::Make(tx, ir::Expr(0), ir::Expr(32), ir::ForKind::kThreadBinding,
                             ir::IfThenElseNode::Make(tx < ir::Expr(16), lower::MakeBarrier()),
                             "threadIdx.x");
  auto k = codegen::BuildGpuKernel(f, Cuda());
  ASSERT_EQ(k.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_TRUE(absl::StrContains(k.status().message(), "deadlock")) << k.status();
}

TEST(GpuCodegen, CpuTargetRejectsBindings_CudaRejectsParallel) {
  Program p = Matmul(32, 32, 8);
  auto f = LowerGpuMatmul(p, GpuMatmulTiles{16, 16, 2, 2, 8, 1});
  ASSERT_TRUE(f.ok());
  auto cpu = codegen::BuildJit({*f}, codegen::HostTarget());
  EXPECT_EQ(cpu.status().code(), absl::StatusCode::kInvalidArgument);
  auto llvm_target = codegen::BuildGpuKernel(*f, codegen::HostTarget());
  EXPECT_EQ(llvm_target.status().code(), absl::StatusCode::kInvalidArgument);

  auto sch = schedule::Schedule::Create(p.outputs);
  ASSERT_TRUE(sch.ok());
  schedule::Stage& cs = (**sch)[p.outputs[0]];
  ASSERT_TRUE(cs.Parallel(cs.axis(0)).ok());
  auto g = lower::Lower(**sch, p.args(), "k");
  ASSERT_TRUE(g.ok());
  auto k = codegen::BuildGpuKernel(*g, Cuda());
  EXPECT_EQ(k.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StrContains(k.status().message(), "parallel")) << k.status();
}

// Row sums R[i] = sum_j X[i, j] of a rows x cols matrix, rows on blocks, columns split over
// `threads` threads (a cross-thread reduction) and `per_thread` serial steps.
struct RowSum {
  te::Tensor x, r;
  std::unique_ptr<schedule::Schedule> sch;
};

// The program with an unscheduled schedule.
RowSum MakeRowSumProgram(int rows, int cols) {
  RowSum p;
  p.x = te::Placeholder({rows, cols}, ir::DataType::Float(32), "X");
  auto j = te::ReduceAxis(cols, "j");
  p.r = te::Compute(
            {rows}, [&](const std::vector<ir::Var>& i) { return te::Sum(p.x(i[0], j->var), {j}); },
            "R")
            .value();
  p.sch = *schedule::Schedule::Create({p.r});
  return p;
}

RowSum MakeRowSum(int rows, int cols, int64_t threads) {
  RowSum p = MakeRowSumProgram(rows, cols);
  schedule::Stage& rs = (*p.sch)[p.r];
  auto split = rs.Split(rs.reduce_axis(0), threads);
  EXPECT_TRUE(split.ok());
  EXPECT_TRUE(rs.Bind(rs.axis(0), "blockIdx.x").ok());
  EXPECT_TRUE(rs.Bind(split->second, "threadIdx.x").ok());
  return p;
}

void ExpectRowSumsMatch(RowSum& p, int rows, int cols, const lower::LoweredFunc& f) {
  auto emulated = lower::EmulateGpuKernel(f);
  ASSERT_TRUE(emulated.ok()) << emulated.status();
  auto jit = codegen::BuildJit({*emulated}, codegen::HostTarget());
  ASSERT_TRUE(jit.ok()) << jit.status();
  auto fn = (*jit)->Lookup(f.name);
  ASSERT_TRUE(fn.ok());
  auto x = *runtime::NDArray::Empty({rows, cols}, ir::DataType::Float(32));
  auto r = *runtime::NDArray::Empty({rows}, ir::DataType::Float(32));
  x.FillRandom(3);
  r.Fill(NAN);
  std::vector<runtime::NDArray*> args = {&x, &r};
  ASSERT_TRUE(runtime::Call(*fn, args).ok());
  for (int i = 0; i < rows; ++i) {
    double want = 0;
    for (int c = 0; c < cols; ++c) want += x.Get(i * cols + c);
    EXPECT_NEAR(r.Get(i), want, 1e-4) << "row " << i << "\n" << ir::ToString(f.body);
  }
}

TEST(GpuCodegen, CrossThreadReduction_TreeOfHalvingStepsMatchesReference) {
  for (int64_t threads : {32, 48, 7}) {  // a power of two, and two that are not
    const int rows = 5, cols = 96;
    RowSum p = MakeRowSum(rows, cols, threads);
    auto f = lower::Lower(*p.sch, {p.x, p.r}, "row_sum");
    ASSERT_TRUE(f.ok()) << f.status();
    auto k = codegen::BuildGpuKernel(*f, Cuda());
    ASSERT_TRUE(k.ok()) << k.status() << "\n" << ir::ToString(f->body);
    EXPECT_EQ(k->launch.block[0], threads);
    EXPECT_EQ(k->launch.shared_bytes, threads * 4);
    EXPECT_TRUE(absl::StrContains(k->ptx, "bar.sync"));
    ExpectRowSumsMatch(p, rows, cols, *f);
  }
}

TEST(GpuCodegen, CrossThreadReduction_UnsupportedFormsRejected) {
  struct Case {
    bool rows_on_threads;  // else: a data loop inside the reduction
    const char* message;
  };
  for (const Case& c : {Case{true, "bind data loops to blockIdx"},
                        Case{false, "reorder the reduce loops innermost"}}) {
    RowSum p = MakeRowSumProgram(64, 64);
    schedule::Stage& rs = (*p.sch)[p.r];
    auto cols = rs.Split(rs.reduce_axis(0), 16);
    ASSERT_TRUE(cols.ok());
    if (c.rows_on_threads) {
      auto rows = rs.Split(rs.axis(0), 4);
      ASSERT_TRUE(rs.Bind(rows->second, "threadIdx.y").ok());
    } else {
      ASSERT_TRUE(rs.Reorder({cols->first, rs.axis(0), cols->second}).ok());
    }
    ASSERT_TRUE(rs.Bind(cols->second, "threadIdx.x").ok());
    auto f = lower::Lower(*p.sch, {p.x, p.r}, "k");
    ASSERT_EQ(f.status().code(), absl::StatusCode::kFailedPrecondition) << c.message;
    EXPECT_TRUE(absl::StrContains(f.status().message(), c.message)) << f.status();
  }
}

// A 16x16 copy into a float32 output, tensorized as a WMMA store, with the given threads.
lower::LoweredFunc TensorizedStore(int64_t threads_x, bool inside_x, int64_t extent = 16,
                                   int dst_offset = 0) {
  ir::Buffer acc =
      ir::MakeBuffer("acc", ir::DataType::Float(32), {ir::Expr(256)}, "wmma.accumulator");
  ir::Buffer out = ir::MakeBuffer("out", ir::DataType::Float(32), {ir::Expr(256 + dst_offset)});
  ir::Var i("i", ir::DataType::Int(32)), j("j", ir::DataType::Int(32));
  ir::Var tx("tx", ir::DataType::Int(32)), ty("ty", ir::DataType::Int(32));
  ir::Expr index = i * ir::Expr(16) + j;
  ir::Stmt copy = ir::ForNode::Make(
      i, ir::Expr(0), ir::Expr(static_cast<int>(extent)), ir::ForKind::kSerial,
      ir::ForNode::Make(j, ir::Expr(0), ir::Expr(16), ir::ForKind::kSerial,
                        ir::StoreNode::Make(out, ir::LoadNode::Make(acc, {index}),
                                            {index + ir::Expr(dst_offset)})),
      "",
      {{schedule::kTensorizePragma, static_cast<int64_t>(schedule::TensorIntrinsic::kWmmaStore)}});
  ir::Stmt fill =
      ir::ForNode::Make(tx, ir::Expr(0), ir::Expr(static_cast<int>(threads_x)),
                        ir::ForKind::kThreadBinding, ir::EvaluateNode::Make(0), "threadIdx.x");
  ir::Stmt body = inside_x
                      ? ir::ForNode::Make(tx, ir::Expr(0), ir::Expr(static_cast<int>(threads_x)),
                                          ir::ForKind::kThreadBinding, copy, "threadIdx.x")
                      : ir::SeqNode::Make({fill, copy});
  lower::LoweredFunc f;
  f.name = "k";
  f.args = {lower::FuncArg{out, {256 + dst_offset}}};
  f.body = ir::AllocateNode::Make(acc, body);
  return f;
}

TEST(GpuCodegen, TensorizedNests_WarpRulesAndForm) {
  // The accumulator is never filled here, but the form is right: PTX with a WMMA store.
  auto ok = codegen::BuildGpuKernel(TensorizedStore(32, false), Cuda());
  ASSERT_TRUE(ok.ok()) << ok.status();
  EXPECT_TRUE(absl::StrContains(ok->ptx, "wmma.store.d.sync.aligned.row.m16n16k16.global.f32"))
      << ok->ptx;

  auto not_a_warp = codegen::BuildGpuKernel(TensorizedStore(64, false), Cuda());
  EXPECT_EQ(not_a_warp.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_TRUE(absl::StrContains(not_a_warp.status().message(), "32 lanes")) << not_a_warp.status();

  auto per_lane = codegen::BuildGpuKernel(TensorizedStore(32, true), Cuda());
  EXPECT_EQ(per_lane.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_TRUE(absl::StrContains(per_lane.status().message(), "warp-wide")) << per_lane.status();

  auto misaligned = codegen::BuildGpuKernel(TensorizedStore(32, false, 16, 1), Cuda());
  EXPECT_EQ(misaligned.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StrContains(misaligned.status().message(), "32-byte aligned"))
      << misaligned.status();

  auto wrong_shape = codegen::BuildGpuKernel(TensorizedStore(32, false, 8), Cuda());
  EXPECT_EQ(wrong_shape.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StrContains(wrong_shape.status().message(), "must run over [0, 16)"))
      << wrong_shape.status();
}

TEST(GpuCodegen, UnknownArch_Rejected) {
  auto t = codegen::ParseTarget("cuda -arch=sm_30");
  ASSERT_TRUE(t.ok());
  Program p = Matmul(32, 32, 8);
  auto f = LowerGpuMatmul(p, GpuMatmulTiles{16, 16, 2, 2, 8, 1});
  ASSERT_TRUE(f.ok());
  EXPECT_EQ(codegen::BuildGpuKernel(*f, *t).status().code(), absl::StatusCode::kInvalidArgument);
  // An architecture LLVM 16 does not know yet.
  auto future = codegen::BuildGpuKernel(*f, *codegen::ParseTarget("cuda -arch=sm_120"));
  EXPECT_EQ(future.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StrContains(future.status().message(), "does not know sm_120"))
      << future.status();
}

}  // namespace
}  // namespace tunefarm::testing
