#include "models/workload/workload_catalog.hpp"

#include <stdexcept>
#include <utility>

#include "models/error.hpp"
#include "models/workload/architectures.hpp"
#include "models/workload/graph_workload.hpp"

namespace fulcrum::models {

WorkloadCatalog::WorkloadCatalog() {
  namespace arch = architectures;
  // The one list of catalog models, by the name each builds: add a builder here to add a
  // workload. (A name that differs from what its builder builds is caught on first use.)
  const std::pair<const char*, GraphWorkload (*)()> models[] = {
      {"lenet5", arch::lenet5},         {"resnet18", arch::resnet18},
      {"resnet50", arch::resnet50},     {"mobilenetv3-large", arch::mobilenetv3_large},
      {"vgg11", arch::vgg11},           {"vgg16", arch::vgg16},
      {"yolov8n", arch::yolov8n},       {"bert-base", arch::bert_base},
      {"bert-large", arch::bert_large}, {"lstm", arch::lstm}};
  for (const auto& [name, build] : models) {
    auto entry = std::make_unique<Entry>();
    entry->build = build;
    workloads_.emplace(name, std::move(entry));
  }
}

const GraphWorkload& WorkloadCatalog::Entry::get(const std::string& name) const {
  std::call_once(once, [&] {
    auto w = std::make_unique<const GraphWorkload>(build());
    if (w->name() != name) {
      throw std::logic_error("workload catalog: the builder listed as '" + name + "' builds '" +
                             w->name() + "'");
    }
    built = std::move(w);
  });
  return *built;
}

WorkloadCatalog::~WorkloadCatalog() = default;

const WorkloadCatalog::Entry* WorkloadCatalog::entry(std::string_view name) const {
  const std::shared_lock lock(mutex_);
  auto it = workloads_.find(name);
  return it == workloads_.end() ? nullptr : it->second.get();
}

const Workload* WorkloadCatalog::find(std::string_view name) const {
  const Entry* e = entry(name);
  return e == nullptr ? nullptr : &e->get(std::string(name));
}

const WorkloadCatalog::Entry& WorkloadCatalog::known_entry(std::string_view name) const {
  const Entry* e = entry(name);
  if (e == nullptr) {
    std::string known;
    for (const std::string& n : names()) known += (known.empty() ? "" : ", ") + n;
    throw InputError("unknown workload '" + std::string(name) + "' (known: " + known + ")");
  }
  return *e;
}

const GraphWorkload& WorkloadCatalog::graph_workload(std::string_view name) const {
  return known_entry(name).get(std::string(name));
}

const Workload& WorkloadCatalog::get(std::string_view name) const { return graph_workload(name); }

std::vector<std::string> WorkloadCatalog::names() const {
  const std::shared_lock lock(mutex_);
  std::vector<std::string> out;
  out.reserve(workloads_.size());
  for (const auto& [n, w] : workloads_) out.push_back(n);
  return out;
}

void WorkloadCatalog::add(const std::string& name, const std::string& source,
                          std::function<GraphWorkload()> build) {
  const std::unique_lock lock(mutex_);
  auto it = workloads_.find(name);
  if (it != workloads_.end()) {
    if (it->second->source == source) return;
    if (it->second->source == kBuiltIn)
      throw InputError("workload '" + name + "' of " + source +
                       " has the name of a built-in workload; give it another name");
    throw InputError("workload '" + name + "' of " + source + " is already loaded from " +
                     it->second->source + "; give one of them another name");
  }
  auto e = std::make_unique<Entry>();
  e->build = std::move(build);
  e->source = source;
  workloads_.emplace(name, std::move(e));
}

std::string WorkloadCatalog::source(std::string_view name) const {
  return known_entry(name).source;
}

std::optional<std::string> WorkloadCatalog::name_from(std::string_view source) const {
  const std::shared_lock lock(mutex_);
  for (const auto& [name, e] : workloads_) {
    if (e->source == source) return name;
  }
  return std::nullopt;
}

double WorkloadCatalog::macs_per_sample(std::string_view name) const {
  return graph_workload(name).macs_per_sample();
}

const std::string& WorkloadCatalog::note(std::string_view name) const {
  return graph_workload(name).note();
}

namespace {

WorkloadCatalog& process_catalog() {
  static WorkloadCatalog catalog;
  return catalog;
}

}  // namespace

const WorkloadCatalog& workload_catalog() { return process_catalog(); }

void add_file_workload(const std::string& name, const std::string& source,
                       std::function<GraphWorkload()> build) {
  process_catalog().add(name, source, std::move(build));
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
