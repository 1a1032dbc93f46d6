// The workload file, writing side: a GraphWorkload as the YAML text of a workload file (format:
// docs/SCENARIOS.md, "The workload file"). The reader, which needs a YAML parser, is
// sim/config/workload_file_loader.hpp; write then read gives the same graph, layer for layer
// (shapes, parameters, MACs, elementwise work, kernels, bytes, geometry).
//
//   const std::string text = write_workload_file(workload, {.comment = "Imported from net.onnx"});
//   // publish it with sim/report/output_path.hpp's write_file_atomically
//
// Each layer is written as the builder call that makes it (conv2d, batchnorm, linear, ...) when
// that call, replayed on layers of the same shapes, gives the layer exactly; otherwise (an
// attention product, a channel slice, a layer built by hand) as a `raw` layer with its counts.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "models/workload/graph_workload.hpp"
#include "models/workload/layer_graph.hpp"
#include "models/workload/phase_cost.hpp"

namespace fulcrum::models {

// The version the writer writes and the reader accepts (`version: 1`).
inline constexpr int kWorkloadFileVersion = 1;

struct WorkloadFileOptions {
  // The phases a scenario may run the workload in (`phases:`); absent: the workload's own
  // (use().phases, both for a workload made by the builders).
  std::optional<std::vector<Phase>> phases = std::nullopt;
  // The dataset it is trained on (`dataset:`), a name of the dataset catalog, written as given;
  // absent: the workload's own (use().dataset), if any.
  std::optional<std::string> dataset = std::nullopt;
  // Written at the top as `# ` comment lines (one per line of the text), e.g. where it came from.
  std::string comment = "";
};

// The workload as workload-file text. The graph's first layer must be its input (as
// LayerGraph::input makes it). InputError when two layers share a name (the file names inputs by
// layer name) or a name is empty.
std::string write_workload_file(const GraphWorkload& workload,
                                const WorkloadFileOptions& options = {});

// ---- shared by the writer and the reader ----

// The element type names of `input.dtype` and their bytes per element: float32 4, float16 2,
// bfloat16 2, int64 8, int32 4, uint8 1. nullopt for another name.
std::optional<double> dtype_bytes(std::string_view dtype);

// Activation <-> its name in the file ("relu", "hardswish", "hardsigmoid", "sigmoid", "silu",
// "gelu", "tanh").
const char* to_string(Activation a);
std::optional<Activation> activation_from_string(std::string_view name);
// OpKind from its to_string name ("conv", "matmul", ...); nullopt for another name.
std::optional<OpKind> op_kind_from_string(std::string_view name);

}  // namespace fulcrum::models
