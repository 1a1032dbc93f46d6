#include "models/workload/workload_file.hpp"

#include <boost/range/iterator_range.hpp>
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "models/workload/workload_catalog.hpp"
#include "sim/config/workload_file_loader.hpp"
#include "tests/input_error.hpp"
#include "tests/temp_dir.hpp"

using namespace fulcrum;
using namespace fulcrum::sim;
using fulcrum::testing::error_of;
using models::Layer;
using models::LayerGraph;

namespace {

// The names of the layers `v` reads, in edge order.
std::vector<std::string> input_names(const LayerGraph& g, models::LayerId v) {
  std::vector<std::string> out;
  for (auto e : boost::make_iterator_range(boost::in_edges(v, g.graph())))
    out.push_back(g.layer(boost::source(e, g.graph())).name);
  return out;
}

// Every field of every layer, and the edges, equal.
void check_same_graph(const LayerGraph& a, const LayerGraph& b) {
  REQUIRE(a.size() == b.size());
  for (models::LayerId v = 0; v < a.size(); ++v) {
    const Layer& x = a.layer(v);
    const Layer& y = b.layer(v);
    INFO("layer " << v << " " << x.name);
    CHECK(x.name == y.name);
    CHECK(x.kind == y.kind);
    CHECK(x.out == y.out);
    CHECK(x.params == y.params);
    CHECK(x.param_tensors == y.param_tensors);
    CHECK(x.macs == y.macs);
    CHECK(x.elementwise_ops == y.elementwise_ops);
    CHECK(x.kernels == y.kernels);
    CHECK(x.grouped == y.grouped);
    CHECK(x.weight_read_bytes == y.weight_read_bytes);
    CHECK(x.reread_bytes == y.reread_bytes);
    CHECK(x.reread_footprint_bytes == y.reread_footprint_bytes);
    CHECK(x.gathered_bytes == y.gathered_bytes);
    CHECK(x.geometry.kernel == y.geometry.kernel);
    CHECK(x.geometry.stride == y.geometry.stride);
    CHECK(x.geometry.padding == y.geometry.padding);
    CHECK(x.geometry.groups == y.geometry.groups);
    CHECK(x.geometry.bias == y.geometry.bias);
    CHECK(x.geometry.max_pool == y.geometry.max_pool);
    CHECK(x.geometry.attention_scaling == y.geometry.attention_scaling);
    CHECK(x.geometry.axis == y.geometry.axis);
    CHECK(x.geometry.activation == y.geometry.activation);
    CHECK(input_names(a, v) == input_names(b, v));
  }
}

}  // namespace

TEST_CASE("Writing any catalog workload and reading it back gives the same graph, layer for layer",
          "[workload_file]") {
  const models::WorkloadCatalog& catalog = models::workload_catalog();
  for (const std::string& name : catalog.names()) {
    INFO(name);
    const models::GraphWorkload& built = *catalog.get(name).graph();
    const std::string text = models::write_workload_file(built);
    const WorkloadFile read = parse_workload_file(text, name + ".yaml");
    CHECK(read.workload.name() == built.name());
    CHECK(read.workload.task() == built.task());
    CHECK(read.workload.input_bytes_per_sample() == built.input_bytes_per_sample());
    CHECK(read.workload.note() == built.note());
    check_same_graph(built.layers(), read.workload.layers());
    // And writing what was read gives the same text.
    CHECK(models::write_workload_file(read.workload) == text);
  }
}

namespace {

const std::string kShipped = std::string(FULCRUM_DATA_DIR) + "/workloads/";

// A file with `layers` (YAML lines) under a 3x32x32 input.
std::string file_with(const std::string& layers) {
  return "version: 1\nname: probe\ninput: {shape: [3, 32, 32]}\nlayers:\n" + layers;
}

InputError error_in(const std::string& layers) {
  return error_of([&] { parse_workload_file(file_with(layers), "net.yaml"); });
}

}  // namespace

