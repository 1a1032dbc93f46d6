// The ONNX importer proper, built into the plugin libfulcrum_onnx.so (models/onnx/plugin_api.hpp):
// the only code that links libonnx and libprotobuf.
#include "models/onnx/plugin/onnx_importer.hpp"

#include <onnx/checker.h>
#include <onnx/defs/schema.h>
#include <onnx/onnx_pb.h>
#include <onnx/shape_inference/implementation.h>

#include <algorithm>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "models/error.hpp"

namespace fulcrum::models {

namespace {

using ::onnx::ModelProto;
using ::onnx::NodeProto;
using ::onnx::TensorProto;
using ::onnx::TensorShapeProto;
using ::onnx::ValueInfoProto;

using Dims = std::vector<std::int64_t>;

// Ops that become layers, or views, or nothing (Identity, Dropout), on an activation.
const std::set<std::string, std::less<> > kLayerOps = {"Conv",
                                                       "Slice",
                                                       "BatchNormalization",
                                                       "Relu",
                                                       "LeakyRelu",
                                                       "Clip",
                                                       "HardSwish",
                                                       "HardSigmoid",
                                                       "Sigmoid",
                                                       "Tanh",
                                                       "Erf",
                                                       "MaxPool",
                                                       "AveragePool",
                                                       "GlobalAveragePool",
                                                       "Add",
                                                       "Sub",
                                                       "Mul",
                                                       "Div",
                                                       "Concat",
                                                       "Flatten",
                                                       "Reshape",
                                                       "Squeeze",
                                                       "Unsqueeze",
                                                       "Transpose",
                                                       "Gemm",
                                                       "MatMul",
                                                       "Softmax",
                                                       "LayerNormalization",
                                                       "Dropout",
                                                       "Identity",
                                                       "Shape"};
// Ops that only compute on constants and weights: the shape arithmetic of a Reshape target.
const std::set<std::string, std::less<> > kShapeOps = {"Constant",   "ConstantOfShape",
                                                       "Gather",     "Cast",
                                                       "Slice",      "Range",
                                                       "ReduceProd", "Equal",
                                                       "Where",      "Expand",
                                                       "Floor",      "Ceil",
                                                       "Sqrt",       "Pow",
                                                       "Neg",        "Unsqueeze",
                                                       "Squeeze",    "Concat",
                                                       "Reshape",    "Identity",
                                                       "Add",        "Sub",
                                                       "Mul",        "Div",
                                                       "Shape"};

std::string node_label(const NodeProto& node, int index) {
  const std::string name =
      node.name().empty() ? node.op_type() + "_" + std::to_string(index) : node.name();
  return name;
}

class Importer {
 public:
  Importer(std::string source, const std::vector<InputShape>& shapes)
      : source_(std::move(source)), overrides_(shapes) {}

  OnnxImport run(std::string_view bytes);

 private:
  [[noreturn]] void fail(const std::string& key, const std::string& problem) const {
    throw InputError(SourceLocation{source_}, key, problem);
  }
  [[noreturn]] void fail_node(const NodeProto& node, const std::string& problem) const {
    fail("node '" + label_.at(&node) + "' (" + node.op_type() + ")", problem);
  }

  void parse(std::string_view bytes);
  void check_ops();
  void check_model() const;
  void choose_input();
  void infer_shapes();
  void collect_shapes();
  void map_nodes();
  void map_node(const NodeProto& node);

