#include "sim/config/workload_file_loader.hpp"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <utility>

#include "models/error.hpp"
#include "models/workload/dataset_catalog.hpp"
#include "models/workload/layer_graph.hpp"
#include "models/workload/workload_catalog.hpp"
#include "models/workload/workload_file.hpp"
#include "sim/config/input_text.hpp"
#include "sim/config/yaml_support.hpp"

namespace fulcrum::sim {

namespace {

using models::Activation;
using models::LayerGraph;
using models::LayerId;
using models::OpKind;
using models::Shape;

// Sizes: every dimension, channel count, kernel... at most 2^30, so that the builders' integer
// arithmetic (padding, upsampling, concatenation of up to kMaxInputs tensors) cannot overflow;
// a layer's output has at most kMaxRank dimensions and kMaxElements elements per sample.
constexpr long long kMaxSize = 1LL << 30;
constexpr std::size_t kMaxRank = 6;
constexpr double kMaxElements = 1e12;
constexpr std::size_t kMaxInputs = 1024;
constexpr std::size_t kMaxLayers = 100000;
constexpr std::size_t kMaxNameBytes = 256;
// Raw counts (MACs, bytes, ...) per sample or per minibatch: finite and at most this.
constexpr double kMaxCount = 1e18;

// The keys every layer may have, and those of each op (besides them).
struct OpKeys {
  std::string_view op;
  std::vector<std::string_view> keys;
};
const std::vector<OpKeys>& op_table() {
  static const std::vector<OpKeys> table = {
      {"conv2d", {"out_channels", "kernel", "stride", "padding", "groups", "bias"}},
      {"batchnorm", {}},
      {"layernorm", {}},
      {"activation", {"function"}},
      {"max_pool", {"kernel", "stride", "padding"}},
      {"avg_pool", {"kernel", "stride", "padding"}},
      {"global_avg_pool", {}},
      {"upsample", {"scale"}},
      {"slice_channels", {"begin", "count"}},
      {"concat", {"axis"}},
      {"add", {}},
      {"mul", {}},
      {"flatten", {}},
      {"reshape", {"shape"}},
      {"softmax", {"attention_scaling"}},
      {"linear", {"out_features", "bias"}},
      {"embedding", {"vocab", "dim"}},
      {"lstm", {"hidden"}},
      {"squeeze_excite", {"squeeze_channels"}},
      {"multi_head_attention", {"heads"}},
      {"transformer_encoder", {"heads", "ffn_dim"}},
      {"raw",
       {"kind",
        "shape",
        "params",
        "param_tensors",
        "macs",
        "elementwise_ops",
        "kernels",
        "grouped",
        "weight_bytes",
        "reread_bytes",
        "reread_footprint_bytes",
        "gathered_bytes",
        "kernel",
        "stride",
        "padding",
        "groups",
        "bias",
        "max_pool",
        "attention_scaling",
        "axis",
        "function"}},
  };
  return table;
}
constexpr std::string_view kLayerKeys[] = {"name", "op", "inputs"};

std::string join(const std::vector<std::string_view>& items) {
  std::string out;
  for (auto i : items) out.append(out.empty() ? "" : ", ").append(i);
  return out;
}

long long int_in(const YamlNode& n, long long lo, long long hi) {
  const long long v = n.as_int();
  if (v < lo || v > hi) {
    n.fail("must be an integer in " + std::to_string(lo) + ".." + std::to_string(hi) + ", got " +
           std::to_string(v));
  }
  return v;
}

long long int_or(const YamlNode& layer, std::string_view key, long long fallback, long long lo,
                 long long hi = kMaxSize) {
  const auto n = layer.optional(key);
  return n ? int_in(*n, lo, hi) : fallback;
}

bool bool_or(const YamlNode& layer, std::string_view key, bool fallback) {
  const auto n = layer.optional(key);
  return n ? n->as_bool() : fallback;
}

double count_or(const YamlNode& layer, std::string_view key, double fallback) {
  const auto n = layer.optional(key);
  if (!n) return fallback;
  const double v = n->as_nonnegative_double();
  if (v > kMaxCount) n->fail("must be at most 1e18, got " + printable(n->raw().Scalar()));
  return v;
}

// A name: printable (checked when read), non-empty, at most kMaxNameBytes.
std::string read_name(const YamlNode& n) {
  std::string s = n.as_string();
  if (s.empty()) n.fail("must not be empty");
  if (s.size() > kMaxNameBytes)
    n.fail("must be at most " + std::to_string(kMaxNameBytes) + " bytes long, got " +
           std::to_string(s.size()));
  return s;
}

// The workload's own name: a catalog name, so letters, digits, '-', '_', '.', and not a file name.
std::string read_workload_name(const YamlNode& n) {
  std::string s = read_name(n);
  const bool ok = std::all_of(s.begin(), s.end(),
                              [](char c) {
                                return std::isalnum(static_cast<unsigned char>(c)) != 0 ||
                                       c == '-' || c == '_' || c == '.';
                              }) &&
                  std::isalnum(static_cast<unsigned char>(s[0])) != 0;
  if (!ok)
    n.fail("'" + s +
           "' is not a valid workload name (letters, digits, '-', '_', '.'; starting "
           "with a letter or digit)");
  if (names_workload_file(s)) n.fail("a workload name cannot end in .yaml or .yml");
  return s;
}

// A shape: a list of 1..kMaxRank positive sizes; with allow_infer one of them may be -1.
Shape read_shape(const YamlNode& n, bool allow_infer = false) {
  n.expect_sequence();
  if (n.size() == 0 || n.size() > kMaxRank)
    n.fail("must have 1 to " + std::to_string(kMaxRank) + " dimensions, got " +
           std::to_string(n.size()));
  Shape s;
  bool inferred = false;
  for (std::size_t i = 0; i < n.size(); ++i) {
    const YamlNode d = n.at(i);
    const long long v = d.as_int();
    if (allow_infer && v == -1 && !inferred) {
      inferred = true;
      s.dims.push_back(-1);
      continue;
    }
    if (v < 1 || v > kMaxSize)
      d.fail("a dimension must be an integer in 1.." + std::to_string(kMaxSize) +
             (allow_infer ? " (or -1 once, for the size that keeps the elements)" : "") + ", got " +
             std::to_string(v));
    s.dims.push_back(v);
  }
  if (s.elements() > kMaxElements && !inferred) n.fail("has more than 1e12 elements per sample");
  return s;
}

Activation read_activation(const YamlNode& n) {
  const std::string s = n.as_string();
  if (auto a = models::activation_from_string(s)) return *a;
  n.fail("unknown function '" + printable(s) +
         "' (known: relu, hardswish, hardsigmoid, sigmoid, silu, gelu, tanh)");
}

models::Phase read_phase(const YamlNode& n) {
  const std::string s = n.as_string();
  if (s == "training") return models::Phase::training;
  if (s == "inference") return models::Phase::inference;
  n.fail("unknown phase '" + printable(s) + "' (known: training, inference)");
}

class Reader {
 public:
  explicit Reader(const YamlNode& root) : root_(root) {}

