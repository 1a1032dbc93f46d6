// The ONNX importer itself (models/onnx/onnx_import.hpp has the contract), linked into the plugin
// libfulcrum_onnx.so and nowhere else; `fulcrum` reaches it through models/onnx/plugin_api.hpp.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "models/onnx/onnx_import.hpp"

namespace fulcrum::models {

// import_onnx_bytes's work: InputError for a model it cannot read or map.
OnnxImport import_onnx_model(std::string_view bytes, const std::string& source,
                             const std::vector<InputShape>& shapes);

}  // namespace fulcrum::models