TEST_CASE("The shipped CIFAR convnet has the parameters, MACs and kernels counted by hand",
          "[workload_file]") {
  const WorkloadFile f = load_workload_file(kShipped + "cifar-convnet.yaml");
  const models::GraphWorkload& w = f.workload;
  CHECK(w.name() == "cifar-convnet");
  CHECK(f.dataset == std::optional<std::string>("cifar10"));
  CHECK(w.input_bytes_per_sample() == 4 * 3 * 32 * 32);
  // Parameters: convs 3*9*32 + 32*9*64 + 64*9*64 + 32*64 + 64*64 + 64*9*64 = 99168, batch norms
  // 2*(32 + 64 + 64 + 128) = 576, classifier 128*10 + 10 = 1290.
  CHECK(w.parameters() == 99168 + 576 + 1290);
  // MACs: output elements x fan-in per conv (32x32x32 x 27, 64x16x16 x 288, x 576, x 32,
  // 64x8x8 x 64, x 576), classifier 1280.
  const double macs = 32768.0 * 27 + 16384.0 * 288 + 16384.0 * 576 + 16384.0 * 32 + 4096.0 * 64 +
                      4096.0 * 576 + 1280;
  CHECK(w.macs_per_sample() == macs);
  CHECK(w.forward_flops_per_sample() == 2 * macs);
  // Kernels: 6 convs, 4 batch norms, 4 ReLUs, add, max pool, global pool, concat, linear = 19;
  // training 3 x 19 + one update per parameter tensor (6 conv weights, 4 x 2 bn, 2 fc) = 73.
  CHECK(w.cost(models::Phase::inference, 8).kernels == 19);
  CHECK(w.cost(models::Phase::training, 8).kernels == 73);
  // The shapes as the builders derive them.
  const LayerGraph& g = w.layers();
  CHECK(g.shape(g.size() - 1) == models::Shape{10});
  CHECK(g.layer(15).name == "stage3.concat");
  CHECK(g.shape(15) == models::Shape{128, 8, 8});
}

TEST_CASE("The shipped resnet18-file is the built-in resnet18, layer for layer",
          "[workload_file]") {
  const WorkloadFile f = load_workload_file(kShipped + "resnet18-file.yaml");
  const models::GraphWorkload& built = *models::workload_catalog().get("resnet18").graph();
  check_same_graph(built.layers(), f.workload.layers());
  CHECK(f.workload.parameters() == built.parameters());
  CHECK(f.workload.input_bytes_per_sample() == built.input_bytes_per_sample());
  for (models::Phase phase : {models::Phase::inference, models::Phase::training}) {
    const models::PhaseCost a = built.cost(phase, 16);
    const models::PhaseCost b = f.workload.cost(phase, 16);
    CHECK(a.flops == b.flops);
    CHECK(a.bytes == b.bytes);
    CHECK(a.kernels == b.kernels);
  }
}

TEST_CASE("A workload file's defaults: inputs are the layer above, pools stride by their kernel",
          "[workload_file]") {
  const WorkloadFile f = parse_workload_file(
      "name: defaults\ninput: {shape: [4, 8, 8], dtype: uint8}\nlayers:\n"
      "  - {name: p, op: max_pool, kernel: 2}\n"
      "  - {name: r, op: reshape, shape: [-1, 16]}\n"
      "  - {name: l, op: linear, out_features: 3}\n",
      "d.yaml");
  const LayerGraph& g = f.workload.layers();
  CHECK(g.shape(1) == models::Shape{4, 4, 4});
  CHECK(g.shape(2) == models::Shape{4, 16});
  CHECK(g.shape(3) == models::Shape{4, 3});
  CHECK(g.layer(3).params == 16 * 3 + 3);  // bias by default
  CHECK(f.workload.input_bytes_per_sample() == 4 * 8 * 8);
  CHECK(f.workload.task() == "custom");
  CHECK(f.supports(models::Phase::training));
  CHECK(f.supports(models::Phase::inference));
}

TEST_CASE("Blocks expand into the builders' layers and raw layers take what they are given",
          "[workload_file]") {
  const WorkloadFile f = parse_workload_file(
      "name: blocks\nphases: [inference]\ninput: {name: ids, shape: [16], dtype: int64}\n"
      "layers:\n"
      "  - {name: emb, op: embedding, vocab: 100, dim: 32}\n"
      "  - {name: enc, op: transformer_encoder, heads: 4, ffn_dim: 64}\n"
      "  - {name: mix, op: raw, kind: matmul, inputs: [enc, emb], shape: [16, 32], macs: 8192}\n"
      "  - {name: out, op: linear, inputs: enc, out_features: 2}\n",
      "b.yaml");
  const LayerGraph& g = f.workload.layers();
  CHECK(!f.supports(models::Phase::training));
  CHECK(!f.workload.supports(models::Phase::training));
  // input, embedding, 14 layers of the encoder block (query, key, value, scores, softmax,
  // context, output, residual, layernorm; intermediate, gelu, output, residual, layernorm), the
  // raw product, the head.
  REQUIRE(g.size() == 1 + 1 + 14 + 1 + 1);
  CHECK(g.layer(2).name == "enc.attention.query");
  const Layer& mix = g.layer(16);
  CHECK(mix.kind == models::OpKind::matmul);
  CHECK(mix.macs == 8192);
  CHECK(mix.kernels == 1);  // the default for a layer that is not a view
  CHECK(mix.params == 0);
  CHECK(input_names(g, 16) == std::vector<std::string>{"enc.output.layernorm", "emb"});
  // `enc` stands for the block's output.
  CHECK(input_names(g, 17) == std::vector<std::string>{"enc.output.layernorm"});
  CHECK(f.workload.input_bytes_per_sample() == 8 * 16);
}