  WorkloadFile read(const std::string& display_name,
                    const std::optional<std::string>& expected_name = std::nullopt) {
    root_.expect_map();
    root_.allow_keys({"version", "name", "task", "phases", "dataset", "note", "input", "layers"});
    if (auto v = root_.optional("version")) {
      if (v->as_int() != models::kWorkloadFileVersion)
        v->fail("unsupported version " + printable(v->raw().Scalar()) + " (this build reads " +
                std::to_string(models::kWorkloadFileVersion) + ")");
    }
    const std::string name = read_workload_name(root_.required("name"));
    if (expected_name && name != *expected_name)
      root_.required("name").fail("is '" + name + "', but a workload file in the data folder is " +
                                  "named after its workload: rename the file or the workload to '" +
                                  *expected_name + "'");
    const std::string task = root_.has("task") ? read_name(root_.required("task")) : "custom";
    std::string note;
    if (auto n = root_.optional("note")) note = n->as_string();

    std::vector<models::Phase> phases = {models::Phase::training, models::Phase::inference};
    if (auto p = root_.optional("phases")) {
      p->expect_sequence();
      if (p->size() == 0) p->fail("must name at least one phase (training, inference)");
      phases.clear();
      for (std::size_t i = 0; i < p->size(); ++i) {
        const models::Phase phase = read_phase(p->at(i));
        if (std::find(phases.begin(), phases.end(), phase) != phases.end())
          p->at(i).fail(std::string("phase '") + models::to_string(phase) + "' given twice");
        phases.push_back(phase);
      }
    }
    std::optional<std::string> dataset;
    if (auto d = root_.optional("dataset")) {
      dataset = read_name(*d);
      try {
        models::dataset(*dataset);
      } catch (const InputError& e) {
        d->fail(e.problem());
      }
    }

    const double input_bytes = read_input(root_.required("input"));
    read_layers(root_.required("layers"));
    models::GraphWorkload workload(name, task, std::move(graph_), input_bytes, note,
                                   {.phases = phases, .dataset = dataset});
    return WorkloadFile{std::move(workload), std::move(phases), std::move(dataset), display_name};
  }

