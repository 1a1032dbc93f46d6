#include "models/workload/workload_catalog.hpp"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <string>
#include <thread>
#include <vector>

#include "models/error.hpp"
#include "models/workload/graph_workload.hpp"

using namespace fulcrum;
using namespace fulcrum::models;

namespace {

struct Published {
  const char* name;
  double params;
  double forward_flops;     // 2 x MACs of one forward pass of one sample
  double params_tolerance;  // relative
  double flops_tolerance;   // relative
};

// Figures from reference/workloads.yaml (torchvision's model tables for the classifiers,
// Ultralytics for yolov8n, the BERT paper for bert-*). Exact architectures must land within 1% of
// the parameter count and 5% of the MACs; bert-large and yolov8n are approximate there, hence
// 10%.
const Published kPublished[] = {
    {"lenet5", 61706, 2 * 4.2e5, 0.01, 0.05},
    {"resnet18", 11689512, 2 * 1.81e9, 0.01, 0.05},
    {"resnet50", 25557032, 2 * 4.09e9, 0.01, 0.05},
    {"mobilenetv3-large", 5483032, 2 * 2.2e8, 0.01, 0.05},
    {"vgg11", 132863336, 2 * 7.61e9, 0.01, 0.05},
    {"vgg16", 138357544, 2 * 15.47e9, 0.01, 0.05},
    {"bert-base", 110000000, 22.3e9, 0.01, 0.05},
    {"yolov8n", 3157200, 8.7e9, 0.10, 0.10},
    {"bert-large", 340000000, 79e9, 0.10, 0.10},
};

double relative_error(double got, double want) { return std::abs(got - want) / want; }

}  // namespace

TEST_CASE("the catalog holds every model of the reference sheet", "[workload]") {
  const auto names = workload_catalog().names();
  for (const char* n : {"lenet5", "resnet18", "resnet50", "mobilenetv3-large", "vgg11", "vgg16",
                        "yolov8n", "bert-base", "bert-large", "lstm"}) {
    INFO(n);
    CHECK(std::find(names.begin(), names.end(), n) != names.end());
    CHECK(workload_catalog().find(n) != nullptr);
    CHECK(workload_catalog().get(n).name() == n);
  }
  CHECK(std::is_sorted(names.begin(), names.end()));
}

TEST_CASE("parameter counts match the published figures", "[workload]") {
  for (const auto& p : kPublished) {
    INFO(p.name);
    const double params = workload_catalog().get(p.name).parameters();
    CHECK(relative_error(params, p.params) <= p.params_tolerance);
  }
}

TEST_CASE("forward FLOPs match the published figures", "[workload]") {
  for (const auto& p : kPublished) {
    INFO(p.name);
    const auto& w = workload_catalog().get(p.name);
    CHECK(relative_error(w.forward_flops_per_sample(), p.forward_flops) <= p.flops_tolerance);
  }
}

TEST_CASE("the torchvision and Ultralytics parameter counts are reproduced exactly", "[workload]") {
  CHECK(workload_catalog().get("resnet50").parameters() == 25557032);
  CHECK(workload_catalog().get("mobilenetv3-large").parameters() == 5483032);
  CHECK(workload_catalog().get("vgg16").parameters() == 138357544);
  CHECK(workload_catalog().get("yolov8n").parameters() == 3157200);
  CHECK(workload_catalog().get("lenet5").parameters() == 61706);
}

TEST_CASE("the lstm follows the reference sheet's per-layer formulas", "[workload]") {
  // reference/workloads.yaml: per layer 4h(x+h)+8h parameters and about 8h(x+h) FLOPs per token.
  // PyTorch's word_language_model defaults: embedding 200, hidden 200, WikiText-2 vocabulary,
  // 35 tokens; the decoder reads the last step only.
  const double e = 200, h = 200, vocab = 33278, tokens = 35;
  const double expected_params =
      vocab * e + (4 * h * (e + h) + 8 * h) + (4 * h * (h + h) + 8 * h) + (h * vocab + vocab);
  CHECK(workload_catalog().get("lstm").parameters() == Approx(expected_params));
  const double expected_flops = tokens * (8 * h * (e + h) + 8 * h * (h + h)) + 2 * h * vocab;
  CHECK(workload_catalog().get("lstm").forward_flops_per_sample() ==
        Approx(expected_flops).epsilon(0.01));
}

TEST_CASE("an lstm reads its weights once and names the recurrent re-reads separately",
          "[workload]") {
  const double h = 200, tokens = 35;
  const auto layers = workload_catalog().get("lstm").layer_work(Phase::inference, 4);
  const auto lstm0 = std::find_if(layers.begin(), layers.end(),
                                  [](const LayerWork& l) { return l.name == "lstm.0"; });
  REQUIRE(lstm0 != layers.end());
  CHECK(lstm0->kernels == 2);
  CHECK(lstm0->reread_footprint_bytes == 4 * 4 * h * h);
  CHECK(lstm0->reread_bytes == (tokens - 1) * 4 * 4 * h * h);
  const double weight_bytes = 4 * (4 * h * (200 + h) + 8 * h);
  // Weights once, plus input and output activations of 4 sequences.
  CHECK(lstm0->bytes == Approx(weight_bytes + 4 * 4 * (tokens * 200 + tokens * h)));
  const auto training = workload_catalog().get("lstm").layer_work(Phase::training, 4);
  const auto t0 = std::find_if(training.begin(), training.end(),
                               [](const LayerWork& l) { return l.name == "lstm.0"; });
  REQUIRE(t0 != training.end());
  CHECK(t0->reread_bytes == 2 * lstm0->reread_bytes);  // forward and backward recurrences
}