TEST_CASE("Each bad field of a workload file is one located line", "[workload_file]") {
  using Case = std::pair<std::string, std::string>;  // layers, expected start of what()
  const std::vector<std::pair<Case, std::string>> cases = {
      {{"  - {name: c, op: conv3d, out_channels: 8, kernel: 3}\n",
        "net.yaml:5:19: layers[0].op: unknown op 'conv3d'"},
       "unknown op"},
      {{"  - {name: c, op: conv2d, out_channels: 8, kernel: 3}\n"
        "  - {name: a, op: add, inputs: [c, nothere]}\n",
        "net.yaml:6:36: layers[1].inputs[1]: unknown layer 'nothere'"},
       "unknown input"},
      {{"  - {name: c, op: conv2d, out_channels: 8, kernel: 3}\n"
        "  - {name: a, op: add, inputs: [c]}\n",
        "net.yaml:6:5: layers[1]: add takes 2 inputs, got 1"},
       "missing input"},
      {{"  - {name: c, op: conv2d, out_channels: 8, kernel: 3}\n"
        "  - {name: a, op: add, inputs: [c, input]}\n",
        "net.yaml:6:5: layers[1]: layer 'a': add of mismatched shapes [8, 30, 30] and [3, 32, 32]"},
       "shape mismatch"},
      {{"  - {name: c, op: conv2d, out_channels: -8, kernel: 3}\n",
        "net.yaml:5:41: layers[0].out_channels: must be an integer in 1..1073741824, got -8"},
       "negative size"},
      {{"  - {name: c, op: conv2d, inputs: d, out_channels: 8, kernel: 3}\n"
        "  - {name: d, op: conv2d, inputs: c, out_channels: 8, kernel: 3}\n",
        "net.yaml:5:35: layers[0].inputs: layer 'd' comes later in the file"},
       "cycle"},
      {{"  - {name: c, op: conv2d, out_channels: 8, kernel: 3}\n"
        "  - {name: c, op: batchnorm}\n",
        "net.yaml:6:12: layers[1].name: layer name 'c' is used twice"},
       "duplicate name"},
      {{"  - {name: c, op: conv2d, out_channels: 8, kernel: 3, strid: 2}\n",
        "net.yaml:5:62: layers[0].strid: unknown key 'strid' for op conv2d"},
       "unknown key"},
      {{"  - {name: r, op: raw, kind: matmul, shape: [10], macs: -1}\n",
        "net.yaml:5:57: layers[0].macs: must be >= 0, got -1"},
       "negative count"},
      {{"  - {name: v, op: flatten}\n", "net.yaml:5:3: layers: no layer launches a kernel"},
       "nothing to run"},
      {{"  - {name: u, op: upsample, scale: 1073741824}\n",
        "net.yaml:5:5: layers[0]: output shape [3, 34359738368, 34359738368] is too large"},
       "size overflow"},
  };
  for (const auto& [c, what] : cases) {
    INFO(what);
    const InputError e = error_in(c.first);
    CHECK(std::string(e.what()).rfind(c.second, 0) == 0);
    CHECK(std::string(e.what()).find('\n') == std::string::npos);
  }
  // The header.
  CHECK(std::string(error_of([] {
                      parse_workload_file("name: x\nlayers: []\n", "h.yaml");
                    }).what()) == "h.yaml:1:1: missing required key 'input'");
  CHECK(std::string(error_of([] { parse_workload_file("version: 2\nname: x\n", "h.yaml"); }).what())
            .rfind("h.yaml:1:10: version: unsupported version 2", 0) == 0);
  CHECK(std::string(error_of([] {
                      parse_workload_file(
                          "name: x\ninput: {shape: [3], dtype: float64}\nlayers: []\n", "h.yaml");
                    }).what())
            .rfind("h.yaml:2:28: input.dtype: unknown dtype 'float64'", 0) == 0);
  CHECK(std::string(error_of([] { parse_workload_file("name: ../x\n", "h.yaml"); }).what())
            .rfind("h.yaml:1:7: name: '../x' is not a valid workload name", 0) == 0);
  CHECK(std::string(
            error_of([] { parse_workload_file("name: x\ndataset: nosuch\n", "h.yaml"); }).what())
            .rfind("h.yaml:2:10: dataset: unknown dataset 'nosuch'", 0) == 0);
}

