#include "models/perf/cross_mode_model.hpp"

#include <Eigen/Dense>
#include <algorithm>
#include <array>
#include <boost/range/iterator_range.hpp>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "models/device/power_mode.hpp"
#include "models/error.hpp"
#include "models/perf/analytic_model.hpp"
#include "models/workload/dataset_catalog.hpp"
#include "models/workload/graph_workload.hpp"
#include "models/workload/layer_graph.hpp"

namespace fulcrum::models {

namespace {

// (a^p + b^p)^(1/p): the combined time of two activities that overlap partly. p = 1 is strict
// sequence, p -> infinity full overlap (the max); scaled so that large ratios do not overflow.
//
// The fits call this some ten million times, the occupancy's p in the hundreds: it skips the
// powers whose value is known exactly, so it returns the bits of
// m * pow(pow(a / m, p) + pow(b / m, p), 1 / p) without always computing them. The larger term's
// ratio is exactly 1, and pow(1, y) is exactly 1 (IEEE 754); the smaller one's ratio r < 2^e
// (frexp), so r^p < 2^(e p), and where e p < -60 the sum 1 + r^p rounds to exactly 1 (r^p is
// below half an ulp of 1), whose power is 1 again: the result is m.
double pnorm(double a, double b, double p) {
  const double m = std::max(a, b);
  if (!(m > 0)) return 0;
  if (!std::isfinite(m) || !(p > 0) || std::isnan(a) || std::isnan(b)) {
    return m * std::pow(std::pow(a / m, p) + std::pow(b / m, p), 1.0 / p);
  }
  const double r = std::min(a, b) / m;
  int e = 0;
  std::frexp(r, &e);
  if (r >= 0 && static_cast<double>(e) * p < -60) return m;
  const double sum = 1.0 + std::pow(r, p);
  return sum == 1.0 ? m : m * std::pow(sum, 1.0 / p);
}

double table_max(const std::vector<double>& table, double fallback) {
  return table.empty() ? fallback : table.back();
}

// CUDA cores powered in the mode (all of them when the mode does not say).
double cuda_cores_on(const DeviceSpec& device, const PowerMode& mode) {
  if (device.gpu_tpcs <= 0 || mode.gpu_tpcs <= 0) return device.cuda_cores;
  return static_cast<double>(device.cuda_cores) * std::min(mode.gpu_tpcs, device.gpu_tpcs) /
         device.gpu_tpcs;
}

// --- Zero-shot parameters from the layer graph ---

enum OpClass : std::size_t { dense_conv, grouped_conv, gemm, other, recurrent };

OpClass op_class(const LayerWork& l) {
  switch (l.kind) {
    case OpKind::conv:
      return l.grouped ? grouped_conv : dense_conv;
    case OpKind::lstm:
      return recurrent;  // cuDNN's RNN: per-step kernels, a recurrent matrix re-read each step
    case OpKind::linear:
    case OpKind::matmul:
    case OpKind::embedding:
      return gemm;
    default:
      return other;
  }
}

constexpr int kZeroShotBatch = 16;
constexpr std::size_t op_classes = kOpClasses;

// Where a workload sits among others, from its layer graph: FLOP and byte shares per op class,
// arithmetic intensity and work per kernel (log10, each scaled to a comparable range).
struct GraphSignature {
  std::array<double, 2 * op_classes + 2> x{};
};

// The datasets the reference measurements train on (../shared/reference/measurements/README.md):
// a fact of how each calibrated workload was measured, not of its graph. A workload file's
// `dataset` names its own.
struct MeasuredDataset {
  const char* workload;
  const char* dataset;
};
constexpr MeasuredDataset kMeasuredDatasets[] = {{"resnet18", "imagenet"},
                                                 {"mobilenetv3-large", "gld23k"},
                                                 {"bert-base", "squad"},
                                                 {"lstm", "wikitext"}};

// What one training sample costs the dataloader to handle, in bytes: where the dataset's image
// size is known, the stored file (its entropy-coded bytes, which the decoder reads one by one:
// the dataset's bytes on storage over its samples), the decoded image (mean stored pixels x 3 RGB
// bytes) and the crop it cuts, resizes, flips and normalises into the network's input (as many
// elements as the input: its fp32 bytes / 4), each byte at the same cost; else the input as the
// GPU sees it.
double decode_bytes_per_sample(const Workload& w) {
  std::optional<std::string> name;
  if (const GraphWorkload* g = w.graph(); g != nullptr && g->use().dataset) name = g->use().dataset;
  for (const MeasuredDataset& m : kMeasuredDatasets) {
    if (!name && w.name() == m.workload) name = m.dataset;
  }
  if (name) {
    for (const std::string& known : dataset_names()) {
      if (known != *name) continue;
      const DatasetSpec& d = dataset(known);
      if (const auto px = d.image_pixels) {
        const double stored = d.bytes && d.samples > 0 ? *d.bytes / d.samples : 0.0;
        return 3 * *px + w.input_bytes_per_sample() / 4 + stored;
      }
    }
  }
  return w.input_bytes_per_sample();
}

// Whether a workload's samples are token sequences (its graph looks tokens up in an embedding
// table) rather than images or other tensors: a sample's CPU work is carried over between
// workloads of the same kind only, so that a small image (CIFAR-10's 3 kB) never inherits the
// tokenising cost of a 384-token sequence whose ids take as many bytes.
bool token_input(const Workload& w) {
  const GraphWorkload* g = w.graph();
  if (g == nullptr) return false;
  const LayerGraph& graph = g->layers();
  for (std::size_t id = 0; id < graph.size(); ++id) {
    if (graph.layer(static_cast<LayerId>(id)).kind == OpKind::embedding) return true;
  }
  return false;
}

constexpr double kSimilarityWidth = 0.35;
constexpr double kInputWidth = 0.5;  // decades of input bytes per sample

GraphSignature graph_signature(const DeviceSpec& device, const Workload& workload, Phase phase) {
  const OpClassShares c = op_class_shares(device, workload, phase);
  GraphSignature g;
  for (std::size_t i = 0; i < op_classes; ++i) {
    g.x[i] = c.flops[i];
    g.x[op_classes + i] = c.bytes[i];
  }
  double f = 0, b = 0, k = 0;
  for (const LayerWork& l : workload.layer_work(phase, kZeroShotBatch)) {
    f += l.flops;
    b += dram_bytes(device, l);
    k += l.kernels;
  }
  g.x[2 * op_classes] = std::log10(std::max(f, 1.0) / std::max(b, 1.0)) / 2;
  g.x[2 * op_classes + 1] = std::log10(std::max(f, 1.0) / std::max(k, 1.0)) / 4;
  return g;
}

double distance2(const GraphSignature& a, const GraphSignature& b) {
  double d = 0;
  for (std::size_t i = 0; i < a.x.size(); ++i) d += (a.x[i] - b.x[i]) * (a.x[i] - b.x[i]);
  return d;
}

// Calls `visit` with each layer of the workload's graph (none for a workload without one).
template <typename F>
void for_each_layer(const Workload& workload, F visit) {
  const GraphWorkload* gw = workload.graph();
  if (gw == nullptr) return;
  const Graph& g = gw->layers().graph();
  for (const LayerId v : boost::make_iterator_range(boost::vertices(g))) visit(g[v]);
}

// Calls `visit(layer, steps, hidden)` with each recurrent (LSTM) layer of the workload's graph,
// whose output per sample is steps x hidden.
template <typename F>
void for_each_recurrent_layer(const Workload& workload, F visit) {
  for_each_layer(workload, [&](const Layer& l) {
    if (l.kind != OpKind::lstm || l.out.rank() != 2) return;
    visit(l, static_cast<double>(l.out[0]), static_cast<double>(l.out[1]));
  });
}

// The tile utilization of each recurrent layer's matrix products, by layer name. cuDNN runs an
// LSTM layer as one GEMM projecting the input of every step (N = 4 hidden gates, K = input
// features) and a recurrent GEMM per step (N = 4 hidden, K = hidden); their FLOP-weighted
// harmonic mean.
std::map<std::string, double> recurrent_tile_utilization(const Workload& workload) {
  std::map<std::string, double> out;
  for_each_recurrent_layer(workload, [&](const Layer& l, double steps, double hidden) {
    if (!(steps > 0 && hidden > 0 && l.macs > 0)) return;
    const double in = l.macs / (steps * 4 * hidden) - hidden;  // macs = steps x 4h x (in + h)
    if (!(in > 0)) return;
    const double u_in = tensor_tile_utilization(4 * hidden, in);
    const double u_rec = tensor_tile_utilization(4 * hidden, hidden);
    out[l.name] = (in + hidden) / (in / u_in + hidden / u_rec);
  });
  return out;
}

// The window cost of each depthwise layer (depthwise_window_cost), by layer name.
std::map<std::string, double> depthwise_window_costs(const Workload& workload, Phase phase) {
  std::map<std::string, double> out;
  for_each_layer(workload, [&](const Layer& l) {
    if (l.kind == OpKind::conv && l.grouped) {
      out[l.name] = depthwise_window_cost(l.geometry.kernel, phase);
    }
  });
  return out;
}

}  // namespace

OpClassShares op_class_shares(const DeviceSpec& device, const Workload& workload, Phase phase) {
  OpClassShares s;
  double f = 0, b = 0, k = 0;
  // The bytes that take the workload's memory efficiency: those that grow with the batch
  // (activations); the fixed ones (weights, gradients, optimizer state: 2 B(1) - B(2) per layer)
  // stream at the device's eff_weights.
  const std::vector<LayerWork> one = workload.layer_work(phase, 1);
  const std::vector<LayerWork> two = workload.layer_work(phase, 2);
  const std::vector<LayerWork> layers = workload.layer_work(phase, kZeroShotBatch);
  // Tile utilization of each dense convolution, by layer name (forward and backward alike).
  std::map<std::string, double> utilization;
  // The factor on each windowed dense convolution's activation bytes for the NHWC copy of its
  // input (nchw_copy_byte_factor), by layer name.
  std::map<std::string, double> copy_factor;
  if (const GraphWorkload* gw = workload.graph()) {
    const Graph& g = gw->layers().graph();
    for (const LayerId v : boost::make_iterator_range(boost::vertices(g))) {
      const Layer& l = g[v];
      if (l.kind != OpKind::conv || l.grouped || l.out.rank() != 3) continue;
      const double out_channels = static_cast<double>(l.out[0]);
      const double positions = static_cast<double>(l.out[1]) * static_cast<double>(l.out[2]);
      const double window = static_cast<double>(l.geometry.kernel * l.geometry.kernel);
      if (!(out_channels > 0 && positions > 0 && l.macs > 0 && window > 0)) continue;
      const double in_channels = l.macs / (out_channels * positions * window);
      double in_elements = 0;
      for (auto e : boost::make_iterator_range(boost::in_edges(v, g))) {
        in_elements += g[e].elements;
      }
      copy_factor[l.name] = nchw_copy_byte_factor(
          in_elements, static_cast<double>(l.out.elements()), l.geometry.kernel);
      // Forward: N = output channels, K = input channels x window. Training adds the data
      // gradient (N = input channels, K = output channels x window) and the weight gradient
      // (N = input channels x window, K = batch x positions: full), each as many FLOPs as the
      // forward pass: the mean of their padding factors.
      const double forward = tensor_tile_utilization(out_channels, in_channels * window);
      const double dgrad = tensor_tile_utilization(in_channels, out_channels * window);
      const double wgrad = tensor_tile_utilization(in_channels * window, kTensorTileK);
      // A layer reading the network's input computes no data gradient.
      bool reads_input = false;
      for (auto e : boost::make_iterator_range(boost::in_edges(v, g))) {
        reads_input = reads_input || g[boost::source(e, g)].kind == OpKind::input;
      }
      utilization[l.name] = phase != Phase::training ? forward
                            : reads_input            ? 2 / (1 / forward + 1 / wgrad)
                                                     : 3 / (1 / forward + 1 / dgrad + 1 / wgrad);
    }
  }
  // Recurrent layers: cuDNN runs their matrix products on the TF32 tensor cores as it runs a
  // dense convolution (PyTorch lets cuDNN use TF32 for convolutions and RNNs alike, while its
  // cuBLAS matrix products stay FP32 from 1.12 on): their FLOPs take the dense class's time per
  // FLOP, over their tiles' utilization; their activity, bytes and kernels stay the recurrent
  // class's.
  const std::map<std::string, double> recurrent = recurrent_tile_utilization(workload);
  // Depthwise layers: their FLOPs count as their window's loop runs them (the grouped class's
  // compute coefficient is the 3x3 rate, depthwise_flop_cost).
  const std::map<std::string, double> window_cost = depthwise_window_costs(workload, phase);
  std::array<double, kOpClasses> tile_flops{};
  for (std::size_t i = 0; i < layers.size(); ++i) {
    const LayerWork& l = layers[i];
    const OpClass c = op_class(l);
    const auto u = utilization.find(l.name);
    const auto r = recurrent.find(l.name);
    const double tile = u != utilization.end() ? u->second : r != recurrent.end() ? r->second : 1.0;
    const auto dw = window_cost.find(l.name);
    s.padded_flops[r != recurrent.end() ? dense_conv : c] +=
        l.flops / tile * (dw != window_cost.end() ? dw->second : 1.0);
    tile_flops[c] += l.flops / tile;
    const double all = dram_bytes(device, l);
    const double fixed =
        i < one.size() && i < two.size()
            ? std::clamp(2 * dram_bytes(device, one[i]) - dram_bytes(device, two[i]), 0.0, all)
            : 0.0;
    const double bytes = all - fixed;
    const auto copy = copy_factor.find(l.name);
    s.flops[c] += l.flops;
    s.bytes[c] += bytes;
    s.moved_bytes[c] += bytes * (copy != copy_factor.end() ? copy->second : 1.0);
    s.kernels[c] += l.kernels;
    f += l.flops;
    b += bytes;
    k += l.kernels;
  }
  for (std::size_t c = 0; c < kOpClasses; ++c) {
    s.tile_utilization[c] = tile_flops[c] > 0 ? s.flops[c] / tile_flops[c] : 1;
    s.flops[c] = f > 0 ? s.flops[c] / f : 0;
    s.padded_flops[c] = f > 0 ? s.padded_flops[c] / f : 0;
    s.bytes[c] = b > 0 ? s.bytes[c] / b : 0;
    s.moved_bytes[c] = b > 0 ? s.moved_bytes[c] / b : 0;
    s.kernels[c] = k > 0 ? s.kernels[c] / k : 0;
  }
  return s;
}

double nchw_copy_byte_factor(double in_elements, double out_elements, std::int64_t window) {
  if (window <= 1 || !(in_elements + out_elements > 0)) return 1.0;
  return (3 * in_elements + out_elements) / (in_elements + out_elements);
}

double depthwise_window_cost(std::int64_t window, Phase phase) {
  const double loop = window == 1 || window == 3 ? 1.0 : kGenericWindowTapCost;
  if (phase != Phase::training) return loop;
  // The forward and input-gradient loops, and the weight gradient's reduction at its own cost.
  return (2 * loop + kDepthwiseWeightGradLoopCost * kGenericWindowTapCost) / 3;
}

std::optional<double> depthwise_flop_cost(const DeviceSpec& device) {
  if (device.gpu_sms <= 0 || device.cuda_cores <= 0) return std::nullopt;
  const double lanes_per_sm = static_cast<double>(device.cuda_cores) / device.gpu_sms;
  return kDepthwiseSmCyclesPerMac * lanes_per_sm;
}

double tensor_tile_utilization(double out_channels, double reduction) {
  const auto used = [](double n, double tile) {
    return n > 0 ? n / (std::ceil(n / tile) * tile) : 1.0;
  };
  return used(out_channels, kTensorTileN) * used(reduction, kTensorTileK);
}

CrossModeWorkload graph_parameters(const GraphCoefficients& g, const OpClassShares& s) {
  double inv_c = 0, inv_m = 0, a = 0, k = 0;
  for (std::size_t c = 0; c < kOpClasses; ++c) {
    inv_c += s.padded_flops[c] * std::exp(g.inv_compute[c]);
    inv_m += s.moved_bytes[c] * std::exp(g.inv_memory[c]);
    // Switching activity per busy cycle: a tile's idle columns keep the SMs busy without
    // switching, so each class's activity counts the useful share of its tiles.
    a += s.flops[c] * s.tile_utilization[c] * std::exp(g.activity[c]);
    k += s.kernels[c] * std::exp(g.kernels[c]);
  }
  CrossModeWorkload w;
  w.eff_compute = inv_c > 0 ? 1 / inv_c : 1;
  w.eff_memory = inv_m > 0 ? 1 / inv_m : 1;
  w.gpu_activity = a > 0 ? a : 1;
  w.kernel_scale = k > 0 ? k : 1;
  w.preprocess_ms = 0;
  w.library_launches_apart = true;
  return w;
}

double activation_bytes_per_sample(const DeviceSpec& device, const Workload& workload,
                                   Phase phase) {
  const auto bytes = [&](int b) {
    double sum = 0;
    for (const LayerWork& l : workload.layer_work(phase, b)) sum += dram_bytes(device, l);
    return sum;
  };
  return std::max(0.0, (bytes(kZeroShotBatch) - bytes(1)) / (kZeroShotBatch - 1));
}

double kernel_launch_ratio(const DeviceSpec& device, const CrossModeDevice& d,
                           const CrossModeWorkload& w, const Workload& workload) {
  if (device.gpu_hz.empty() || device.cpu_khz.empty() || device.emc_hz.empty() ||
      !(d.launch_us > 0)) {
    return 1.0;
  }
  const PowerMode top{std::max(1, device.cpu_cores), device.cpu_khz.back(), device.gpu_hz.back(),
                      device.emc_hz.back(), device.gpu_tpcs};
  const WorkFeatures f = work_features(device, workload, Phase::training, kZeroShotBatch);
  if (!(f.kernels > 0)) return 1.0;
  CrossModeWorkload gpu_only = w;
  gpu_only.preprocess_ms = 0;
  const CrossModeEstimate e =
      cross_mode_estimate(device, d, gpu_only, Phase::training, f, top, kZeroShotBatch);
  const double launch_s = f.kernels * d.launch_us * 1e-6 * (d.cpu_ref_khz / top.cpu_khz);
  return e.gpu_s > 0 ? e.gpu_s / launch_s : 1.0;
}

double launch_hiding_ratio(const std::vector<LaunchHiding>& others, double kernel_over_launch) {
  double log_sum = 0, weights = 0;
  for (const LaunchHiding& o : others) {
    if (!(o.ratio > 0) || !(o.kernel_over_launch > 0)) continue;
    const double weight = 1 / o.kernel_over_launch;
    log_sum += weight * std::log(o.ratio * o.kernel_over_launch);
    weights += weight;
  }
  if (!(weights > 0) || !(kernel_over_launch > 0)) return 1.0;
  // Kernels shorter than their launches hide none of them: every launch costs its time, as the
  // graph counts it.
  return std::min(1.0, std::exp(log_sum / weights) / kernel_over_launch);
}

double training_kernel_ratio(const DeviceSpec& device, const CrossModeCalibration& calibration,
                             const Workload& workload, const WorkloadCatalog& catalog) {
  if (!calibration.graph) return 1.0;
  std::vector<LaunchHiding> others;
  for (const auto& [key, w] : calibration.workloads) {
    if (key.second != Phase::training || key.first == workload.name()) continue;
    const Workload& other = catalog.get(key.first);
    const CrossModeWorkload g =
        graph_parameters(*calibration.graph, op_class_shares(device, other, Phase::training));
    if (!(w.kernel_scale > 0) || !(g.kernel_scale > 0)) continue;
    others.push_back({w.kernel_scale / g.kernel_scale,
                      kernel_launch_ratio(device, calibration.device, w, other)});
  }
  if (others.empty()) return 1.0;
  const CrossModeWorkload own =
      graph_parameters(*calibration.graph, op_class_shares(device, workload, Phase::training));
  return launch_hiding_ratio(others,
                             kernel_launch_ratio(device, calibration.device, own, workload));
}

CrossModeWorkload zero_shot_parameters(const DeviceSpec& device,
                                       const CrossModeCalibration& calibration,
                                       const Workload& workload, Phase phase,
                                       const WorkloadCatalog& catalog) {
  const GraphSignature target = graph_signature(device, workload, phase);
  // CPU work per sample comes from the phase's workloads whose samples are of the same kind
  // (token_input), or from all of them where the calibration has none of that kind.
  const bool tokens = token_input(workload);
  bool same_kind_known = false;
  for (const auto& [key, w] : calibration.workloads) {
    if (!(key.first == workload.name() && key.second == phase) && key.second == phase &&
        token_input(catalog.get(key.first)) == tokens) {
      same_kind_known = true;
    }
  }
  double total = 0, same_total = 0;
  double log_c = 0, log_m = 0, log_a = 0, log_k = 0, pre = 0, act_pre = 0, act_total = 0;
  for (const auto& [key, w] : calibration.workloads) {
    if (key.first == workload.name() && key.second == phase) continue;
    const GraphSignature s = graph_signature(device, catalog.get(key.first), key.second);
    const double weight =
        std::exp(-0.5 * distance2(target, s) / (kSimilarityWidth * kSimilarityWidth));
    total += weight;
    log_c += weight * std::log(w.eff_compute);
    log_m += weight * std::log(w.eff_memory);
    log_a += weight * std::log(w.gpu_activity);
    log_k += weight * std::log(w.kernel_scale);
    const Workload& other = catalog.get(key.first);
    if (key.second == phase && (!same_kind_known || token_input(other) == tokens)) {
      // CPU work per sample in proportion to the input's size, taken from the workloads with
      // inputs of about the same size (decades apart weigh little).
      // Training: what the dataloader reads per sample (decoded image bytes where the dataset's
      // image size is known); inference: the input as the GPU sees it.
      const double ratio = phase == Phase::training
                               ? decode_bytes_per_sample(workload) / decode_bytes_per_sample(other)
                               : workload.input_bytes_per_sample() / other.input_bytes_per_sample();
      const double near = std::exp(-0.5 * std::pow(std::log10(ratio) / kInputWidth, 2));
      same_total += near;
      pre += near * w.preprocess_ms * ratio;
      // Inference: also CPU time per byte of activations, pooled over the phase's workloads.
      act_pre += w.preprocess_ms;
      act_total += activation_bytes_per_sample(device, other, phase);
    }
  }
  if (!(total > 0) || !(same_total > 0)) {
    throw InputError(std::string("the cross-mode calibration has no other ") + to_string(phase) +
                     " workload to derive " + workload.name() + "'s parameters from");
  }
  CrossModeWorkload z;
  if (calibration.graph) {
    z = graph_parameters(*calibration.graph, op_class_shares(device, workload, phase));
    if (phase == Phase::training) {
      z.kernel_scale *= training_kernel_ratio(device, calibration, workload, catalog);
    }
  } else {
    z.eff_compute = std::exp(log_c / total);
    z.eff_memory = std::exp(log_m / total);
    z.gpu_activity = std::exp(log_a / total);
    z.kernel_scale = std::exp(log_k / total);
  }
  z.preprocess_ms = pre / same_total;
  // An inference forward pass's host-side work per sample is bounded by what it has to handle:
  // not more than the activations per sample at the pooled CPU time per activation byte. This
  // keeps a small recurrent model (35 tokens, a few hundred kB of activations) from inheriting
  // the CPU time of a 384-token transformer whose input is of about the same size.
  if (phase == Phase::inference && act_total > 0) {
    z.preprocess_ms =
        std::min(z.preprocess_ms,
                 activation_bytes_per_sample(device, workload, phase) * act_pre / act_total);
  }
  return z;
}

double cross_mode_pnorm(double a, double b, double p) { return pnorm(a, b, p); }

double cross_mode_voltage(double f, const std::vector<double>& table, double v_min_ratio,
                          double curve) {
  if (table.size() < 2) return 1.0;
  const double lo = table.front();
  const double hi = table.back();
  const double x = std::clamp((f - lo) / (hi - lo), 0.0, 1.0);
  return v_min_ratio + (1.0 - v_min_ratio) * std::pow(x, curve);
}

namespace {

// What the recurrent layers add to a minibatch, from one walk of the graph: the launches cuDNN
// issues by itself, the dependent steps, and the thread blocks summed over those steps.
struct RecurrentWork {
  double launches = 0;
  double steps = 0;
  double blocks = 0;
};
RecurrentWork recurrent_work(const Workload& workload, Phase phase, int batch_size) {
  const bool training = phase == Phase::training;
  const double rows = std::ceil(std::max(1, batch_size) / kTensorTileM);
  RecurrentWork r;
  for_each_recurrent_layer(workload, [&](const Layer& l, double t, double hidden) {
    // The graph counts 2 kernels (input projection, recurrence); cuDNN issues the projection and
    // a GEMM and a point-wise kernel per step; training's backward pass walks the steps again.
    const double forward = std::max(0.0, 2 * t + 1 - l.kernels);
    r.launches += training ? 2 * forward : forward;
    // Forward steps: the batch's hidden states times the recurrent weights, 4 x hidden gate
    // columns; backward steps: the gates' gradients times their transpose, hidden columns.
    r.steps += t;
    r.blocks += t * rows * std::ceil(4 * hidden / kTensorTileN);
    if (!training) return;
    r.steps += t;
    r.blocks += t * rows * std::ceil(hidden / kTensorTileN);
  });
  return r;
}

double mean_step_blocks(const RecurrentWork& r) { return r.steps > 0 ? r.blocks / r.steps : 0.0; }

}  // namespace

WorkFeatures work_features(const DeviceSpec& device, const Workload& workload, Phase phase,
                           int batch_size) {
  const auto bytes = [&](int b) {
    double sum = 0;
    for (const LayerWork& l : workload.layer_work(phase, b)) sum += dram_bytes(device, l);
    return sum;
  };
  const double l2 = device.gpu_l2_kb.value_or(0) * 1024;
  WorkFeatures f;
  for (const LayerWork& l : workload.layer_work(phase, batch_size)) {
    f.flops += l.flops;
    const double b = dram_bytes(device, l);
    (b <= l2 ? f.l2_bytes : f.dram_bytes) += b;
    f.kernels += l.kernels;
  }
  f.fixed_bytes = std::clamp(2 * bytes(1) - bytes(2), 0.0, f.dram_bytes);
  const RecurrentWork recurrent = recurrent_work(workload, phase, batch_size);
  f.library_launches = recurrent.launches;
  f.recurrent_steps = recurrent.steps;
  f.recurrent_step_blocks = mean_step_blocks(recurrent);
  return f;
}

double recurrent_steps(const Workload& workload, Phase phase) {
  return recurrent_work(workload, phase, 1).steps;
}

double recurrent_step_blocks(const Workload& workload, Phase phase, int batch_size) {
  return mean_step_blocks(recurrent_work(workload, phase, batch_size));
}

double library_launches(const Workload& workload, Phase phase) {
  return recurrent_work(workload, phase, 1).launches;
}

namespace {

// The idle power at the mode's GPU and CPU voltages vg and vc, on the device's rails.
RailPower idle_power(const DeviceSpec& device, const CrossModeDevice& d, const PowerMode& mode,
                     double vg, double vc, const RailMap& rails) {
  const double emc_frac = mode.emc_hz / table_max(device.emc_hz, mode.emc_hz);
  RailPower p;
  p.power_w.assign(std::max<std::size_t>(1, device.rails.size()), 0.0);
  p.power_w[rails.gpu_soc] += d.base_w * d.base_gpu_soc_share + d.gpu_static_w * vg * vg;
  p.power_w[rails.cpu] += d.cpu_core_static_w * mode.cores * vc * vc;
  p.power_w[rails.sys] += d.base_w * (1 - d.base_gpu_soc_share) + d.emc_static_w * emc_frac;
  return p;
}

}  // namespace

RailPower cross_mode_idle(const DeviceSpec& device, const CrossModeDevice& d,
                          const PowerMode& mode) {
  const double vg =
      cross_mode_voltage(mode.gpu_hz, device.gpu_hz, d.gpu_v_min_ratio, d.gpu_v_curve);
  const double vc =
      cross_mode_voltage(mode.cpu_khz, device.cpu_khz, d.cpu_v_min_ratio, d.cpu_v_curve);
  return idle_power(device, d, mode, vg, vc, rail_map(device));
}

std::array<double, kResidualDims> residual_position(const DeviceSpec& device, const PowerMode& mode,
                                                    int batch_size) {
  // log(f / f_max) / log(f_max / f_min): -1 at the table's lowest value, 0 at its highest.
  const auto position = [](double v, double lo, double hi) {
    return hi > lo && lo > 0 && v > 0 ? std::log(v / hi) / std::log(hi / lo) : 0.0;
  };
  const auto span = [&](const std::vector<double>& t, double v) {
    return t.empty() ? 0.0 : position(v, t.front(), t.back());
  };
  return {span(device.gpu_hz, mode.gpu_hz), span(device.cpu_khz, mode.cpu_khz),
          span(device.emc_hz, mode.emc_hz),
          position(mode.cores, 1.0, std::max(2, device.cpu_cores)),
          std::log2(std::max(1, batch_size)) / 6};
}

std::array<double, kResidualDims> residual_position(const DeviceSpec& device, const PowerMode& mode,
                                                    int batch_size, const CrossModeEstimate& e) {
  auto z = residual_position(device, mode, batch_size);
  const auto share = [](double part, double whole) {
    return whole > 0 ? std::clamp(part / whole, 0.0, 1.5) : 0.0;
  };
  z[5] = share(e.host_s, e.time_s);
  z[6] = share(e.pipeline_s, e.time_s);
  z[7] = share(e.compute_s, e.gpu_s);
  return z;
}

double residual_kernel(const ResidualCorrection& c, const std::array<double, kResidualDims>& a,
                       const std::array<double, kResidualDims>& b) {
  double dot = 0, d2 = 0;
  const std::size_t axes = c.regime ? kResidualDims : kResidualAxes;
  for (std::size_t j = 0; j < axes; ++j) {
    dot += a[j] * b[j];
    d2 += (a[j] - b[j]) * (a[j] - b[j]);
  }
  return 1 + c.linear * dot + std::exp(-d2 / (2 * c.length_scale * c.length_scale));
}

double residual_value(const ResidualCorrection& c, const std::array<double, kResidualDims>& z) {
  double sum = 0;
  for (std::size_t i = 0; i < c.points.size() && i < c.weights.size(); ++i) {
    sum += c.weights[i] * residual_kernel(c, z, c.points[i]);
  }
  return sum;
}

CrossModeTimeTerms cross_mode_time_terms(const DeviceSpec& device, const CrossModeDevice& d,
                                         const CrossModeWorkload& w, Phase phase,
                                         const WorkFeatures& f, const PowerMode& mode,
                                         int batch_size, double host_share) {
  if (!(mode.gpu_hz > 0) || !(mode.cpu_khz > 0) || !(mode.emc_hz > 0) || mode.cores <= 0) {
    throw InputError("mode " + mode.label() + " has a zero clock or no cores");
  }
  if (!(host_share > 0 && host_share <= 1)) {
    throw InputError("the host thread's core share must be in (0, 1], got " +
                     std::to_string(host_share));
  }
  const double emc_max = table_max(device.emc_hz, mode.emc_hz);
  const double bandwidth = device.memory_bandwidth_gbps(mode.emc_hz) * 1e9;  // bytes/s
  const double peak_bandwidth = device.memory_bandwidth_gbps(emc_max) * 1e9;
  if (!(bandwidth > 0)) throw InputError("device " + device.name + " has no memory bus width");

  CrossModeTimeTerms e;
  // GPU: compute at the achieved share of the CUDA-core peak, but a kernel takes at least a fixed
  // number of cycles (its launch on the GPU, one partial wave): its work hides under them until it
  // fills the SMs (occupancy: a p-norm, the sum at 1). DRAM traffic at the achieved share of the
  // bandwidth; the two overlap partly.
  const double peak_flops = cuda_cores_on(device, mode) * 2.0 * mode.gpu_hz;
  const double compute_s =
      pnorm(f.flops / (peak_flops * w.eff_compute),
            f.kernels * w.kernel_scale * w.kernel_cycles * d.kernel_gpu_kcycles * 1e3 / mode.gpu_hz,
            d.occupancy);
  // Weights stream sequentially (eff_weights, one for the device); activations follow the
  // workload's access pattern (eff_memory).
  const double memory_s = f.fixed_bytes / (bandwidth * d.eff_weights) +
                          (f.dram_bytes - f.fixed_bytes) / (bandwidth * w.eff_memory) +
                          f.l2_bytes / (peak_bandwidth * d.l2_speedup * w.eff_memory);
  e.gpu_s = pnorm(compute_s, memory_s, d.overlap_memory);
  e.compute_s = compute_s;
  // The recurrent layers' dependent steps (parameters from the layer graph; a fitted kernel_scale
  // carries them): a chain of GPU cycles, however little work each step has, that the throughput
  // work overlaps (the max). Through the chain beyond the work, the SMs a step's GEMM fills
  // (its thread blocks over the mode's SMs) compute and the others wait at the stalled share of
  // the GPU's power.
  if (w.library_launches_apart && f.recurrent_steps > 0) {
    const double work_s = e.gpu_s;
    e.gpu_s =
        std::max(e.gpu_s, f.recurrent_steps * d.recurrent_step_gpu_kcycles * 1e3 / mode.gpu_hz);
    e.chain_s = e.gpu_s - work_s;
    if (device.gpu_sms > 0 && device.cuda_cores > 0) {
      const double sms = device.gpu_sms * cuda_cores_on(device, mode) / device.cuda_cores;
      e.chain_sm_share = std::min(1.0, f.recurrent_step_blocks / sms);
    }
  }
  // CPU-side work runs at the CPU clock, a share of it waiting on DRAM.
  const double cpu_scale = d.cpu_ref_khz / mode.cpu_khz;
  const double host_memory =
      (1 - d.host_memory_share) + d.host_memory_share * emc_max / mode.emc_hz;
  // Launch thread: each graph kernel at the framework's per-operator cost, each launch a library
  // issues by itself inside an operator at the raw launch cost (parameters from the layer graph;
  // a fitted kernel_scale carries them), and the per-minibatch overhead.
  const double library_launches = w.library_launches_apart ? f.library_launches : 0.0;
  e.host_s = (f.kernels * w.kernel_scale * d.launch_us * 1e-6 +
              library_launches * d.library_launch_us * 1e-6 + d.overhead_ms * 1e-3) *
             cpu_scale * host_memory;
  e.device_s = pnorm(e.gpu_s, e.host_s / host_share, w.overlap_host.value_or(d.overlap_host));
  // Training: the dataloader's workers decode and augment the next minibatches in parallel on
  // the cores the training thread leaves; steady state is bounded by the slower of the two.
  // Inference: the minibatch's CPU-side per-sample work (host tensors of a minibatch in host
  // memory) runs on PyTorch's intra-op threads, one per core the launch thread leaves, and
  // overlaps the GPU's work as the pipeline does.
  if (w.preprocess_ms > 0) {
    // More runnable training threads (the workers and the training thread) than online cores:
    // the pipeline runs at the clock oversubscribed cores keep, so its time grows as
    // 1 / (f - lost), not 1 / f, at few cores and low clocks.
    const double usable_khz = phase == Phase::training
                                  ? oversubscribed_clock(mode.cpu_khz, d.oversubscription_mhz * 1e3,
                                                         d.workers + 1, mode.cores)
                                  : mode.cpu_khz;
    e.pipeline_core_s =
        batch_size * w.preprocess_ms * 1e-3 * (d.cpu_ref_khz / usable_khz) * host_memory;
    const double free_cores = std::max(0.25, mode.cores - d.main_thread_cores);
    // Smooth min(workers, free cores): the workers cannot use more cores than are left to them.
    const double q = 4;
    const double parallel =
        phase == Phase::training
            ? std::pow(std::pow(d.workers, -q) + std::pow(free_cores, -q), -1 / q)
            : free_cores;
    e.pipeline_s = e.pipeline_core_s / parallel;
  }
  e.time_s = e.pipeline_s > 0 ? pnorm(e.device_s, e.pipeline_s, d.overlap_pipeline) : e.device_s;
  return e;
}

CrossModeEstimate cross_mode_estimate_from(const DeviceSpec& device, const CrossModeDevice& d,
                                           const CrossModeWorkload& w, const WorkFeatures& f,
                                           const PowerMode& mode, int batch_size,
                                           const CrossModeTimeTerms& t) {
  const double gpu_max = table_max(device.gpu_hz, mode.gpu_hz);
  const double cpu_max = table_max(device.cpu_khz, mode.cpu_khz);
  const double peak_bandwidth =
      device.memory_bandwidth_gbps(table_max(device.emc_hz, mode.emc_hz)) * 1e9;
  CrossModeEstimate e;
  e.time_s = t.time_s;
  e.gpu_s = t.gpu_s;
  e.compute_s = t.compute_s;
  e.host_s = t.host_s;
  e.device_s = t.device_s;
  e.pipeline_s = t.pipeline_s;
  // A workload's own profiled rows may carry a learned correction of what the terms above miss
  // (fit_workload), at the position and regime of the physical model's estimate.
  std::array<double, kResidualDims> z{};
  if (w.time_correction || w.power_correction) z = residual_position(device, mode, batch_size, e);

  // Power: idle terms plus activity. GPU switching power C V^2 f while busy; the CPU cores busy
  // with launches and pre-processing; DRAM traffic.
  const double vg =
      cross_mode_voltage(mode.gpu_hz, device.gpu_hz, d.gpu_v_min_ratio, d.gpu_v_curve);
  const double vc =
      cross_mode_voltage(mode.cpu_khz, device.cpu_khz, d.cpu_v_min_ratio, d.cpu_v_curve);
  // SMs computing draw the full switching power; waiting on DRAM a fitted share of it.
  const double computing = std::min(t.compute_s, e.gpu_s);
  const double u_gpu =
      std::min(1.0, (computing + d.gpu_stall_power_share * (e.gpu_s - computing) +
                     (1 - d.gpu_stall_power_share) * t.chain_sm_share * t.chain_s) /
                        e.time_s);
  const double busy_cores = std::min<double>(mode.cores, (e.host_s + t.pipeline_core_s) / e.time_s);
  const double traffic = std::min(1.0, f.dram_bytes / e.time_s / peak_bandwidth);
  // The idle terms at the same voltages (computed once for both).
  const RailMap rails = rail_map(device);
  e.rails = idle_power(device, d, mode, vg, vc, rails);
  e.rails.power_w[rails.gpu_soc] +=
      d.gpu_dynamic_w * w.gpu_activity * u_gpu * (mode.gpu_hz / gpu_max) * vg * vg;
  e.rails.power_w[rails.cpu] +=
      d.cpu_core_dynamic_w * busy_cores * (mode.cpu_khz / cpu_max) * vc * vc;
  e.rails.power_w[rails.sys] += d.dram_dynamic_w * traffic;
  if (w.time_correction) {
    const double f = std::exp(-residual_value(*w.time_correction, z));
    e.time_s *= f;
    e.device_s *= f;
    e.pipeline_s *= f;
  }
  if (w.power_correction) {
    const double f = std::exp(-residual_value(*w.power_correction, z));
    for (double& r : e.rails.power_w) r *= f;
  }
  e.power_w = e.rails.module_w();
  return e;
}

CrossModeEstimate cross_mode_estimate(const DeviceSpec& device, const CrossModeDevice& d,
                                      const CrossModeWorkload& w, Phase phase,
                                      const WorkFeatures& f, const PowerMode& mode, int batch_size,
                                      double host_share) {
  return cross_mode_estimate_from(
      device, d, w, f, mode, batch_size,
      cross_mode_time_terms(device, d, w, phase, f, mode, batch_size, host_share));
}

CrossModeModel::CrossModeModel(const DeviceSpec& device, CrossModeCalibration calibration,
                               const WorkloadCatalog& catalog)
    : device_(device), cal_(std::move(calibration)), catalog_(&catalog) {
  if (device.name != cal_.device.device) {
    throw InputError("device " + device.name +
                     " has no cross-mode calibration (the one given is for " + cal_.device.device +
                     ")");
  }
}

std::pair<CrossModeWorkload, bool> CrossModeModel::parameters(const std::string& workload,
                                                              Phase phase) const {
  const std::string name(canonical_workload_name(workload));
  if (auto it = cal_.workloads.find({name, phase}); it != cal_.workloads.end()) {
    return {it->second, true};
  }
  const std::lock_guard<std::mutex> lock(zero_shot_->mutex);
  auto [it, added] = zero_shot_->parameters.try_emplace({name, phase});
  if (added) {
    try {
      it->second = zero_shot_parameters(device_, cal_, catalog_->get(name), phase, *catalog_);
    } catch (...) {
      zero_shot_->parameters.erase(it);
      throw;
    }
  }
  return {it->second, false};
}

CrossModeEstimate CrossModeModel::predict(const std::string& workload, Phase phase,
                                          const PowerMode& mode, int batch_size) const {
  if (batch_size < 1) throw InputError("batch size must be at least 1");
  const Workload& w = catalog_->get(canonical_workload_name(workload));
  const auto [params, own] = parameters(w.name(), phase);
  return cross_mode_estimate(device_, cal_.device, params, phase,
                             work_features(device_, w, phase, batch_size), mode, batch_size);
}

Prediction CrossModeModel::predict(const PerfQuery& q) const {
  if (q.device.name != cal_.device.device) {
    throw InputError(
        "device " + q.device.name +
        " has no cross-mode calibration (perf_model analytic-modes is calibrated for " +
        cal_.device.device + " only; use perf_model: analytic)");
  }
  if (q.batch_size < 1) throw InputError("batch size must be at least 1");
  auto [params, own] = parameters(q.workload.name(), q.phase);
  // The runtime's pipeline adds training's data pipeline; inference's per-sample CPU work is part
  // of the measured forward pass and stays.
  if (!pipeline_in_time_ && q.phase == Phase::training) params.preprocess_ms = 0;
  const CrossModeEstimate e =
      cross_mode_estimate(q.device, cal_.device, params, q.phase,
                          work_features(q.device, q.workload, q.phase, q.batch_size), q.mode,
                          q.batch_size, q.host_share);
  Prediction p;
  p.time_ms = e.time_s * 1e3;
  p.power = e.rails;
  p.provenance = own ? Provenance::modelled : Provenance::extrapolated;
  return p;
}

RailPower CrossModeModel::idle_power(const DeviceSpec& device, const PowerMode& mode) const {
  if (device.name != cal_.device.device) {
    throw InputError("device " + device.name + " has no cross-mode calibration");
  }
  return cross_mode_idle(device, cal_.device, mode);
}

std::string CrossModeModel::extrapolation_check(Phase phase) const {
  return cal_.zero_shot_check ? zero_shot_check_clause(*cal_.zero_shot_check, phase) : "";
}

double median_of(std::vector<double> values) {
  if (values.empty()) return std::numeric_limits<double>::quiet_NaN();
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

namespace {

std::string one_decimal(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  return buf;
}

// The subject both check clauses open with.
std::string measured_workloads(Phase phase, std::size_t count) {
  return std::string("this device's measured ") + to_string(phase) + " workloads (" +
         std::to_string(count) + "), ";
}

}  // namespace

std::string zero_shot_check_clause(const ZeroShotCheck& check, Phase phase) {
  std::vector<double> time, power;
  for (const ZeroShotCheck::Result& r : check.results) {
    if (r.key.second != phase) continue;
    time.push_back(r.time_mape_pct);
    power.push_back(r.power_mape_pct);
  }
  if (time.empty()) return {};
  const auto range = [](const std::vector<double>& v) {
    if (v.size() == 1) return one_decimal(v.front()) + "%";
    const auto [lo, hi] = std::minmax_element(v.begin(), v.end());
    return one_decimal(*lo) + "-" + one_decimal(*hi) + "% (median " + one_decimal(median_of(v)) +
           "%)";
  };
  return measured_workloads(phase, time.size()) +
         "each left out in turn and predicted from its layer graph: time MAPE " + range(time) +
         ", power " + range(power);
}

std::string few_shot_check_clause(const ZeroShotCheck& check, Phase phase) {
  std::vector<const ZeroShotCheck::Result*> of_phase;
  for (const ZeroShotCheck::Result& r : check.results) {
    if (r.key.second == phase) of_phase.push_back(&r);
  }
  if (of_phase.empty() || of_phase.front()->few_shot.empty()) return {};
  const std::vector<ZeroShotCheck::FewShot>& first = of_phase.front()->few_shot;
  for (const ZeroShotCheck::Result* r : of_phase) {
    if (r->few_shot.size() != first.size()) return {};
    for (std::size_t i = 0; i < first.size(); ++i) {
      if (r->few_shot[i].k != first[i].k) return {};
    }
  }
  std::string ks, time, power;
  for (std::size_t i = 0; i < first.size(); ++i) {
    std::vector<double> t, p;
    for (const ZeroShotCheck::Result* r : of_phase) {
      t.push_back(r->few_shot[i].time_mape_pct);
      p.push_back(r->few_shot[i].power_mape_pct);
    }
    const std::string sep = i == 0 ? "" : " / ";
    ks += sep + std::to_string(first[i].k);
    time += sep + one_decimal(median_of(t));
    power += sep + one_decimal(median_of(p));
  }
  return measured_workloads(phase, of_phase.size()) +
         "each refined from k of its profiled modes: time MAPE median " + time + "% at k = " + ks +
         ", power " + power + "%";
}

double op_mix_distance(const OpClassShares& a, const OpClassShares& b) {
  double flops = 0, kernels = 0;
  for (std::size_t c = 0; c < kOpClasses; ++c) {
    flops += std::fabs(a.flops[c] - b.flops[c]);
    kernels += std::fabs(a.kernels[c] - b.kernels[c]);
  }
  return (flops / 2 + kernels / 2) / 2;
}

std::string CrossModeModel::extrapolation_nearest(const Workload& workload, Phase phase) const {
  if (!cal_.zero_shot_check) return {};
  const OpClassShares mine = op_class_shares(device_, workload, phase);
  const ZeroShotCheck::Result* nearest = nullptr;
  double nearest_distance = 0;
  for (const ZeroShotCheck::Result& r : cal_.zero_shot_check->results) {
    const Workload* measured = catalog_->find(r.key.first);
    if (r.key.second != phase || measured == nullptr) continue;
    const double d = op_mix_distance(mine, op_class_shares(device_, *measured, phase));
    if (nearest == nullptr || d < nearest_distance) {
      nearest = &r;
      nearest_distance = d;
    }
  }
  if (nearest == nullptr) return {};
  char distance[32];
  std::snprintf(distance, sizeof distance, "%.2f", nearest_distance);
  const std::string p = to_string(phase);
  return workload.name() + " " + p + " is most like " + nearest->key.first + " " + p +
         " by op mix, at distance " + distance +
         " of 1, whose zero-shot time and power MAPE were " + one_decimal(nearest->time_mape_pct) +
         "% and " + one_decimal(nearest->power_mape_pct) + "%";
}

}  // namespace fulcrum::models
