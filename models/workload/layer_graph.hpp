// LayerGraph: a DNN as a directed acyclic graph on Boost.Graph (vertices = layers with their op
// kind, per-sample output shape, parameters and forward work; edges = tensors), plus builder
// helpers that derive each layer's shape, parameters and MACs from its input shape.
//
//   LayerGraph g;
//   auto x = g.input({3, 224, 224});
//   x = g.conv2d(x, "conv1", {.out_channels = 64, .kernel = 7, .stride = 2, .padding = 3});
//   x = g.batchnorm(x, "bn1");
//   x = g.activation(x, "relu", Activation::relu);
//
// Shapes are per sample (no batch dimension): images are {C, H, W}; sequences are {T, features}.
// All builder methods return the id of the new layer; ids are only valid for the graph that made
// them. Edges always run from an earlier layer to a later one, so construction order is a
// topological order.
#pragma once

#include <boost/graph/adjacency_list.hpp>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include "models/workload/op_kind.hpp"

namespace fulcrum::models {

enum class Activation { relu, hardswish, hardsigmoid, sigmoid, silu, gelu, tanh };

// A per-sample tensor shape.
struct Shape {
  std::vector<std::int64_t> dims;

  Shape() = default;
  Shape(std::initializer_list<std::int64_t> d) : dims(d) {}
  explicit Shape(std::vector<std::int64_t> d) : dims(std::move(d)) {}

  double elements() const;
  std::size_t rank() const { return dims.size(); }
  std::int64_t operator[](std::size_t i) const { return dims[i]; }
  bool operator==(const Shape&) const = default;
};

std::string to_string(const Shape& shape);

// How a layer computes, beyond its shapes: what an executing backend (backends/cuda/) needs to
// launch the layer's kernels. The cost rules never read it.
struct LayerGeometry {
  std::int64_t kernel = 0;         // conv / pool window (square); 0 for a global average pool
  std::int64_t stride = 1;         // conv / pool
  std::int64_t padding = 0;        // conv / pool
  std::int64_t groups = 1;         // conv
  bool bias = false;               // conv / linear
  bool max_pool = false;           // pool: max (else average)
  bool attention_scaling = false;  // softmax: scale and mask first
  std::size_t axis = 0;            // concat
  Activation activation = Activation::relu;  // act
};

// A vertex: one layer and its forward work for ONE sample. Everything else (batch scaling,
// backward pass, optimizer update) is derived by the cost rules in graph_workload.hpp.
struct Layer {
  std::string name;
  OpKind kind = OpKind::view;
  Shape out;                   // per-sample output shape
  double params = 0;           // trainable parameters
  int param_tensors = 0;       // separately stored parameter tensors (weight, bias, ...)
  double macs = 0;             // multiply-accumulates per sample (conv, linear, matmul, lstm)
  double elementwise_ops = 0;  // non-MAC arithmetic per sample (activations, norms, adds)
  double kernels = 0;          // forward GPU kernel launches (per minibatch, batch-independent)
  bool grouped = false;        // a grouped or depthwise convolution (groups > 1)
  // Weight bytes the forward pass reads per minibatch: 4 x params (every weight read once); an
  // embedding gathers only the rows it needs (counted as activations).
  double weight_read_bytes = 0;
  // Forward re-reads of a weight block that is used again and again (an LSTM's recurrent matrix,
  // once per time step after the first), and the block's size: DRAM traffic only when the block
  // does not fit in the GPU's L2, which the performance model decides per device.
  double reread_bytes = 0;
  double reread_footprint_bytes = 0;
  // Bytes read per sample that no edge carries: the table rows an embedding gathers.
  double gathered_bytes = 0;
  LayerGeometry geometry;
};

// An edge: the tensor flowing from producer to consumer.
struct Tensor {
  double elements = 0;  // per sample
};

using Graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::bidirectionalS, Layer, Tensor>;
using LayerId = Graph::vertex_descriptor;

struct Conv2dOptions {
  std::int64_t out_channels = 0;
  std::int64_t kernel = 1;
  std::int64_t stride = 1;
  std::int64_t padding = 0;
  std::int64_t groups = 1;
  bool bias = false;
};

class LayerGraph {
 public:
  // The graph's single entry point; call once, first.
  LayerId input(Shape shape, std::string name = "input");

