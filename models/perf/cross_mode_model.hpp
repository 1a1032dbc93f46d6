// CrossModeModel: time and module power of a training or inference minibatch on one device as a
// function of the power mode (online cores, CPU, GPU and EMC clocks) and the batch size, from
// physical terms: GPU compute, DRAM traffic, CPU-side launches, the training data pipeline's
// pre-processing on the CPU, and static + dynamic power per rail with V/f curves. One set of
// device coefficients (CrossModeDevice) is shared by every workload; a workload has only the four
// parameters that are physical properties of it (CrossModeWorkload). Fitted by
// models/perf/cross_mode_fit.hpp; equations and reasons in docs/MODEL.md ("Across power modes").
//
//   CrossModeCalibration cal = sim::load_cross_mode_calibration(path);
//   CrossModeModel model(orin, cal);
//   CrossModeEstimate e = model.predict("resnet18", Phase::training, mode, 16);  // e.time_s
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "models/device/device_spec.hpp"
#include "models/device/power_mode.hpp"
#include "models/perf/perf_model.hpp"
#include "models/workload/workload.hpp"
#include "models/workload/workload_catalog.hpp"

namespace fulcrum::models {

// The raw host cost of one kernel launch issued from C++ (cudaLaunchKernel, no framework
// dispatch), at cpu_ref_khz: 3.8 us per kernel launched back to back from one host thread into
// one stream (NVIDIA Technical Blog, "Getting Started with CUDA Graphs", 2019).
constexpr double kLibraryLaunchUs = 3.8;

// GPU cycles (thousands) of one dependent step of a recurrent layer that cuDNN runs step by step
// (a recurrent GEMM on the previous step's hidden state, then the point-wise gate kernel; PyTorch
// picks cuDNN's standard algorithm for an FP32 LSTM of hidden over 192, pull request 62143):
// Baidu's DeepBench (github.com/baidu-research/DeepBench, README, "Inference Server Results",
// RNN), an LSTM of hidden 256 at batch 4 over 150 steps in 1.63 ms on a GTX 1080 Ti with cuDNN,
// its input projection excluded: 10.9 us per step at the card's 1582 MHz boost clock.
constexpr double kRecurrentStepGpuKcycles = 1.63e-3 / 150 * 1582e6 / 1e3;

// Coefficients of the device, shared by all workloads. Time constants hold at cpu_ref_khz and the
// device's highest EMC clock; power magnitudes at the table maxima.
struct CrossModeDevice {
  std::string device = "orin-agx-64gb";
  double cpu_ref_khz = 2201600;
  // --- Time ---
  double launch_us = 30;  // host time per kernel launch
  // Host time of one launch a library issues by itself inside an operator (cuDNN's RNN: a GEMM
  // and a point-wise kernel per time step) at cpu_ref_khz: the raw cudaLaunchKernel from C++,
  // without the framework's per-operator dispatch that launch_us carries. A prior from a public
  // figure (docs/MODEL.md, "Zero-shot and few-shot"), not fitted and not in the calibration file.
  double library_launch_us = kLibraryLaunchUs;
  // GPU cycles (thousands) of one dependent step of a recurrent layer (cuDNN's per-step kernels):
  // the recurrence's steps form a chain whose GPU time is at least steps x this, however small
  // their work. A prior from a public figure, like library_launch_us, not in the calibration file.
  double recurrent_step_gpu_kcycles = kRecurrentStepGpuKcycles;
  double overhead_ms = 1;          // host time per minibatch (framework, optimizer step, sync)
  double kernel_gpu_kcycles = 5;   // GPU-side cycles (thousands) a kernel costs however small
  double occupancy = 2;            // p-norm exponent combining the kernels' fixed cycles with
                                   // their work (1: a sum; large: a kernel's work hides under its
                                   // minimum time until it fills the SMs)
  double eff_weights = 0.7;        // achieved share of peak bandwidth streaming the fixed bytes
  double l2_speedup = 4;           // L2-resident layers' bandwidth relative to DRAM at f_emc,max
  double host_memory_share = 0.2;  // share of CPU-side work that waits on DRAM (scales 1/f_emc)
  double overlap_memory = 3;       // p-norm exponent combining compute and DRAM time
  double overlap_host = 3;         // p-norm exponent combining GPU and launch time
  double overlap_pipeline = 4;     // p-norm exponent combining the GPU path and the data pipeline
  double main_thread_cores = 0.7;  // cores the training process's own thread keeps busy
  double workers = 4;              // dataloader workers of the measurements
  // MHz of each core's clock lost per runnable training thread beyond one per core (the workers
  // and the training thread): the data pipeline runs at oversubscribed_clock (power_mode.hpp).
  // 30 is the fit's start; a calibration file without the key was fitted without it and loads 0.
  double oversubscription_mhz = 30;
  // --- Power ---
  double base_w = 8;                   // always-on power: regulators, SoC fabric, I/O
  double gpu_static_w = 3;             // GPU rail leakage at the top GPU voltage (scales V^2)
  double cpu_core_static_w = 0.3;      // leakage of one online core at the top CPU voltage
  double emc_static_w = 3;             // EMC/DRAM background power at the top EMC clock (scales f)
  double gpu_dynamic_w = 30;           // GPU busy 100% at the top clock (x the workload's activity)
  double gpu_stall_power_share = 0.5;  // share of it drawn while the GPU waits on DRAM
  double cpu_core_dynamic_w = 1;       // one core busy 100% at the top CPU clock
  double dram_dynamic_w = 10;          // DRAM traffic at 100% of the peak bandwidth
  double gpu_v_min_ratio = 0.6;        // V(f_min)/V(f_max)
  double cpu_v_min_ratio = 0.6;
  double gpu_v_curve = 2;  // V rises as ((f - f_min)/(f_max - f_min))^curve: DVFS tables
  double cpu_v_curve = 2;  // hold V near its floor at low clocks and raise it steeply at top
  // --- Rail split (a prior: the measurements are module totals) ---
  double base_gpu_soc_share = 0.45;  // share of base_w on VDD_GPU_SOC (rest on VIN_SYS_5V0)
};

// A smooth correction of a workload's predictions learned from its own profiled rows
// (fit_workload): kernel ridge regression (a Gaussian process's mean) on the log residual of the
// physical model over the position z of the mode and batch size: GPU, CPU, EMC clock and online
// cores (each log-scaled to [-1, 0] between the device's lowest and highest), log2(batch) / 6, and
// with `regime` the physical model's own regime there (its launch time and per-sample CPU time as
// shares of the minibatch time, its compute time as a share of the GPU time; each in [0, 1.5]),
// so that rows bound by the same resource share a correction. Prediction: the model's value times
// exp(-sum_i weight_i k(z, point_i)), k(a, b) = 1 + linear a.b + exp(-|a - b|^2 / (2 length^2)),
// over the first five axes only without `regime` (a correction written before the regime axes).
constexpr std::size_t kResidualAxes = 5;  // mode and batch size
constexpr std::size_t kResidualDims = 8;  // with the regime's three shares
struct ResidualCorrection {
  double length_scale = 1;
  double linear = 0;
  bool regime = false;  // the kernel uses the regime axes (5..7) too
  std::vector<std::array<double, kResidualDims>> points;
  std::vector<double> weights;  // one per point
};

// The parameters of one (workload, phase): each a property of the workload, not of the device.
struct CrossModeWorkload {
  double eff_compute = 0.3;  // achieved share of the CUDA-core FP32 peak (kernel mix, TF32)
  double eff_memory = 0.5;   // achieved share of peak DRAM bandwidth (access pattern)
  double gpu_activity = 1;   // GPU switching activity per busy cycle relative to the device's
  double kernel_scale = 1;   // kernels launched and run per kernel of the layer graph (cuDNN's
                             // fused RNN issues one per time step; fused element-wise ops fewer)
  double preprocess_ms = 0;  // CPU time per sample at cpu_ref: training, the dataloader's
                             // decoding and augmenting of the dataset's sample format;
                             // inference, the forward pass's host-side work per sample
                             // (PyTorch CPU ops on a minibatch held in host memory)
  // Fitted only from a new workload's own profiled rows (fit_workload), 1 and the device's
  // exponent otherwise: the fixed GPU cycles of this workload's kernels relative to the device's
  // kernel_gpu_kcycles (small launch-bound kernels finish under it), and its own exponent
  // combining GPU and launch time (how far its launches run ahead of the GPU).
  double kernel_cycles = 1;
  std::optional<double> overlap_host = std::nullopt;
  // Whether the host time counts the launches libraries issue by themselves inside the graph's
  // operators (WorkFeatures::library_launches) at the device's raw launch cost, and the GPU time
  // is at least the chain of the recurrent layers' dependent steps (WorkFeatures::
  // recurrent_steps): parameters from the layer graph (graph_parameters) do; a workload fitted on
  // its own rows does not, its fitted kernel_scale carries both (not written to the calibration
  // file).
  bool library_launches_apart = false;
  // Corrections of log time and log power learned from the profiled rows (none: the physical
  // model alone).
  std::optional<ResidualCorrection> time_correction = std::nullopt;
  std::optional<ResidualCorrection> power_correction = std::nullopt;
};

// A workload as the model needs it: per-minibatch FLOPs, DRAM bytes and kernels at a batch size,
// from the catalog's layer graph (models/workload).
struct WorkFeatures {
  double flops = 0;
  double dram_bytes = 0;
  double kernels = 0;
  // The part of dram_bytes that does not grow with the batch (weights, their gradients and
  // optimizer state): 2 B(1) - B(2) of the layer graph, at most dram_bytes.
  double fixed_bytes = 0;
  // Bytes of layers whose whole traffic fits in the GPU's L2 (a batch-1 feature map): served
  // mostly on chip, so they are not in dram_bytes.
  double l2_bytes = 0;
  // Launches a library issues by itself inside the graph's operators beyond their counted
  // kernels (library_launches): host time at the raw launch cost, not the per-operator one.
  double library_launches = 0;
  // Dependent steps of the recurrent layers (recurrent_steps): a chain on the GPU.
  double recurrent_steps = 0;
  // Thread blocks of one such step's recurrent GEMM at the batch size (recurrent_step_blocks): the
  // SMs the chain keeps busy.
  double recurrent_step_blocks = 0;
};
WorkFeatures work_features(const DeviceSpec& device, const Workload& workload, Phase phase,
                           int batch_size);

// Kernel launches per minibatch that a library issues by itself inside the graph's operators,
// beyond the kernels the graph counts for them (independent of the batch size). cuDNN's RNN runs
// an LSTM layer of T steps as one input-projection GEMM and, per step, a recurrent GEMM and a
// point-wise gate kernel: 2T + 1 launches where the graph counts 2, so 2T - 1 more; training's
// backward pass walks the steps again (data gradient per step), 2 (2T - 1). 0 for other layers
// and for workloads without a layer graph.
double library_launches(const Workload& workload, Phase phase);

// Dependent steps per minibatch of the graph's recurrent layers, independent of the batch size:
// each step of an LSTM layer waits for the previous one's hidden state, so its T steps run one
// after the other (T per layer; training's backward pass walks them again, 2T). 0 for other
// layers.
double recurrent_steps(const Workload& workload, Phase phase);

// Thread blocks of one dependent step's recurrent GEMM, one per kTensorTileM x kTensorTileN
// output tile, M = batch rows: cuDNN's standard algorithm multiplies the batch's hidden states by
// the recurrent weights, N = 4 x hidden gate columns; training's backward steps multiply the
// gates' gradients by their transpose, N = hidden columns (the weight gradient is one GEMM after
// the chain). The step-weighted mean over the recurrent layers' steps of the phase, 0 without
// any. While the chain runs only the SMs these blocks fill are busy.
constexpr double kTensorTileM = 128;  // CUTLASS's default Ampere tensor-op thread block, 128 x 128
double recurrent_step_blocks(const Workload& workload, Phase phase, int batch_size);

// One prediction with its parts, in seconds and watts.
struct CrossModeEstimate {
  double time_s = 0;      // steady-state minibatch time (the pipeline's stall included)
  double power_w = 0;     // module power while it runs
  double gpu_s = 0;       // GPU busy time (compute and DRAM combined)
  double compute_s = 0;   // its compute part alone
  double host_s = 0;      // launch thread's time
  double device_s = 0;    // GPU path: GPU and launches combined (what runs with a fed pipeline)
  double pipeline_s = 0;  // data pipeline's time per minibatch (inference: the per-sample CPU
                          // work of the forward pass on the cores the launch thread leaves)
  RailPower rails;        // VDD_GPU_SOC, VDD_CPU_CV, VIN_SYS_5V0 (Orin AGX order)
};

// Key of a workload's parameters: catalog name and phase.
using WorkloadKey = std::pair<std::string, Phase>;

// Per-op-class coefficients of the device (log values) that give a workload's parameters from its
// layer graph (zero_shot_parameters). Classes: dense convolution, grouped/depthwise convolution,
// matrix products (linear, matmul, embedding), the rest (element-wise, normalisation, pooling,
// ...), recurrent layers (LSTM: cuDNN issues kernels per time step and re-reads the recurrent
// matrix, unlike a transformer's matrix products).
constexpr std::size_t kOpClasses = 5;
constexpr std::size_t kGroupedConvClass = 1;  // the grouped/depthwise convolutions' index
struct GraphCoefficients {
  std::array<double, kOpClasses> inv_compute{};  // log of 1/eff_compute per FLOP of the class
  std::array<double, kOpClasses> inv_memory{};   // log of 1/eff_memory per byte of the class
  std::array<double, kOpClasses> activity{};     // log of gpu_activity per FLOP of the class
  std::array<double, kOpClasses> kernels{};      // log of kernel_scale per kernel of the class
};

// How well the zero-shot parameters did on the device's own measurements
// (`fulcrum calibrate --modes --zero-shot F --out`): each measured workload left out in turn, the
// device and graph coefficients fitted on a share of the other workloads' modes, every measured
// row of the one left out predicted from its layer graph alone; the few-shot refinements from k
// of its rows (median over the draws, on its other rows); and the same parameters fitted on all
// of its rows (the protocol's floor).
struct ZeroShotCheck {
  double device_modes = 1.0;  // share of the other workloads' modes the device was fitted on
  std::uint64_t seed = 1;     // of that share and of the few-shot draws
  struct FewShot {
    int k = 0;
    double time_mape_pct = 0;
    double power_mape_pct = 0;
  };
  struct Result {
    WorkloadKey key;
    std::size_t rows = 0;  // its measured rows, all predicted
    double time_mape_pct = 0;
    double time_bias_pct = 0;  // mean signed error: > 0 predicted slow
    double power_mape_pct = 0;
    double power_bias_pct = 0;  // > 0 predicted high
    std::vector<FewShot> few_shot;
    // The five parameters zero-shot derives, fitted instead on every one of its rows with the
    // same device: the best any zero-shot parameters could do there (MAPE, %).
    std::optional<double> own_fit_time_mape_pct, own_fit_power_mape_pct;
  };
  std::vector<Result> results;  // sorted by workload, then phase
};

// The median of the values (the mean of the middle two for an even count; NaN for none).
double median_of(std::vector<double> values);

// One clause on the check's figures for the workloads of `phase`: "this device's measured
// training workloads (4), each left out in turn and predicted from its layer graph: time MAPE
// 5.7-28.6% (median 12.1%), power 2.4-18.2% (median 6.9%)"; empty where the check has none.
std::string zero_shot_check_clause(const ZeroShotCheck& check, Phase phase);

// One clause on the check's few-shot figures for the workloads of `phase`, the median over them
// at each k: "this device's measured training workloads (4), each refined from k of its profiled
// modes: time MAPE median 5.8 / 4.7 / 3.1% at k = 10 / 20 / 50, power 2.8 / 2.4 / 1.8%"; empty
// where the check has none (or its workloads disagree on the ks).
std::string few_shot_check_clause(const ZeroShotCheck& check, Phase phase);

struct CrossModeCalibration {
  CrossModeDevice device;
  std::map<WorkloadKey, CrossModeWorkload> workloads;
  // Fitted by fit_graph_coefficients; without them zero-shot parameters come from the most
  // similar calibrated workloads.
  std::optional<GraphCoefficients> graph;
  // The leave-one-workload-out check of the zero-shot parameters, where the file records one.
  std::optional<ZeroShotCheck> zero_shot_check;
};

// The model's equations on precomputed features; used by the model and the fit. host_share (in
// (0, 1]): the share of a core the launch thread gets from the runtime's CPU contention
// (PerfQuery::host_share, docs/PIPELINE.md "CPU contention"); its launch and overhead time take
// 1 / host_share as long on the GPU path (host_s stays its core-time).
CrossModeEstimate cross_mode_estimate(const DeviceSpec& device, const CrossModeDevice& d,
                                      const CrossModeWorkload& w, Phase phase,
                                      const WorkFeatures& f, const PowerMode& mode, int batch_size,
                                      double host_share = 1.0);

// The estimate in two steps, for the fit: its time terms, which read none of the power
// parameters (the device's base, static, dynamic and stall power and its voltage curves; the
// workload's gpu_activity), then its power and the workload's corrections from them. So a fit
// computes each row's time terms once for the Jacobian columns of the power parameters.
// cross_mode_estimate is exactly the two in turn.
struct CrossModeTimeTerms {
  double time_s = 0, gpu_s = 0, compute_s = 0, host_s = 0, device_s = 0, pipeline_s = 0;
  double chain_s = 0;          // the recurrent chain's GPU time beyond the work
  double chain_sm_share = 0;   // the SMs its steps occupy
  double pipeline_core_s = 0;  // the pipeline's core-time per minibatch
};
CrossModeTimeTerms cross_mode_time_terms(const DeviceSpec& device, const CrossModeDevice& d,
                                         const CrossModeWorkload& w, Phase phase,
                                         const WorkFeatures& f, const PowerMode& mode,
                                         int batch_size, double host_share = 1.0);
CrossModeEstimate cross_mode_estimate_from(const DeviceSpec& device, const CrossModeDevice& d,
                                           const CrossModeWorkload& w, const WorkFeatures& f,
                                           const PowerMode& mode, int batch_size,
                                           const CrossModeTimeTerms& t);

// The position of a mode and batch size for ResidualCorrection (regime axes 0), with the regime
// of the physical model's estimate `e` there (uncorrected), and the correction's value (0 without
// one).
std::array<double, kResidualDims> residual_position(const DeviceSpec& device, const PowerMode& mode,
                                                    int batch_size);
std::array<double, kResidualDims> residual_position(const DeviceSpec& device, const PowerMode& mode,
                                                    int batch_size, const CrossModeEstimate& e);
double residual_value(const ResidualCorrection& c, const std::array<double, kResidualDims>& z);
// The correction's kernel between two positions: 1 + linear (a . b) + exp(-|a - b|^2 /
// (2 length_scale^2)) over its axes; residual_value sums it over the points, weighted.
double residual_kernel(const ResidualCorrection& c, const std::array<double, kResidualDims>& a,
                       const std::array<double, kResidualDims>& b);

// Module power (per rail) with nothing running in the mode.
RailPower cross_mode_idle(const DeviceSpec& device, const CrossModeDevice& d,
                          const PowerMode& mode);

// The shares of a workload's FLOPs, DRAM bytes and kernels (batch 16) in each op class. `bytes`:
// the bytes that grow with the batch (activations; per layer B(16) - (2 B(1) - B(2))), the ones
// eff_memory applies to (weights stream at the device's eff_weights). `padded_flops`: the FLOPs of
// the class as the GPU's GEMM tiles execute them (each dense convolution's FLOPs over its tile
// utilization, tensor_tile_utilization; each depthwise convolution's times its window's loop cost,
// depthwise_window_cost), over W's FLOPs; a recurrent layer's matrix products run
// on the tensor cores as cuDNN runs a dense convolution (TF32), so their FLOPs over their tiles'
// utilization count in the dense-convolution entry.
//
// `moved_bytes`: the activation bytes of the class as the kernels move them, over W's activation
// bytes (`bytes`' denominator): a windowed dense convolution's count its input's NHWC copy
// (nchw_copy_byte_factor); equal to `bytes` elsewhere.
struct OpClassShares {
  std::array<double, kOpClasses> flops{}, padded_flops{}, bytes{}, moved_bytes{}, kernels{};
  // Per class, its FLOPs over the FLOPs its tensor-core tiles run (1 where no tile idles).
  std::array<double, kOpClasses> tile_utilization{1, 1, 1, 1, 1};
};
OpClassShares op_class_shares(const DeviceSpec& device, const Workload& workload, Phase phase);

// How unlike two workloads' op mixes are, in [0, 1]: the mean of the total-variation distances of
// their FLOP shares and of their kernel shares over the op classes (half the summed absolute
// differences of each). 0 for the same graph; 1 for graphs that share no class.
double op_mix_distance(const OpClassShares& a, const OpClassShares& b);

// The share of a dense convolution's tensor-core tiles that does useful work. cuDNN runs it as an
// implicit GEMM, N = output channels, K = input channels x window; the tiles are
// kTensorTileN (Ampere's CUTLASS/cuDNN tensor-op thread-block tiles are 128 or 256 wide in N) by
// kTensorTileK (one TF32 K step of 32): a layer with 16 output channels keeps 16 of 128 columns
// busy. 1 for other layers.
constexpr double kTensorTileN = 128;
constexpr double kTensorTileK = 32;
double tensor_tile_utilization(double out_channels, double reduction);

// The factor on a dense convolution's activation bytes (input + output) for the copy of its input
// the tensor cores need. The measurements' PyTorch keeps activations NCHW; cuDNN's tensor-core
// implicit-GEMM convolutions read NHWC, so a convolution with a window (kernel > 1) first copies
// its input to NHWC: one more read and one more write of the input, (3 in + out) / (in + out).
// A 1x1 convolution is a plain GEMM on an NCHW sample (channels x positions) and needs no copy:
// 1, as for a window of 1 or none.
double nchw_copy_byte_factor(double in_elements, double out_elements, std::int64_t window);

// The time of a depthwise convolution's FLOP over the time of a FLOP at the GPU's FP32 peak, for
// the grouped class where no calibrated workload has one (fit_graph_coefficients). PyTorch runs
// FP32 NCHW depthwise convolutions on its own kernels, not cuDNN's: one thread per output element
// loops over the window, each tap loading an input and a weight through the read-only cache and
// checking the padding bounds, one multiply-accumulate per tap. Loads and index arithmetic bound
// it, not the FMA lanes: measured, kDepthwiseSmCyclesPerMac SM-cycles per multiply-accumulate
// (PyTorch issue 18631: a 3x3 depthwise layer of 32 channels on 2 x 32 x 512 x 512 took 1.02 ms
// on a Titan Xp, 30 SMs of 128 FP32 lanes at 1582 MHz: 48.4 M SM-cycles for 151 M MACs), where
// the FP32 peak is one per lane and cycle. The factor: that cost times the FP32 lanes per SM
// (cuda_cores / gpu_sms), 41 on Orin AGX's 128-lane SMs; the window enters through the MACs
// (k^2 per output element) and the loop that runs it (depthwise_window_cost; training's weight
// gradient at its own measured cost there). nullopt without the device's SM count.
constexpr double kDepthwiseSmCyclesPerMac = 0.32;
std::optional<double> depthwise_flop_cost(const DeviceSpec& device);

// A depthwise layer's FLOPs as its window's kernel runs them, over the unrolled 3x3 loop's
// (op_class_shares' padded_flops of the grouped class). PyTorch 1.12's depthwise forward and
// input-gradient kernels are templates unrolled for 3x3 and 1x1 windows; any other window (5x5 in
// MobileNetV3) runs the generic loop, its bounds known only at run time: no unrolling, no
// constant offsets, a loop test per tap, about kGenericWindowTapCost times the unrolled loop's
// cost per tap (PyTorch's maintainers' estimate, issue 1708; the 5x5 templates were added only in
// 2024, pull requests 125362 and 129609). Inference: kGenericWindowTapCost, 1 for a 1x1 or 3x3
// window. Training, its three passes alike in FLOPs: (2 x that + the weight gradient's) / 3.
// The weight gradient is one kernel for every window: a thread block per weight tap reduces
// input x output gradient over batch x positions, with an integer division and modulo, two
// address computations and a bounds test per multiply-accumulate, then a block reduction. Its
// cost per MAC, kDepthwiseWeightGradLoopCost generic loops (kGenericWindowTapCost each), is
// measured: before pull request 129609 a 5x5 (or 6x1) FP32 depthwise layer's backward pass took
// 3.59 times its forward pass (89.00 / 24.98, 88.89 / 24.64 and 9.49 / 2.64 ms, the same GPU
// and shapes as pull request 125362's forward figures), the input gradient one generic loop as
// the forward pass is, the weight gradient the other 2.59 per forward MAC.
constexpr double kGenericWindowTapCost = 2;
constexpr double kDepthwiseWeightGradLoopCost = 2.59;
double depthwise_window_cost(std::int64_t window, Phase phase);

// A workload's parameters from graph coefficients and its shares (preprocess_ms left 0; the
// library launches counted apart, library_launches_apart):
//   1 / eff_compute = sum_c padded_flops_c exp(inv_compute_c), 1 / eff_memory = sum_c moved_bytes_c
//   exp(inv_memory_c), gpu_activity = sum_c flops_c tile_utilization_c exp(activity_c) (idle tile
//   columns keep the GPU busy without switching), kernel_scale = sum_c kernels_c exp(kernels_c).
CrossModeWorkload graph_parameters(const GraphCoefficients& g, const OpClassShares& s);

// DRAM bytes per sample of a minibatch, the part that grows with the batch (activations), from
// the layer graph: (B(16) - B(1)) / 15, L2-resident layers included.
double activation_bytes_per_sample(const DeviceSpec& device, const Workload& workload, Phase phase);

// How long a training workload's kernels run against the host's time to launch them: its GPU
// time per kernel (compute and DRAM, parameters `w`, no data pipeline) over the device's launch
// time per kernel, at the device's top clocks with every core, at batch 16. 1 where the device
// has no clock tables or no launch time.
double kernel_launch_ratio(const DeviceSpec& device, const CrossModeDevice& d,
                           const CrossModeWorkload& w, const Workload& workload);

// One calibrated training workload as launch hiding sees it: its fitted kernel_scale over its
// graph's, and its kernel_launch_ratio.
struct LaunchHiding {
  double ratio = 1;
  double kernel_over_launch = 1;
};

// A launch hides behind the kernel running when it is issued, so the share of launches that cost
// host time goes as launch time over kernel time: ratio x kernel_over_launch is taken as common
// to training. Its value is the geometric mean over `others` of ratio_j x kernel_over_launch_j,
// each weighted by 1 / kernel_over_launch_j (a workload whose launches are a small part of its
// time says little about them); the ratio of a workload whose kernels run kernel_over_launch
// times its launch time is that value over kernel_over_launch, at most 1 (kernels shorter than
// their launches hide none: every launch costs its time, as the graph counts it). 1 without
// others.
double launch_hiding_ratio(const std::vector<LaunchHiding>& others, double kernel_over_launch);

// Launches per graph kernel that training issues against what the graph coefficients give:
// launch_hiding_ratio over the calibration's training workloads other than `workload` (fitted
// kernel_scale over graph_parameters' of the same workload, kernel_launch_ratio with the fitted
// parameters) at `workload`'s kernel_launch_ratio with its graph_parameters (autograd issues the
// backward kernels from C++, and a training step's long kernels hide launches). 1 without graph
// coefficients or without another training workload.
double training_kernel_ratio(const DeviceSpec& device, const CrossModeCalibration& calibration,
                             const Workload& workload, const WorkloadCatalog& catalog);

// Zero-shot parameters of a workload nobody profiled, from its own layer graph through the
// device's coefficients. With graph coefficients (fit_graph_coefficients): graph_parameters of
// the workload's op-class shares, a training workload's kernel_scale times
// training_kernel_ratio. Without: the geometric mean of the calibrated workloads'
// parameters weighted by how alike their graphs are (op-class shares of FLOPs and bytes,
// arithmetic intensity and work per kernel; Gaussian weight). CPU work per sample
// (preprocess_ms), which the graph does not describe: the same phase's calibrated workloads'
// figures scaled in proportion to the bytes per sample, weighted by how near those are (a Gaussian
// in decades, width 0.5: images and token sequences apart). Training: the bytes the dataloader
// handles per sample where the dataset catalog has the image size (the stored JPEG, bytes on
// storage over samples: ImageNet's 109 kB against GLD-23k's 121 kB; the decoded image, 3 x the
// mean stored pixels: 469x387 against 800x600; the crop, the input's elements; the dataset is
// the workload file's, or the one the reference measurements trained the workload on), else the
// input's bytes; inference:
// the input's bytes as the GPU sees it; for inference
// at most the workload's activation bytes per sample times the phase's pooled CPU time per
// activation byte (sum of preprocess_ms over sum of activation_bytes_per_sample). The workload's
// own entry, if the calibration has one, is ignored (leave-one-out evaluation). InputError when
// the calibration has no other workload of the phase.
CrossModeWorkload zero_shot_parameters(const DeviceSpec& device,
                                       const CrossModeCalibration& calibration,
                                       const Workload& workload, Phase phase,
                                       const WorkloadCatalog& catalog);

// The public API, and the simulator's `analytic-modes` perf model.
class CrossModeModel : public PerfModel {
 public:
  // `device` must be the calibration's device (InputError otherwise, naming both).
  CrossModeModel(const DeviceSpec& device, CrossModeCalibration calibration,
                 const WorkloadCatalog& catalog = workload_catalog());

