#include "models/workload/graph_workload.hpp"

#include <boost/graph/breadth_first_search.hpp>
#include <boost/graph/topological_sort.hpp>
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "models/error.hpp"
#include "models/workload/architectures.hpp"
#include "models/workload/workload_catalog.hpp"

using namespace fulcrum;
using namespace fulcrum::models;

namespace {

std::vector<GraphWorkload> all_models() {
  namespace a = architectures;
  std::vector<GraphWorkload> out;
  for (auto build : {a::lenet5, a::resnet18, a::resnet50, a::mobilenetv3_large, a::vgg11, a::vgg16,
                     a::yolov8n, a::bert_base, a::bert_large, a::lstm})
    out.push_back(build());
  return out;
}

const std::vector<GraphWorkload>& catalog_models() {
  static const std::vector<GraphWorkload> m = all_models();
  return m;
}

}  // namespace

TEST_CASE("every layer graph is acyclic and reachable from its single input", "[workload]") {
  for (const auto& w : catalog_models()) {
    INFO(w.name());
    const Graph& g = w.layers().graph();
    std::vector<LayerId> order;
    CHECK_NOTHROW(boost::topological_sort(g, std::back_inserter(order)));
    CHECK(order.size() == boost::num_vertices(g));

    int inputs = 0;
    for (auto v : boost::make_iterator_range(boost::vertices(g))) {
      if (g[v].kind == OpKind::input) {
        ++inputs;
        CHECK(boost::in_degree(v, g) == 0);
      } else {
        CHECK(boost::in_degree(v, g) >= 1);
      }
    }
    CHECK(inputs == 1);

    std::vector<boost::default_color_type> colour(boost::num_vertices(g));
    boost::breadth_first_search(g, 0,
                                boost::color_map(boost::make_iterator_property_map(
                                    colour.begin(), boost::get(boost::vertex_index, g))));
    int unreached = 0;
    for (auto c : colour) unreached += c == boost::white_color ? 1 : 0;
    CHECK(unreached == 0);
  }
}

TEST_CASE("every edge carries its producer's output", "[workload]") {
  for (const auto& w : catalog_models()) {
    INFO(w.name());
    const Graph& g = w.layers().graph();
    for (auto e : boost::make_iterator_range(boost::edges(g)))
      CHECK(g[e].elements == g[boost::source(e, g)].out.elements());
  }
}

TEST_CASE("layer work scales linearly in batch size except for weights and kernels", "[workload]") {
  for (const auto& w : catalog_models()) {
    for (Phase phase : {Phase::inference, Phase::training}) {
      INFO(w.name() << " " << to_string(phase));
      const auto one = w.layer_work(phase, 1);
      const auto two = w.layer_work(phase, 2);
      const auto eight = w.layer_work(phase, 8);
      REQUIRE(one.size() == eight.size());
      REQUIRE_FALSE(one.empty());
      for (std::size_t i = 0; i < one.size(); ++i) {
        INFO(one[i].name);
        CHECK(one[i].name == eight[i].name);
        // Kernels are per minibatch.
        CHECK(eight[i].kernels == one[i].kernels);
        CHECK(one[i].kernels >= 1);
        // Bytes are affine: a fixed weight term plus a per-sample activation term.
        const double per_sample = two[i].bytes - one[i].bytes;
        const double fixed = one[i].bytes - per_sample;
        CHECK(per_sample > 0);
        CHECK(eight[i].bytes == Approx(fixed + 8 * per_sample));
        CHECK(fixed >= -1e-6 * one[i].bytes);
      }
      // FLOPs are linear in the batch, except the optimizer update (per parameter) in training.
      const double update =
          phase == Phase::training ? CostRules::update_flops_per_param * w.parameters() : 0;
      CHECK(w.cost(phase, 8).flops - update == Approx(8 * (w.cost(phase, 1).flops - update)));
    }
  }
}

TEST_CASE("weight bytes are read once per minibatch, not per sample", "[workload]") {
  const auto& w = workload_catalog().get("vgg16");
  const auto one = w.cost(Phase::inference, 1);
  const auto two = w.cost(Phase::inference, 2);
  const double fixed = 2 * one.bytes - two.bytes;
  // VGG-16's 138 M fp32 weights dominate its fixed traffic.
  CHECK(fixed == Approx(4 * w.parameters()).epsilon(0.01));
}