 private:
  double read_input(const YamlNode& n) {
    n.expect_map();
    n.allow_keys({"name", "shape", "dtype", "bytes_per_sample"});
    const std::string name = n.has("name") ? read_name(n.required("name")) : "input";
    const Shape shape = read_shape(n.required("shape"));
    graph_.input(shape, name);
    names_.emplace(name, 0);
    if (n.has("dtype") && n.has("bytes_per_sample"))
      n.required("bytes_per_sample").fail("give dtype or bytes_per_sample, not both");
    if (auto b = n.optional("bytes_per_sample")) {
      const double v = b->as_positive_double();
      if (v > kMaxCount) b->fail("must be at most 1e18");
      return v;
    }
    std::string dtype = "float32";
    if (auto d = n.optional("dtype")) dtype = d->as_string();
    const std::optional<double> bytes = models::dtype_bytes(dtype);
    if (!bytes)
      n.required("dtype").fail("unknown dtype '" + printable(dtype) +
                               "' (known: float32, float16, bfloat16, int64, int32, uint8)");
    return *bytes * shape.elements();
  }

  void read_layers(const YamlNode& layers) {
    layers.expect_sequence();
    if (layers.size() == 0) layers.fail("must list at least one layer");
    if (layers.size() > kMaxLayers)
      layers.fail("has " + std::to_string(layers.size()) + " layers, more than " +
                  std::to_string(kMaxLayers));
    // Every name the file gives, with its position, to tell a forward reference from a typo.
    for (std::size_t i = 0; i < layers.size(); ++i) {
      const YamlNode l = layers.at(i);
      if (l.is_map() && l.has("name") && l.required("name").is_scalar())
        declared_.emplace(l.required("name").raw().Scalar(), i);
    }
    double kernels = 0;
    for (std::size_t i = 0; i < layers.size(); ++i) {
      const std::size_t before = graph_.size();
      read_layer(layers.at(i), i);
      for (LayerId v = before; v < graph_.size(); ++v) kernels += graph_.layer(v).kernels;
    }
    // A minibatch that launches nothing would take no time: a run of it would never end.
    if (!(kernels > 0)) layers.fail("no layer launches a kernel (all views?): nothing to run");
  }

  void check_keys(const YamlNode& l, const OpKeys& op) {
    for (const std::string& key : l.keys()) {
      const bool common =
          std::find(std::begin(kLayerKeys), std::end(kLayerKeys), key) != std::end(kLayerKeys);
      if (common || std::find(op.keys.begin(), op.keys.end(), key) != op.keys.end()) continue;
      std::vector<std::string_view> allowed(std::begin(kLayerKeys), std::end(kLayerKeys));
      allowed.insert(allowed.end(), op.keys.begin(), op.keys.end());
      l.required(key).fail("unknown key '" + printable(key) + "' for op " + std::string(op.op) +
                           " (allowed: " + join(allowed) + ")");
    }
  }

  // The layers `l` reads: its `inputs` (a name or a list of names), else the layer before it.
  std::vector<LayerId> read_inputs(const YamlNode& l, std::size_t index) {
    const auto n = l.optional("inputs");
    if (!n) return {previous_};
    std::vector<YamlNode> items;
    if (n->is_sequence()) {
      if (n->size() > kMaxInputs) n->fail("more than " + std::to_string(kMaxInputs) + " inputs");
      for (std::size_t i = 0; i < n->size(); ++i) items.push_back(n->at(i));
    } else if (n->is_scalar()) {
      items.push_back(*n);
    } else {
      n->fail("expected a layer name or a list of layer names");
    }
    std::vector<LayerId> ids;
    for (const YamlNode& item : items) {
      const std::string name = item.as_string();
      const auto it = names_.find(name);
      if (it != names_.end()) {
        ids.push_back(it->second);
        continue;
      }
      const auto later = declared_.find(name);
      if (later != declared_.end() && later->second >= index) {
        item.fail(
            "layer '" + printable(name) +
            (later->second == index ? "' is this layer itself" : "' comes later in the file") +
            " (a layer reads only layers listed before it, so the graph has no cycle)");
      }
      item.fail("unknown layer '" + printable(name) + "' (not the input nor a layer above)");
    }
    return ids;
  }

