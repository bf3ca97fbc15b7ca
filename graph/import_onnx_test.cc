// ONNX import through libonnx on models built here with the ONNX protobufs: what it keeps
// (initializers, shapes, attributes, Constant nodes) and what it must refuse, with the reason.
#include "graph/import_onnx.h"

#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "onnx/onnx_pb.h"

namespace tunefarm::graph {
namespace {

void SetShape(onnx::ValueInfoProto* v, const std::string& name, std::vector<int64_t> dims,
              const std::string& symbolic_first = "") {
  v->set_name(name);
  auto* tt = v->mutable_type()->mutable_tensor_type();
  tt->set_elem_type(onnx::TensorProto::FLOAT);
  for (size_t i = 0; i < dims.size(); ++i) {
    auto* d = tt->mutable_shape()->add_dim();
    if (i == 0 && !symbolic_first.empty()) {
      d->set_dim_param(symbolic_first);
    } else {
      d->set_dim_value(dims[i]);
    }
  }
}

// x [1, 2, 4, 4] → Conv(w [2, 2, 1, 1], b) → Relu → y.
onnx::ModelProto ConvModel(const std::string& symbolic_batch = "") {
  onnx::ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(13);
  onnx::GraphProto* g = m.mutable_graph();
  g->set_name("conv");
  SetShape(g->add_input(), "x", {1, 2, 4, 4}, symbolic_batch);
  SetShape(g->add_output(), "y", {1, 2, 4, 4}, symbolic_batch);
  onnx::TensorProto* w = g->add_initializer();
  w->set_name("w");
  w->set_data_type(onnx::TensorProto::FLOAT);
  for (int64_t d : {2, 2, 1, 1}) w->add_dims(d);
  for (float v : {1.0f, 2.0f, 3.0f, 4.0f}) w->add_float_data(v);
  onnx::TensorProto* b = g->add_initializer();
  b->set_name("b");
  b->set_data_type(onnx::TensorProto::FLOAT);
  b->add_dims(2);
  const float bias[2] = {0.5f, -0.5f};
  b->set_raw_data(std::string(reinterpret_cast<const char*>(bias), sizeof bias));
  onnx::NodeProto* conv = g->add_node();
  conv->set_op_type("Conv");
  conv->set_name("conv0");
  conv->add_input("x");
  conv->add_input("w");
  conv->add_input("b");
  conv->add_output("c");
  onnx::AttributeProto* k = conv->add_attribute();
  k->set_name("kernel_shape");
  k->set_type(onnx::AttributeProto::INTS);
  k->add_ints(1);
  k->add_ints(1);
  onnx::NodeProto* relu = g->add_node();
  relu->set_op_type("Relu");
  relu->add_input("c");
  relu->add_output("y");
  return m;
}

std::string Bytes(const onnx::ModelProto& m) { return m.SerializeAsString(); }

TEST(ImportOnnx, ConvRelu_KeepsWeightsShapesAndAttributes) {
  absl::StatusOr<Graph> g = ImportOnnx(Bytes(ConvModel()));
  ASSERT_TRUE(g.ok()) << g.status();
  ASSERT_EQ(g->nodes.size(), 2u);
  EXPECT_EQ(g->nodes[0].op, "Conv");
  EXPECT_EQ(g->nodes[0].Ints("kernel_shape"), (std::vector<int64_t>{1, 1}));
  EXPECT_EQ(g->nodes[1].name, "Relu_1");  // named for the model that gave none
  ASSERT_TRUE(g->IsConstant("w"));
  EXPECT_EQ(g->Find("w")->f32, (std::vector<float>{1, 2, 3, 4}));
  EXPECT_EQ(g->Find("b")->f32, (std::vector<float>{0.5f, -0.5f}));
  // The intermediate's shape comes from onnx's shape inference.
  ASSERT_NE(g->Find("c"), nullptr);
  EXPECT_EQ(g->Find("c")->shape, (std::vector<int64_t>{1, 2, 4, 4}));
  EXPECT_EQ(g->inputs, (std::vector<std::string>{"x"}));
  EXPECT_EQ(g->outputs, (std::vector<std::string>{"y"}));
}

TEST(ImportOnnx, NotAModel_InvalidArgument) {
  EXPECT_EQ(ImportOnnx("").status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(ImportOnnx("\xff\xff\xff garbage").status().code(), absl::StatusCode::kInvalidArgument);
  const std::string full = Bytes(ConvModel());
  EXPECT_EQ(ImportOnnx(full.substr(0, full.size() / 2)).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(ImportOnnx, InitializerDataShorterThanItsShape_InvalidArgumentNamingIt) {
  onnx::ModelProto m = ConvModel();
  m.mutable_graph()->mutable_initializer(1)->set_raw_data("abc");
  absl::StatusOr<Graph> g = ImportOnnx(Bytes(m));
  ASSERT_EQ(g.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StrContains(g.status().message(), "tensor 'b'")) << g.status();
}

TEST(ImportOnnx, CheckerRejects_InvalidArgument) {
  onnx::ModelProto m = ConvModel();
  m.mutable_graph()->mutable_node(1)->set_op_type("NoSuchOperator");
  absl::StatusOr<Graph> g = ImportOnnx(Bytes(m));
  ASSERT_EQ(g.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StrContains(g.status().message(), "checker")) << g.status();
}

TEST(ImportOnnx, SymbolicBatch_NeedsABinding) {
  const std::string bytes = Bytes(ConvModel("N"));
  absl::StatusOr<Graph> g = ImportOnnx(bytes);
  ASSERT_EQ(g.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StrContains(g.status().message(), "'x' dimension 0 ('N')")) << g.status();
  ImportOptions by_name;
  by_name.dim_values["N"] = 1;
  EXPECT_TRUE(ImportOnnx(bytes, by_name).ok());
  ImportOptions by_input;
  by_input.input_shapes["x"] = {1, 2, 4, 4};
  absl::StatusOr<Graph> bound = ImportOnnx(bytes, by_input);
  ASSERT_TRUE(bound.ok()) << bound.status();
  EXPECT_EQ(bound->Find("y")->shape, (std::vector<int64_t>{1, 2, 4, 4}));
  ImportOptions unknown;
  unknown.input_shapes["z"] = {1};
  EXPECT_EQ(ImportOnnx(bytes, unknown).status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(ImportOnnx, OtherDomain_UnimplementedNamingTheNode) {
  onnx::ModelProto m = ConvModel();
  auto* opset = m.add_opset_import();
  opset->set_domain("com.example");
  opset->set_version(1);
  m.mutable_graph()->mutable_node(1)->set_domain("com.example");
  m.mutable_graph()->mutable_node(1)->set_name("custom");
  absl::StatusOr<Graph> g = ImportOnnx(Bytes(m));
  ASSERT_EQ(g.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_TRUE(absl::StrContains(g.status().message(), "custom (com.example::Relu)")) << g.status();
}

TEST(ImportOnnxFile, Missing_NotFound) {
  EXPECT_EQ(ImportOnnxFile("/nonexistent/model.onnx").status().code(), absl::StatusCode::kNotFound);
}

}  // namespace
}  // namespace tunefarm::graph