  std::string name() const override { return "analytic-modes"; }
  // Workloads without parameters get zero_shot_parameters from their layer graph and are marked
  // extrapolated; calibrated ones are `modelled`.
  Prediction predict(const PerfQuery& q) const override;
  RailPower idle_power(const DeviceSpec& device, const PowerMode& mode) const override;
  // The calibration's zero-shot check for the phase (zero_shot_check_clause), or empty.
  std::string extrapolation_check(Phase phase) const override;
  // The measured workload of the check (zero_shot_check) in `phase` nearest `workload` by
  // op_mix_distance, and its left-out time and power MAPE: "cifar-convnet training is most like
  // resnet18 training by op mix, at distance 0.08 of 1, whose zero-shot time and power MAPE were
  // 9.5% and 6.9%"; empty without a check or a measured workload of the phase.
  std::string extrapolation_nearest(const Workload& workload, Phase phase) const override;

  // predict(workload, phase, mode, batch): the workload by catalog name or measurement alias.
  CrossModeEstimate predict(const std::string& workload, Phase phase, const PowerMode& mode,
                            int batch_size) const;

  // Parameters used for a workload: its own, else zero-shot from its layer graph (and false).
  std::pair<CrossModeWorkload, bool> parameters(const std::string& workload, Phase phase) const;

