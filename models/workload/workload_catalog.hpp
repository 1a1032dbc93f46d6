// WorkloadCatalog: the immutable set of DNN workloads Fulcrum knows, built once from their layer
// graphs and looked up by name ("resnet50", "mobilenetv3-large", "bert-base", ...).
//
//   const Workload& w = workload_catalog().get("resnet50");   // InputError if unknown
//   if (const Workload* m = workload_catalog().find(name)) ...
#pragma once

#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "models/workload/workload.hpp"

namespace fulcrum::models {

class GraphWorkload;

class WorkloadCatalog {
 public:
  // Builds every model of the catalog (a few milliseconds); prefer workload_catalog().
  WorkloadCatalog();
  ~WorkloadCatalog();
  WorkloadCatalog(const WorkloadCatalog&) = delete;
  WorkloadCatalog& operator=(const WorkloadCatalog&) = delete;

  // Throws InputError "unknown workload 'x' (known: a, b, ...)".
  const Workload& get(std::string_view name) const;
  const Workload* find(std::string_view name) const;
  // Sorted.
  std::vector<std::string> names() const;

  // Multiply-accumulates of one forward pass of one sample (InputError if unknown).
  double macs_per_sample(std::string_view name) const;
  // The configuration choices behind a model, e.g. "torchvision resnet50 (v1.5), ..."
  const std::string& note(std::string_view name) const;

 private:
  const GraphWorkload& graph_workload(std::string_view name) const;

  std::map<std::string, std::unique_ptr<const GraphWorkload>, std::less<>> workloads_;
};

// The process-wide catalog: built on first use (thread-safe), immutable afterwards.
const WorkloadCatalog& workload_catalog();

// Another spelling of a catalog workload, as a measurement file names it ("mobilenet_v3").
struct WorkloadAlias {
  std::string_view alias;
  std::string_view name;  // the catalog name
};

// Every alias, sorted by alias. Aliases are not catalog names: get() and find() do not know them.
std::span<const WorkloadAlias> workload_aliases();

// The catalog name that `name` stands for: the aliased workload, else `name` itself (which need
// not be in the catalog). Needs no catalog, so it costs no model building.
std::string_view canonical_workload_name(std::string_view name);

}  // namespace fulcrum::models