  void read_layer(const YamlNode& l, std::size_t index) {
    l.expect_map();
    const YamlNode name_node = l.required("name");
    const std::string name = read_name(name_node);
    if (names_.contains(name)) name_node.fail("layer name '" + printable(name) + "' is used twice");
    const YamlNode op_node = l.required("op");
    const std::string op = op_node.as_string();
    const auto& table = op_table();
    const auto entry =
        std::find_if(table.begin(), table.end(), [&](const OpKeys& k) { return k.op == op; });
    if (entry == table.end()) {
      std::vector<std::string_view> known;
      for (const auto& k : table) known.push_back(k.op);
      op_node.fail("unknown op '" + printable(op) + "' (known: " + join(known) + ")");
    }
    check_keys(l, *entry);
    const std::vector<LayerId> in = read_inputs(l, index);
    const std::size_t before = graph_.size();
    LayerId id = 0;
    try {
      id = build(l, op, name, in);
    } catch (const InputError& e) {
      if (e.where()) throw;  // located at one of the layer's keys already
      l.fail(e.problem());   // a builder's: the layer's inputs do not suit it
    }
    // Every layer made (a block makes several) has a name of its own; the block's name stands
    // for its output.
    for (LayerId v = before; v < graph_.size(); ++v) {
      const std::string& made = graph_.layer(v).name;
      if (made != name && (names_.contains(made) || declared_.contains(made)))
        l.fail("the layer '" + printable(made) + "' this " + op +
               " makes has the name of another layer");
      names_.emplace(made, v);
      const Shape& out = graph_.layer(v).out;
      const bool too_big =
          out.rank() > kMaxRank || out.elements() > kMaxElements ||
          std::any_of(out.dims.begin(), out.dims.end(), [](auto d) { return d > kMaxSize; });
      if (too_big)
        l.fail("output shape " + models::to_string(out) + " is too large (at most " +
               std::to_string(kMaxRank) + " dimensions of at most 2^30, 1e12 elements)");
    }
    names_[name] = id;
    previous_ = id;
  }

  static void need_inputs(const YamlNode& l, const std::vector<LayerId>& in, std::size_t count,
                          const std::string& op) {
    if (in.size() != count)
      l.fail(op + " takes " + std::to_string(count) + " input" + (count == 1 ? "" : "s") +
             ", got " + std::to_string(in.size()));
  }

