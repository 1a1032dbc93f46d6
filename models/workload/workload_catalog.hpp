// WorkloadCatalog: the set of DNN workloads Fulcrum knows, each built from its layer graph the
// first time it is asked for (a run needs two or three of the ten), and looked up by name
// ("resnet50", "mobilenetv3-large", "bert-base", ...). Beside the built-in ones it holds the
// workloads of workload files (sim/config/workload_file_loader.hpp), added by name with their file
// as source; a workload, once in, is never removed or replaced (references to it stay valid).
//
//   const Workload& w = workload_catalog().get("resnet50");   // InputError if unknown
//   if (const Workload* m = workload_catalog().find(name)) ...
//   add_file_workload("tinycnn", "/data/workloads/tinycnn.yaml", [] { return ...; });
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "models/workload/workload.hpp"

namespace fulcrum::models {

class GraphWorkload;

class WorkloadCatalog {
 public:
  // Lists the catalog's models; each is built on first use (about 0.2 ms each; thread-safe).
  // Prefer workload_catalog().
  WorkloadCatalog();
  ~WorkloadCatalog();
  WorkloadCatalog(const WorkloadCatalog&) = delete;
  WorkloadCatalog& operator=(const WorkloadCatalog&) = delete;

  // Throws InputError "unknown workload 'x' (known: a, b, ...)".
  const Workload& get(std::string_view name) const;
  const Workload* find(std::string_view name) const;
  // Sorted.
  std::vector<std::string> names() const;

  // Adds a workload built by `build` on first use (which may throw InputError, and then again on
  // the next use), from the file `source`. Thread-safe. Adding a name again from the same source
  // does nothing; InputError when the name is a built-in workload's or another file's.
  void add(const std::string& name, const std::string& source,
           std::function<GraphWorkload()> build);
  // Where a workload comes from: kBuiltIn, or the file it was added from (InputError if unknown).
  std::string source(std::string_view name) const;
  // The name of the workload added from the file `source`, if any.
  std::optional<std::string> name_from(std::string_view source) const;
  static constexpr const char* kBuiltIn = "built-in";

  // Multiply-accumulates of one forward pass of one sample (InputError if unknown).
  double macs_per_sample(std::string_view name) const;
  // The configuration choices behind a model, e.g. "torchvision resnet50 (v1.5), ..."
  const std::string& note(std::string_view name) const;

 private:
  const GraphWorkload& graph_workload(std::string_view name) const;

  // One model of the catalog: its builder, and what it built (once, on first use).
  struct Entry {
    std::function<GraphWorkload()> build;
    std::string source = kBuiltIn;
    mutable std::once_flag once;
    mutable std::unique_ptr<const GraphWorkload> built;
    const GraphWorkload& get(const std::string& name) const;
  };
  // Entries are never removed, so an Entry found under the lock may be used after it.
  const Entry* entry(std::string_view name) const;
  const Entry& known_entry(std::string_view name) const;  // InputError if unknown
  mutable std::shared_mutex mutex_;  // guards the map (add() from one thread, finds from others)
  std::map<std::string, std::unique_ptr<Entry>, std::less<>> workloads_;
};

// The process-wide catalog: built on first use (thread-safe); only add_file_workload changes it.
const WorkloadCatalog& workload_catalog();
// WorkloadCatalog::add on the process-wide catalog.
void add_file_workload(const std::string& name, const std::string& source,
                       std::function<GraphWorkload()> build);

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
