// `fulcrum workloads --import` as a function: an ONNX model imported through ONNX shape inference
// onto the layer-graph builders (models/onnx/onnx_import.hpp) and written as a workload file
// (models/workload/workload_file.hpp, docs/WORKLOADS.md), which a scenario then names like a
// catalog workload. The training phase is derived from the forward graph as for the built-in
// workloads.
//
//   ImportResult r = import_workload({.model = "net.onnx", .name = "net", .out = "net.yaml"});
//
// Everything is checked before anything is written (the name, --out, --input-shape, the whole
// model); the file is published atomically, so a failure leaves no file and no partial file.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace fulcrum::sim::app {

struct ImportRequest {
  std::filesystem::path model;            // the .onnx file
  std::vector<std::string> input_shapes;  // --input-shape values: "NAME=1x3x224x224", "3x224x224"
  std::string name;                       // the workload's name in the file
  std::filesystem::path out;              // the workload file to write (.yaml or .yml)
};

struct ImportResult {
  std::filesystem::path out;
  std::string name;
  std::string input_name;
  std::size_t layers = 0;  // in the layer graph (the input and views included)
  double parameters = 0;
  double macs_per_sample = 0;
};

// InputError (exit 2) for a bad name, --out or --input-shape, a model the importer cannot read or
// map, or a build without ONNX import; fulcrum::Error when the file written would not read back.
ImportResult import_workload(const ImportRequest& request);

// The first line of every file import_workload writes: an existing --out is replaced only when it
// starts so (a workload file the importer wrote), never a scenario or another file of the user's.
inline constexpr const char* kImportedWorkloadSignature = "# fulcrum workloads --import";

}  // namespace fulcrum::sim::app