TEST_CASE("a training step costs about three forward passes", "[workload]") {
  for (const auto& name : workload_catalog().names()) {
    INFO(name);
    const auto& w = workload_catalog().get(name);
    for (int batch : {1, 16}) {
      // The optimizer update scales with the parameters, not the batch; the rest (forward +
      // backward) is about three forward passes.
      const double update_flops = CostRules::update_flops_per_param * w.parameters();
      const double ratio = (w.cost(Phase::training, batch).flops - update_flops) /
                           w.cost(Phase::inference, batch).flops;
      CHECK(ratio >= 2.5);
      CHECK(ratio <= 3.5);
      CHECK(w.cost(Phase::training, batch).bytes > w.cost(Phase::inference, batch).bytes);
      CHECK(w.cost(Phase::training, batch).kernels > 2 * w.cost(Phase::inference, batch).kernels);
    }
  }
}

TEST_CASE("every workload has a positive input size and a task", "[workload]") {
  for (const auto& name : workload_catalog().names()) {
    INFO(name);
    const auto& w = workload_catalog().get(name);
    CHECK(w.input_bytes_per_sample() > 0);
    CHECK_FALSE(w.task().empty());
    CHECK_FALSE(workload_catalog().note(name).empty());
  }
  CHECK(workload_catalog().get("resnet50").input_bytes_per_sample() == 4.0 * 3 * 224 * 224);
}

TEST_CASE("an unknown workload is an input error naming the known ones", "[workload]") {
  CHECK(workload_catalog().find("resnet51") == nullptr);
  try {
    workload_catalog().get("resnet51");
    FAIL("no exception");
  } catch (const InputError& e) {
    const std::string what = e.what();
    CHECK(what.find("unknown workload 'resnet51'") != std::string::npos);
    CHECK(what.find("resnet50") != std::string::npos);
    CHECK(what.find("mobilenetv3-large") != std::string::npos);
  }
  CHECK_THROWS_AS(workload_catalog().macs_per_sample("nope"), InputError);
}

TEST_CASE("the catalog is built once and shared", "[workload]") {
  CHECK(&workload_catalog() == &workload_catalog());
  CHECK(&workload_catalog().get("resnet50") == &workload_catalog().get("resnet50"));
}

TEST_CASE("the published measurement files' model names all resolve to catalog workloads",
          "[workload]") {
  // The names used by reference/measurements/orin-agx-{training,inference}-modes.csv.
  for (const char* name :
       {"resnet18", "mobilenet_v3", "bert_base", "lstm", "resnet50", "yolov8n", "bert_large"}) {
    INFO(name);
    CHECK(workload_catalog().find(canonical_workload_name(name)) != nullptr);
  }
  CHECK(canonical_workload_name("mobilenet_v3") == "mobilenetv3-large");
  CHECK(canonical_workload_name("bert_base") == "bert-base");
  CHECK(canonical_workload_name("bert_large") == "bert-large");
}

TEST_CASE("aliases are not catalog names, and other names pass through unchanged", "[workload]") {
  std::string previous;
  for (const WorkloadAlias& a : workload_aliases()) {
    INFO(a.alias);
    CHECK(workload_catalog().find(a.alias) == nullptr);
    CHECK(workload_catalog().find(a.name) != nullptr);
    CHECK(std::string(a.alias) > previous);  // sorted, no repeats
    previous = a.alias;
  }
  CHECK(canonical_workload_name("resnet50") == "resnet50");
  CHECK(canonical_workload_name("mobilenetv3-large") == "mobilenetv3-large");
  CHECK(canonical_workload_name("no-such-model") == "no-such-model");
}

TEST_CASE("every catalog name builds the workload of that name, once, from any thread") {
  const WorkloadCatalog catalog;  // a fresh one: nothing built yet
  const std::vector<std::string> names = catalog.names();
  CHECK(names.size() == 10);
  std::vector<const Workload*> first(names.size(), nullptr);
  std::vector<const Workload*> second(names.size(), nullptr);
  // Two threads ask for every workload at once; both get the one object built for it.
  std::thread other([&] {
    for (std::size_t i = 0; i < names.size(); ++i) second[i] = &catalog.get(names[i]);
  });
  for (std::size_t i = 0; i < names.size(); ++i) first[i] = &catalog.get(names[i]);
  other.join();
  for (std::size_t i = 0; i < names.size(); ++i) {
    INFO(names[i]);
    CHECK(first[i] == second[i]);
    CHECK(first[i]->name() == names[i]);
    CHECK(catalog.find(names[i]) == first[i]);
  }
}
