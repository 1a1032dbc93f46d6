#include "models/workload/workload_file.hpp"

#include <boost/range/iterator_range.hpp>
#include <charconv>
#include <cmath>
#include <functional>
#include <set>
#include <sstream>
#include <utility>

#include "models/error.hpp"

namespace fulcrum::models {

namespace {

constexpr std::pair<const char*, double> kDtypes[] = {
    {"float32", 4}, {"float16", 2}, {"bfloat16", 2}, {"int64", 8}, {"int32", 4}, {"uint8", 1}};

constexpr std::pair<Activation, const char*> kActivations[] = {
    {Activation::relu, "relu"},
    {Activation::hardswish, "hardswish"},
    {Activation::hardsigmoid, "hardsigmoid"},
    {Activation::sigmoid, "sigmoid"},
    {Activation::silu, "silu"},
    {Activation::gelu, "gelu"},
    {Activation::tanh, "tanh"}};

// A name written as a plain YAML scalar where that reads back as the same string, else quoted.
std::string yaml_string(std::string_view s) {
  static const std::set<std::string, std::less<>> kReserved = {"true", "false", "yes", "no",   "on",
                                                               "off",  "y",     "n",   "null", "~"};
  bool plain = !s.empty() && (std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_');
  for (char c : s) {
    const auto u = static_cast<unsigned char>(c);
    plain = plain && (std::isalnum(u) || c == '_' || c == '.' || c == '-' || c == '/');
  }
  if (plain) {
    std::string lower;
    for (char c : s) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    plain = !kReserved.contains(lower);
  }
  if (plain) return std::string(s);
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

// A count as the shortest text that reads back as the same double (integers without a point).
std::string number(double v) {
  if (std::floor(v) == v && std::fabs(v) < 9007199254740992.0) {
    return std::to_string(static_cast<long long>(v));
  }
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}

std::string shape_text(const Shape& s) {
  std::string out = "[";
  for (std::size_t i = 0; i < s.dims.size(); ++i) {
    if (i > 0) out += ", ";
    out += std::to_string(s.dims[i]);
  }
  return out + "]";
}

bool same_geometry(const LayerGeometry& a, const LayerGeometry& b) {
  return a.kernel == b.kernel && a.stride == b.stride && a.padding == b.padding &&
         a.groups == b.groups && a.bias == b.bias && a.max_pool == b.max_pool &&
         a.attention_scaling == b.attention_scaling && a.axis == b.axis &&
         a.activation == b.activation;
}

// Everything but the name.
bool same_layer(const Layer& a, const Layer& b) {
  return a.kind == b.kind && a.out == b.out && a.params == b.params &&
         a.param_tensors == b.param_tensors && a.macs == b.macs &&
         a.elementwise_ops == b.elementwise_ops && a.kernels == b.kernels &&
         a.grouped == b.grouped && a.weight_read_bytes == b.weight_read_bytes &&
         a.reread_bytes == b.reread_bytes && a.reread_footprint_bytes == b.reread_footprint_bytes &&
         a.gathered_bytes == b.gathered_bytes && same_geometry(a.geometry, b.geometry);
}

// One builder call: its `op` and parameters as file text, and the call itself for the check.
struct BuilderCall {
  std::string op;
  std::string params;  // ", key: value, ..." (empty or starting with a comma)
  std::function<LayerId(LayerGraph&, const std::vector<LayerId>&)> make;
};

std::optional<BuilderCall> builder_call(const Layer& l, const std::vector<Shape>& in) {
  const LayerGeometry& g = l.geometry;
  const std::string name = l.name;
  const std::size_t n = in.size();
  switch (l.kind) {
    case OpKind::conv: {
      if (n != 1 || l.out.rank() != 3) return std::nullopt;
      const Conv2dOptions o{.out_channels = l.out[0],
                            .kernel = g.kernel,
                            .stride = g.stride,
                            .padding = g.padding,
                            .groups = g.groups,
                            .bias = g.bias};
      std::string p = ", out_channels: " + std::to_string(o.out_channels) +
                      ", kernel: " + std::to_string(o.kernel);
      if (o.stride != 1) p += ", stride: " + std::to_string(o.stride);
      if (o.padding != 0) p += ", padding: " + std::to_string(o.padding);
      if (o.groups != 1) p += ", groups: " + std::to_string(o.groups);
      if (o.bias) p += ", bias: true";
      return BuilderCall{"conv2d", p, [=](LayerGraph& s, const std::vector<LayerId>& x) {
                           return s.conv2d(x[0], name, o);
                         }};
    }
    case OpKind::bn:
      if (n != 1) return std::nullopt;
      return BuilderCall{"batchnorm", "", [=](LayerGraph& s, const std::vector<LayerId>& x) {
                           return s.batchnorm(x[0], name);
                         }};
    case OpKind::layernorm:
      if (n != 1) return std::nullopt;
      return BuilderCall{"layernorm", "", [=](LayerGraph& s, const std::vector<LayerId>& x) {
                           return s.layernorm(x[0], name);
                         }};
    case OpKind::act: {
      if (n != 1) return std::nullopt;
      const Activation a = g.activation;
      return BuilderCall{"activation", std::string(", function: ") + to_string(a),
                         [=](LayerGraph& s, const std::vector<LayerId>& x) {
                           return s.activation(x[0], name, a);
                         }};
    }
    case OpKind::pool: {
      if (n != 1) return std::nullopt;
      if (g.kernel == 0) {
        return BuilderCall{"global_avg_pool", "",
                           [=](LayerGraph& s, const std::vector<LayerId>& x) {
                             return s.global_avg_pool(x[0], name);
                           }};
      }
      const auto k = g.kernel, st = g.stride, pad = g.padding;
      std::string p = ", kernel: " + std::to_string(k) + ", stride: " + std::to_string(st);
      if (pad != 0) p += ", padding: " + std::to_string(pad);
      if (g.max_pool) {
        return BuilderCall{"max_pool", p, [=](LayerGraph& s, const std::vector<LayerId>& x) {
                             return s.max_pool(x[0], name, k, st, pad);
                           }};
      }
      return BuilderCall{"avg_pool", p, [=](LayerGraph& s, const std::vector<LayerId>& x) {
                           return s.avg_pool(x[0], name, k, st, pad);
                         }};
    }
    case OpKind::add:
      if (n != 2) return std::nullopt;
      return BuilderCall{"add", "", [=](LayerGraph& s, const std::vector<LayerId>& x) {
                           return s.add(x[0], x[1], name);
                         }};
    case OpKind::mul:
      if (n != 2) return std::nullopt;
      return BuilderCall{"mul", "", [=](LayerGraph& s, const std::vector<LayerId>& x) {
                           return s.mul(x[0], x[1], name);
                         }};
    case OpKind::concat: {
      if (n == 0) return std::nullopt;
      const std::size_t axis = g.axis;
      return BuilderCall{
          "concat", axis != 0 ? ", axis: " + std::to_string(axis) : "",
          [=](LayerGraph& s, const std::vector<LayerId>& x) { return s.concat(x, name, axis); }};
    }
    case OpKind::upsample: {
      if (n != 1 || in[0].rank() != 3 || l.out.rank() != 3 || in[0][1] <= 0) return std::nullopt;
      const auto scale = l.out[1] / in[0][1];
      return BuilderCall{"upsample", ", scale: " + std::to_string(scale),
                         [=](LayerGraph& s, const std::vector<LayerId>& x) {
                           return s.upsample(x[0], name, scale);
                         }};
    }
    case OpKind::softmax: {
      if (n != 1) return std::nullopt;
      const bool scaling = g.attention_scaling;
      return BuilderCall{"softmax", scaling ? ", attention_scaling: true" : "",
                         [=](LayerGraph& s, const std::vector<LayerId>& x) {
                           return s.softmax(x[0], name, scaling);
                         }};
    }
    case OpKind::linear: {
      if (n != 1 || l.out.rank() == 0) return std::nullopt;
      const auto features = l.out.dims.back();
      const bool bias = g.bias;
      return BuilderCall{
          "linear", ", out_features: " + std::to_string(features) + (bias ? "" : ", bias: false"),
          [=](LayerGraph& s, const std::vector<LayerId>& x) {
            return s.linear(x[0], name, features, bias);
          }};
    }
    case OpKind::embedding: {
      if (n != 1 || l.out.rank() != 2 || l.out[1] <= 0) return std::nullopt;
      const auto dim = l.out[1];
      const auto vocab = static_cast<std::int64_t>(l.params / static_cast<double>(dim));
      return BuilderCall{"embedding",
                         ", vocab: " + std::to_string(vocab) + ", dim: " + std::to_string(dim),
                         [=](LayerGraph& s, const std::vector<LayerId>& x) {
                           return s.embedding(x[0], name, vocab, dim);
                         }};
    }
    case OpKind::lstm: {
      if (n != 1 || l.out.rank() != 2) return std::nullopt;
      const auto hidden = l.out[1];
      return BuilderCall{
          "lstm", ", hidden: " + std::to_string(hidden),
          [=](LayerGraph& s, const std::vector<LayerId>& x) { return s.lstm(x[0], name, hidden); }};
    }
    case OpKind::view: {
      if (n != 1) return std::nullopt;
      if (l.out.rank() == 1 && in[0].rank() != 1) {
        return BuilderCall{"flatten", "", [=](LayerGraph& s, const std::vector<LayerId>& x) {
                             return s.flatten(x[0], name);
                           }};
      }
      const Shape out = l.out;
      return BuilderCall{
          "reshape", ", shape: " + shape_text(out),
          [=](LayerGraph& s, const std::vector<LayerId>& x) { return s.reshape(x[0], name, out); }};
    }
    case OpKind::input:
    case OpKind::matmul:
      return std::nullopt;
  }
  return std::nullopt;
}

// Whether `call`, replayed on inputs of the same shapes, gives `l` exactly.
bool replays(const BuilderCall& call, const Layer& l, const std::vector<Shape>& in) {
  try {
    LayerGraph scratch;
    std::vector<LayerId> ids;
    ids.push_back(scratch.input(in[0]));
    for (std::size_t i = 1; i < in.size(); ++i) {
      Layer stand_in;
      stand_in.name = "in" + std::to_string(i);
      stand_in.out = in[i];
      ids.push_back(scratch.raw({}, stand_in));
    }
    return same_layer(scratch.layer(call.make(scratch, ids)), l);
  } catch (const InputError&) {
    return false;
  }
}

// The `raw` parameters of `l`: every field that differs from the reader's default.
std::string raw_params(const Layer& l) {
  std::string p = std::string(", kind: ") + to_string(l.kind) + ", shape: " + shape_text(l.out);
  if (l.params != 0) p += ", params: " + number(l.params);
  if (l.param_tensors != (l.params > 0 ? 1 : 0))
    p += ", param_tensors: " + std::to_string(l.param_tensors);
  if (l.macs != 0) p += ", macs: " + number(l.macs);
  if (l.elementwise_ops != 0) p += ", elementwise_ops: " + number(l.elementwise_ops);
  if (l.kernels != (l.kind == OpKind::view ? 0 : 1)) p += ", kernels: " + number(l.kernels);
  if (l.grouped) p += ", grouped: true";
  if (l.weight_read_bytes != 4 * l.params) p += ", weight_bytes: " + number(l.weight_read_bytes);
  if (l.reread_bytes != 0) p += ", reread_bytes: " + number(l.reread_bytes);
  if (l.reread_footprint_bytes != 0)
    p += ", reread_footprint_bytes: " + number(l.reread_footprint_bytes);
  if (l.gathered_bytes != 0) p += ", gathered_bytes: " + number(l.gathered_bytes);
  const LayerGeometry d;
  const LayerGeometry& g = l.geometry;
  if (g.kernel != d.kernel) p += ", kernel: " + std::to_string(g.kernel);
  if (g.stride != d.stride) p += ", stride: " + std::to_string(g.stride);
  if (g.padding != d.padding) p += ", padding: " + std::to_string(g.padding);
  if (g.groups != d.groups) p += ", groups: " + std::to_string(g.groups);
  if (g.bias) p += ", bias: true";
  if (g.max_pool) p += ", max_pool: true";
  if (g.attention_scaling) p += ", attention_scaling: true";
  if (g.axis != d.axis) p += ", axis: " + std::to_string(g.axis);
  if (g.activation != d.activation) p += std::string(", function: ") + to_string(g.activation);
  return p;
}

}  // namespace

std::optional<double> dtype_bytes(std::string_view dtype) {
  for (const auto& [name, bytes] : kDtypes) {
    if (dtype == name) return bytes;
  }
  return std::nullopt;
}

const char* to_string(Activation a) {
  for (const auto& [act, name] : kActivations) {
    if (act == a) return name;
  }
  return "relu";
}

std::optional<Activation> activation_from_string(std::string_view name) {
  for (const auto& [act, n] : kActivations) {
    if (name == n) return act;
  }
  return std::nullopt;
}

std::optional<OpKind> op_kind_from_string(std::string_view name) {
  for (int k = 0; k < kOpKindCount; ++k) {
    if (name == to_string(static_cast<OpKind>(k))) return static_cast<OpKind>(k);
  }
  return std::nullopt;
}

std::string write_workload_file(const GraphWorkload& workload, const WorkloadFileOptions& options) {
  const LayerGraph& graph = workload.layers();
  const Graph& g = graph.graph();
  if (graph.size() == 0 || graph.layer(0).kind != OpKind::input)
    throw InputError("workload '" + workload.name() + "': the first layer must be the input");

  std::ostringstream out;
  if (!options.comment.empty()) {
    std::istringstream lines(options.comment);
    for (std::string line; std::getline(lines, line);) out << "# " << line << "\n";
  }
  out << "version: " << kWorkloadFileVersion << "\n";
  out << "name: " << yaml_string(workload.name()) << "\n";
  out << "task: " << yaml_string(workload.task()) << "\n";
  const std::vector<Phase>& phases = options.phases ? *options.phases : workload.use().phases;
  out << "phases: [";
  for (std::size_t i = 0; i < phases.size(); ++i)
    out << (i > 0 ? ", " : "") << to_string(phases[i]);
  out << "]\n";
  const std::optional<std::string>& dataset =
      options.dataset ? options.dataset : workload.use().dataset;
  if (dataset) out << "dataset: " << yaml_string(*dataset) << "\n";
  if (!workload.note().empty()) out << "note: " << yaml_string(workload.note()) << "\n";

  const Layer& input = graph.layer(0);
  out << "input: {name: " << yaml_string(input.name) << ", shape: " << shape_text(input.out);
  const double elements = input.out.elements();
  std::optional<std::string> dtype;
  for (const auto& [name, bytes] : kDtypes) {
    if (!dtype && bytes * elements == workload.input_bytes_per_sample()) dtype = name;
  }
  if (dtype) {
    out << ", dtype: " << *dtype << "}\n";
  } else {
    out << ", bytes_per_sample: " << number(workload.input_bytes_per_sample()) << "}\n";
  }

  std::set<std::string, std::less<>> names;
  out << "layers:\n";
  for (LayerId v = 0; v < graph.size(); ++v) {
    const Layer& l = graph.layer(v);
    if (l.name.empty()) throw InputError("workload '" + workload.name() + "': a layer has no name");
    if (!names.insert(l.name).second)
      throw InputError("workload '" + workload.name() + "': layer name '" + l.name +
                       "' appears twice (a workload file names inputs by layer name)");
    if (v == 0) continue;
    if (l.kind == OpKind::input)
      throw InputError("workload '" + workload.name() + "': layer '" + l.name +
                       "' is a second input");

    std::vector<LayerId> from;
    std::vector<Shape> in;
    for (auto e : boost::make_iterator_range(boost::in_edges(v, g))) {
      from.push_back(boost::source(e, g));
      in.push_back(g[from.back()].out);
    }
    out << "  - {name: " << yaml_string(l.name);
    std::optional<BuilderCall> call = builder_call(l, in);
    if (call && !replays(*call, l, in)) call.reset();
    out << ", op: " << (call ? call->op : "raw");
    if (!(from.size() == 1 && from[0] == v - 1)) {
      out << ", inputs: [";
      for (std::size_t i = 0; i < from.size(); ++i)
        out << (i > 0 ? ", " : "") << yaml_string(g[from[i]].name);
      out << "]";
    }
    out << (call ? call->params : raw_params(l)) << "}\n";
  }
  return out.str();
}

}  // namespace fulcrum::models
