// GraphWorkload: a Workload backed by a LayerGraph; turns each layer's per-sample forward work into
// per-minibatch FLOPs, DRAM bytes and kernel launches for inference or for a training step.
//
// Cost rules (fp32 everywhere; B = batch size; per layer):
//   Forward (inference):
//     flops   = B x (2 x MACs + elementwise ops)        MACs counted exactly for conv, linear,
//                                                       attention matmuls and LSTM gates
//     bytes   = weight reads (4 x params, once per minibatch; embeddings read only the gathered
//               rows) + B x 4 x (input activations read + output written [+ gathered rows])
//     reread_bytes = an LSTM's recurrent matrix (4 x 4h x h bytes) again at each of the other
//               T - 1 steps: DRAM traffic only on a device whose GPU L2 cannot hold the matrix
//               (decided by the performance model, which knows the device)
//     kernels = PyTorch eager / cuDNN launches, independent of B, never fused across layers:
//               conv 1 (+1 bias add), linear 1, bn 1, layernorm 1, activation 1, pool 1, add 1,
//               mul 1, concat 1, upsample 1, embedding 1, attention matmul 1, softmax 1 (3 in
//               attention: scale, mask, softmax), LSTM 2 per layer (cuDNN's fused RNN: one
//               GEMM for the input projection of all T steps, one call for the recurrence, whose
//               per-step kernels cuDNN issues without PyTorch's per-operator host cost); views
//               (flatten, channel slices) 0. Dropout and the loss are not modelled.
//     kind    = the layer's OpKind, and `grouped` for grouped/depthwise convolutions (they run
//               on other, far slower cuDNN kernels than dense convolutions)
//   Training step = forward + backward + optimizer update:
//     backward flops   = B x (2 x 2 x MACs + elementwise ops)   (gradients w.r.t. input and w.r.t.
//                        weights for every product; ~1x forward for elementwise work)
//     backward bytes   = 2 x forward activation bytes (read saved activations and incoming
//                        gradients, write outgoing gradients) + weight reads again + 4 x params of
//                        gradient writes; reread_bytes twice (the backward recurrence walks the
//                        steps again)
//     backward kernels = 2 x forward kernels
//     update (SGD with momentum, PyTorch's per-tensor loop, foreach off): per parameter 4 flops,
//                        5 x 4 bytes (read weight, gradient, momentum; write weight, momentum) and
//                        one kernel per parameter tensor (weight, bias, ...).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "models/workload/layer_graph.hpp"
#include "models/workload/workload.hpp"

namespace fulcrum::models {

// Constants of the cost rules above, for the performance model and the tests.
struct CostRules {
  static constexpr double flops_per_mac = 2;
  static constexpr double bytes_per_value = 4;      // fp32
  static constexpr double backward_mac_factor = 2;  // dgrad + wgrad
  static constexpr double backward_elementwise_factor = 1;
  static constexpr double backward_kernel_factor = 2;
  static constexpr double update_flops_per_param = 4;      // v = m v + g; w -= lr v
  static constexpr double update_bytes_per_param = 5 * 4;  // r: w, g, v; w: w, v
};

// What a workload is for, beyond its graph: the phases a scenario may run it in and the dataset it
// is trained on (a workload file's `phases` and `dataset`; the built-in ones run in both phases).
struct WorkloadUse {
  std::vector<Phase> phases = {Phase::training, Phase::inference};
  std::optional<std::string> dataset = std::nullopt;  // a dataset catalog name
};

class GraphWorkload final : public Workload {
 public:
  // input_bytes_per_sample: one input as copied to the GPU (fp32 image, int64 token ids, ...).
  GraphWorkload(std::string name, std::string task, LayerGraph graph, double input_bytes_per_sample,
                std::string note = "", WorkloadUse use = {});

  const std::string& name() const override { return name_; }
  const std::string& task() const override { return task_; }
  double parameters() const override { return parameters_; }
  double forward_flops_per_sample() const override { return forward_flops_per_sample_; }
  double input_bytes_per_sample() const override { return input_bytes_per_sample_; }
  // batch_size >= 1, else InputError. Layers with no work (input, views) are left out.
  std::vector<LayerWork> layer_work(Phase phase, int batch_size) const override;
  const GraphWorkload* graph() const override { return this; }

  double macs_per_sample() const { return macs_per_sample_; }
  // The architecture choices behind this model (configuration, what was left out).
  const std::string& note() const { return note_; }
  const LayerGraph& layers() const { return graph_; }
  const WorkloadUse& use() const { return use_; }
  bool supports(Phase phase) const;

 private:
  std::string name_;
  std::string task_;
  LayerGraph graph_;
  double input_bytes_per_sample_;
  std::string note_;
  WorkloadUse use_;
  std::vector<LayerId> order_;  // topological order
  double parameters_ = 0;
  double macs_per_sample_ = 0;
  double forward_flops_per_sample_ = 0;
};

}  // namespace fulcrum::models
