#include "models/workload/workload_catalog.hpp"

#include <utility>

#include "models/error.hpp"
#include "models/workload/architectures.hpp"
#include "models/workload/graph_workload.hpp"

namespace fulcrum::models {

WorkloadCatalog::WorkloadCatalog() {
  namespace arch = architectures;
  // The one list of catalog models: add a builder here to add a workload.
  for (auto build :
       {arch::lenet5, arch::resnet18, arch::resnet50, arch::mobilenetv3_large, arch::vgg11,
        arch::vgg16, arch::yolov8n, arch::bert_base, arch::bert_large, arch::lstm}) {
    auto w = std::make_unique<const GraphWorkload>(build());
    std::string name = w->name();
    workloads_.emplace(std::move(name), std::move(w));
  }
}

WorkloadCatalog::~WorkloadCatalog() = default;

const Workload* WorkloadCatalog::find(std::string_view name) const {
  auto it = workloads_.find(name);
  return it == workloads_.end() ? nullptr : it->second.get();
}

const GraphWorkload& WorkloadCatalog::graph_workload(std::string_view name) const {
  auto it = workloads_.find(name);
  if (it == workloads_.end()) {
    std::string known;
    for (const auto& [n, w] : workloads_) known += (known.empty() ? "" : ", ") + n;
    throw InputError("unknown workload '" + std::string(name) + "' (known: " + known + ")");
  }
  return *it->second;
}

const Workload& WorkloadCatalog::get(std::string_view name) const { return graph_workload(name); }

std::vector<std::string> WorkloadCatalog::names() const {
  std::vector<std::string> out;
  out.reserve(workloads_.size());
  for (const auto& [n, w] : workloads_) out.push_back(n);
  return out;
}

double WorkloadCatalog::macs_per_sample(std::string_view name) const {
  return graph_workload(name).macs_per_sample();
}

const std::string& WorkloadCatalog::note(std::string_view name) const {
  return graph_workload(name).note();
}

const WorkloadCatalog& workload_catalog() {
  static const WorkloadCatalog catalog;
  return catalog;
}

namespace {

// The published Orin AGX measurements (reference/measurements/orin-agx-*-modes.csv) name models
// in their own way; resnet18, resnet50, lstm and yolov8n are spelled as here and need no alias.
constexpr WorkloadAlias kAliases[] = {
    // BERT-base on SQuAD v2.0 in the training file (its header: AutoCITE Table 5 / PowerTrain
    // Table 3): 12 encoder blocks, hidden 768, the catalog's bert-base.
    {"bert_base", "bert-base"},
    // BERT-Large on SQuAD v2.0 dev in the inference file (AutoCITE Table 5): 24 blocks, hidden
    // 1024, the catalog's bert-large.
    {"bert_large", "bert-large"},
    // "MobileNetV3" on GLD-23k. The inference file's header says its MAXN rows equal the Pagoda
    // roofline study's, which reference/orin-agx-inference-maxn.csv lists as mobilenetv3-large;
    // the large variant is also what training-anchors.csv names for the same GLD-23k training.
    {"mobilenet_v3", "mobilenetv3-large"},
};

}  // namespace

std::span<const WorkloadAlias> workload_aliases() { return kAliases; }

std::string_view canonical_workload_name(std::string_view name) {
  for (const WorkloadAlias& a : kAliases) {
    if (a.alias == name) return a.name;
  }
  return name;
}

}  // namespace fulcrum::models
