// The cost of one DNN layer (or whole model) for one minibatch: what the performance model eats.
#pragma once

#include <string>
#include <vector>

#include "models/workload/op_kind.hpp"

namespace fulcrum::models {

// What a minibatch does: a forward pass only (inference) or forward + backward + update.
enum class Phase { inference, training };

inline const char* to_string(Phase p) { return p == Phase::inference ? "inference" : "training"; }

// Work of one layer for one minibatch of a given size and phase.
struct LayerWork {
  std::string name;  // layer name in the graph, e.g. "layer3.1.conv2"
  OpKind kind = OpKind::view;
  // A grouped or depthwise convolution (kind conv, groups > 1): cuDNN runs these on other, far
  // slower kernels than dense convolutions, so the performance model times them apart.
  bool grouped = false;
  double flops = 0;    // floating-point operations (2 per multiply-accumulate)
  double bytes = 0;    // DRAM bytes moved: weights once per minibatch + activations per sample
  double kernels = 0;  // GPU kernel launches
  // Weights the layer re-reads within the minibatch (an LSTM's recurrent matrix, used at every
  // time step). They come from DRAM only when they do not stay in the GPU's L2, which depends on
  // the device: `bytes` counts them once, the performance model adds `reread_bytes` when
  // `reread_footprint_bytes` exceeds the device's L2.
  double reread_bytes = 0;
  double reread_footprint_bytes = 0;
};

// Totals over all layers of a minibatch.
struct PhaseCost {
  double flops = 0;
  double bytes = 0;
  double kernels = 0;
};

inline PhaseCost total(const std::vector<LayerWork>& layers) {
  PhaseCost c;
  for (const auto& l : layers) {
    c.flops += l.flops;
    c.bytes += l.bytes;
    c.kernels += l.kernels;
  }
  return c;
}

}  // namespace fulcrum::models