  LayerId build(const YamlNode& l, const std::string& op, const std::string& name,
                const std::vector<LayerId>& in) {
    LayerGraph& g = graph_;
    if (op == "raw") return build_raw(l, name, in);
    if (op == "concat") {
      if (in.empty()) l.fail("concat takes at least one input");
      const auto axis = static_cast<std::size_t>(int_or(l, "axis", 0, 0, kMaxRank - 1));
      return g.concat(in, name, axis);
    }
    if (op == "add" || op == "mul") {
      need_inputs(l, in, 2, op);
      return op == "add" ? g.add(in[0], in[1], name) : g.mul(in[0], in[1], name);
    }
    need_inputs(l, in, 1, op);
    const LayerId x = in[0];
    if (op == "conv2d") {
      const models::Conv2dOptions o{.out_channels = int_in(l.required("out_channels"), 1, kMaxSize),
                                    .kernel = int_in(l.required("kernel"), 1, kMaxSize),
                                    .stride = int_or(l, "stride", 1, 1),
                                    .padding = int_or(l, "padding", 0, 0),
                                    .groups = int_or(l, "groups", 1, 1),
                                    .bias = bool_or(l, "bias", false)};
      return g.conv2d(x, name, o);
    }
    if (op == "batchnorm") return g.batchnorm(x, name);
    if (op == "layernorm") return g.layernorm(x, name);
    if (op == "activation") return g.activation(x, name, read_activation(l.required("function")));
    if (op == "max_pool" || op == "avg_pool") {
      const long long kernel = int_in(l.required("kernel"), 1, kMaxSize);
      const long long stride = int_or(l, "stride", kernel, 1);
      const long long padding = int_or(l, "padding", 0, 0);
      return op == "max_pool" ? g.max_pool(x, name, kernel, stride, padding)
                              : g.avg_pool(x, name, kernel, stride, padding);
    }
    if (op == "global_avg_pool") return g.global_avg_pool(x, name);
    if (op == "upsample") return g.upsample(x, name, int_in(l.required("scale"), 1, kMaxSize));
    if (op == "slice_channels")
      return g.slice_channels(x, name, int_in(l.required("begin"), 0, kMaxSize),
                              int_in(l.required("count"), 1, kMaxSize));
    if (op == "flatten") return g.flatten(x, name);
    if (op == "reshape") return g.reshape(x, name, reshape_target(l, x));
    if (op == "softmax") return g.softmax(x, name, bool_or(l, "attention_scaling", false));
    if (op == "linear")
      return g.linear(x, name, int_in(l.required("out_features"), 1, kMaxSize),
                      bool_or(l, "bias", true));
    if (op == "embedding")
      return g.embedding(x, name, int_in(l.required("vocab"), 1, kMaxSize),
                         int_in(l.required("dim"), 1, kMaxSize));
    if (op == "lstm") return g.lstm(x, name, int_in(l.required("hidden"), 1, kMaxSize));
    // Blocks: they need the shape they were designed for, checked before the builder indexes it.
    const Shape& s = g.shape(x);
    if (op == "squeeze_excite") {
      if (s.rank() != 3)
        l.fail("squeeze_excite needs a {C, H, W} input, got " + models::to_string(s));
      return g.squeeze_excite(x, name, int_in(l.required("squeeze_channels"), 1, kMaxSize));
    }
    if (s.rank() != 2) l.fail(op + " needs a {T, d} input, got " + models::to_string(s));
    if (op == "multi_head_attention")
      return g.multi_head_attention(x, name, int_in(l.required("heads"), 1, kMaxSize));
    // transformer_encoder
    return g.transformer_encoder(x, name, int_in(l.required("heads"), 1, kMaxSize),
                                 int_in(l.required("ffn_dim"), 1, kMaxSize));
  }

  Shape reshape_target(const YamlNode& l, LayerId x) {
    const YamlNode n = l.required("shape");
    Shape target = read_shape(n, /*allow_infer=*/true);
    const double elements = graph_.shape(x).elements();
    double known = 1;
    for (auto d : target.dims) known *= d == -1 ? 1.0 : static_cast<double>(d);
    for (auto& d : target.dims) {
      if (d != -1) continue;
      const double inferred = elements / known;
      if (inferred != static_cast<double>(static_cast<long long>(inferred)) || inferred < 1)
        n.fail("cannot infer -1: " + models::to_string(graph_.shape(x)) + " does not divide by " +
               std::to_string(static_cast<long long>(known)));
      d = static_cast<std::int64_t>(inferred);
    }
    return target;
  }

  LayerId build_raw(const YamlNode& l, const std::string& name, const std::vector<LayerId>& in) {
    models::Layer layer;
    layer.name = name;
    const YamlNode kind_node = l.required("kind");
    const std::string kind = kind_node.as_string();
    const std::optional<OpKind> k = models::op_kind_from_string(kind);
    if (!k || *k == OpKind::input) {
      std::string known;
      for (int i = 0; i < models::kOpKindCount; ++i) {
        if (static_cast<OpKind>(i) == OpKind::input) continue;
        known += (known.empty() ? "" : ", ") + std::string(to_string(static_cast<OpKind>(i)));
      }
      kind_node.fail("unknown layer kind '" + printable(kind) + "' (known: " + known + ")");
    }
    layer.kind = *k;
    layer.out = read_shape(l.required("shape"));
    layer.params = count_or(l, "params", 0);
    layer.param_tensors =
        static_cast<int>(int_or(l, "param_tensors", layer.params > 0 ? 1 : 0, 0, 1 << 20));
    layer.macs = count_or(l, "macs", 0);
    layer.elementwise_ops = count_or(l, "elementwise_ops", 0);
    layer.kernels = count_or(l, "kernels", layer.kind == OpKind::view ? 0 : 1);
    layer.grouped = bool_or(l, "grouped", false);
    layer.weight_read_bytes = count_or(l, "weight_bytes", 4 * layer.params);
    layer.reread_bytes = count_or(l, "reread_bytes", 0);
    layer.reread_footprint_bytes = count_or(l, "reread_footprint_bytes", 0);
    layer.gathered_bytes = count_or(l, "gathered_bytes", 0);
    models::LayerGeometry& g = layer.geometry;
    g.kernel = int_or(l, "kernel", 0, 0);
    g.stride = int_or(l, "stride", 1, 1);
    g.padding = int_or(l, "padding", 0, 0);
    g.groups = int_or(l, "groups", 1, 1);
    g.bias = bool_or(l, "bias", false);
    g.max_pool = bool_or(l, "max_pool", false);
    g.attention_scaling = bool_or(l, "attention_scaling", false);
    g.axis = static_cast<std::size_t>(int_or(l, "axis", 0, 0, kMaxRank - 1));
    if (auto f = l.optional("function")) g.activation = read_activation(*f);
    return graph_.raw(in, std::move(layer));
  }

