// Imports an ONNX model (the protobuf ModelProto) as a LayerGraph: ONNX shape inference gives every
// tensor's shape, and each node is mapped onto the LayerGraph builders, which derive parameters,
// MACs and kernels from the geometry as for the built-in workloads. Weights need not be present
// (a model exported with export_params=False): only the shapes of weight inputs are read.
//
//   if (!onnx_import_available()) ...   // a build without libonnx-dev
//   OnnxImport m = import_onnx("resnet18.onnx", {parse_input_shape("input=1x3x224x224")});
//   GraphWorkload w("my-resnet", "classification", std::move(m.graph), m.input_bytes_per_sample);
//
// Bad input throws InputError, one line naming the file and, where it applies, the node and its op
// type (an unsupported op), the graph input (a dynamic dimension without --input-shape) or what is
// wrong with the file (truncated, not ONNX).
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "models/workload/layer_graph.hpp"

namespace fulcrum::models {

// A shape given for one graph input on the command line, overriding its dynamic dimensions.
struct InputShape {
  std::optional<std::string> name;  // the graph input; absent: the model's data input
  std::vector<std::int64_t> dims;   // with the batch dimension first, or without it
};

// Parses "NAME=1x3x224x224" or "3x224x224" (positive integers joined by 'x'); InputError
// (key "--input-shape") otherwise.
InputShape parse_input_shape(std::string_view text);

// The imported model: its layer graph, per sample (the batch dimension stripped).
struct OnnxImport {
  LayerGraph graph;
  std::string input_name;             // the graph input that carries the data
  double input_bytes_per_sample = 0;  // one sample of it, at its element type's size
  std::string producer;               // "pytorch 1.13.1", as the file says
  std::int64_t opset = 0;             // of the default ONNX domain
  std::size_t nodes = 0;              // in the ONNX graph (Identity, Dropout and shape
                                      // computations included)
};

// Whether this build has the importer (libonnx-dev was found at build time).
bool onnx_import_available();

// Reads and maps the model. The data input is the one named by a shape in `shapes`, else the
// first graph input that is not an initializer; the other inputs are weights. Its leading
// dimension is the batch (a dynamic batch is taken as 1); every other dimension must be known,
// from the file or from `shapes`. Throws InputError (see the header comment); Error where the
// build has no ONNX support.
OnnxImport import_onnx(const std::filesystem::path& file, const std::vector<InputShape>& shapes);

// The same from the file's bytes; `source` names it in messages.
OnnxImport import_onnx_bytes(std::string_view bytes, const std::string& source,
                             const std::vector<InputShape>& shapes);

}  // namespace fulcrum::models
