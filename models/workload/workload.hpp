// Workload: a DNN as a layer graph (Boost.Graph), built from its public architecture, and the
// per-minibatch work it implies for inference and for a training step.
//
//   const Workload& w = workload_catalog().get("resnet50");
//   auto layers = w.layer_work(Phase::training, 16);   // per-layer FLOPs, bytes, kernels
//   double gflops = w.forward_flops_per_sample() / 1e9;
#pragma once

#include <string>
#include <vector>

#include "models/workload/phase_cost.hpp"

namespace fulcrum::models {

class GraphWorkload;

class Workload {
 public:
  virtual ~Workload() = default;

  virtual const std::string& name() const = 0;
  virtual const std::string& task() const = 0;          // "classification", ...
  virtual double parameters() const = 0;                // trainable parameters
  virtual double forward_flops_per_sample() const = 0;  // 2 x MACs of one forward pass
  virtual double input_bytes_per_sample() const = 0;    // one input sample as the GPU sees it

  // Per-layer work of one minibatch, in topological order of the graph.
  virtual std::vector<LayerWork> layer_work(Phase phase, int batch_size) const = 0;

  PhaseCost cost(Phase phase, int batch_size) const { return total(layer_work(phase, batch_size)); }

  // The layer graph behind this workload, for a backend that executes layers one by one (the cuda
  // backend); nullptr where the workload has none.
  virtual const GraphWorkload* graph() const { return nullptr; }
};

}  // namespace fulcrum::models