  YamlNode root_;
  LayerGraph graph_;
  std::map<std::string, LayerId, std::less<>> names_;         // made so far
  std::map<std::string, std::size_t, std::less<>> declared_;  // every `name:` of layers, first
  LayerId previous_ = 0;
};

}  // namespace

bool WorkloadFile::supports(models::Phase phase) const {
  return std::find(phases.begin(), phases.end(), phase) != phases.end();
}

std::string workload_name(const std::string& value) {
  return names_workload_file(value) ? add_workload_file(value) : value;
}

bool names_workload_file(std::string_view value) {
  return value.ends_with(".yaml") || value.ends_with(".yml");
}

WorkloadFile parse_workload_file(const std::string& text, const std::string& display_name) {
  const YamlDoc doc = YamlDoc::parse(text, display_name);
  return Reader(doc.root()).read(display_name);
}

WorkloadFile load_workload_file(const std::string& path) {
  const YamlDoc doc = YamlDoc::load(path, kMaxWorkloadFileBytes);
  return Reader(doc.root()).read(path);
}

namespace {

// A file's identity in the catalog: its canonical path (the path as given if that fails).
std::string source_of(const std::string& path) {
  std::error_code ec;
  std::string source = std::filesystem::weakly_canonical(path, ec).string();
  return ec ? path : source;
}

}  // namespace

void add_data_workloads(const std::string& data_dir) {
  namespace fs = std::filesystem;
  static std::mutex mutex;
  static std::set<std::string> done;
  const std::lock_guard lock(mutex);
  if (done.contains(data_dir)) return;
  const fs::path folder = fs::path(data_dir) / "workloads";
  std::error_code ec;
  if (!fs::is_directory(folder, ec)) {
    done.insert(data_dir);
    return;
  }
  std::vector<fs::path> files;
  for (fs::directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec)) {
    const fs::path& p = it->path();
    if (names_workload_file(p.filename().string())) files.push_back(p);
  }
  if (ec)
    throw InputError(SourceLocation{printable(folder.string(), 4096), 0, 0}, "",
                     "cannot list the workload files: " + ec.message());
  std::sort(files.begin(), files.end());
  for (const fs::path& p : files) {
    const std::string name = p.stem().string();
    const std::string path = p.string();
    try {
      models::add_file_workload(name, source_of(path), [path, name] {
        const YamlDoc doc = YamlDoc::load(path, kMaxWorkloadFileBytes);
        return std::move(Reader(doc.root()).read(path, name).workload);
      });
    } catch (const InputError& e) {
      throw InputError(SourceLocation{printable(path, 4096), 0, 0}, "", e.problem());
    }
  }
  done.insert(data_dir);
}

std::string add_workload_file(const std::string& path) {
  // A file already in the catalog (read by an earlier scenario, or one of the data folder's) is
  // not read here again: its entry is never replaced, and a study loads a scenario many times.
  const std::string source = source_of(path);
  if (std::optional<std::string> known = models::workload_catalog().name_from(source)) {
    models::workload_catalog().get(*known);  // a data-folder file is read (and checked) now
    return *known;
  }
  auto file = std::make_shared<WorkloadFile>(load_workload_file(path));
  const std::string name = file->workload.name();
  models::add_file_workload(name, source, [file] { return file->workload; });
  return name;
}

}  // namespace fulcrum::sim