  std::optional<Dims> dims_of(const std::string& tensor) const {
    const auto it = dims_.find(tensor);
    if (it == dims_.end()) return std::nullopt;
    return it->second;
  }
  // The per-sample shape of an output (the batch dimension dropped), from shape inference.
  Shape sample_shape(const NodeProto& node, const std::string& tensor) const;
  // The static shape of a weight input (slot `slot` of `node`).
  Dims weight_dims(const NodeProto& node, int slot) const;
  // The int64 values of a constant (a Constant node's or an initializer's), if it has them.
  std::optional<Dims> constant_ints(const std::string& tensor) const {
    const auto it = constants_.find(tensor);
    if (it == constants_.end()) return std::nullopt;
    const TensorProto& t = *it->second;
    if (t.data_type() != TensorProto::INT64) return std::nullopt;
    if (t.int64_data_size() > 0) return Dims(t.int64_data().begin(), t.int64_data().end());
    const std::string& raw = t.raw_data();
    if (raw.size() % 8 != 0) return std::nullopt;
    Dims values(raw.size() / 8);
    for (std::size_t i = 0; i < values.size(); ++i) {
      std::uint64_t v = 0;
      for (int b = 7; b >= 0; --b) v = (v << 8) | static_cast<unsigned char>(raw[i * 8 + b]);
      values[i] = static_cast<std::int64_t>(v);
    }
    return values;
  }
  bool is_activation(const std::string& tensor) const { return act_.contains(tensor); }
  LayerId act(const std::string& tensor) const { return act_.at(tensor); }
  void check_shape(const NodeProto& node, LayerId id) const;
  // The node's name as a layer name, made unique (ONNX does not require unique node names; the
  // workload file names a layer's inputs by name): "name", then "name.2", "name.3", ...
  std::string unique_name(const std::string& name) {
    std::string candidate = name;
    for (int i = 2; !names_.insert(candidate).second; ++i)
      candidate = name + "." + std::to_string(i);
    return candidate;
  }

