#include "models/workload/layer_graph.hpp"

#include <algorithm>
#include <boost/range/iterator_range.hpp>
#include <cassert>
#include <cmath>
#include <utility>

#include "models/error.hpp"

namespace fulcrum::models {

namespace {

// Arithmetic per output element of each nonlinearity, counting compares, adds, multiplies and a
// transcendental as one op each (rough, but it only matters for tiny layers).
double ops_per_element(Activation a) {
  switch (a) {
    case Activation::relu:
      return 1;
    case Activation::hardswish:
      return 4;  // x * min(max(x + 3, 0), 6) / 6
    case Activation::hardsigmoid:
      return 3;  // min(max(x + 3, 0), 6) / 6
    case Activation::sigmoid:
      return 4;
    case Activation::silu:
      return 5;  // x * sigmoid(x)
    case Activation::gelu:
      return 8;  // erf form
    case Activation::tanh:
      return 5;
  }
  return 1;
}

// Per element: batch norm applies a scale and a shift (statistics are folded in at inference,
// and the training-time mean/variance pass is charged to the same count); layer norm computes
// mean and variance and then normalises, scales and shifts.
constexpr double kBatchNormOpsPerElement = 2;
constexpr double kLayerNormOpsPerElement = 5;
// Softmax: max, exp, sum, divide; in attention also scale by 1/sqrt(d) and add the mask.
constexpr double kSoftmaxOpsPerElement = 5;
constexpr double kAttentionSoftmaxOpsPerElement = 7;
// One LSTM cell update per hidden unit and step: three sigmoid gates, two tanh, the
// elementwise cell and hidden products and the gate-bias adds.
constexpr double kLstmCellOpsPerUnit = 25;

void require(bool ok, const std::string& layer, const std::string& problem) {
  if (!ok) throw InputError("layer '" + layer + "': " + problem);
}

// Positions of a sliding window along one dimension (PyTorch's floor mode): the window must fit
// the padded input, which integer division alone would not catch (it truncates toward zero).
std::int64_t window_positions(std::int64_t in, std::int64_t kernel, std::int64_t stride,
                              std::int64_t padding, const std::string& name) {
  require(kernel > 0 && stride > 0 && padding >= 0, name, "bad kernel/stride/padding");
  require(in + 2 * padding >= kernel, name,
          "a window of " + std::to_string(kernel) + " does not fit an input of " +
              std::to_string(in) + " padded by " + std::to_string(padding) + " on each side");
  return (in + 2 * padding - kernel) / stride + 1;
}

}  // namespace

double Shape::elements() const {
  double n = 1;
  for (auto d : dims) n *= static_cast<double>(d);
  return n;
}

std::string to_string(const Shape& shape) {
  std::string out = "[";
  for (std::size_t i = 0; i < shape.dims.size(); ++i) {
    if (i > 0) out += ", ";
    out += std::to_string(shape.dims[i]);
  }
  return out + "]";
}

LayerId LayerGraph::add_layer(const Layer& layer, const std::vector<LayerId>& inputs) {
  for (auto d : layer.out.dims)
    require(d > 0, layer.name, "non-positive output dimension " + to_string(layer.out));
  const LayerId id = boost::add_vertex(layer, g_);
  for (LayerId from : inputs) {
    assert(from < id && "edges run from earlier to later layers");
    boost::add_edge(from, id, Tensor{g_[from].out.elements()}, g_);
  }
  return id;
}

LayerId LayerGraph::input(Shape shape, std::string name) {
  assert(boost::num_vertices(g_) == 0 && "input() is the first layer");
  Layer l;
  l.name = std::move(name);
  l.kind = OpKind::input;
  l.out = std::move(shape);
  return add_layer(l, {});
}

LayerId LayerGraph::conv2d(LayerId x, std::string name, const Conv2dOptions& o) {
  const Shape& in = shape(x);
  require(in.rank() == 3, name, "conv2d needs a {C, H, W} input, got " + to_string(in));
  const auto c_in = in[0];
  require(o.groups > 0 && c_in % o.groups == 0 && o.out_channels % o.groups == 0, name,
          "channels not divisible by groups");
  const auto h = window_positions(in[1], o.kernel, o.stride, o.padding, name);
  const auto w = window_positions(in[2], o.kernel, o.stride, o.padding, name);
  // c_in is a multiple of groups (checked above), so the division is exact.
  const std::int64_t fan_in_int = c_in / o.groups * o.kernel * o.kernel;
  const double fan_in = static_cast<double>(fan_in_int);

  Layer l;
  l.name = std::move(name);
  l.kind = OpKind::conv;
  l.out = Shape{o.out_channels, h, w};
  l.params = static_cast<double>(o.out_channels) * fan_in +
             (o.bias ? static_cast<double>(o.out_channels) : 0.0);
  l.param_tensors = o.bias ? 2 : 1;
  l.macs = l.out.elements() * fan_in;
  l.elementwise_ops = o.bias ? l.out.elements() : 0;
  l.kernels = o.bias ? 2 : 1;  // cuDNN convolution, then PyTorch's separate bias add
  l.grouped = o.groups > 1;
  l.weight_read_bytes = 4 * l.params;
  l.geometry = {.kernel = o.kernel,
                .stride = o.stride,
                .padding = o.padding,
                .groups = o.groups,
                .bias = o.bias};
  return add_layer(l, {x});
}

LayerId LayerGraph::batchnorm(LayerId x, std::string name) {
  const Shape& in = shape(x);
  require(in.rank() >= 1, name, "batchnorm needs channels");
  Layer l;
  l.name = std::move(name);
  l.kind = OpKind::bn;
  l.out = in;
  l.params = 2.0 * static_cast<double>(in[0]);  // scale and shift; running stats are buffers
  l.param_tensors = 2;
  l.elementwise_ops = kBatchNormOpsPerElement * in.elements();
  l.kernels = 1;
  l.weight_read_bytes = 4 * l.params;
  return add_layer(l, {x});
}

LayerId LayerGraph::pool(LayerId x, std::string name, std::int64_t kernel, std::int64_t stride,
                         std::int64_t padding, double ops_per_window) {
  const Shape& in = shape(x);
  require(in.rank() == 3, name, "pooling needs a {C, H, W} input, got " + to_string(in));
  const auto h = window_positions(in[1], kernel, stride, padding, name);
  const auto w = window_positions(in[2], kernel, stride, padding, name);
  Layer l;
  l.name = std::move(name);
  l.kind = OpKind::pool;
  l.out = Shape{in[0], h, w};
  l.elementwise_ops = l.out.elements() * ops_per_window;
  l.kernels = 1;
  l.geometry = {.kernel = kernel, .stride = stride, .padding = padding};
  return add_layer(l, {x});
}

LayerId LayerGraph::max_pool(LayerId x, std::string name, std::int64_t kernel, std::int64_t stride,
                             std::int64_t padding) {
  const LayerId id =
      pool(x, std::move(name), kernel, stride, padding, static_cast<double>(kernel * kernel));
  g_[id].geometry.max_pool = true;
  return id;
}

LayerId LayerGraph::avg_pool(LayerId x, std::string name, std::int64_t kernel, std::int64_t stride,
                             std::int64_t padding) {
  return pool(x, std::move(name), kernel, stride, padding, static_cast<double>(kernel * kernel));
}

LayerId LayerGraph::global_avg_pool(LayerId x, std::string name) {
  const Shape& in = shape(x);
  require(in.rank() == 3, name, "pooling needs a {C, H, W} input, got " + to_string(in));
  Layer l;
  l.name = std::move(name);
  l.kind = OpKind::pool;
  l.out = Shape{in[0], 1, 1};
  l.elementwise_ops = in.elements();
  l.kernels = 1;
  return add_layer(l, {x});
}

LayerId LayerGraph::upsample(LayerId x, std::string name, std::int64_t scale) {
  const Shape& in = shape(x);
  require(in.rank() == 3 && scale > 0, name, "upsample needs {C, H, W} and a positive scale");
  Layer l;
  l.name = std::move(name);
  l.kind = OpKind::upsample;
  l.out = Shape{in[0], in[1] * scale, in[2] * scale};
  l.kernels = 1;
  return add_layer(l, {x});
}

LayerId LayerGraph::slice_channels(LayerId x, std::string name, std::int64_t begin,
                                   std::int64_t count) {
  const Shape& in = shape(x);
  require(in.rank() >= 1 && begin >= 0 && count > 0 && begin + count <= in[0], name,
          "channel slice out of range of " + to_string(in));
  Layer l;
  l.name = std::move(name);
  l.kind = OpKind::view;
  l.out = in;
  l.out.dims[0] = count;
  return add_layer(l, {x});
}

LayerId LayerGraph::concat(const std::vector<LayerId>& xs, std::string name, std::size_t axis) {
  require(!xs.empty(), name, "concat of nothing");
  Shape out = shape(xs.front());
  require(axis < out.rank(), name, "concat axis out of range of " + to_string(out));
  for (std::size_t i = 1; i < xs.size(); ++i) {
    const Shape& s = shape(xs[i]);
    bool same = s.rank() == out.rank();
    for (std::size_t d = 0; same && d < s.rank(); ++d) same = d == axis || s[d] == out[d];
    require(same, name, "concat of mismatched shapes " + to_string(out) + " and " + to_string(s));
    out.dims[axis] += s[axis];
  }
  Layer l;
  l.name = std::move(name);
  l.kind = OpKind::concat;
  l.out = std::move(out);
  l.kernels = 1;
  l.geometry.axis = axis;
  return add_layer(l, xs);
}

LayerId LayerGraph::activation(LayerId x, std::string name, Activation a) {
  Layer l;
  l.name = std::move(name);
  l.kind = OpKind::act;
  l.out = shape(x);
  l.elementwise_ops = ops_per_element(a) * l.out.elements();
  l.kernels = 1;
  l.geometry.activation = a;
  return add_layer(l, {x});
}

LayerId LayerGraph::add(LayerId a, LayerId b, std::string name) {
  require(shape(a) == shape(b), name,
          "add of mismatched shapes " + to_string(shape(a)) + " and " + to_string(shape(b)));
  Layer l;
  l.name = std::move(name);
  l.kind = OpKind::add;
  l.out = shape(a);
  l.elementwise_ops = l.out.elements();
  l.kernels = 1;
  return add_layer(l, {a, b});
}

LayerId LayerGraph::mul(LayerId a, LayerId b, std::string name) {
  const Shape& sa = shape(a);
  const Shape& sb = shape(b);
  bool broadcastable = sa.rank() == sb.rank();
  for (std::size_t i = 0; broadcastable && i < sa.rank(); ++i)
    broadcastable = sb[i] == sa[i] || sb[i] == 1;
  require(broadcastable, name,
          "mul of " + to_string(sa) + " by non-broadcastable " + to_string(sb));
  Layer l;
  l.name = std::move(name);
  l.kind = OpKind::mul;
  l.out = sa;
  l.elementwise_ops = l.out.elements();
  l.kernels = 1;
  return add_layer(l, {a, b});
}

LayerId LayerGraph::flatten(LayerId x, std::string name) {
  Layer l;
  l.name = std::move(name);
  l.kind = OpKind::view;
  l.out = Shape{static_cast<std::int64_t>(shape(x).elements())};
  return add_layer(l, {x});
}

LayerId LayerGraph::reshape(LayerId x, std::string name, Shape shape) {
  require(shape.elements() == this->shape(x).elements(), name,
          "reshape of " + to_string(this->shape(x)) + " to " + to_string(shape));
  Layer l;
  l.name = std::move(name);
  l.kind = OpKind::view;
  l.out = std::move(shape);
  return add_layer(l, {x});
}

LayerId LayerGraph::linear(LayerId x, std::string name, std::int64_t out_features, bool bias) {
  const Shape& in = shape(x);
  require(in.rank() >= 1 && out_features > 0, name, "linear needs features and outputs");
  const double in_features = static_cast<double>(in.dims.back());
  const double rows = in.elements() / in_features;  // tokens (1 for a flat vector)
  Layer l;
  l.name = std::move(name);
  l.kind = OpKind::linear;
  l.out = in;
  l.out.dims.back() = out_features;
  l.params = static_cast<double>(in_features) * static_cast<double>(out_features) +
             (bias ? static_cast<double>(out_features) : 0.0);
  l.param_tensors = bias ? 2 : 1;
  l.macs = rows * in_features * static_cast<double>(out_features);
  l.kernels = 1;  // one cuBLAS GEMM (addmm folds the bias in)
  l.geometry.bias = bias;
  l.weight_read_bytes = 4 * l.params;
  return add_layer(l, {x});
}

LayerId LayerGraph::layernorm(LayerId x, std::string name) {
  const Shape& in = shape(x);
  Layer l;
  l.name = std::move(name);
  l.kind = OpKind::layernorm;
  l.out = in;
  l.params = 2.0 * static_cast<double>(in.dims.back());
  l.param_tensors = 2;
  l.elementwise_ops = kLayerNormOpsPerElement * in.elements();
  l.kernels = 1;
  l.weight_read_bytes = 4 * l.params;
  return add_layer(l, {x});
}

LayerId LayerGraph::embedding(LayerId ids, std::string name, std::int64_t vocab, std::int64_t dim) {
  const Shape& in = shape(ids);
  require(in.rank() == 1 && vocab > 0 && dim > 0, name, "embedding needs a {T} id sequence");
  Layer l;
  l.name = std::move(name);
  l.kind = OpKind::embedding;
  l.out = Shape{in[0], dim};
  l.params = static_cast<double>(vocab) * static_cast<double>(dim);
  l.param_tensors = 1;
  l.kernels = 1;
  l.weight_read_bytes = 0;                  // only the looked-up rows are read...
  l.gathered_bytes = 4 * l.out.elements();  // ...and they are as large as the output
  return add_layer(l, {ids});
}

LayerId LayerGraph::lstm(LayerId x, std::string name, std::int64_t hidden) {
  const Shape& in = shape(x);
  require(in.rank() == 2 && hidden > 0, name, "lstm needs a {T, features} input");
  const double steps = static_cast<double>(in[0]);
  const double x_dim = static_cast<double>(in[1]);
  const double h = static_cast<double>(hidden);
  Layer l;
  l.name = std::move(name);
  l.kind = OpKind::lstm;
  l.out = Shape{in[0], hidden};
  // Four gates, each with an input and a recurrent matrix and (as PyTorch stores them) two
  // biases: 4h(x + h) + 8h.
  l.params = 4 * h * (x_dim + h) + 8 * h;
  l.param_tensors = 4;
  l.macs = steps * 4 * h * (x_dim + h);
  l.elementwise_ops = steps * h * kLstmCellOpsPerUnit;
  // PyTorch's nn.LSTM on CUDA is one call into cuDNN's fused RNN per layer: one GEMM projects
  // the input of all T steps at once, then the recurrence runs inside the library, whose
  // per-step work is issued without PyTorch's per-operator host cost. Counted as 2 launches
  // (input projection, recurrence), independent of T.
  l.kernels = 2;
  // Every weight is read once; the recurrent matrix (4h x h) is used again at each of the
  // remaining T - 1 steps and comes from DRAM again only if it does not stay in L2.
  l.weight_read_bytes = 4 * l.params;
  l.reread_footprint_bytes = 4 * (4 * h * h);
  l.reread_bytes = (steps - 1) * l.reread_footprint_bytes;
  return add_layer(l, {x});
}

LayerId LayerGraph::matmul(LayerId a, LayerId b, std::string name, Shape out, double macs) {
  Layer l;
  l.name = std::move(name);
  l.kind = OpKind::matmul;
  l.out = std::move(out);
  l.macs = macs;
  l.kernels = 1;  // one batched GEMM over all heads
  return add_layer(l, {a, b});
}

LayerId LayerGraph::softmax(LayerId x, std::string name, bool attention_scaling) {
  Layer l;
  l.name = std::move(name);
  l.kind = OpKind::softmax;
  l.out = shape(x);
  l.elementwise_ops = (attention_scaling ? kAttentionSoftmaxOpsPerElement : kSoftmaxOpsPerElement) *
                      l.out.elements();
  l.kernels = attention_scaling ? 3 : 1;
  l.geometry.attention_scaling = attention_scaling;
  return add_layer(l, {x});
}

LayerId LayerGraph::squeeze_excite(LayerId x, const std::string& name,
                                   std::int64_t squeeze_channels) {
  const auto channels = shape(x)[0];
  auto s = global_avg_pool(x, name + ".avgpool");
  s = conv2d(s, name + ".fc1", {.out_channels = squeeze_channels, .kernel = 1, .bias = true});
  s = activation(s, name + ".relu", Activation::relu);
  s = conv2d(s, name + ".fc2", {.out_channels = channels, .kernel = 1, .bias = true});
  s = activation(s, name + ".hardsigmoid", Activation::hardsigmoid);
  return mul(x, s, name + ".scale");
}

LayerId LayerGraph::multi_head_attention(LayerId x, const std::string& name, std::int64_t heads) {
  const Shape& in = shape(x);
  require(in.rank() == 2, name, "attention needs a {T, d} input, got " + to_string(in));
  const auto tokens = in[0];
  const auto d = in[1];
  require(heads > 0 && d % heads == 0, name, "hidden size not divisible by heads");
  const auto q = linear(x, name + ".query", d);
  const auto k = linear(x, name + ".key", d);
  const auto v = linear(x, name + ".value", d);
  // Scores: per head a (T x d/h) by (d/h x T) product -> T * T * d MACs over all heads.
  const double product_macs =
      static_cast<double>(tokens) * static_cast<double>(tokens) * static_cast<double>(d);
  auto scores = matmul(q, k, name + ".scores", Shape{heads, tokens, tokens}, product_macs);
  scores = softmax(scores, name + ".softmax", /*attention_scaling=*/true);
  const auto context = matmul(scores, v, name + ".context", Shape{tokens, d}, product_macs);
  return linear(context, name + ".output", d);
}

LayerId LayerGraph::transformer_encoder(LayerId x, const std::string& name, std::int64_t heads,
                                        std::int64_t ffn_dim) {
  const auto d = shape(x).dims.back();
  auto a = multi_head_attention(x, name + ".attention", heads);
  a = add(a, x, name + ".attention.residual");
  a = layernorm(a, name + ".attention.layernorm");
  auto f = linear(a, name + ".intermediate", ffn_dim);
  f = activation(f, name + ".gelu", Activation::gelu);
  f = linear(f, name + ".output", d);
  f = add(f, a, name + ".output.residual");
  return layernorm(f, name + ".output.layernorm");
}

LayerId LayerGraph::raw(const std::vector<LayerId>& inputs, Layer layer) {
  const std::string& name = layer.name;
  require(layer.kind != OpKind::input, name, "a layer cannot be of kind input");
  const std::pair<const char*, double> counts[] = {
      {"params", layer.params},
      {"param_tensors", static_cast<double>(layer.param_tensors)},
      {"macs", layer.macs},
      {"elementwise_ops", layer.elementwise_ops},
      {"kernels", layer.kernels},
      {"weight_bytes", layer.weight_read_bytes},
      {"reread_bytes", layer.reread_bytes},
      {"reread_footprint_bytes", layer.reread_footprint_bytes},
      {"gathered_bytes", layer.gathered_bytes}};
  for (const auto& [what, value] : counts)
    require(std::isfinite(value) && value >= 0, name,
            std::string(what) + " must be finite and >= 0");
  require(layer.geometry.kernel >= 0 && layer.geometry.stride > 0 && layer.geometry.padding >= 0 &&
              layer.geometry.groups > 0,
          name, "bad kernel/stride/padding/groups");
  for (LayerId from : inputs)
    require(from < boost::num_vertices(g_), name, "input is not a layer of this graph");
  return add_layer(layer, inputs);
}

double LayerGraph::parameters() const {
  double p = 0;
  for (auto v : boost::make_iterator_range(boost::vertices(g_))) p += g_[v].params;
  return p;
}

double LayerGraph::macs_per_sample() const {
  double m = 0;
  for (auto v : boost::make_iterator_range(boost::vertices(g_))) m += g_[v].macs;
  return m;
}

}  // namespace fulcrum::models
