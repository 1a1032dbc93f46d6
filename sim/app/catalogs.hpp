// `fulcrum devices` and `fulcrum workloads` as functions: the device catalog of a data folder (or
// one device of it), the GPU at hand probed as a device file, the workload and dataset catalogs.
//
//   DevicesReport r = devices({.name = "orin-agx-64gb"});   // devices_text(r), devices_json(r)
#pragma once

#include <filesystem>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "sim/config/data_dirs.hpp"
#include "sim/report/catalog_report.hpp"

namespace fulcrum::sim::app {

struct DevicesRequest {
  std::optional<std::string> name = std::nullopt;  // one device; absent: the whole catalog
  std::string data_dir = default_data_dir();
};
// InputError for a name the catalog does not have.
DevicesReport devices(const DevicesRequest& request);

struct ProbeRequest {
  std::string name = "probed-gpu";  // the catalog name the file gives the device
  std::optional<std::filesystem::path> out = std::nullopt;  // absent: only the report's text
};
// Needs the cuda backend (InputError, one line, without it or a GPU). `out` is checked before the
// probe and published atomically. A missing NVML reading is a line on `notes`, not an error.
ProbeReport probe_device(const ProbeRequest& request, std::ostream& notes);

struct WorkloadsRequest {
  // Workload files to read and show (each joins the catalog); empty: the whole catalog, the
  // data folder's workload files (data_dir/workloads) included.
  std::vector<std::string> files = {};
  std::string data_dir = default_data_dir();
};
// InputError (located in the file) for a bad workload file.
WorkloadsReport workloads(const WorkloadsRequest& request = {});

}  // namespace fulcrum::sim::app
