// The CUDA backend's execution plan, on the host (no GPU): every catalog workload plans in both
// phases, buffers are sized from the shapes, views alias, the kernel lists follow the layer kinds.
#include "backends/cuda/execution_plan.hpp"

#include <boost/range/iterator_range.hpp>
#include <catch2/catch.hpp>
#include <set>
#include <string>

#include "models/error.hpp"
#include "models/workload/graph_workload.hpp"
#include "models/workload/workload_catalog.hpp"

using namespace fulcrum;
using namespace fulcrum::backends::cuda;
using models::OpKind;
using models::Phase;

namespace {

const models::GraphWorkload& graph(const std::string& name) {
  return dynamic_cast<const models::GraphWorkload&>(models::workload_catalog().get(name));
}

const PlannedLayer& layer_named(const ExecutionPlan& plan, const std::string& name) {
  for (const PlannedLayer& l : plan.layers) {
    if (l.layer->name == name) return l;
  }
  FAIL("no layer " << name);
  return plan.layers.front();
}

bool has(const std::vector<std::string>& kernels, const std::string& k) {
  for (const std::string& s : kernels) {
    if (s == k) return true;
  }
  return false;
}

}  // namespace

TEST_CASE("every catalog workload plans in both phases, with buffers that do not overlap") {
  const models::WorkloadCatalog& catalog = models::workload_catalog();
  for (const std::string& name : catalog.names()) {
    const models::GraphWorkload& w = graph(name);
    for (Phase phase : {Phase::inference, Phase::training}) {
      INFO(name << " " << models::to_string(phase));
      const ExecutionPlan plan = make_execution_plan(w, phase, 4);
      REQUIRE(plan.layers.size() == w.layers().size());
      CHECK(plan.floats(Arena::activations) > 0);
      CHECK(plan.launches() > 0);
      // Non-view outputs are disjoint runs of the activation arena, each B x elements long.
      std::set<std::int64_t> offsets;
      for (const PlannedLayer& l : plan.layers) {
        CHECK(l.output.floats == static_cast<std::int64_t>(4 * l.layer->out.elements()));
        if (l.is_view) continue;
        CHECK(offsets.insert(l.output.offset).second);
        CHECK(l.output.offset + l.output.floats <= plan.floats(Arena::activations));
        CHECK(l.params.offset + l.params.floats <= plan.floats(Arena::parameters));
        std::int64_t tensors = 0;
        for (std::int64_t t : l.param_tensors) tensors += t;
        CHECK(tensors == static_cast<std::int64_t>(l.layer->params));
        if (phase == Phase::training) {
          CHECK(l.update.size() == l.param_tensors.size());
        } else {
          CHECK(l.backward.empty());
          CHECK(l.update.empty());
        }
      }
      if (phase == Phase::training) {
        CHECK(plan.floats(Arena::gradients) == plan.floats(Arena::activations));
        CHECK(plan.floats(Arena::momenta) == plan.floats(Arena::parameters));
      } else {
        CHECK(plan.floats(Arena::gradients) == 0);
        CHECK(plan.floats(Arena::momenta) == 0);
      }
    }
  }
}

TEST_CASE("convolutions run cuDNN forward, backward data and backward filter") {
  const models::GraphWorkload& w = graph("resnet50");
  const ExecutionPlan infer = make_execution_plan(w, Phase::inference, 16);
  const ExecutionPlan train = make_execution_plan(w, Phase::training, 16);
  // The first convolution reads the network's input: no gradient w.r.t. it.
  const PlannedLayer& conv1 = layer_named(train, "conv1");
  CHECK(conv1.forward == std::vector<std::string>{"cudnnConvolutionForward"});
  CHECK_FALSE(conv1.needs_input_gradient);
  CHECK(conv1.backward == std::vector<std::string>{"cudnnConvolutionBackwardFilter"});
  const PlannedLayer& inner = layer_named(train, "layer1.0.conv2");
  CHECK(inner.needs_input_gradient);
  CHECK(inner.backward ==
        std::vector<std::string>{"cudnnConvolutionBackwardData", "cudnnConvolutionBackwardFilter"});
  CHECK(inner.update == std::vector<std::string>{"sgd_momentum"});
  CHECK(layer_named(infer, "layer1.0.conv2").backward.empty());
  // Batch normalisation computes statistics only in training.
  CHECK(layer_named(train, "bn1").forward == std::vector<std::string>{"bn_stats", "bn_apply"});
  CHECK(layer_named(infer, "bn1").forward == std::vector<std::string>{"bn_apply"});
  // Memory grows with the batch, and training holds far more than inference.
  CHECK(make_execution_plan(w, Phase::inference, 32).bytes() > infer.bytes());
  CHECK(train.bytes() > 2 * infer.bytes());
  CHECK(train.launches() > 2 * infer.launches());
}

