// The graph layer's passes on hand-built graphs: constant folding, batch-norm folding, fusion,
// layout planning, memory planning, and what each must refuse.
#include <cmath>

#include "absl/strings/match.h"
#include "graph/dense_pairs.h"
#include "graph/fold_batch_norm.h"
#include "graph/fold_constants.h"
#include "graph/fold_layer_norm.h"
#include "graph/fuse_groups.h"
#include "graph/group_program.h"
#include "graph/plan_layout.h"
#include "graph/plan_memory.h"
#include "graph/prepare_model.h"
#include "gtest/gtest.h"

namespace tunefarm::graph {
namespace {

Tensor Activation(const std::string& name, std::vector<int64_t> shape) {
  Tensor t;
  t.name = name;
  t.shape = std::move(shape);
  return t;
}

Tensor Constant(const std::string& name, std::vector<int64_t> shape, std::vector<float> v) {
  Tensor t = Activation(name, std::move(shape));
  t.constant = true;
  t.f32 = std::move(v);
  return t;
}

Tensor Ints(const std::string& name, std::vector<int64_t> v) {
  Tensor t = Activation(name, {static_cast<int64_t>(v.size())});
  t.dtype = DType::kInt64;
  t.constant = true;
  t.i64 = std::move(v);
  return t;
}

void Add(Graph& g, Tensor t) { g.tensors[t.name] = std::move(t); }

Node MakeNode(std::string op, std::vector<std::string> in, std::vector<std::string> out) {
  Node n;
  n.op = op;
  n.name = op + "_" + out[0];
  n.inputs = std::move(in);
  n.outputs = std::move(out);
  return n;
}

// x [1, C, H, W] → Conv 3×3 (pad 1) → y.
Graph ConvGraph(int64_t c, int64_t f, int64_t hw) {
  Graph g;
  Add(g, Activation("x", {1, c, hw, hw}));
  g.inputs = {"x"};
  std::vector<float> w(f * c * 9);
  for (size_t i = 0; i < w.size(); ++i) w[i] = 0.01f * static_cast<float>(i % 17);
  Add(g, Constant("w", {f, c, 3, 3}, w));
  Add(g, Activation("y", {1, f, hw, hw}));
  Node conv = MakeNode("Conv", {"x", "w"}, {"y"});
  Attribute pads;
  pads.kind = Attribute::Kind::kInts;
  pads.ints = {1, 1, 1, 1};
  conv.attrs["pads"] = pads;
  g.nodes.push_back(conv);
  g.outputs = {"y"};
  return g;
}

TEST(FoldConstants, ShapeArithmetic_BecomesAConstantReshapeTarget) {
  // Shape(x) → Gather(0) → Unsqueeze → Concat([-1]) : the target of a flatten, as exporters write.
  Graph g;
  Add(g, Activation("x", {2, 3, 4}));
  g.inputs = {"x"};
  Add(g, Ints("idx", {0}));
  Add(g, Ints("minus1", {-1}));
  Add(g, Ints("s", {0, 0, 0}));
  g.tensors["s"].constant = false;
  Add(g, Ints("b", {1}));
  g.tensors["b"].constant = false;
  Add(g, Ints("shape", {0, 0}));
  g.tensors["shape"].constant = false;
  Add(g, Activation("y", {2, 12}));
  g.nodes.push_back(MakeNode("Shape", {"x"}, {"s"}));
  g.nodes.push_back(MakeNode("Gather", {"s", "idx"}, {"b"}));
  g.nodes.push_back(MakeNode("Concat", {"b", "minus1"}, {"shape"}));
  g.nodes.back().attrs["axis"] = Attribute{};
  g.nodes.push_back(MakeNode("Reshape", {"x", "shape"}, {"y"}));
  g.outputs = {"y"};
  absl::Status folded = FoldConstants(g);
  ASSERT_TRUE(folded.ok()) << folded;
  ASSERT_EQ(g.nodes.size(), 1u);
  EXPECT_EQ(g.nodes[0].op, "Reshape");
  ASSERT_TRUE(g.IsConstant("shape"));
  EXPECT_EQ(g.Find("shape")->i64, (std::vector<int64_t>{2, -1}));
}

TEST(FoldConstants, Identity_IsRemoved) {
  Graph g = ConvGraph(4, 4, 4);
  Add(g, Activation("z", {1, 4, 4, 4}));
  g.nodes.insert(g.nodes.begin(), MakeNode("Identity", {"x"}, {"x2"}));
  Add(g, Activation("x2", {1, 4, 4, 4}));
  g.nodes[1].inputs[0] = "x2";
  ASSERT_TRUE(FoldConstants(g).ok());
  ASSERT_EQ(g.nodes.size(), 1u);
  EXPECT_EQ(g.nodes[0].inputs[0], "x");
}

TEST(FoldBatchNorm, AfterConv_ScalesTheFilterAndBias) {
  Graph g = ConvGraph(2, 2, 4);
  Add(g, Constant("gamma", {2}, {2.0f, 0.5f}));
  Add(g, Constant("beta", {2}, {1.0f, -1.0f}));
  Add(g, Constant("mean", {2}, {0.5f, 0.25f}));
  Add(g, Constant("var", {2}, {3.0f, 0.0f}));
  Add(g, Activation("z", {1, 2, 4, 4}));
  g.nodes.push_back(MakeNode("BatchNormalization", {"y", "gamma", "beta", "mean", "var"}, {"z"}));
  g.outputs = {"z"};
  const std::vector<float> w = g.Find("w")->f32;
  ASSERT_TRUE(FoldBatchNorm(g).ok());
  ASSERT_EQ(g.nodes.size(), 1u);
  const Node& conv = g.nodes[0];
  ASSERT_EQ(conv.inputs.size(), 3u);
  const std::vector<float>& folded = g.Find(conv.inputs[1])->f32;
  const std::vector<float>& bias = g.Find(conv.inputs[2])->f32;
  const float s0 = 2.0f / std::sqrt(3.0f + 1e-5f), s1 = 0.5f / std::sqrt(1e-5f);
  EXPECT_FLOAT_EQ(folded[0], w[0] * s0);
  EXPECT_FLOAT_EQ(folded[18], w[18] * s1);
  EXPECT_FLOAT_EQ(bias[0], 1.0f - 0.5f * s0);
  EXPECT_FLOAT_EQ(bias[1], -1.0f - 0.25f * s1);
  EXPECT_EQ(g.outputs[0], "y");
}

TEST(FoldBatchNorm, NonConstantStatistics_InvalidArgument) {
  Graph g = ConvGraph(2, 2, 4);
  Add(g, Activation("gamma", {2}));
  Add(g, Constant("beta", {2}, {1, 1}));
  Add(g, Constant("mean", {2}, {0, 0}));
  Add(g, Constant("var", {2}, {1, 1}));
  Add(g, Activation("z", {1, 2, 4, 4}));
  g.nodes.push_back(MakeNode("BatchNormalization", {"y", "gamma", "beta", "mean", "var"}, {"z"}));
  g.outputs = {"z"};
  EXPECT_EQ(FoldBatchNorm(g).code(), absl::StatusCode::kInvalidArgument);
}

TEST(FuseGroups, ConvAddRelu_OneGroupReadingTheResidual) {
  Graph g = ConvGraph(16, 16, 8);
  Add(g, Activation("s", {1, 16, 8, 8}));
  Add(g, Activation("r", {1, 16, 8, 8}));
  g.nodes.push_back(MakeNode("Add", {"y", "x"}, {"s"}));
  g.nodes.push_back(MakeNode("Relu", {"s"}, {"r"}));
  g.outputs = {"r"};
  absl::StatusOr<std::vector<FusedGroup>> groups = FuseGroups(g);
  ASSERT_TRUE(groups.ok()) << groups.status();
  ASSERT_EQ(groups->size(), 1u);
  EXPECT_EQ((*groups)[0].label, "conv_add_relu");
  EXPECT_EQ((*groups)[0].output, "r");
}

TEST(FuseGroups, ValueReadTwice_StaysItsOwnTensor) {
  Graph g = ConvGraph(16, 16, 8);
  Add(g, Activation("a", {1, 16, 8, 8}));
  Add(g, Activation("b", {1, 16, 8, 8}));
  g.nodes.push_back(MakeNode("Relu", {"y"}, {"a"}));
  g.nodes.push_back(MakeNode("Sigmoid", {"y"}, {"b"}));
  g.outputs = {"a", "b"};
  absl::StatusOr<std::vector<FusedGroup>> groups = FuseGroups(g);
  ASSERT_TRUE(groups.ok()) << groups.status();
  EXPECT_EQ(groups->size(), 3u);
}

TEST(FuseGroups, UnsupportedOperators_UnimplementedNamingEachNode) {
  Graph g = ConvGraph(16, 16, 8);
  g.nodes[0].attrs["dilations"] = Attribute{Attribute::Kind::kInts, 0, 0, {2, 2}};
  Add(g, Activation("z", {1, 16, 8, 8}));
  g.nodes.push_back(MakeNode("LRN", {"y"}, {"z"}));
  g.outputs = {"z"};
  absl::StatusOr<std::vector<FusedGroup>> groups = FuseGroups(g);
  ASSERT_EQ(groups.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_TRUE(absl::StrContains(groups.status().message(), "LRN: the operator (node 'LRN_z')"))
      << groups.status();
  EXPECT_TRUE(absl::StrContains(groups.status().message(), "dilated convolutions (node 'Conv_y')"));
}

TEST(PlanLayouts, ConvChain_OneTransformAtTheInputNoneBetween) {
  Graph g = ConvGraph(16, 32, 8);
  std::vector<float> w(32 * 32 * 9, 0.5f);
  Add(g, Constant("w2", {32, 32, 3, 3}, w));
  Add(g, Activation("y2", {1, 32, 8, 8}));
  Node conv2 = g.nodes[0];
  conv2.name = "conv2";
  conv2.inputs = {"y", "w2"};
  conv2.outputs = {"y2"};
  g.nodes.push_back(conv2);
  g.outputs = {"y2"};
  absl::StatusOr<std::vector<FusedGroup>> groups = FuseGroups(g);
  ASSERT_TRUE(groups.ok());
  absl::StatusOr<LayoutPlan> plan = PlanLayouts(g, *groups);
  ASSERT_TRUE(plan.ok());
  // to_nchw16c, conv, conv, to_nchw (the output leaves in the model's layout).
  ASSERT_EQ(groups->size(), 4u);
  EXPECT_EQ((*groups)[0].kind, GroupKind::kLayout);
  EXPECT_EQ((*groups)[1].kind, GroupKind::kConv);
  EXPECT_EQ((*groups)[2].kind, GroupKind::kConv);
  EXPECT_EQ((*groups)[3].label, "to_nchw");
  EXPECT_EQ(plan->layouts.at("y").block, 16);
  EXPECT_EQ(plan->outputs[0], (*groups)[3].output);
}

TEST(ChannelBlockFor, DividesOrTakesSmallChannelCountsWhole) {
  EXPECT_EQ(ChannelBlockFor(64), 16);
  EXPECT_EQ(ChannelBlockFor(24), 24);
  EXPECT_EQ(ChannelBlockFor(3), 3);
  EXPECT_EQ(ChannelBlockFor(72), 8);
  EXPECT_EQ(ChannelBlockFor(67), 67);
}

TEST(PlanMemory, DisjointLifetimesShareBytes_OverlappingOnesDoNot) {
  // a: calls 0–1, b: 1–2, c: 2–3. a and c may share; b overlaps both.
  const MemoryPlan plan = PlanMemory({{1000, 0, 1}, {1000, 1, 2}, {1000, 2, 3}});
  ASSERT_EQ(plan.offsets.size(), 3u);
  EXPECT_NE(plan.offsets[0], plan.offsets[1]);
  EXPECT_NE(plan.offsets[1], plan.offsets[2]);
  EXPECT_EQ(plan.offsets[0], plan.offsets[2]);
  EXPECT_EQ(plan.arena_bytes, 2 * 1024);
  EXPECT_EQ(plan.unshared_bytes, 3 * 1024);
  for (int64_t o : plan.offsets) EXPECT_EQ(o % kTensorAlignment, 0);
}

TEST(PrepareGraph, ConvWithResidual_ProgramsTheLanguageAccepts) {
  Graph g = ConvGraph(16, 16, 8);
  Add(g, Activation("s", {1, 16, 8, 8}));
  Add(g, Activation("r", {1, 16, 8, 8}));
  g.nodes.push_back(MakeNode("Add", {"y", "x"}, {"s"}));
  g.nodes.push_back(MakeNode("Clip", {"s"}, {"r"}));
  g.nodes.back().attrs["min"] = Attribute{Attribute::Kind::kFloat, 0, 0.0f};
  g.nodes.back().attrs["max"] = Attribute{Attribute::Kind::kFloat, 0, 6.0f};
  g.outputs = {"r"};
  absl::StatusOr<PreparedModel> m = PrepareGraph(g);
  ASSERT_TRUE(m.ok()) << m.status();
  ASSERT_EQ(m->programs.size(), 3u);  // to_nchw16c, conv_add_clip, to_nchw
  const GroupProgram& conv = m->programs[1];
  // The residual is the convolution's own input, read once, in the blocked layout the
  // transform wrote.
  EXPECT_TRUE(
      absl::StrContains(conv.text, "min(max((Y[n, f, y, x, fb] + X[n, f, y, x, fb]), 0.0), 6.0)"))
      << conv.text;
  ASSERT_EQ(conv.args[0].name, "X");
  EXPECT_EQ(conv.args[0].tensor, m->groups[0].output);
  EXPECT_EQ(conv.args.size(), 2u);
}

// x [1, 8, 16] → the layer norm as torch.onnx (opset 13) writes it, scale and shift included.
Graph LayerNormDecomposition() {
  Graph g;
  Add(g, Activation("x", {1, 8, 16}));
  g.inputs = {"x"};
  for (const char* t : {"m", "d", "p", "v", "ve", "sd", "q", "qs", "y"}) {
    Add(g, Activation(t, {1, 8, std::string(t) == "m" || t[0] == 'v' || t[0] == 's' ? 1 : 16}));
  }
  Add(g, Constant("two", {}, {2.0f}));
  Add(g, Constant("eps", {}, {1e-5f}));
  Add(g, Constant("gamma", {16}, std::vector<float>(16, 2.0f)));
  Add(g, Constant("beta", {16}, std::vector<float>(16, 0.5f)));
  Attribute axes;
  axes.kind = Attribute::Kind::kInts;
  axes.ints = {-1};
  Node mean = MakeNode("ReduceMean", {"x"}, {"m"});
  mean.attrs["axes"] = axes;
  Node var = MakeNode("ReduceMean", {"p"}, {"v"});
  var.attrs["axes"] = axes;
  g.nodes = {mean,
             MakeNode("Sub", {"x", "m"}, {"d"}),
             MakeNode("Pow", {"d", "two"}, {"p"}),
             var,
             MakeNode("Add", {"v", "eps"}, {"ve"}),
             MakeNode("Sqrt", {"ve"}, {"sd"}),
             MakeNode("Div", {"d", "sd"}, {"q"}),
             MakeNode("Mul", {"q", "gamma"}, {"qs"}),
             MakeNode("Add", {"qs", "beta"}, {"y"})};
  g.outputs = {"y"};
  return g;
}

TEST(FoldLayerNorm, Decomposition_BecomesOneNodeAndOneKernel) {
  Graph g = LayerNormDecomposition();
  ASSERT_TRUE(FoldLayerNorm(g).ok());
  ASSERT_EQ(g.nodes.size(), 1u);
  EXPECT_EQ(g.nodes[0].op, "LayerNormalization");
  EXPECT_EQ(g.nodes[0].inputs, (std::vector<std::string>{"x", "gamma", "beta"}));
  EXPECT_FLOAT_EQ(g.nodes[0].Float("epsilon", 0), 1e-5f);
  absl::StatusOr<PreparedModel> m = PrepareGraph(LayerNormDecomposition());
  ASSERT_TRUE(m.ok()) << m.status();
  ASSERT_EQ(m->groups.size(), 1u);
  EXPECT_EQ(m->groups[0].kind, GroupKind::kLayerNorm);
  EXPECT_TRUE(absl::StrContains(m->programs[0].text, "sqrt(Q[i] / float32(D) + 9.99999975e-06)"))
      << m->programs[0].text;
}

TEST(FoldLayerNorm, IntermediateReadElsewhere_LeftAsIsAndRefusedByName) {
  Graph g = LayerNormDecomposition();
  g.outputs.push_back("v");  // the variance is also a model output: not a plain layer norm
  ASSERT_TRUE(FoldLayerNorm(g).ok());
  EXPECT_EQ(g.nodes.size(), 9u);
  absl::StatusOr<std::vector<FusedGroup>> groups = FuseGroups(g);
  ASSERT_FALSE(groups.ok());
  EXPECT_TRUE(absl::StrContains(groups.status().message(),
                                "ReduceMean: outside a layer norm's decomposition"))
      << groups.status();
}

// qkv [128, 1, 96] → Slice(32..64 of the last axis) → Reshape [128, 4, 8] → Transpose(1, 0, 2)
// → Div 2: the key of a 4-head attention, as torch.onnx writes it.
TEST(FuseGroups, SliceReshapeTranspose_OneKernelReadingTheSourceInPlace) {
  Graph g;
  Add(g, Activation("qkv", {128, 1, 96}));
  g.inputs = {"qkv"};
  Add(g, Ints("starts", {32}));
  Add(g, Ints("ends", {64}));
  Add(g, Ints("axes", {2}));
  Add(g, Ints("shape", {128, 4, 8}));
  Add(g, Constant("two", {}, {2.0f}));
  Add(g, Activation("k", {128, 1, 32}));
  Add(g, Activation("kr", {128, 4, 8}));
  Add(g, Activation("kt", {4, 128, 8}));
  Add(g, Activation("ks", {4, 128, 8}));
  Node tr = MakeNode("Transpose", {"kr"}, {"kt"});
  tr.attrs["perm"].kind = Attribute::Kind::kInts;
  tr.attrs["perm"].ints = {1, 0, 2};
  g.nodes = {MakeNode("Slice", {"qkv", "starts", "ends", "axes"}, {"k"}),
             MakeNode("Reshape", {"k", "shape"}, {"kr"}), tr,
             MakeNode("Div", {"kt", "two"}, {"ks"})};
  g.outputs = {"ks"};
  absl::StatusOr<PreparedModel> m = PrepareGraph(g);
  ASSERT_TRUE(m.ok()) << m.status();
  ASSERT_EQ(m->groups.size(), 1u);
  EXPECT_EQ(m->groups[0].kind, GroupKind::kInjective);
  EXPECT_TRUE(absl::StrContains(m->programs[0].text,
                                "Y[i0 < E0, i1 < E1, i2 < E2] = X[i1, 0, (((i0 * 8) + i2) + 32)]"))
      << m->programs[0].text;
  EXPECT_TRUE(absl::StrContains(m->programs[0].text, "Z[i0, i1, i2] = (Y[i0, i1, i2] / 2.0)"));
}

TEST(FuseGroups, TransposeOfUnitAxes_IsAView_MergingReshapeDividesAndTakesRemainders) {
  // x [1, 6, 4] → Transpose(1, 0, 2) (moves the unit axis only: a view) → Transpose(2, 1, 0)
  // ([4, 1, 6]: a real one) → Reshape [2, 12] (merges axes: quotient and remainder).
  Graph g;
  Add(g, Activation("x", {1, 6, 4}));
  g.inputs = {"x"};
  Add(g, Activation("a", {6, 1, 4}));
  Add(g, Activation("b", {4, 1, 6}));
  Add(g, Activation("c", {2, 12}));
  Add(g, Ints("shape", {2, 12}));
  Node t1 = MakeNode("Transpose", {"x"}, {"a"});
  t1.attrs["perm"].kind = Attribute::Kind::kInts;
  t1.attrs["perm"].ints = {1, 0, 2};
  Node t2 = MakeNode("Transpose", {"a"}, {"b"});
  t2.attrs["perm"].kind = Attribute::Kind::kInts;
  t2.attrs["perm"].ints = {2, 1, 0};
  g.nodes = {t1, t2, MakeNode("Reshape", {"b", "shape"}, {"c"})};
  g.outputs = {"c"};
  absl::StatusOr<PreparedModel> m = PrepareGraph(g);
  ASSERT_TRUE(m.ok()) << m.status();
  ASSERT_EQ(m->groups.size(), 2u);
  EXPECT_EQ(m->groups[0].kind, GroupKind::kView);
  EXPECT_EQ(m->groups[1].kind, GroupKind::kInjective);
  // c[i0, i1] = b[(i0*12+i1) / 6, 0, (i0*12+i1) % 6] = a[(..) % 6, 0, (..) / 6].
  EXPECT_TRUE(absl::StrContains(m->programs[1].text,
                                "X[(((i0 * 12) + i1) % 6), 0, (((i0 * 12) + i1) / 6)]"))
      << m->programs[1].text;
}

TEST(FuseGroups, MatmulOfActivations_BatchAxesMustMatch) {
  Graph g;
  Add(g, Activation("a", {2, 4, 8}));
  Add(g, Activation("b", {8, 4}));
  Add(g, Activation("y", {2, 4, 4}));
  g.inputs = {"a", "b"};
  g.nodes = {MakeNode("MatMul", {"a", "b"}, {"y"})};
  g.outputs = {"y"};
  absl::StatusOr<std::vector<FusedGroup>> groups = FuseGroups(g);
  ASSERT_FALSE(groups.ok());
  EXPECT_TRUE(absl::StrContains(groups.status().message(), "broadcast batch axes"))
      << groups.status();
  g.tensors["b"].shape = {2, 8, 4};
  groups = FuseGroups(g);
  ASSERT_TRUE(groups.ok()) << groups.status();
  EXPECT_EQ((*groups)[0].kind, GroupKind::kBatchMatmul);
}

TEST(FuseGroups, ValueReadTwiceByItsChain_SiluFusedIntoTheDenseLayer) {
  // a [4, 8] · W → Sigmoid → Mul(y, sigmoid(y)): y is read by two links of one chain.
  Graph g;
  Add(g, Activation("a", {4, 8}));
  g.inputs = {"a"};
  Add(g, Constant("w", {8, 16}, std::vector<float>(128, 0.5f)));
  Add(g, Activation("y", {4, 16}));
  Add(g, Activation("s", {4, 16}));
  Add(g, Activation("z", {4, 16}));
  g.nodes = {MakeNode("MatMul", {"a", "w"}, {"y"}), MakeNode("Sigmoid", {"y"}, {"s"}),
             MakeNode("Mul", {"y", "s"}, {"z"})};
  g.outputs = {"z"};
  absl::StatusOr<PreparedModel> m = PrepareGraph(g);
  ASSERT_TRUE(m.ok()) << m.status();
  ASSERT_EQ(m->groups.size(), 1u);
  EXPECT_EQ(m->groups[0].label, "matmul_sigmoid_mul");
  EXPECT_TRUE(absl::StrContains(m->programs[0].text, "Z[i, j] = (Y[i, j] * sigmoid(Y[i, j]))"))
      << m->programs[0].text;
  // Read also by a node outside the chain (a model output here): y stays a tensor of its own.
  g.outputs.push_back("y");
  m = PrepareGraph(g);
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_EQ(m->groups.size(), 2u);
}

// a [rows, k] → Gemm (transB, alpha 2, bias) → y [rows, n].
Graph GemmGraph(int64_t rows, int64_t n, int64_t k) {
  Graph g;
  Add(g, Activation("a", {rows, k}));
  g.inputs = {"a"};
  std::vector<float> b(n * k), c(n);
  for (size_t i = 0; i < b.size(); ++i) b[i] = static_cast<float>(i);
  for (size_t i = 0; i < c.size(); ++i) c[i] = 0.5f * static_cast<float>(i);
  Add(g, Constant("b", {n, k}, b));
  Add(g, Constant("c", {n}, c));
  Add(g, Activation("y", {rows, n}));
  Node gemm = MakeNode("Gemm", {"a", "b", "c"}, {"y"});
  gemm.attrs["transB"] = Attribute{Attribute::Kind::kInt, 1, 0.0f};
  gemm.attrs["alpha"] = Attribute{Attribute::Kind::kFloat, 0, 2.0f};
  g.nodes = {gemm};
  g.outputs = {"y"};
  return g;
}

TEST(AlternativePrograms, DenseOf16Outputs_AlsoThePairsProgramWithItsWeightInPairs) {
  constexpr int64_t kRows = 5, kN = 16, kK = 6;
  absl::StatusOr<PreparedModel> m = PrepareGraph(GemmGraph(kRows, kN, kK));
  ASSERT_TRUE(m.ok()) << m.status();
  ASSERT_EQ(m->groups.size(), 1u);
  ASSERT_EQ(m->alternatives.size(), 1u);
  ASSERT_EQ(m->alternatives[0].size(), 1u);
  const GroupProgram& direct = m->programs[0];
  const GroupProgram& pairs = m->alternatives[0][0];
  EXPECT_EQ(pairs.name, direct.name + "_pairs");
  EXPECT_EQ(pairs.output, direct.output);
  EXPECT_EQ(pairs.output_shape, direct.output_shape);
  EXPECT_TRUE(absl::StrContains(
      pairs.text,
      "P[i, b < N / 8, l < 16] = sum(k < K / 2: A[i, 2 * k + l % 2] * Wt[k, b, l / 2, l % 2])"))
      << pairs.text;
  EXPECT_TRUE(absl::StrContains(pairs.text, "Z[i, j] = (Y[i, j] + B[j])")) << pairs.text;
  // The same activation, the same bias; the weight (alpha applied) reordered into pairs.
  ASSERT_EQ(pairs.args.size(), 3u);
  EXPECT_EQ(pairs.args[0].name, "A");
  EXPECT_EQ(pairs.args[0].tensor, direct.args[0].tensor);
  const ProgramArg& wp = pairs.args[1];
  const ProgramArg& wd = direct.args[1];
  ASSERT_EQ(wp.name, "Wt");
  ASSERT_TRUE(wp.weight);
  EXPECT_EQ(wp.shape, (std::vector<int64_t>{kK / 2, kN / 8, 8, 2}));
  ASSERT_EQ(wd.shape, (std::vector<int64_t>{kN, kK}));
  ASSERT_EQ(wp.data.size(), wd.data.size());
  for (int64_t j = 0; j < kN; ++j) {
    for (int64_t k = 0; k < kK; ++k) {
      const float want = 2.0f * static_cast<float>(j * kK + k);
      ASSERT_EQ(wd.data[j * kK + k], want);
      ASSERT_EQ(wp.data[(((k / 2) * (kN / 8) + j / 8) * 8 + j % 8) * 2 + k % 2], want)
          << "output " << j << ", input " << k;
    }
  }
  EXPECT_EQ(pairs.args[2].name, "B");
  EXPECT_EQ(pairs.args[2].data, direct.args[2].data);
}

TEST(AlternativePrograms, DenseOf24Outputs_AlsoThePairsProgram) {
  absl::StatusOr<PreparedModel> m = PrepareGraph(GemmGraph(4, 24, 6));
  ASSERT_TRUE(m.ok()) << m.status();
  ASSERT_EQ(m->alternatives[0].size(), 1u);
  EXPECT_EQ(m->alternatives[0][0].args[1].shape, (std::vector<int64_t>{3, 3, 8, 2}));
}

// x [1, C, 8, 8] → Conv 1×1 (stride `stride`) → y.
Graph PointwiseGraph(int64_t c, int64_t f, int64_t stride) {
  Graph g;
  Add(g, Activation("x", {1, c, 8, 8}));
  g.inputs = {"x"};
  std::vector<float> w(f * c);
  for (size_t i = 0; i < w.size(); ++i) w[i] = static_cast<float>(i);
  Add(g, Constant("w", {f, c, 1, 1}, w));
  Add(g, Activation("y", {1, f, 8 / stride, 8 / stride}));
  Node conv = MakeNode("Conv", {"x", "w"}, {"y"});
  conv.attrs["strides"] = Attribute{Attribute::Kind::kInts, 0, 0, {stride, stride}};
  g.nodes = {conv};
  g.outputs = {"y"};
  return g;
}

TEST(AlternativePrograms, Pointwise24Outputs_PairsProgramOverTheInputBlocks) {
  absl::StatusOr<PreparedModel> m = PrepareGraph(PointwiseGraph(32, 24, 1));
  ASSERT_TRUE(m.ok()) << m.status();
  // to_nchw16c, the convolution, to_nchw.
  ASSERT_EQ(m->programs.size(), 3u);
  ASSERT_EQ(m->alternatives[1].size(), 1u);
  const GroupProgram& pairs = m->alternatives[1][0];
  EXPECT_EQ(pairs.name, m->programs[1].name + "_pairs");
  EXPECT_EQ(pairs.output_shape, m->programs[1].output_shape);
  EXPECT_TRUE(
      absl::StrContains(pairs.text, "X[n, c, y, x, 2 * k + l % 2] * Wt[c, k, b, l / 2, l % 2]"))
      << pairs.text;
  // [C/CB][CB/2][F/8][8][2]: input channel 2k + t of block c, output 8b + l.
  const ProgramArg& wt = pairs.args[1];
  ASSERT_EQ(wt.shape, (std::vector<int64_t>{2, 8, 3, 8, 2}));
  for (int64_t f = 0; f < 24; ++f) {
    for (int64_t c = 0; c < 32; ++c) {
      ASSERT_EQ(wt.data[((((c / 16) * 8 + (c % 16) / 2) * 3 + f / 8) * 8 + f % 8) * 2 + c % 2],
                static_cast<float>(f * 32 + c));
    }
  }
  // Strided, or 32 outputs (whole vectors): none.
  for (const auto& [f, stride] : std::vector<std::pair<int64_t, int64_t>>{{24, 2}, {32, 1}}) {
    m = PrepareGraph(PointwiseGraph(32, f, stride));
    ASSERT_TRUE(m.ok()) << m.status();
    EXPECT_TRUE(m->alternatives[1].empty()) << f << " outputs, stride " << stride;
  }
}

TEST(AlternativePrograms, DenseOutsideThePairsRule_NoAlternative) {
  // 32, 48 and 64 outputs (whole vectors, and a broadcast serves two multiply-adds or more),
  // 72 (a half vector left, a small share), 12 outputs, an odd number of inputs.
  for (const auto& [n, k] : std::vector<std::pair<int64_t, int64_t>>{
           {32, 6}, {48, 6}, {64, 6}, {72, 6}, {12, 6}, {16, 7}}) {
    absl::StatusOr<PreparedModel> m = PrepareGraph(GemmGraph(4, n, k));
    ASSERT_TRUE(m.ok()) << m.status();
    ASSERT_EQ(m->alternatives.size(), 1u);
    EXPECT_TRUE(m->alternatives[0].empty()) << n << "x" << k;
  }
  EXPECT_TRUE(DensePairsFit(8, 2));
  EXPECT_TRUE(DensePairsFit(16, 4096));
  for (int64_t n : {24, 40, 56}) EXPECT_TRUE(DensePairsFit(n, 96)) << n;
  EXPECT_FALSE(DensePairsFit(0, 2));
  EXPECT_FALSE(DensePairsFit(16, 0));
}

TEST(FoldConstants, SliceWithBoundsOnnxCouldNotPropagate_GetsItsShapeOrARefusal) {
  // qkv [4, 12] → Slice(axis 1, [s/3, 2·s/3)) with s = Shape(qkv)[1] through Div, which onnx
  // 1.12's data propagation skips: the slice's shape is left unknown at import.
  auto make = [](bool constant_bounds) {
    Graph g;
    Add(g, Activation("qkv", {4, 12}));
    Add(g, Activation("lo_in", {1}));
    g.inputs = {"qkv"};
    Add(g, Ints("shape", {0, 0}));
    g.tensors["shape"].constant = false;
    Add(g, Ints("one", {1}));
    Add(g, Ints("three", {3}));
    Add(g, Ints("two", {2}));
    Add(g, Ints("d", {0}));
    g.tensors["d"].constant = false;
    Add(g, Ints("third", {0}));
    g.tensors["third"].constant = false;
    Add(g, Ints("hi", {0}));
    g.tensors["hi"].constant = false;
    Add(g, Ints("axes", {1}));
    Tensor k = Activation("k", {});
    k.shape_known = false;
    Add(g, k);
    Node gather = MakeNode("Gather", {"shape", "one"}, {"d"});
    g.nodes = {MakeNode("Shape", {"qkv"}, {"shape"}),
               gather,
               MakeNode("Div", {"d", "three"}, {"third"}),
               MakeNode("Mul", {"third", "two"}, {"hi"}),
               MakeNode("Slice", {"qkv", constant_bounds ? "third" : "lo_in", "hi", "axes"}, {"k"}),
               MakeNode("Relu", {"k"}, {"y"})};
    if (!constant_bounds) {
      g.tensors["lo_in"].dtype = DType::kInt64;
      g.inputs.push_back("lo_in");
    }
    Add(g, Activation("y", {4, 4}));
    g.outputs = {"y"};
    return g;
  };
  Graph g = make(true);
  ASSERT_TRUE(FoldConstants(g).ok());
  EXPECT_TRUE(g.Find("k")->shape_known);
  EXPECT_EQ(g.Find("k")->shape, (std::vector<int64_t>{4, 4}));
  Graph dynamic = make(false);
  absl::Status s = FoldConstants(dynamic);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StrContains(s.message(), "Slice_k (Slice)")) << s;
}

}  // namespace
}  // namespace tunefarm::graph
