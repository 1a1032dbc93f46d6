// ExecutionPlan: how the CUDA backend executes one minibatch of a catalog workload, worked out on
// the host without a GPU (so that it is tested in CI): per layer of the graph, the buffers it
// reads and writes (offsets into a few arenas, sized from the shapes) and the kernels it
// launches forward, backward and in the optimizer update. cuda_backend.cpp walks the plan and
// launches exactly these kernels; a GPU test checks that the launches it counted match.
//
//   ExecutionPlan plan = make_execution_plan(resnet50, Phase::training, 16);
//   plan.arena_floats(Arena::activations);  // what the backend cudaMalloc()s
//   plan.layers[i].forward                  // {"cudnnConvolutionForward", "bias_add"}
//
// Layout: fp32, NCHW with the batch outermost. A view (flatten, reshape, channel slice) aliases
// its producer's buffer and launches nothing. Training keeps every activation for the backward
// pass, one gradient buffer per activation (zeroed once per minibatch, accumulated into by every
// consumer), a gradient and a momentum per parameter (SGD with momentum, one update kernel per
// parameter tensor, as PyTorch's per-tensor loop), and an MSE loss on every graph output.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "models/workload/graph_workload.hpp"

namespace fulcrum::backends::cuda {

enum class Arena {
  activations,  // layer outputs (and the input minibatch)
  gradients,    // d loss / d output per layer (training)
  parameters,   // weights
  parameter_gradients,
  momenta,
  scratch,  // per-layer saved statistics and intermediate results (BN mean/var, LSTM gates)
};
inline constexpr int kArenas = 6;

// A contiguous run of floats inside one arena.
struct BufferRef {
  Arena arena = Arena::activations;
  std::int64_t offset = 0;  // in floats
  std::int64_t floats = 0;
};

struct PlannedLayer {
  models::LayerId id = 0;
  const models::Layer* layer = nullptr;  // owned by the workload's graph
  std::vector<int> inputs;               // plan indices of the producers, in edge order
  bool is_view = false;                  // aliases inputs[0]'s output
  bool is_output = false;                // no consumer: the loss reads it
  bool needs_input_gradient = false;     // backward computes d loss / d input (not for the input)
  BufferRef output;                      // B x out.elements() floats (a view: the producer's)
  BufferRef gradient;                    // training: same size as output (a view: aliased)
  BufferRef params;                      // all parameter tensors, back to back
  std::vector<std::int64_t> param_tensors;  // sizes of the tensors inside `params`
  BufferRef scratch;
  // The kernels, in launch order (library calls by their API name, own kernels by theirs).
  std::vector<std::string> forward;
  std::vector<std::string> backward;  // training only
  std::vector<std::string> update;    // training only: one "sgd_momentum" per parameter tensor
};

struct ExecutionPlan {
  std::string workload;
  models::Phase phase = models::Phase::inference;
  int batch_size = 1;
  std::vector<PlannedLayer> layers;  // topological (construction) order; index 0 is the input
  std::int64_t arena_floats[kArenas] = {};

  std::int64_t floats(Arena a) const { return arena_floats[static_cast<int>(a)]; }
  // Device memory of all arenas, in bytes (cuDNN's workspace not included).
  double bytes() const;
  // Kernel launches of one minibatch: forward, plus backward, update and the loss in training
  // (the gradient memset and the input copy are counted as one launch each).
  int launches() const;
};

// The plan of one minibatch. InputError for a batch size < 1 or a layer the backend cannot
// execute (naming it).
ExecutionPlan make_execution_plan(const models::GraphWorkload& workload, models::Phase phase,
                                  int batch_size);

// Per-sample channel count and spatial size of a {C, H, W} (or {C}) shape, for the kernels.
struct ImageDims {
  std::int64_t c = 1, h = 1, w = 1;
};
ImageDims image_dims(const models::Shape& s);

}  // namespace fulcrum::backends::cuda
