// The interface between `fulcrum` and the ONNX importer plugin (libfulcrum_onnx.so, built from
// models/onnx/plugin/ where libonnx-dev is found). The executable links no ONNX or protobuf
// library: the plugin, which does, is opened on the first import (import_onnx_bytes), so that no
// other command pays for loading them.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "models/error.hpp"
#include "models/onnx/onnx_import.hpp"

namespace fulcrum::models {

// What an import gave: the model, or the error thrown inside the plugin, taken apart so that the
// executable throws it again as its own type.
struct OnnxImportOutcome {
  std::optional<OnnxImport> model;
  bool input_error = true;  // an InputError (exit 2); else an Error (exit 1)
  std::optional<SourceLocation> where;
  std::string key_path;
  std::string problem;  // an Error's whole message
};

struct OnnxPluginApi {
  int abi = 0;
  std::size_t layout = 0;  // onnx_plugin_layout() of the build that made the plugin
  OnnxImportOutcome (*import)(std::string_view bytes, const std::string& source,
                              const std::vector<InputShape>& shapes) = nullptr;
};

inline constexpr int kOnnxPluginAbi = 1;
// The plugin's one exported symbol: extern "C" const OnnxPluginApi* fulcrum_onnx_plugin().
inline constexpr const char* kOnnxPluginEntry = "fulcrum_onnx_plugin";

// The sizes of the types that cross the boundary, combined: a plugin of another build whose types
// differ is refused rather than misread.
inline std::size_t onnx_plugin_layout() {
  return sizeof(OnnxImportOutcome) * 1000003 + sizeof(OnnxImport) * 10007 + sizeof(Layer) * 101 +
         sizeof(InputShape);
}

}  // namespace fulcrum::models