  std::string source_;
  std::vector<InputShape> overrides_;
  ModelProto model_;
  std::int64_t opset_ = 0;
  std::string input_name_;
  std::int64_t batch_ = 1;
  std::unordered_map<std::string, Dims> dims_;  // static shapes (batch included)
  std::unordered_map<const NodeProto*, std::string> label_;
  std::unordered_map<std::string, LayerId> act_;  // activation tensors -> their layer
  std::unordered_map<std::string, std::vector<std::size_t> > consumers_;
  std::unordered_set<std::size_t> absorbed_;                       // bias Adds folded into a MatMul
  std::unordered_map<std::string, const TensorProto*> constants_;  // Constant nodes, initializers
  std::unordered_set<std::string> names_;                          // layer names given so far
  LayerGraph graph_;
};

std::int64_t int_attribute(const NodeProto& node, const std::string& name, std::int64_t fallback) {
  for (const auto& a : node.attribute())
    if (a.name() == name) return a.i();
  return fallback;
}

std::optional<Dims> ints_attribute(const NodeProto& node, const std::string& name) {
  for (const auto& a : node.attribute())
    if (a.name() == name) return Dims(a.ints().begin(), a.ints().end());
  return std::nullopt;
}

std::optional<std::string> string_attribute(const NodeProto& node, const std::string& name) {
  for (const auto& a : node.attribute())
    if (a.name() == name) return a.s();
  return std::nullopt;
}

std::string dims_text(const Dims& d) {
  std::string out;
  for (std::size_t i = 0; i < d.size(); ++i) {
    if (i > 0) out += 'x';
    out += std::to_string(d[i]);
  }
  return out.empty() ? "scalar" : out;
}

double element_bytes(std::int32_t elem_type) {
  switch (elem_type) {
    case TensorProto::DOUBLE:
    case TensorProto::INT64:
    case TensorProto::UINT64:
      return 8;
    case TensorProto::FLOAT16:
    case TensorProto::BFLOAT16:
    case TensorProto::INT16:
    case TensorProto::UINT16:
      return 2;
    case TensorProto::INT8:
    case TensorProto::UINT8:
    case TensorProto::BOOL:
      return 1;
    default:
      return 4;
  }
}

void Importer::parse(std::string_view bytes) {
  if (bytes.empty()) fail("", "empty file, not an ONNX model");
  if (bytes.size() > static_cast<std::size_t>(std::numeric_limits<int>::max()) ||
      !model_.ParseFromArray(bytes.data(), static_cast<int>(bytes.size())))
    fail("", "not an ONNX model, or a truncated one (the protobuf does not parse)");
  // A file cut at a field boundary parses; what every ONNX file has must then be missing.
  if (!model_.has_ir_version() || model_.ir_version() <= 0)
    fail("", "not an ONNX model (no IR version)");
  if (!model_.has_graph() || model_.graph().node_size() == 0 || model_.graph().input_size() == 0)
    fail("", "not an ONNX model, or a truncated one (no graph, nodes or inputs)");
  for (const auto& o : model_.opset_import())
    if (o.domain().empty() || o.domain() == "ai.onnx") opset_ = o.version();
  if (opset_ <= 0) fail("", "not an ONNX model, or a truncated one (no opset of the ONNX domain)");
  int index = 0;
  for (const auto& node : model_.graph().node()) label_[&node] = node_label(node, index++);
}

void Importer::check_model() const {
  try {
    ::onnx::checker::check_model(model_);
  } catch (const std::exception& e) {
    std::string what = e.what();
    what = what.substr(0, what.find('\n'));
    fail("", "not a valid ONNX model: " + what);
  }
}

// Every node's op before anything else, so that an unsupported op is named as such and not as a
// shape inference failure.
void Importer::check_ops() {
  for (const auto& node : model_.graph().node()) {
    if (!node.domain().empty() && node.domain() != "ai.onnx")
      fail_node(node, "unsupported op (domain '" + node.domain() +
                          "'; the importer maps ops of the default ONNX domain)");
    if (!kLayerOps.contains(node.op_type()) && !kShapeOps.contains(node.op_type()))
      fail_node(node, "unsupported op type '" + node.op_type() +
                          "' (docs/WORKLOADS.md lists "
                          "the ops the importer maps)");
  }
}

void Importer::choose_input() {
  auto& graph = *model_.mutable_graph();
  std::unordered_set<std::string> initializers;
  for (const auto& t : graph.initializer()) initializers.insert(t.name());
  std::vector<ValueInfoProto*> candidates;
  for (auto& v : *graph.mutable_input())
    if (!initializers.contains(v.name())) candidates.push_back(&v);
  if (candidates.empty()) fail("", "the graph has no input that is not an initializer");

  // A model exported without its weights has them as inputs too: a data input is one that some
  // node reads first (a weight is a later operand: Conv's W, Gemm's B, BatchNormalization's
  // scale), and the default data input is the first of them.
  std::unordered_set<std::string> read_first;
  for (const auto& node : graph.node())
    if (node.input_size() > 0) read_first.insert(node.input(0));
  std::vector<ValueInfoProto*> data;
  for (auto* v : candidates)
    if (read_first.contains(v->name())) data.push_back(v);
  if (data.empty()) data = candidates;  // no node reads any of them first: all of them
  const std::size_t weights = candidates.size() - data.size();
  std::string names;
  for (const auto* v : data) names += (names.empty() ? "" : ", ") + v->name();
  ValueInfoProto* input = data.front();
  if (weights > 0)
    names +=
        "; " + std::to_string(weights) + (weights == 1 ? " more is a weight" : " more are weights");
  const InputShape* given = nullptr;
  for (const auto& o : overrides_) {
    if (!o.name) continue;
    const auto it = std::find_if(candidates.begin(), candidates.end(),
                                 [&](const ValueInfoProto* v) { return v->name() == *o.name; });
    if (it == candidates.end())
      throw InputError(std::nullopt, "--input-shape",
                       "the model has no input '" + *o.name + "' (inputs: " + names + ")");
    if (given && given->name != o.name)
      throw InputError(std::nullopt, "--input-shape",
                       "shapes for two inputs ('" + *given->name + "', '" + *o.name +
                           "'); the importer takes one data input");
    given = &o;
    input = *it;
  }
  for (const auto& o : overrides_)
    if (!o.name) given = &o;  // a nameless shape sets the data input (the last one wins)
  input_name_ = input->name();
  const std::string key = "input '" + input_name_ + "'";
  if (!input->type().has_tensor_type()) fail(key, "not a tensor input");
  auto* tensor = input->mutable_type()->mutable_tensor_type();
  const int rank = tensor->has_shape() ? tensor->shape().dim_size() : -1;

  if (given) {
    Dims full = given->dims;
    if (rank >= 0 && static_cast<int>(full.size()) == rank - 1) full.insert(full.begin(), 1);
    if (rank >= 0 && static_cast<int>(full.size()) != rank)
      throw InputError(std::nullopt, "--input-shape",
                       "input '" + input_name_ + "' has " + std::to_string(rank) +
                           " dimensions; give " + std::to_string(rank) + " (batch first) or " +
                           std::to_string(rank - 1) + " (one sample), not " +
                           dims_text(given->dims));
    for (std::size_t i = 0; rank >= 0 && i < full.size(); ++i) {
      const auto& d = tensor->shape().dim(static_cast<int>(i));
      if (d.has_dim_value() && d.dim_value() != full[i] && i > 0)
        throw InputError(std::nullopt, "--input-shape",
                         "input '" + input_name_ + "' has dimension " + std::to_string(i) + " = " +
                             std::to_string(d.dim_value()) + " in the model, not " +
                             std::to_string(full[i]));
    }
    tensor->clear_shape();
    for (auto d : full) tensor->mutable_shape()->add_dim()->set_dim_value(d);
  } else {
    if (rank < 0)
      fail(key, "its shape is not in the model; give it with --input-shape " + input_name_ +
                    "=1x3x224x224 (batch first)");
    for (int i = 0; i < rank; ++i) {
      auto* d = tensor->mutable_shape()->mutable_dim(i);
      if (d->has_dim_value() && d->dim_value() > 0) continue;
      if (i == 0) {  // the batch: one sample
        d->set_dim_value(1);
        continue;
      }
      const std::string symbol = d->has_dim_param() ? " ('" + d->dim_param() + "')" : "";
      fail(
          key, "dimension " + std::to_string(i) + symbol +
                   " is dynamic; give the shape with --input-shape " + input_name_ + "=" + [&] {
                     std::string example = "1";
                     for (int j = 1; j < rank; ++j) {
                       const auto& dj = tensor->shape().dim(j);
                       example += "x" + (dj.has_dim_value() && dj.dim_value() > 0
                                             ? std::to_string(dj.dim_value())
                                             : std::string("N"));
                     }
                     return example;
                   }());
    }
  }
  if (tensor->shape().dim_size() == 0) fail(key, "a scalar input; the importer needs a batch");
  batch_ = tensor->shape().dim(0).dim_value();
}

void Importer::infer_shapes() {
  try {
    ::onnx::shape_inference::InferShapes(model_, ::onnx::OpSchemaRegistry::Instance(),
                                         ::onnx::ShapeInferenceOptions(false, 1, true));
  } catch (const std::exception& e) {
    std::string what = e.what();
    what = what.substr(0, what.find('\n'));
    fail("", "ONNX shape inference failed: " + what);
  }
}

void Importer::collect_shapes() {
  const auto add = [&](const ValueInfoProto& v) {
    if (!v.type().has_tensor_type() || !v.type().tensor_type().has_shape()) return;
    Dims d;
    for (const auto& dim : v.type().tensor_type().shape().dim()) {
      if (!dim.has_dim_value() || dim.dim_value() < 0) return;  // not static
      d.push_back(dim.dim_value());
    }
    dims_[v.name()] = std::move(d);
  };
  const auto& graph = model_.graph();
  for (const auto& t : graph.initializer())
    dims_[t.name()] = Dims(t.dims().begin(), t.dims().end());
  for (const auto& v : graph.input()) add(v);
  for (const auto& v : graph.value_info()) add(v);
  for (const auto& v : graph.output()) add(v);
}

Shape Importer::sample_shape(const NodeProto& node, const std::string& tensor) const {
  const auto d = dims_of(tensor);
  if (!d)
    fail_node(node, "ONNX shape inference gives no static shape for its output '" + tensor +
                        "'; give the input's shape with --input-shape");
  if (d->empty() || (*d)[0] != batch_)
    fail_node(node, "output '" + tensor + "' of shape " + dims_text(*d) +
                        " does not keep the batch dimension (" + std::to_string(batch_) +
                        ") first");
  return Shape(Dims(d->begin() + 1, d->end()));
}

Dims Importer::weight_dims(const NodeProto& node, int slot) const {
  if (node.input_size() <= slot || node.input(slot).empty())
    fail_node(node, "input " + std::to_string(slot) + " is missing");
  const std::string& name = node.input(slot);
  if (is_activation(name))
    fail_node(node, "input " + std::to_string(slot) + " ('" + name +
                        "') is computed from the data; the importer maps it as a weight only");
  const auto d = dims_of(name);
  if (!d) fail_node(node, "the shape of weight '" + name + "' is not static in the model");
  return *d;
}

void Importer::check_shape(const NodeProto& node, LayerId id) const {
  const Shape expected = sample_shape(node, node.output(0));
  if (graph_.shape(id) != expected)
    fail_node(node, "maps to a layer of shape " + to_string(graph_.shape(id)) +
                        " but ONNX infers " + to_string(expected) +
                        " (an attribute the importer does not model)");
}

struct Window {
  std::int64_t kernel = 1;
  std::int64_t stride = 1;
  std::int64_t padding = 0;
};

// A square 2-D window with equal strides, symmetric equal padding and no dilation, as the layer
// graph models it; anything else is refused by name.
Window window_of(const NodeProto& node, const Dims& kernel, const Dims& in_hw,
                 const std::function<void(const std::string&)>& refuse) {
  if (kernel.size() != 2) refuse("a " + std::to_string(kernel.size()) + "-D window (2-D only)");
  if (kernel[0] != kernel[1]) refuse("a non-square kernel " + dims_text(kernel));
  const Dims strides = ints_attribute(node, "strides").value_or(Dims{1, 1});
  if (strides.size() != 2 || strides[0] != strides[1])
    refuse("unequal strides " + dims_text(strides));
  if (const auto dil = ints_attribute(node, "dilations"))
    for (auto d : *dil)
      if (d != 1) refuse("dilation " + dims_text(*dil) + " (the layer graph models dilation 1)");
  Window w{.kernel = kernel[0], .stride = strides[0]};
  const std::string auto_pad = string_attribute(node, "auto_pad").value_or("NOTSET");
  if (auto_pad == "NOTSET") {
    const Dims pads = ints_attribute(node, "pads").value_or(Dims{0, 0, 0, 0});
    if (pads.size() != 4 ||
        !std::all_of(pads.begin(), pads.end(), [&](std::int64_t p) { return p == pads[0]; }))
      refuse("asymmetric padding " + dims_text(pads));
    w.padding = pads[0];
  } else if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
    std::int64_t pad = -1;
    for (auto in : in_hw) {
      const std::int64_t out = (in + w.stride - 1) / w.stride;
      const std::int64_t total = std::max<std::int64_t>((out - 1) * w.stride + w.kernel - in, 0);
      if (total % 2 != 0 || (pad >= 0 && pad != total / 2))
        refuse("auto_pad " + auto_pad + " with asymmetric padding");
      pad = total / 2;
    }
    w.padding = std::max<std::int64_t>(pad, 0);
  } else if (auto_pad != "VALID") {
    refuse("auto_pad '" + auto_pad + "'");
  }
  return w;
}

void Importer::map_nodes() {
  const auto& nodes = model_.graph().node();
  for (int i = 0; i < nodes.size(); ++i)
    for (const auto& in : nodes[i].input()) consumers_[in].push_back(static_cast<std::size_t>(i));
  for (const auto& t : model_.graph().initializer()) constants_[t.name()] = &t;
  for (const auto& n : nodes)
    if (n.op_type() == "Constant" && n.output_size() == 1)
      for (const auto& a : n.attribute())
        if (a.name() == "value" && a.has_t()) constants_[n.output(0)] = &a.t();
  const auto& in_dims = dims_.at(input_name_);
  act_[input_name_] =
      graph_.input(Shape(Dims(in_dims.begin() + 1, in_dims.end())), unique_name(input_name_));
  for (int i = 0; i < nodes.size(); ++i) {
    if (absorbed_.contains(static_cast<std::size_t>(i))) continue;
    try {
      map_node(nodes[i]);
    } catch (const InputError& e) {
      if (e.where()) throw;
      fail_node(nodes[i], e.problem());  // a builder's check, placed at the node
    }
  }
}

void Importer::map_node(const NodeProto& node) {
  const std::string& op = node.op_type();
  std::vector<std::string> acts;  // the inputs computed from the data
  for (const auto& in : node.input())
    if (!in.empty() && is_activation(in)) acts.push_back(in);
  if (acts.empty()) return;   // constants, weights and the shape arithmetic on them: no layer
  if (op == "Shape") return;  // its output is a constant of the (static) shapes
  if (!kLayerOps.contains(op))
    fail_node(node, "unsupported on data (the importer maps '" + op +
                        "' only in shape computations on constants)");
  if (node.output_size() == 0) fail_node(node, "has no output");
  const std::string name = unique_name(label_.at(&node));
  const std::string& out = node.output(0);
  const auto refuse = [&](const std::string& what) { fail_node(node, "unsupported: " + what); };
  const auto alias = [&](LayerId id) { act_[out] = id; };
  const auto emit = [&](LayerId id) {
    check_shape(node, id);
    act_[out] = id;
  };
  const LayerId x = act(acts.front());
  const bool x_first = !node.input().empty() && node.input(0) == acts.front();
  const auto activation = [&](Activation a) { emit(graph_.activation(x, name, a)); };

  if (op == "Identity" || op == "Dropout") return alias(x);
  if (!x_first && op != "Add" && op != "Mul" && op != "Sub" && op != "Div")
    fail_node(node, "input 0 is a constant or weight; the importer maps it as data only");

  if (op == "Conv") {
    const Dims w = weight_dims(node, 1);
    if (w.size() != 4) refuse("a " + std::to_string(w.size() - 2) + "-D convolution (2-D only)");
    const Shape& in = graph_.shape(x);
    if (in.rank() != 3) refuse("input of shape " + to_string(in) + " (needs channels x H x W)");
    const Window win = window_of(node, {w[2], w[3]}, {in[1], in[2]}, refuse);
    const std::int64_t groups = int_attribute(node, "group", 1);
    if (groups <= 0 || w[1] * groups != in[0])
      refuse("weight " + dims_text(w) + " with group " + std::to_string(groups) + " on " +
             std::to_string(in[0]) + " input channels");
    const bool bias = node.input_size() > 2 && !node.input(2).empty();
    if (bias && weight_dims(node, 2) != Dims{w[0]})
      refuse("bias of shape " + dims_text(weight_dims(node, 2)));
    return emit(graph_.conv2d(x, name,
                              {.out_channels = w[0],
                               .kernel = win.kernel,
                               .stride = win.stride,
                               .padding = win.padding,
                               .groups = groups,
                               .bias = bias}));
  }
  if (op == "BatchNormalization") {
    const Dims scale = weight_dims(node, 1);
    if (graph_.shape(x).rank() < 1 || scale != Dims{graph_.shape(x)[0]})
      refuse("scale of shape " + dims_text(scale) + " on " + to_string(graph_.shape(x)));
    return emit(graph_.batchnorm(x, name));
  }
  // Relu6 (Clip to [0, 6]) and a leaky ReLU cost what a ReLU does.
  if (op == "Relu" || op == "LeakyRelu" || op == "Clip") return activation(Activation::relu);
  if (op == "HardSwish") return activation(Activation::hardswish);
  if (op == "HardSigmoid") return activation(Activation::hardsigmoid);
  if (op == "Sigmoid") return activation(Activation::sigmoid);
  if (op == "Tanh") return activation(Activation::tanh);
  // GELU as exported before opset 20: x * 0.5 * (1 + erf(x / sqrt(2))). The erf carries the
  // cost of the whole nonlinearity; the arithmetic by constants around it is free (below).
  if (op == "Erf") return activation(Activation::gelu);
  if (op == "Softmax") return emit(graph_.softmax(x, name));
  if (op == "LayerNormalization") return emit(graph_.layernorm(x, name));

  if (op == "MaxPool" || op == "AveragePool") {
    const Shape& in = graph_.shape(x);
    if (in.rank() != 3) refuse("input of shape " + to_string(in) + " (needs channels x H x W)");
    const auto kernel = ints_attribute(node, "kernel_shape");
    if (!kernel) refuse("no kernel_shape");
    const Window win = window_of(node, *kernel, {in[1], in[2]}, refuse);
    if (int_attribute(node, "ceil_mode", 0) != 0) {
      // Ceil mode differs from floor only where a window would start in the padding; the shape
      // check below refuses the node then.
    }
    // A 1x1 window with stride 1 (an adaptive pool to the size it already has) is the identity.
    if (win.kernel == 1 && win.stride == 1 && win.padding == 0) return alias(x);
    return emit(op == "MaxPool" ? graph_.max_pool(x, name, win.kernel, win.stride, win.padding)
                                : graph_.avg_pool(x, name, win.kernel, win.stride, win.padding));
  }
  if (op == "GlobalAveragePool") return emit(graph_.global_avg_pool(x, name));

  if (op == "Add" || op == "Sub" || op == "Mul" || op == "Div") {
    if (acts.size() == 1) {
      // Scaling or shifting by a constant (GELU's halves, a normalisation): elementwise work
      // the importer leaves out, as the built-in graphs do (their cost rules fold it into the
      // neighbouring layer's kernel).
      const auto d = dims_of(out);
      if (!d || *d != dims_of(acts.front()).value_or(Dims{}))
        refuse("a constant operand that broadcasts the data to another shape");
      return alias(x);
    }
    LayerId a = act(acts[0]);
    LayerId b = act(acts[1]);
    if (op == "Mul" || op == "Div") {
      if (graph_.shape(a).elements() < graph_.shape(b).elements()) std::swap(a, b);
      return emit(graph_.mul(a, b, name));  // division costs what a product does
    }
    if (graph_.shape(a) != graph_.shape(b))
      refuse("a broadcasting " + op + " of " + to_string(graph_.shape(a)) + " and " +
             to_string(graph_.shape(b)));
    return emit(graph_.add(a, b, name));  // a difference costs what a sum does
  }
  if (op == "Concat") {
    if (acts.size() != static_cast<std::size_t>(node.input_size()))
      refuse("concatenation of data with a constant");
    std::vector<LayerId> xs;
    for (const auto& in : acts) xs.push_back(act(in));
    const auto rank = static_cast<std::int64_t>(graph_.shape(x).rank()) + 1;
    std::int64_t axis = int_attribute(node, "axis", 0);
    if (axis < 0) axis += rank;
    if (axis <= 0 || axis >= rank) refuse("concatenation along the batch dimension");
    return emit(graph_.concat(xs, name, static_cast<std::size_t>(axis - 1)));
  }
  if (op == "Flatten" || op == "Reshape" || op == "Squeeze" || op == "Unsqueeze" ||
      op == "Transpose") {
    if (acts.size() != 1) refuse("a shape computed from the data");
    const Shape shape = sample_shape(node, out);
    if (op == "Flatten" && shape.rank() == 1) return emit(graph_.flatten(x, name));
    return emit(graph_.reshape(x, name, shape));
  }
  if (op == "Slice") {
    // A slice of one per-sample axis (torch's x[:, a:b]): a view, as the layer graph's channel
    // slice. Its bounds must be constants (they are in any traced export).
    if (acts.size() != 1) refuse("slice bounds computed from the data");
    const Shape shape = sample_shape(node, out);
    const Shape& in = graph_.shape(x);
    std::size_t differing = 0;
    for (std::size_t d = 0; d < in.rank() && shape.rank() == in.rank(); ++d)
      differing += shape[d] != in[d] ? 1 : 0;
    if (shape.rank() != in.rank() || differing > 1) refuse("a slice of more than one axis");
    if (differing == 0) return alias(x);
    if (shape[0] == in[0]) refuse("a slice of an axis other than the first of a sample");
    const auto starts = node.input_size() > 1 ? constant_ints(node.input(1)) : std::nullopt;
    const auto steps = node.input_size() > 4 ? constant_ints(node.input(4)) : std::nullopt;
    if (!starts || starts->size() != 1) refuse("slice bounds that are not one constant");
    if (steps && (steps->size() != 1 || (*steps)[0] != 1)) refuse("a slice with a step");
    std::int64_t begin = (*starts)[0];
    if (begin < 0) begin += in[0];
    begin = std::clamp<std::int64_t>(begin, 0, in[0]);
    return emit(graph_.slice_channels(x, name, begin, shape[0]));
  }
  if (op == "Gemm") {
    if (int_attribute(node, "transA", 0) != 0) refuse("transA");
    if (acts.size() != 1) refuse("a product of two data tensors");
    const Dims w = weight_dims(node, 1);
    if (w.size() != 2) refuse("weight of shape " + dims_text(w));
    const bool trans_b = int_attribute(node, "transB", 0) != 0;
    const std::int64_t k = trans_b ? w[1] : w[0];
    const std::int64_t n = trans_b ? w[0] : w[1];
    if (graph_.shape(x).rank() != 1 || graph_.shape(x)[0] != k)
      refuse("weight " + dims_text(w) + " on input " + to_string(graph_.shape(x)));
    const bool bias = node.input_size() > 2 && !node.input(2).empty();
    return emit(graph_.linear(x, name, n, bias));
  }
  if (op == "MatMul") {
    if (acts.size() != 1)
      refuse("a product of two data tensors (attention); the importer maps MatMul by a weight");
    const Dims w = weight_dims(node, 1);
    if (w.size() != 2 || graph_.shape(x).rank() < 1 || graph_.shape(x).dims.back() != w[0])
      refuse("weight " + dims_text(w) + " on input " + to_string(graph_.shape(x)));
    // A bias Add right after (PyTorch's Linear on more than two dimensions) is the linear's bias.
    bool bias = false;
    const auto& uses = consumers_[out];
    if (uses.size() == 1) {
      const auto& next = model_.graph().node(static_cast<int>(uses.front()));
      if (next.op_type() == "Add" && next.input_size() == 2) {
        const std::string& other = next.input(0) == out ? next.input(1) : next.input(0);
        if (!is_activation(other) && dims_of(other) == Dims{w[1]}) {
          bias = true;
          absorbed_.insert(uses.front());
        }
      }
    }
    const LayerId id = graph_.linear(x, name, w[1], bias);
    check_shape(node, id);
    act_[out] = id;
    if (bias) {
      const auto& next = model_.graph().node(static_cast<int>(uses.front()));
      act_[next.output(0)] = id;
    }
    return;
  }
  fail_node(node, "unsupported on data");
}

OnnxImport Importer::run(std::string_view bytes) {
  parse(bytes);
  check_ops();
  check_model();
  choose_input();
  infer_shapes();
  collect_shapes();
  map_nodes();
  OnnxImport result;
  const auto& in = model_.graph().input();
  const auto it = std::find_if(in.begin(), in.end(),
                               [&](const ValueInfoProto& v) { return v.name() == input_name_; });
  result.input_bytes_per_sample =
      element_bytes(it->type().tensor_type().elem_type()) * graph_.shape(0).elements();
  result.graph = std::move(graph_);
  result.input_name = input_name_;
  result.producer = model_.producer_name() +
                    (model_.producer_version().empty() ? "" : " " + model_.producer_version());
  result.opset = opset_;
  result.nodes = static_cast<std::size_t>(model_.graph().node_size());
  return result;
}

}  // namespace

OnnxImport import_onnx_model(std::string_view bytes, const std::string& source,
                             const std::vector<InputShape>& shapes) {
  return Importer(source, shapes).run(bytes);
}

}  // namespace fulcrum::models
