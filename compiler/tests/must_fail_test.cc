// Must-fail tests: invalid schedules, bad definitions, bad lowering arguments, bad targets and
// bad kernel calls. Each asserts the status code and a substring of the message, so an error
// that changes meaning (or turns into a crash or a silent acceptance) fails here.
#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "compiler/codegen/build.h"
#include "compiler/ir/ir_operators.h"
#include "compiler/lower/lower.h"
#include "compiler/runtime/ndarray.h"
#include "gtest/gtest.h"

namespace tunefarm {
namespace {

using absl::StatusCode;
using ir::DataType;
using ir::Expr;
using ir::Var;
using te::Tensor;

// Expects `status_expr` to fail with `want_code` and a message containing `want_substr`.
#define EXPECT_ERROR(status_expr, want_code, want_substr)               \
  do {                                                                  \
    absl::Status got = (status_expr);                                   \
    EXPECT_EQ(got.code(), (want_code)) << got;                          \
    EXPECT_TRUE(absl::StrContains(got.message(), (want_substr)))        \
        << got << "\n  wanted a message containing: " << (want_substr); \
  } while (0)

// A = input, B = A * 2 (elementwise), C[i, j] = Σ_k B[i, k] · W[k, j].
struct Net {
  Tensor A, W, B, C;
  std::unique_ptr<schedule::Schedule> sch;
  Net() {
    A = te::Placeholder({16, 8}, DataType::Float(32), "A");
    W = te::Placeholder({8, 12}, DataType::Float(32), "W");
    B = te::Compute(
            {16, 8}, [&](const std::vector<Var>& i) { return A(i[0], i[1]) * 2.0f; }, "B")
            .value();
    auto k = te::ReduceAxis(8, "k");
    C = te::Compute(
            {16, 12},
            [&](const std::vector<Var>& i) {
              return te::Sum(B(i[0], k->var) * W(k->var, i[1]), {k});
            },
            "C")
            .value();
    sch = *schedule::Schedule::Create({C});
  }
  schedule::Stage& b() { return (*sch)[B]; }
  schedule::Stage& c() { return (*sch)[C]; }
  absl::Status Lower() { return lower::Lower(*sch, {A, W, C}, "net").status(); }
};

// ---------------------------------------------------------------------------------------------
// Schedule primitives.

TEST(MustFail, ReorderWithAxisOfAnotherStage_InvalidArgument) {
  Net n;
  EXPECT_ERROR(n.c().Reorder({n.b().axis(0), n.c().axis(0)}), StatusCode::kInvalidArgument,
               "is not a current loop of this stage");
}

TEST(MustFail, ReorderSameAxisTwice_InvalidArgument) {
  Net n;
  EXPECT_ERROR(n.c().Reorder({n.c().axis(0), n.c().axis(0)}), StatusCode::kInvalidArgument,
               "listed twice");
}

TEST(MustFail, SplitOfNonLeaf_InvalidArgument) {
  Net n;
  ASSERT_TRUE(n.c().Split(n.c().axis(0), 4).ok());
  EXPECT_ERROR(n.c().Split(n.c().axis(0), 2).status(), StatusCode::kInvalidArgument,
               "split or fused already");
}

TEST(MustFail, FuseOfNonLeaf_InvalidArgument) {
  Net n;
  ASSERT_TRUE(n.c().Split(n.c().axis(1), 4).ok());
  EXPECT_ERROR(n.c().Fuse(n.c().axis(0), n.c().axis(1)).status(), StatusCode::kInvalidArgument,
               "is not a current loop");
}

TEST(MustFail, FuseNonAdjacent_InvalidArgument) {
  Net n;
  // Leaves are (i, j, k): i and k are not adjacent.
  EXPECT_ERROR(n.c().Fuse(n.c().axis(0), n.c().reduce_axis(0)).status(),
               StatusCode::kInvalidArgument, "must be immediately outside");
}

TEST(MustFail, FuseReduceWithDataAxis_InvalidArgument) {
  Net n;
  EXPECT_ERROR(n.c().Fuse(n.c().axis(1), n.c().reduce_axis(0)).status(),
               StatusCode::kInvalidArgument, "cannot fuse a reduce axis");
}

TEST(MustFail, VectorizeReduceAxis_InvalidArgument) {
  Net n;
  EXPECT_ERROR(n.c().Vectorize(n.c().reduce_axis(0)), StatusCode::kInvalidArgument,
               "is a reduce axis");
}

TEST(MustFail, ParallelReduceAxis_InvalidArgument) {
  Net n;
  EXPECT_ERROR(n.c().Parallel(n.c().reduce_axis(0)), StatusCode::kInvalidArgument,
               "race on the accumulator");
}

TEST(MustFail, SplitFactorZero_InvalidArgument) {
  Net n;
  EXPECT_ERROR(n.c().Split(n.c().axis(0), 0).status(), StatusCode::kInvalidArgument,
               "must be at least 1");
  EXPECT_ERROR(n.c().SplitByNParts(n.c().axis(0), 0).status(), StatusCode::kInvalidArgument,
               "nparts 0 must be at least 1");
}

TEST(MustFail, TileBadSecondFactor_InvalidArgumentAndStageUnchanged) {
  Net n;
  auto before = n.c().leaf_ivars();
  EXPECT_ERROR(n.c().Tile(n.c().axis(0), n.c().axis(1), 4, 0).status(),
               StatusCode::kInvalidArgument, "must be at least 1");
  // Regression: the first split used to be applied before the second factor was checked.
  EXPECT_EQ(n.c().leaf_ivars(), before);
  EXPECT_TRUE(n.c().relations().empty());
}

TEST(MustFail, BindUnknownTag_InvalidArgument) {
  Net n;
  EXPECT_ERROR(n.c().Bind(n.c().axis(0), "threadIdx.w"), StatusCode::kInvalidArgument,
               "unknown thread tag 'threadIdx.w'");
}

TEST(MustFail, PragmaUnknownKey_InvalidArgument) {
  Net n;
  EXPECT_ERROR(n.c().Pragma(n.c().axis(0), "unroll_everything", 1), StatusCode::kInvalidArgument,
               "unknown key");
}

TEST(MustFail, StorageAlignBadAxis_InvalidArgument) {
  Net n;
  EXPECT_ERROR(n.b().SetStorageAlign(1, 8, 1), StatusCode::kInvalidArgument,
               "must name a dimension that has an inner dimension");
  EXPECT_ERROR(n.b().SetStorageAlign(0, 8, 8), StatusCode::kInvalidArgument,
               "0 <= offset < factor");
}

TEST(MustFail, ComputeAtLoopNotLeafOfTarget_InvalidArgument) {
  Net n;
  auto s = *n.c().Split(n.c().axis(0), 4);
  (void)s;
  EXPECT_ERROR(n.b().ComputeAt(n.c(), n.c().axis(0)), StatusCode::kInvalidArgument,
               "is not a current loop");
  // A loop of the stage itself is not a loop of the target either.
  EXPECT_ERROR(n.b().ComputeAt(n.c(), n.b().axis(0)), StatusCode::kInvalidArgument,
               "is not a current loop");
}

TEST(MustFail, ComputeAtStageThatDoesNotRead_FailedPrecondition) {
  Tensor A = te::Placeholder({8}, DataType::Float(32), "A");
  Tensor B = te::Compute(
                 {8}, [&](const std::vector<Var>& i) { return A(i[0]) + 1.0f; }, "B")
                 .value();
  Tensor C = te::Compute(
                 {8}, [&](const std::vector<Var>& i) { return A(i[0]) * 3.0f; }, "C")
                 .value();
  Tensor D = te::Compute(
                 {8}, [&](const std::vector<Var>& i) { return B(i[0]) + C(i[0]); }, "D")
                 .value();
  auto sch = *schedule::Schedule::Create({D});
  // C does not read B, and B's reader D does not run inside C.
  EXPECT_ERROR((*sch)[B].ComputeAt((*sch)[C], (*sch)[C].axis(0)), StatusCode::kFailedPrecondition,
               "is also read by 'D'");
}

TEST(MustFail, StageOfTensorNotInSchedule_InvalidArgument) {
  Net n;
  Tensor other = te::Compute(
                     {4}, [&](const std::vector<Var>& i) { return n.A(i[0], 0) + 1.0f; }, "other")
                     .value();
  EXPECT_ERROR(n.sch->StageOf(other).status(), StatusCode::kInvalidArgument,
               "is not part of this schedule");
  EXPECT_TRUE(n.sch->StageOf(n.C).ok());
}

TEST(MustFail, VectorizeReductionOnDataAxis_InvalidArgument) {
  Net n;
  EXPECT_ERROR(n.c().VectorizeReduction(n.c().axis(0)), StatusCode::kInvalidArgument,
               "is a data-parallel axis; use vectorize");
}

TEST(MustFail, PrefetchOfATensorNotRead_OrNoDistance_InvalidArgument) {
  Net n;
  // C reads B and W, not A (B does).
  EXPECT_ERROR(n.c().Prefetch(n.A, n.c().reduce_axis(0), 256), StatusCode::kInvalidArgument,
               "'A' is not read by this stage");
  EXPECT_ERROR(n.c().Prefetch(n.W, n.c().reduce_axis(0), 0), StatusCode::kInvalidArgument,
               "distance must be >= 1 byte");
  EXPECT_ERROR(n.c().Prefetch(n.W, n.b().axis(0), 256), StatusCode::kInvalidArgument,
               "is not a current loop of this stage");
  EXPECT_ERROR(n.c().Prefetch(Tensor(), n.c().reduce_axis(0), 256), StatusCode::kInvalidArgument,
               "undefined tensor");
  EXPECT_TRUE(n.c().Prefetch(n.W, n.c().reduce_axis(0), 256).ok());
  EXPECT_TRUE(n.Lower().ok());
}

TEST(MustFail, AxisIndexOutOfRange_InvalidArgumentAtPrimitive) {
  Net n;
  EXPECT_EQ(n.c().axis(2), nullptr);
  EXPECT_EQ(n.c().reduce_axis(-1), nullptr);
  EXPECT_ERROR(n.c().Split(n.c().axis(5), 2).status(), StatusCode::kInvalidArgument,
               "no such iteration variable");
  EXPECT_ERROR(n.c().Vectorize(n.c().reduce_axis(1)), StatusCode::kInvalidArgument,
               "no such iteration variable");
}

TEST(MustFail, ComputeAtOfOutput_FailedPrecondition) {
  Net n;
  EXPECT_ERROR(n.c().ComputeAt(n.b(), n.b().axis(0)), StatusCode::kFailedPrecondition,
               "is an output of the schedule");
}

TEST(MustFail, ComputeInlineOfReduction_FailedPrecondition) {
  Tensor A = te::Placeholder({8, 8}, DataType::Float(32), "A");
  auto k = te::ReduceAxis(8, "k");
  Tensor R = te::Compute(
                 {8}, [&](const std::vector<Var>& i) { return te::Sum(A(i[0], k->var), {k}); }, "R")
                 .value();
  Tensor O = te::Compute(
                 {8}, [&](const std::vector<Var>& i) { return R(i[0]) * 2.0f; }, "O")
                 .value();
  auto sch = *schedule::Schedule::Create({O});
  EXPECT_ERROR((*sch)[R].ComputeInline(), StatusCode::kFailedPrecondition, "is a reduction");
}

TEST(MustFail, ComputeInlineOfOutput_FailedPrecondition) {
  Net n;
  ASSERT_TRUE(n.b().ComputeInline().ok());
  Tensor A = n.A;
  EXPECT_ERROR(n.c().ComputeInline(), StatusCode::kFailedPrecondition, "is a reduction");
  Tensor E = te::Compute(
                 {4}, [&](const std::vector<Var>& i) { return A(i[0], 0) + 1.0f; }, "E")
                 .value();
  auto sch = *schedule::Schedule::Create({E});
  EXPECT_ERROR((*sch)[E].ComputeInline(), StatusCode::kFailedPrecondition, "is an output");
}

TEST(MustFail, CacheWriteAfterSplit_FailedPrecondition) {
  Net n;
  ASSERT_TRUE(n.c().Split(n.c().axis(0), 4).ok());
  EXPECT_ERROR(n.sch->CacheWrite(n.C, "local").status(), StatusCode::kFailedPrecondition,
               "before splitting");
}

TEST(MustFail, CacheWriteOfInput_FailedPrecondition) {
  Net n;
  EXPECT_ERROR(n.sch->CacheWrite(n.A, "local").status(), StatusCode::kFailedPrecondition,
               "is an input placeholder");
}

TEST(MustFail, CacheReadForStageThatDoesNotRead_InvalidArgument) {
  Net n;
  EXPECT_ERROR(n.sch->CacheRead(n.A, "local", {n.C}).status(), StatusCode::kInvalidArgument,
               "'C' does not read it");
}

TEST(MustFail, ScheduleOfPlaceholder_InvalidArgument) {
  Net n;
  EXPECT_ERROR(schedule::Schedule::Create({n.A}).status(), StatusCode::kInvalidArgument,
               "is an input placeholder");
  EXPECT_ERROR(schedule::Schedule::Create({}).status(), StatusCode::kInvalidArgument,
               "no output tensors");
}

// ---------------------------------------------------------------------------------------------
// Schedules that only lowering can judge (the final schedule, after every primitive).

TEST(MustFail, NestedParallelLoops_FailedPreconditionAtLower) {
  Net n;
  ASSERT_TRUE(n.c().Parallel(n.c().axis(0)).ok());
  ASSERT_TRUE(n.c().Parallel(n.c().axis(1)).ok());
  EXPECT_ERROR(n.Lower(), StatusCode::kFailedPrecondition,
               "is nested inside another parallel loop");
}

TEST(MustFail, ParallelProducerInsideParallelConsumer_FailedPreconditionAtLower) {
  Net n;
  ASSERT_TRUE(n.c().Parallel(n.c().axis(0)).ok());
  ASSERT_TRUE(n.b().ComputeAt(n.c(), n.c().axis(0)).ok());
  ASSERT_TRUE(n.b().Parallel(n.b().axis(1)).ok());
  EXPECT_ERROR(n.Lower(), StatusCode::kFailedPrecondition, "nested inside another parallel");
}

TEST(MustFail, ComputeAtTargetLoopSplitAfterwards_FailedPreconditionAtLower) {
  Net n;
  ASSERT_TRUE(n.b().ComputeAt(n.c(), n.c().axis(0)).ok());
  ASSERT_TRUE(n.c().Split(n.c().axis(0), 4).ok());
  // Used to drop B's loop nest silently (codegen: buffer not in scope).
  EXPECT_ERROR(n.Lower(), StatusCode::kFailedPrecondition, "was split, fused or replaced");
}

TEST(MustFail, ComputeAtTargetInlinedAfterwards_FailedPreconditionAtLower) {
  Tensor A = te::Placeholder({8}, DataType::Float(32), "A");
  Tensor B = te::Compute(
                 {8}, [&](const std::vector<Var>& i) { return A(i[0]) + 1.0f; }, "B")
                 .value();
  Tensor C = te::Compute(
                 {8}, [&](const std::vector<Var>& i) { return B(i[0]) * 3.0f; }, "C")
                 .value();
  Tensor D = te::Compute(
                 {8}, [&](const std::vector<Var>& i) { return C(i[0]) - 1.0f; }, "D")
                 .value();
  auto sch = *schedule::Schedule::Create({D});
  ASSERT_TRUE((*sch)[B].ComputeAt((*sch)[C], (*sch)[C].axis(0)).ok());
  ASSERT_TRUE((*sch)[C].ComputeInline().ok());
  // Used to abort the process (std::out_of_range in bound inference).
  EXPECT_ERROR(lower::Lower(*sch, {A, D}, "k").status(), StatusCode::kFailedPrecondition,
               "which was inlined afterwards");
}

TEST(MustFail, OtherReaderOutsideAttachLoop_FailedPrecondition) {
  // Softmax-like: E is read by S and by Y; S runs once per row, E is attached per element.
  Tensor X = te::Placeholder({4, 8}, DataType::Float(32), "X");
  Tensor E = te::Compute(
                 {4, 8}, [&](const std::vector<Var>& i) { return ir::exp(X(i[0], i[1])); }, "E")
                 .value();
  auto j = te::ReduceAxis(8, "j");
  Tensor S = te::Compute(
                 {4}, [&](const std::vector<Var>& i) { return te::Sum(E(i[0], j->var), {j}); }, "S")
                 .value();
  Tensor Y = te::Compute(
                 {4, 8}, [&](const std::vector<Var>& i) { return E(i[0], i[1]) / S(i[0]); }, "Y")
                 .value();
  auto sch = *schedule::Schedule::Create({Y});
  auto& y = (*sch)[Y];
  ASSERT_TRUE((*sch)[S].ComputeAt(y, y.axis(0)).ok());
  // Used to compute one element of E per iteration while S read the whole row: wrong results.
  EXPECT_ERROR((*sch)[E].ComputeAt(y, y.axis(1)), StatusCode::kFailedPrecondition,
               "is also read by 'S'");
}

// ---------------------------------------------------------------------------------------------
// Lowering arguments.

TEST(MustFail, LowerMissingInput_InvalidArgument) {
  Net n;
  EXPECT_ERROR(lower::Lower(*n.sch, {n.A, n.C}, "k").status(), StatusCode::kInvalidArgument,
               "input 'W' is read but not passed");
}

TEST(MustFail, LowerMissingOutput_InvalidArgument) {
  Net n;
  EXPECT_ERROR(lower::Lower(*n.sch, {n.A, n.W}, "k").status(), StatusCode::kInvalidArgument,
               "output 'C' must be passed");
}

TEST(MustFail, LowerDuplicateArgument_InvalidArgument) {
  Net n;
  EXPECT_ERROR(lower::Lower(*n.sch, {n.A, n.W, n.A, n.C}, "k").status(),
               StatusCode::kInvalidArgument, "appears twice");
}

TEST(MustFail, LowerForeignArgument_InvalidArgument) {
  Net n;
  Tensor Z = te::Placeholder({2}, DataType::Float(32), "Z");
  EXPECT_ERROR(lower::Lower(*n.sch, {n.A, n.W, Z, n.C}, "k").status(), StatusCode::kInvalidArgument,
               "is not part of the schedule");
}

TEST(MustFail, LowerBadKernelName_InvalidArgument) {
  Net n;
  for (const char* name : {"", "2fast", "my-kernel", "a b"}) {
    EXPECT_ERROR(lower::Lower(*n.sch, {n.A, n.W, n.C}, name).status(), StatusCode::kInvalidArgument,
                 "is not a C identifier");
  }
}

TEST(MustFail, LowerUnboundSymbolicShape_InvalidArgument) {
  Var len("len");
  Tensor A = te::Placeholder({len}, DataType::Float(32), "A");
  Tensor B = te::Compute(
                 {len}, [&](const std::vector<Var>& i) { return A(i[0]) + 1.0f; }, "B")
                 .value();
  auto sch = *schedule::Schedule::Create({B});
  EXPECT_ERROR(lower::Lower(*sch, {A, B}, "k").status(), StatusCode::kInvalidArgument,
               "has symbolic extent len");
}

// ---------------------------------------------------------------------------------------------
// Definitions.

TEST(MustFail, ComputeWrongIndexCount_InvalidArgument) {
  Tensor A = te::Placeholder({4, 4}, DataType::Float(32), "A");
  EXPECT_ERROR(te::Compute(
                   {4}, [&](const std::vector<Var>& i) { return A(i[0]); }, "B")
                   .status(),
               StatusCode::kInvalidArgument, "has 2 dimensions but is indexed with 1");
}

TEST(MustFail, ComputeZeroExtent_InvalidArgument) {
  Tensor A = te::Placeholder({4}, DataType::Float(32), "A");
  EXPECT_ERROR(te::Compute(
                   {0}, [&](const std::vector<Var>& i) { return A(i[0]); }, "B")
                   .status(),
               StatusCode::kInvalidArgument, "has extent 0; must be positive");
  auto k = te::ReduceAxis(0, "k");
  EXPECT_ERROR(te::Compute(
                   {4}, [&](const std::vector<Var>& i) { return te::Sum(A(k->var), {k}); }, "C")
                   .status(),
               StatusCode::kInvalidArgument, "reduce axis 'k' has extent 0");
}

TEST(MustFail, ComputeNestedReduction_InvalidArgument) {
  Tensor A = te::Placeholder({4}, DataType::Float(32), "A");
  auto k = te::ReduceAxis(4, "k");
  EXPECT_ERROR(
      te::Compute(
          {4}, [&](const std::vector<Var>& i) { return te::Sum(A(k->var), {k}) + 1.0f; }, "C")
          .status(),
      StatusCode::kInvalidArgument, "a reduction must be the whole body");
}

// ---------------------------------------------------------------------------------------------
// Targets, building and calling.

TEST(MustFail, BadTargetStrings_InvalidArgument) {
  EXPECT_ERROR(codegen::ParseTarget("").status(), StatusCode::kInvalidArgument,
               "empty target string");
  EXPECT_ERROR(codegen::ParseTarget("vulkan").status(), StatusCode::kInvalidArgument,
               "unknown target kind 'vulkan'");
  EXPECT_ERROR(codegen::ParseTarget("llvm -O2").status(), StatusCode::kInvalidArgument,
               "unknown option '-O2'");
  EXPECT_ERROR(codegen::ParseTarget("llvm -mcpu=notacpu").status(), StatusCode::kInvalidArgument,
               "unknown CPU 'notacpu'");
  EXPECT_ERROR(codegen::ParseTarget("llvm -mtriple=nonsense-unknown-none").status(),
               StatusCode::kInvalidArgument, "is not supported");
  EXPECT_ERROR(codegen::ParseTarget("cuda -arch=90").status(), StatusCode::kInvalidArgument,
               "bad CUDA arch");
}

TEST(MustFail, ThreadBindingOnCpuTarget_InvalidArgumentAtBuild) {
  Net n;
  ASSERT_TRUE(n.c().Bind(n.c().axis(0), "blockIdx.x").ok());
  auto f = lower::Lower(*n.sch, {n.A, n.W, n.C}, "k");
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_ERROR(codegen::BuildJit({*f}, codegen::HostTarget()).status(),
               StatusCode::kInvalidArgument, "thread bindings need a cuda target");
}

TEST(MustFail, JitOfCrossTarget_InvalidArgument) {
  Net n;
  auto f = lower::Lower(*n.sch, {n.A, n.W, n.C}, "k");
  ASSERT_TRUE(f.ok());
  auto arm = codegen::ParseTarget("llvm -mtriple=aarch64-linux-gnu");
  ASSERT_TRUE(arm.ok()) << arm.status();
  EXPECT_ERROR(codegen::BuildJit({*f}, *arm).status(), StatusCode::kInvalidArgument,
               "JIT needs a target of this machine's architecture");
}

TEST(MustFail, DuplicateKernelNames_InvalidArgumentAtBuild) {
  Net n;
  auto f = lower::Lower(*n.sch, {n.A, n.W, n.C}, "k");
  ASSERT_TRUE(f.ok());
  EXPECT_EQ(codegen::BuildJit({*f, *f}, codegen::HostTarget()).status().code(),
            StatusCode::kInvalidArgument);
}

TEST(MustFail, KernelCalledWithBadArguments_AbiErrorCodes) {
  Net n;
  auto f = lower::Lower(*n.sch, {n.A, n.W, n.C}, "k");
  ASSERT_TRUE(f.ok());
  auto jit = codegen::BuildJit({*f}, codegen::HostTarget());
  ASSERT_TRUE(jit.ok()) << jit.status();
  TfKernelFn fn = *(*jit)->Lookup("k");
  auto a = *runtime::NDArray::Empty({16, 8}, DataType::Float(32));
  auto w = *runtime::NDArray::Empty({8, 12}, DataType::Float(32));
  auto c = *runtime::NDArray::Empty({16, 12}, DataType::Float(32));
  auto c_rank = *runtime::NDArray::Empty({16, 12, 1}, DataType::Float(32));
  auto c_shape = *runtime::NDArray::Empty({12, 16}, DataType::Float(32));
  auto c_dtype = *runtime::NDArray::Empty({16, 12}, DataType::Float(16));
  DLTensor* args[3] = {a.dl(), w.dl(), c.dl()};
  EXPECT_EQ(fn(args, 3), TF_KERNEL_OK);
  EXPECT_EQ(fn(args, 4), TF_KERNEL_BAD_ARG_COUNT);
  EXPECT_EQ(fn(nullptr, 3), TF_KERNEL_NULL_ARG);
  args[2] = c_rank.dl();
  EXPECT_EQ(fn(args, 3), TF_KERNEL_BAD_SHAPE);
  args[2] = c_shape.dl();
  EXPECT_EQ(fn(args, 3), TF_KERNEL_BAD_SHAPE);
  args[2] = c_dtype.dl();
  EXPECT_EQ(fn(args, 3), TF_KERNEL_BAD_DTYPE);
  DLTensor on_gpu = *c.dl();
  on_gpu.device.device_type = kDLCUDA;
  args[2] = &on_gpu;
  EXPECT_EQ(fn(args, 3), TF_KERNEL_BAD_DEVICE);
  DLTensor null_data = *c.dl();
  null_data.data = nullptr;
  args[2] = &null_data;
  EXPECT_EQ(fn(args, 3), TF_KERNEL_NULL_ARG);
  int64_t strides[2] = {1, 16};  // Column-major.
  DLTensor strided = *c.dl();
  strided.strides = strides;
  args[2] = &strided;
  EXPECT_EQ(fn(args, 3), TF_KERNEL_BAD_STRIDES);
  int64_t outer_wrong[2] = {13, 1};  // Only the outer stride is off.
  strided.strides = outer_wrong;
  EXPECT_EQ(fn(args, 3), TF_KERNEL_BAD_STRIDES);
  int64_t compact[2] = {12, 1};  // Explicit row-major strides are accepted.
  strided.strides = compact;
  EXPECT_EQ(fn(args, 3), TF_KERNEL_OK);
  DLTensor null_shape = *c.dl();
  null_shape.shape = nullptr;
  args[2] = &null_shape;
  EXPECT_EQ(fn(args, 3), TF_KERNEL_NULL_ARG);
  args[2] = c.dl();
  args[0] = nullptr;  // The first argument checked, not only the last.
  EXPECT_EQ(fn(args, 3), TF_KERNEL_NULL_ARG);
  args[0] = c_shape.dl();
  EXPECT_EQ(fn(args, 3), TF_KERNEL_BAD_SHAPE);
  EXPECT_ERROR(runtime::Call(fn, {&a, &w, &c_dtype}), StatusCode::kInternal,
               "kernel returned error 3");
  EXPECT_EQ((*jit)->Lookup("missing").status().code(), StatusCode::kNotFound);
}

}  // namespace
}  // namespace tunefarm