TEST_CASE("Names that YAML would read otherwise are quoted and come back as they were",
          "[workload_file]") {
  LayerGraph g;
  auto x = g.input({3, 8, 8}, "in put");
  x = g.conv2d(x, "true", {.out_channels = 4, .kernel = 3});
  x = g.activation(x, "a: \"b\", [c]", models::Activation::tanh);
  x = g.slice_channels(x, "1", 1, 2);
  const models::GraphWorkload w("odd-names", "test", std::move(g), 3 * 8 * 8 * 2.5, "note: #1");
  const std::string text = models::write_workload_file(
      w, {.phases = std::vector<models::Phase>{models::Phase::inference},
          .dataset = "cifar10",
          .comment = "first line\nsecond line"});
  CHECK(text.rfind("# first line\n# second line\nversion: 1\n", 0) == 0);
  const WorkloadFile read = parse_workload_file(text, "odd.yaml");
  check_same_graph(w.layers(), read.workload.layers());
  CHECK(read.workload.input_bytes_per_sample() == w.input_bytes_per_sample());
  CHECK(read.workload.note() == "note: #1");
  CHECK(read.phases == std::vector<models::Phase>{models::Phase::inference});
  CHECK(read.dataset == std::optional<std::string>("cifar10"));
}

TEST_CASE("The writer refuses a graph whose layers it could not name apart", "[workload_file]") {
  LayerGraph g;
  auto x = g.input({3, 8, 8});
  x = g.activation(x, "same", models::Activation::relu);
  x = g.activation(x, "same", models::Activation::relu);
  const models::GraphWorkload w("dup", "test", std::move(g), 4 * 3 * 64);
  CHECK(error_of([&] { models::write_workload_file(w); }).problem() ==
        "workload 'dup': layer name 'same' appears twice (a workload file names inputs by layer "
        "name)");
}

TEST_CASE("The catalog takes a file's workload once, and never under a name already taken",
          "[workload_file]") {
  models::WorkloadCatalog catalog;
  int builds = 0;
  const auto build = [&builds] {
    ++builds;
    return parse_workload_file(file_with("  - {name: c, op: conv2d, out_channels: 8, kernel: 3}\n"),
                               "probe.yaml")
        .workload;
  };
  catalog.add("probe", "/a/probe.yaml", build);
  catalog.add("probe", "/a/probe.yaml", build);  // the same file again: nothing changes
  CHECK(builds == 0);                            // built on first use
  CHECK(catalog.get("probe").parameters() == 3 * 9 * 8);
  CHECK(catalog.get("probe").parameters() == 3 * 9 * 8);
  CHECK(builds == 1);
  CHECK(catalog.source("probe") == "/a/probe.yaml");
  CHECK(catalog.source("resnet18") == "built-in");
  CHECK(error_of([&] { catalog.add("probe", "/b/probe.yaml", build); }).problem() ==
        "workload 'probe' of /b/probe.yaml is already loaded from /a/probe.yaml; give one of "
        "them another name");
  CHECK(error_of([&] { catalog.add("resnet18", "/b/r.yaml", build); }).problem() ==
        "workload 'resnet18' of /b/r.yaml has the name of a built-in workload; give it another "
        "name");
}

TEST_CASE("The example of docs/SCENARIOS.md, \"The workload file\", reads", "[workload_file]") {
  const std::string doc =
      fulcrum::testing::slurp(std::string(FULCRUM_SOURCE_DIR) + "/docs/SCENARIOS.md");
  const auto start = doc.find("```yaml\nversion: 1\nname: tiny-attention");
  REQUIRE(start != std::string::npos);
  const auto begin = start + 8;
  const std::string text = doc.substr(begin, doc.find("```", begin) - begin);
  const WorkloadFile f = parse_workload_file(text, "SCENARIOS.md");
  const LayerGraph& g = f.workload.layers();
  CHECK(g.layer(g.size() - 2).name == "mish");
  CHECK(g.layer(g.size() - 2).elementwise_ops == 64 * 128 * 6);
  CHECK(g.shape(g.size() - 1) == models::Shape{64, 10});
}