TEST_CASE("a convolution layer's work follows the documented rules", "[workload]") {
  LayerGraph g;
  auto x = g.input({3, 32, 32});
  x = g.conv2d(x, "conv", {.out_channels = 8, .kernel = 3, .padding = 1});
  const GraphWorkload w("tiny", "test", std::move(g), 4 * 3 * 32 * 32);
  const double params = 8 * 3 * 3 * 3;
  const double macs = 8.0 * 32 * 32 * 27;
  const double act_bytes = 4.0 * (3 * 32 * 32 + 8 * 32 * 32);

  const auto inf = w.layer_work(Phase::inference, 4);
  REQUIRE(inf.size() == 1);
  CHECK(inf[0].kind == OpKind::conv);
  CHECK_FALSE(inf[0].grouped);
  CHECK(inf[0].flops == Approx(4 * 2 * macs));
  CHECK(inf[0].bytes == Approx(4 * params + 4 * act_bytes));
  CHECK(inf[0].kernels == 1);

  const auto tr = w.layer_work(Phase::training, 4);
  REQUIRE(tr.size() == 1);
  CHECK(tr[0].flops == Approx(3 * 4 * 2 * macs + 4 * params));
  CHECK(tr[0].bytes == Approx(3 * 4 * act_bytes + 4 * params /*fwd*/ + 4 * params /*bwd read*/ +
                              4 * params /*grad write*/ + 20 * params /*update*/));
  CHECK(tr[0].kernels == 1 + 2 + 1);
}

TEST_CASE("a batch size below one is an input error", "[workload]") {
  const auto& w = workload_catalog().get("lenet5");
  CHECK_THROWS_AS(w.layer_work(Phase::inference, 0), InputError);
  CHECK_THROWS_AS(w.layer_work(Phase::training, -3), InputError);
}

TEST_CASE("layer work comes in topological order with the graph's names", "[workload]") {
  const auto& w = workload_catalog().get("resnet50");
  const auto layers = w.layer_work(Phase::inference, 1);
  CHECK(layers.front().name == "conv1");
  CHECK(layers.back().name == "fc");
  CHECK(layers.back().kind == OpKind::linear);
  const auto it = std::find_if(layers.begin(), layers.end(),
                               [](const LayerWork& l) { return l.name == "layer3.1.conv2"; });
  REQUIRE(it != layers.end());
  CHECK(it->kind == OpKind::conv);
  // 3x3 conv, 256 -> 256 channels on 14x14.
  CHECK(it->flops == Approx(2.0 * 256 * 14 * 14 * 256 * 9));
}

TEST_CASE("a depthwise convolution's work is marked grouped and a dense one's is not",
          "[workload]") {
  LayerGraph g;
  auto x = g.input({8, 16, 16});
  x = g.conv2d(x, "dw", {.out_channels = 8, .kernel = 3, .padding = 1, .groups = 8});
  x = g.conv2d(x, "pw", {.out_channels = 16});
  const GraphWorkload w("tiny", "test", std::move(g), 4 * 8 * 16 * 16);
  for (Phase phase : {Phase::inference, Phase::training}) {
    const auto layers = w.layer_work(phase, 2);
    REQUIRE(layers.size() == 2);
    CHECK(layers[0].kind == OpKind::conv);
    CHECK(layers[0].grouped);
    CHECK(layers[1].kind == OpKind::conv);
    CHECK_FALSE(layers[1].grouped);
  }
}

TEST_CASE("an attention block's score and context products are matmul layers", "[workload]") {
  const auto layers = workload_catalog().get("bert-base").layer_work(Phase::inference, 1);
  int products = 0;
  for (const LayerWork& l : layers) {
    if (l.kind == OpKind::matmul) ++products;
  }
  // BERT-base: 12 encoder layers, each with one scores and one context product.
  CHECK(products == 24);
}

TEST_CASE("a graph workload answers graph() with itself, so a backend needs no cast",
          "[workload]") {
  for (const GraphWorkload& w : catalog_models()) {
    const Workload& any = w;
    CHECK(any.graph() == &w);
  }
}