  // Whether predict(PerfQuery) includes the measured data pipeline (4 workers) in training time
  // and power (the default), or gives the GPU path alone for a runtime that simulates the
  // pipeline itself. predict(workload, ...) always gives every part.
  void set_pipeline_in_time(bool in_time) { pipeline_in_time_ = in_time; }

  const CrossModeCalibration& calibration() const { return cal_; }

 private:
  DeviceSpec device_;
  CrossModeCalibration cal_;
  const WorkloadCatalog* catalog_;
  bool pipeline_in_time_ = true;
  // Zero-shot parameters, derived once per (workload, phase) on first use (the layer graphs of
  // every calibrated workload are read for each); shared by copies, guarded for threads.
  struct ZeroShotCache {
    std::mutex mutex;
    std::map<WorkloadKey, CrossModeWorkload> parameters;
  };
  std::shared_ptr<ZeroShotCache> zero_shot_ = std::make_shared<ZeroShotCache>();
};

// (a^p + b^p)^(1/p), computed as max(a, b) (1 + (min / max)^p)^(1/p) and bit for bit equal to
// m * pow(pow(a / m, p) + pow(b / m, p), 1 / p), m = max(a, b) (0 when m <= 0): the model's
// combination of two partly overlapping times (p = 1 in sequence, p -> infinity the max).
double cross_mode_pnorm(double a, double b, double p);

// V(f)/V(f_max): v_min_ratio at the table's lowest clock, 1 at its highest,
// v_min + (1 - v_min) x^curve between (x the clock's position from lowest to highest).
double cross_mode_voltage(double f, const std::vector<double>& table, double v_min_ratio,
                          double curve);

}  // namespace fulcrum::models
