// The plugin's entry point (models/onnx/plugin_api.hpp): the one symbol libfulcrum_onnx.so
// exports. Every error is caught here and handed back as data, never thrown across the boundary.
#include <exception>

#include "models/error.hpp"
#include "models/onnx/plugin/onnx_importer.hpp"
#include "models/onnx/plugin_api.hpp"

namespace {

using namespace fulcrum;
using namespace fulcrum::models;

OnnxImportOutcome import_entry(std::string_view bytes, const std::string& source,
                               const std::vector<InputShape>& shapes) {
  OnnxImportOutcome outcome;
  try {
    outcome.model = import_onnx_model(bytes, source, shapes);
  } catch (const InputError& e) {
    outcome.where = e.where();
    outcome.key_path = e.key_path();
    outcome.problem = e.problem();
  } catch (const std::exception& e) {
    outcome.input_error = false;
    outcome.problem = source + ": ONNX import failed: " + e.what();
  }
  return outcome;
}

}  // namespace

extern "C" __attribute__((visibility("default"))) const OnnxPluginApi* fulcrum_onnx_plugin() {
  static const OnnxPluginApi api{kOnnxPluginAbi, onnx_plugin_layout(), &import_entry};
  return &api;
}
