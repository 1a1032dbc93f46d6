#include "sim/app/import_workload.hpp"

#include <algorithm>
#include <cctype>

#include "models/error.hpp"
#include "models/onnx/onnx_import.hpp"
#include "models/workload/graph_workload.hpp"
#include "models/workload/workload_catalog.hpp"
#include "models/workload/workload_file.hpp"
#include "sim/app/profiling.hpp"
#include "sim/config/input_text.hpp"
#include "sim/config/workload_file_loader.hpp"
#include "sim/report/output_path.hpp"

namespace fulcrum::sim::app {

namespace {

// The workload file's rule for a workload name (sim/config/workload_file_loader.cpp), checked
// here so that a bad --name is named as such and not as a line of the generated file.
void check_name(const std::string& name) {
  const bool ok =
      !name.empty() && name.size() <= 256 &&
      std::isalnum(static_cast<unsigned char>(name[0])) != 0 &&
      std::all_of(name.begin(), name.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '-' || c == '_' || c == '.';
      });
  if (!ok)
    throw InputError(std::nullopt, "--name",
                     "'" + name +
                         "' is not a valid workload name (letters, digits, '-', '_', '.'; "
                         "starting with a letter or digit)");
  if (names_workload_file(name))
    throw InputError(std::nullopt, "--name", "a workload name cannot end in .yaml or .yml");
  // A scenario could not use the file: the catalog refuses a file that takes a built-in's name.
  const models::WorkloadCatalog& catalog = models::workload_catalog();
  const std::vector<std::string> names = catalog.names();
  if (std::find(names.begin(), names.end(), name) != names.end() &&
      catalog.source(name) == models::WorkloadCatalog::kBuiltIn)
    throw InputError(
        std::nullopt, "--name",
        "'" + name + "' is a built-in workload's name; the file needs a name of its own");
}

// Layer names are the model's node names, which ONNX does not constrain; the workload file
// (like every output) holds printable UTF-8 names of at most 256 bytes.
void check_layer_names(const models::LayerGraph& graph, const std::string& model) {
  for (models::LayerId v = 0; v < graph.size(); ++v) {
    const std::string& name = graph.layer(v).name;
    const std::string key = (v == 0 ? "input '" : "node '") + printable(name) + "'";
    if (const auto problem = text_problem(name))
      throw InputError(SourceLocation{model}, key, "its name " + *problem);
    if (name.size() > 256)
      throw InputError(SourceLocation{model}, key, "its name is longer than 256 bytes");
  }
}

}  // namespace

ImportResult import_workload(const ImportRequest& request) {
  check_name(request.name);
  if (!names_workload_file(request.out.string()))
    throw InputError(std::nullopt, "--out",
                     "'" + request.out.string() +
                         "': a workload file ends in .yaml or .yml (a scenario's `workload:` "
                         "names it so)");
  check_output_file(request.out, "--out", {request.model}, kImportedWorkloadSignature);
  std::vector<models::InputShape> shapes;
  for (const auto& s : request.input_shapes) shapes.push_back(models::parse_input_shape(s));
  if (!models::onnx_import_available())
    throw InputError(std::nullopt, "--import",
                     "this build has no ONNX import (install libonnx-dev and libprotobuf-dev, "
                     "then configure and build again)");

  models::OnnxImport imported = models::import_onnx(request.model, shapes);
  check_layer_names(imported.graph, request.model.string());
  const std::string note =
      "imported from " + printable(request.model.filename().string(), 200) + " (" +
      (imported.producer.empty() ? "unknown producer" : printable(imported.producer, 80)) +
      ", opset " + std::to_string(imported.opset) + ")";
  const models::GraphWorkload workload(request.name, "custom", std::move(imported.graph),
                                       imported.input_bytes_per_sample, note);
  const std::string text = write_workload_file(
      workload,
      {.comment = std::string(kImportedWorkloadSignature + 2) + " " +
                  printable(request.model.string(), 1024) +
                  "\nThe training phase (backward and optimizer step) is derived from this "
                  "forward graph."});
  // The file must read back as the graph just imported; a difference is a bug, not bad input.
  try {
    const WorkloadFile back = parse_workload_file(text, request.out.string());
    if (back.workload.layers().size() != workload.layers().size() ||
        back.workload.parameters() != workload.parameters() ||
        back.workload.macs_per_sample() != workload.macs_per_sample())
      throw Error("the workload file written for '" + request.name +
                  "' does not read back as the imported graph");
  } catch (const InputError& e) {
    throw Error("the workload file written for '" + request.name +
                "' does not read back: " + e.what());
  }
  write_file_atomically(request.out, text);

  ImportResult result;
  result.out = request.out;
  result.name = request.name;
  result.input_name = imported.input_name;
  result.layers = workload.layers().size();
  result.parameters = workload.parameters();
  result.macs_per_sample = workload.macs_per_sample();
  return result;
}

}  // namespace fulcrum::sim::app
