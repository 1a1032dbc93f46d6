// The ONNX importer against an independent source: torchvision's own model definitions, exported
// by PyTorch (scripts/export_onnx.py, models/data/onnx/), imported and compared with the catalog's
// hand-written layer graphs and with torchvision's published parameter counts and GFLOPs; and
// each class of bad input refused with one line. Skips where the build has no ONNX support.
#include "models/onnx/onnx_import.hpp"

#include <stdlib.h>

#include <algorithm>
#include <boost/range/iterator_range.hpp>
#include <catch2/catch.hpp>
#include <cctype>
#include <cmath>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "models/error.hpp"
#include "models/workload/architectures.hpp"
#include "models/workload/graph_workload.hpp"
#include "tests/temp_dir.hpp"

#if FULCRUM_HAVE_ONNX
#include <onnx/onnx_pb.h>
#endif

namespace fm = fulcrum::models;
using fulcrum::testing::TempDir;

namespace {

#ifdef FULCRUM_ONNX_PLUGIN_PATH
// Imports go through the plugin this build made (beside `fulcrum`, not beside this test).
[[maybe_unused]] const int kPluginNamed =
    setenv("FULCRUM_ONNX_PLUGIN", FULCRUM_ONNX_PLUGIN_PATH, 0);
#endif

bool skip_without_onnx() {
  if (fm::onnx_import_available()) return false;
  std::cout << FULCRUM_SKIP_MARKER << " this build has no ONNX import (libonnx-dev)" << std::endl;
  return true;
}

std::string onnx_file(const std::string& name) {
  return std::string(FULCRUM_DATA_DIR) + "/onnx/" + name + ".onnx";
}

// The layers that do work (no input, no views), in graph order.
std::vector<fm::Layer> working_layers(const fm::LayerGraph& g) {
  std::vector<fm::Layer> out;
  for (auto v : boost::make_iterator_range(boost::vertices(g.graph())))
    if (g.layer(v).kind != fm::OpKind::input && g.layer(v).kind != fm::OpKind::view)
      out.push_back(g.layer(v));
  return out;
}

std::string import_error(const std::string& path, const std::vector<fm::InputShape>& shapes = {}) {
  try {
    fm::import_onnx(path, shapes);
  } catch (const fulcrum::InputError& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace

TEST_CASE("an input shape is given with or without the input's name", "[onnx]") {
  const auto named = fm::parse_input_shape("input=1x3x224x224");
  REQUIRE(named.name == std::string("input"));
  CHECK(named.dims == std::vector<std::int64_t>{1, 3, 224, 224});
  const auto bare = fm::parse_input_shape("3x32x32");
  CHECK_FALSE(bare.name);
  CHECK(bare.dims == std::vector<std::int64_t>{3, 32, 32});
  for (const char* bad : {"", "=3x4", "input=", "3xx4", "3x0x4", "3x-2", "ax3", "3x4x"}) {
    INFO(bad);
    CHECK_THROWS_AS(fm::parse_input_shape(bad), fulcrum::InputError);
  }
}

TEST_CASE("imported torchvision models match the catalog's layer graphs within 1%", "[onnx]") {
  if (skip_without_onnx()) return;
  // torchvision's published figures (its model documentation): parameters and GFLOPS, which
  // torchvision counts as multiply-accumulates of one 224x224 image.
  struct Case {
    std::string name;
    fm::GraphWorkload (*build)();
    double published_params;
    double published_gmacs;
  };
  const std::vector<Case> cases = {
      {"resnet18", fm::architectures::resnet18, 11'689'512, 1.81},
      {"resnet50", fm::architectures::resnet50, 25'557'032, 4.09},
      {"mobilenetv3-large", fm::architectures::mobilenetv3_large, 5'483'032, 0.22},
      {"vgg11", fm::architectures::vgg11, 132'863'336, 7.61},
      {"vgg16", fm::architectures::vgg16, 138'357'544, 15.47},
  };
  for (const auto& c : cases) {
    INFO(c.name);
    const fm::OnnxImport imported = fm::import_onnx(onnx_file(c.name), {});
    const fm::GraphWorkload builtin = c.build();
    const fm::LayerGraph& a = imported.graph;
    const fm::LayerGraph& b = builtin.layers();

    CHECK(imported.input_name == "input");
    CHECK(a.shape(0) == fm::Shape{3, 224, 224});
    CHECK(imported.input_bytes_per_sample == 4.0 * 3 * 224 * 224);  // fp32 image
    CHECK(a.parameters() == Approx(b.parameters()).epsilon(0.01));
    CHECK(a.macs_per_sample() == Approx(b.macs_per_sample()).epsilon(0.01));
    // The published figures, exactly for parameters and to the two decimals given for GMACs.
    CHECK(a.parameters() == c.published_params);
    CHECK(a.macs_per_sample() / 1e9 == Approx(c.published_gmacs).margin(0.005));

    // Layer by layer: same kinds in the same order, same output shapes, same work.
    const auto la = working_layers(a);
    const auto lb = working_layers(b);
    REQUIRE(la.size() == lb.size());
    for (std::size_t i = 0; i < la.size(); ++i) {
      INFO("layer " << i << ": imported " << la[i].name << ", built-in " << lb[i].name);
      CHECK(la[i].kind == lb[i].kind);
      CHECK(la[i].out == lb[i].out);
      CHECK(la[i].params == Approx(lb[i].params).epsilon(0.01));
      CHECK(la[i].macs == Approx(lb[i].macs).epsilon(0.01));
      CHECK(la[i].kernels == lb[i].kernels);
      CHECK(la[i].grouped == lb[i].grouped);
    }
  }
}

TEST_CASE("the other mapped ops import with the shapes and work derived by hand", "[onnx]") {
  if (skip_without_onnx()) return;
  // scripts/export_onnx.py's OpsCoverage; height and width are dynamic in the file.
  const fm::OnnxImport m =
      fm::import_onnx(onnx_file("ops-coverage"), {fm::parse_input_shape("input=1x3x8x8")});
  using K = fm::OpKind;
  struct Expected {
    K kind;
    fm::Shape out;
    double params;
    double macs;
  };
  // conv 3->16, 3x3, padding 1, bias: 16 x 27 + 16 = 448 parameters, 16 x 8 x 8 x 27 = 27,648
  // MACs; layer norm over 32: 64; linear 32->64 with bias: 2,112 and 64 rows x 32 x 64 = 131,072.
  const std::vector<Expected> expected = {
      {K::conv, {16, 8, 8}, 448, 27'648},  // c1
      {K::act, {16, 8, 8}, 0, 0},          // ReLU6 (Clip)
      {K::conv, {16, 8, 8}, 448, 27'648},  // c2
      {K::act, {16, 8, 8}, 0, 0},          // sigmoid
      {K::concat, {32, 8, 8}, 0, 0},
      {K::view, {32, 64}, 0, 0},  // flatten(2): a Reshape to a target computed from Shape
      {K::view, {64, 32}, 0, 0},  // transpose
      {K::layernorm, {64, 32}, 64, 0},
      {K::linear, {64, 64}, 2'112, 131'072},  // MatMul and its bias Add
      {K::act, {64, 64}, 0, 0},               // Erf: GELU's nonlinearity
      {K::mul, {64, 64}, 0, 0},               // x times it (the scalings by constants are free)
      {K::view, {128, 32}, 0, 0},
      {K::act, {128, 32}, 0, 0},  // tanh
      {K::softmax, {128, 32}, 0, 0},
      {K::view, {4096}, 0, 0},
      {K::view, {32}, 0, 0},  // [:, 16:48]
  };
  REQUIRE(m.graph.size() == expected.size() + 1);
  for (std::size_t i = 0; i < expected.size(); ++i) {
    const fm::Layer& l = m.graph.layer(i + 1);
    INFO("layer " << i + 1 << ": " << l.name);
    CHECK(l.kind == expected[i].kind);
    CHECK(l.out == expected[i].out);
    CHECK(l.params == expected[i].params);
    CHECK(l.macs == expected[i].macs);
  }
  CHECK(m.graph.layer(2).geometry.activation == fm::Activation::relu);
  CHECK(m.graph.layer(4).geometry.activation == fm::Activation::sigmoid);
  CHECK(m.graph.layer(10).geometry.activation == fm::Activation::gelu);
  CHECK(m.graph.layer(13).geometry.activation == fm::Activation::tanh);
  CHECK(m.graph.layer(9).geometry.bias);
  CHECK(m.graph.parameters() == 3'072);
  CHECK(m.opset == 17);
}

TEST_CASE("a workload imported from ONNX costs what the built-in one does", "[onnx]") {
  if (skip_without_onnx()) return;
  fm::OnnxImport imported = fm::import_onnx(onnx_file("resnet18"), {});
  const fm::GraphWorkload a("resnet18-onnx", "classification", std::move(imported.graph),
                            imported.input_bytes_per_sample);
  const fm::GraphWorkload b = fm::architectures::resnet18();
  for (const auto phase : {fm::Phase::inference, fm::Phase::training}) {
    INFO(fm::to_string(phase));
    const fm::PhaseCost ca = a.cost(phase, 32);
    const fm::PhaseCost cb = b.cost(phase, 32);
    CHECK(ca.flops == Approx(cb.flops).epsilon(0.01));
    CHECK(ca.bytes == Approx(cb.bytes).epsilon(0.01));
    CHECK(ca.kernels == cb.kernels);
  }
}

TEST_CASE("a truncated file or one that is not ONNX is refused with one line", "[onnx]") {
  if (skip_without_onnx()) return;
  TempDir dir;
  const std::string whole = fulcrum::testing::slurp(onnx_file("resnet18"));
  REQUIRE(whole.size() > 1000);
  for (const std::size_t keep : {whole.size() / 2, whole.size() - 7, std::size_t{40}}) {
    INFO("kept " << keep << " of " << whole.size() << " bytes");
    const std::string path = dir.write("cut.onnx", whole.substr(0, keep));
    const std::string msg = import_error(path);
    CHECK(msg.rfind(path + ": ", 0) == 0);
    CHECK(msg.find("truncated") != std::string::npos);
    CHECK(msg.find('\n') == std::string::npos);
  }
  const std::string yaml = dir.write("model.onnx", "name: resnet18\nlayers: []\n");
  CHECK(import_error(yaml).find("not an ONNX model") != std::string::npos);
  const std::string empty = dir.write("empty.onnx", "");
  CHECK(import_error(empty) == empty + ": empty file, not an ONNX model");
  CHECK(import_error((dir.path() / "absent.onnx").string()).find("no such file") !=
        std::string::npos);
}

#if FULCRUM_HAVE_ONNX

// GCC 12 warns about std::string copies inlined from protobuf's setters that cannot overlap (GCC
// bug 105329); the warning is off for the model builder below only.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wrestrict"

namespace {

// A small model: x [dims] -> Conv 3x3 (8 channels) -> <op> -> y, written to `path`.
void write_model(const std::string& path, const std::vector<std::string>& dims,
                 const std::string& op) {
  onnx::ModelProto m;
  m.set_ir_version(8);
  m.set_producer_name("test");
  m.add_opset_import()->set_version(15);
  auto* g = m.mutable_graph();
  g->set_name("g");
  auto add_input = [&](const std::string& name, const std::vector<std::string>& shape) {
    auto* v = g->add_input();
    v->set_name(name);
    auto* t = v->mutable_type()->mutable_tensor_type();
    t->set_elem_type(onnx::TensorProto::FLOAT);
    for (const auto& d : shape) {
      auto* dim = t->mutable_shape()->add_dim();
      if (!d.empty() && std::isdigit(static_cast<unsigned char>(d[0])))
        dim->set_dim_value(std::stoll(d));
      else
        dim->set_dim_param(d);
    }
  };
  add_input("x", dims);
  add_input("w", {"8", "3", "3", "3"});
  auto* conv = g->add_node();
  conv->set_name("conv");
  conv->set_op_type("Conv");
  conv->add_input("x");
  conv->add_input("w");
  conv->add_output("c");
  auto* pads = conv->add_attribute();
  pads->set_name("pads");
  pads->set_type(onnx::AttributeProto::INTS);
  for (int i = 0; i < 4; ++i) pads->add_ints(1);
  auto* n = g->add_node();
  n->set_name("/block/odd");
  n->set_op_type(op);
  n->add_input("c");
  n->add_output("y");
  auto* y = g->add_output();
  y->set_name("y");
  auto* ty = y->mutable_type()->mutable_tensor_type();
  ty->set_elem_type(onnx::TensorProto::FLOAT);
  for (const char* d : {"n", "c", "h", "w"}) ty->mutable_shape()->add_dim()->set_dim_param(d);
  std::string bytes;
  REQUIRE(m.SerializeToString(&bytes));
  std::ofstream(path, std::ios::binary) << bytes;
}

}  // namespace

#pragma GCC diagnostic pop

TEST_CASE("a small model maps onto the layer graph with the geometry of its weights", "[onnx]") {
  TempDir dir;
  const std::string path = (dir.path() / "m.onnx").string();
  write_model(path, {"1", "3", "16", "16"}, "Relu");
  const fm::OnnxImport m = fm::import_onnx(path, {});
  const auto layers = working_layers(m.graph);
  REQUIRE(layers.size() == 2);
  // By hand: 8 filters of 3x3x3 = 216 weights; 8x16x16 outputs (padding 1) x 27 MACs each.
  CHECK(layers[0].kind == fm::OpKind::conv);
  CHECK(layers[0].params == 216);
  CHECK(layers[0].out == fm::Shape{8, 16, 16});
  CHECK(layers[0].macs == 8 * 16 * 16 * 27);
  CHECK(layers[1].kind == fm::OpKind::act);
  CHECK(m.input_bytes_per_sample == 4 * 3 * 16 * 16);
}

TEST_CASE("an unsupported op is refused naming its node and op type", "[onnx]") {
  TempDir dir;
  const std::string path = (dir.path() / "m.onnx").string();
  // An ONNX op the importer does not map, and an op ONNX does not know.
  for (const std::string op : {"NonZero", "FancyOp"}) {
    write_model(path, {"1", "3", "16", "16"}, op);
    CHECK(import_error(path) == path + ": node '/block/odd' (" + op + "): unsupported op type '" +
                                    op + "' (docs/WORKLOADS.md lists the ops the importer maps)");
  }
}

TEST_CASE("a dynamic dimension needs --input-shape, which names the input", "[onnx]") {
  TempDir dir;
  const std::string path = (dir.path() / "m.onnx").string();
  write_model(path, {"batch", "3", "height", "16"}, "Relu");
  CHECK(import_error(path) == path +
                                  ": input 'x': dimension 2 ('height') is dynamic; give the shape "
                                  "with --input-shape x=1x3xNx16");
  // Given, with or without the batch and the name, the model imports at that size.
  for (const auto& given : {"x=1x3x32x16", "3x32x16", "x=4x3x32x16"}) {
    INFO(given);
    const fm::OnnxImport m = fm::import_onnx(path, {fm::parse_input_shape(given)});
    CHECK(m.graph.shape(0) == fm::Shape{3, 32, 16});
    CHECK(working_layers(m.graph)[0].out == fm::Shape{8, 32, 16});
  }
  // A shape that contradicts the model, or names no input, is refused.
  CHECK(import_error(path, {fm::parse_input_shape("x=1x4x32x16")}).find("--input-shape") == 0);
  CHECK(import_error(path, {fm::parse_input_shape("y=1x3x32x16")}) ==
        "--input-shape: the model has no input 'y' (inputs: x; 1 more is a weight)");
  CHECK(import_error(path, {fm::parse_input_shape("32x16")}).find("has 4 dimensions") !=
        std::string::npos);
}

#endif