  // ---- convolutional primitives (x is {C, H, W}) ----
  LayerId conv2d(LayerId x, std::string name, const Conv2dOptions& o);
  LayerId batchnorm(LayerId x, std::string name);
  LayerId max_pool(LayerId x, std::string name, std::int64_t kernel, std::int64_t stride,
                   std::int64_t padding = 0);
  LayerId avg_pool(LayerId x, std::string name, std::int64_t kernel, std::int64_t stride,
                   std::int64_t padding = 0);
  LayerId global_avg_pool(LayerId x, std::string name);  // {C, H, W} -> {C, 1, 1}
  LayerId upsample(LayerId x, std::string name, std::int64_t scale);
  // A view of channels [begin, begin + count) (torch.chunk / split): free.
  LayerId slice_channels(LayerId x, std::string name, std::int64_t begin, std::int64_t count);
  // Concatenate along `axis` (0 = channels for images); the other dims must agree.
  LayerId concat(const std::vector<LayerId>& xs, std::string name, std::size_t axis = 0);

  // ---- generic primitives ----
  LayerId activation(LayerId x, std::string name, Activation a);
  LayerId add(LayerId a, LayerId b, std::string name);
  // Elementwise product; b may broadcast over trailing spatial dims ({C,1,1} times {C,H,W}).
  LayerId mul(LayerId a, LayerId b, std::string name);
  LayerId flatten(LayerId x, std::string name);  // -> {elements}
  // Any view with the same number of elements (PyTorch's view/reshape of a contiguous tensor).
  LayerId reshape(LayerId x, std::string name, Shape shape);
  // Softmax over the last dimension. attention_scaling: also scale by 1/sqrt(d) and add the
  // mask first, as separate kernels (HuggingFace BERT in eager mode).
  LayerId softmax(LayerId x, std::string name, bool attention_scaling = false);
  // Fully connected over the last dimension; leading dims (tokens) are kept.
  LayerId linear(LayerId x, std::string name, std::int64_t out_features, bool bias = true);
  LayerId layernorm(LayerId x, std::string name);
  LayerId embedding(LayerId ids, std::string name, std::int64_t vocab, std::int64_t dim);

  // ---- sequence primitives (x is {T, features}) ----
  LayerId lstm(LayerId x, std::string name, std::int64_t hidden);

  // ---- composite blocks ----
  // Squeeze-and-excitation (MobileNetV3): avgpool -> 1x1 conv -> ReLU -> 1x1 conv -> hardsigmoid
  // -> scale x.
  LayerId squeeze_excite(LayerId x, const std::string& name, std::int64_t squeeze_channels);
  // Multi-head self-attention over {T, d}: Q/K/V projections, scores, softmax, context, output
  // projection. Returns the output projection ({T, d}); no residual.
  LayerId multi_head_attention(LayerId x, const std::string& name, std::int64_t heads);
  // Post-norm transformer encoder block (BERT): attention + add + layernorm, FFN (GELU) + add +
  // layernorm.
  LayerId transformer_encoder(LayerId x, const std::string& name, std::int64_t heads,
                              std::int64_t ffn_dim);

  // ---- any layer ----
  // A layer given whole (kind, output shape and forward work as the cost rules read them), for an
  // op the builders above do not know (a workload file's `raw` layer). `inputs` are earlier
  // layers of this graph. InputError for an input kind, a non-positive output dimension, or a
  // count that is negative or not finite.
  LayerId raw(const std::vector<LayerId>& inputs, Layer layer);

  const Graph& graph() const { return g_; }
  const Layer& layer(LayerId id) const { return g_[id]; }
  const Shape& shape(LayerId id) const { return g_[id].out; }
  std::size_t size() const { return boost::num_vertices(g_); }

  double parameters() const;
  double macs_per_sample() const;

 private:
  LayerId add_layer(const Layer& layer, const std::vector<LayerId>& inputs);
  LayerId pool(LayerId x, std::string name, std::int64_t kernel, std::int64_t stride,
               std::int64_t padding, double ops_per_window);
  // Scores or context product of attention: {T, d} inputs, explicit per-sample MACs and shape.
  LayerId matmul(LayerId a, LayerId b, std::string name, Shape out, double macs);

  Graph g_;
};

}  // namespace fulcrum::models