TEST_CASE("grouped convolutions, attention products and the LSTM get their kernels") {
  bool grouped = false;
  for (const PlannedLayer& l :
       make_execution_plan(graph("mobilenetv3-large"), Phase::training, 2).layers) {
    if (l.layer->kind == OpKind::conv && l.layer->grouped) {
      grouped = true;
      CHECK(l.layer->geometry.groups > 1);
      CHECK(has(l.forward, "cudnnConvolutionForward"));
    }
  }
  CHECK(grouped);
  int products = 0;
  for (const PlannedLayer& l : make_execution_plan(graph("bert-base"), Phase::training, 2).layers) {
    if (l.layer->kind != OpKind::matmul) continue;
    ++products;
    CHECK(l.inputs.size() == 2);
    CHECK(l.forward == std::vector<std::string>{"cublasSgemmStridedBatched"});
    CHECK(l.backward.size() == 2);
  }
  CHECK(products == 2 * 12);
  const models::GraphWorkload& lstm = graph("lstm");
  for (const PlannedLayer& l : make_execution_plan(lstm, Phase::inference, 2).layers) {
    if (l.layer->kind != OpKind::lstm) continue;
    const std::int64_t steps =
        lstm.layers().layer(static_cast<models::LayerId>(l.inputs[0])).out[0];
    // One input projection, then a recurrent product and a cell kernel per step after the first.
    CHECK(static_cast<std::int64_t>(l.forward.size()) == 1 + steps + (steps - 1));
    CHECK(l.scratch.floats > 0);
  }
}

TEST_CASE("views alias their producer and launch nothing") {
  const models::GraphWorkload& w = graph("resnet50");
  const ExecutionPlan plan = make_execution_plan(w, Phase::training, 8);
  int views = 0;
  for (const PlannedLayer& l : plan.layers) {
    if (!l.is_view) continue;
    ++views;
    const PlannedLayer& from = plan.layers[static_cast<std::size_t>(l.inputs[0])];
    CHECK(l.output.offset == from.output.offset);
    CHECK(l.gradient.offset == from.gradient.offset);
    CHECK(l.forward.empty());
    CHECK(l.backward.empty());
  }
  CHECK(views > 0);
}

TEST_CASE("a batch below one is bad input") {
  const models::GraphWorkload& w = graph("resnet18");
  CHECK_THROWS_AS(make_execution_plan(w, Phase::inference, 0), InputError);
}

TEST_CASE("a workload whose layers are given whole (a workload file's raw layers) plans alike") {
  // Every catalog graph rebuilt with LayerGraph::raw, layer for layer: what a workload file gives
  // the backend for an op the builders do not know. The plan depends only on the layers.
  for (const std::string& name : models::workload_catalog().names()) {
    const models::GraphWorkload& w = graph(name);
    const models::LayerGraph& g = w.layers();
    models::LayerGraph copy;
    copy.input(g.shape(0), g.layer(0).name);
    for (models::LayerId v = 1; v < g.size(); ++v) {
      std::vector<models::LayerId> inputs;
      for (auto e : boost::make_iterator_range(boost::in_edges(v, g.graph())))
        inputs.push_back(boost::source(e, g.graph()));
      copy.raw(inputs, g.layer(v));
    }
    const models::GraphWorkload raw(name, w.task(), std::move(copy), w.input_bytes_per_sample());
    for (Phase phase : {Phase::inference, Phase::training}) {
      INFO(name << " " << models::to_string(phase));
      const ExecutionPlan a = make_execution_plan(w, phase, 4);
      const ExecutionPlan b = make_execution_plan(raw, phase, 4);
      CHECK(a.launches() == b.launches());
      CHECK(a.bytes() == b.bytes());
      REQUIRE(a.layers.size() == b.layers.size());
      for (std::size_t i = 0; i < a.layers.size(); ++i) {
        CHECK(a.layers[i].forward == b.layers[i].forward);
        CHECK(a.layers[i].backward == b.layers[i].backward);
      }
    }
  }
}
