// The workload file, reading side: a DNN described in YAML (format: docs/SCENARIOS.md, "The
// workload file") read into a GraphWorkload whose layers are made by the same builders as the
// built-in workloads (models/workload/layer_graph.hpp), so shapes, parameters, MACs and kernels
// are derived as for them; the training step is derived from the forward graph by GraphWorkload.
// The writing side is models/workload/workload_file.hpp (write_workload_file).
//
//   WorkloadFile f = load_workload_file("models/data/workloads/tinycnn.yaml");
//   f.workload.cost(models::Phase::training, 32);
//
// Every error is one InputError line, "file:line:col: key.path: problem": an unknown op or key, a
// missing or unknown input name, a forward reference (layers are listed inputs first, so a file
// cannot describe a cycle), a duplicate name, a shape the op cannot take (an add of two shapes),
// a size out of range.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "models/workload/graph_workload.hpp"
#include "models/workload/phase_cost.hpp"

namespace fulcrum::sim {

// The largest workload file read (a thousand-layer network is about 150 KB).
inline constexpr std::uintmax_t kMaxWorkloadFileBytes = std::uintmax_t{8} << 20;  // 8 MiB

struct WorkloadFile {
  models::GraphWorkload workload;
  std::vector<models::Phase> phases;   // the phases a scenario may run it in
  std::optional<std::string> dataset;  // the dataset it is trained on, a dataset catalog name
  std::string path;                    // the file as named (display name for text)

  bool supports(models::Phase phase) const;
};

// Reads and checks a workload file; InputError (located) for anything wrong with it.
WorkloadFile load_workload_file(const std::string& path);
// The same from text in memory; `display_name` appears in errors.
WorkloadFile parse_workload_file(const std::string& text, const std::string& display_name);

// Adds every workload file of `data_dir`/workloads (*.yaml, *.yml; none if the folder does not
// exist) to the process-wide workload catalog under its file name's stem, read on first use (its
// `name` must be that stem: InputError located there otherwise). Once per folder and process;
// InputError when a stem is a built-in workload's name or the folder cannot be listed.
void add_data_workloads(const std::string& data_dir);

// Reads the workload file `path` now and adds it to the process-wide catalog under its `name`
// (nothing happens if the same file is in already); returns the name. InputError for a bad file or
// a name that a built-in workload or another file has.
std::string add_workload_file(const std::string& path);

// A workload as a verb's option names it (profile --workloads, predict --workload): a workload
// file (names_workload_file) is read and added with add_workload_file, and its workload's name
// returned; any other value is returned as it is (a catalog name, checked by the caller).
std::string workload_name(const std::string& value);

// Whether a scenario's `workload:` value names a workload file rather than a catalog workload:
// it ends in ".yaml" or ".yml".
bool names_workload_file(std::string_view value);

}  // namespace fulcrum::sim
