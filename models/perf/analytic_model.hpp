// AnalyticModel: a per-layer roofline for minibatch time plus static + activity-driven power per
// rail, with coefficients fitted to measured anchors (models/perf/calibration.hpp). Equations and
// every assumption are in docs/MODEL.md.
//
//   AnalyticModel model(load_calibration("models/data/calibration/orin-agx-64gb.yaml"));
//   Prediction p = model.predict({device, mode, workload, Phase::training, 16});
#pragma once

#include <string>
#include <vector>

#include "models/perf/perf_model.hpp"

namespace fulcrum::models {

// Every coefficient of the analytic model. The time coefficients and the power magnitudes are
// fitted; the shape parameters (voltage/frequency prior, rail split, static shares) are stated
// priors, because the anchors are all at MAXN and report module totals only.
struct AnalyticCoefficients {
  // --- Time ---
  double eff_compute = 0.5;      // achieved fraction of CUDA-core peak (cores x 2 x f_gpu):
                                 // convolutions and element-wise layers
  double eff_matmul = 0.5;       // the same for matrix products (linear, attention, LSTM), which
                                 // PyTorch runs in FP32 while cuDNN convolutions may use TF32
  double eff_grouped = 0.5;      // the same for grouped/depthwise convolutions: little reuse per
                                 // loaded value and no tensor-core path, far below dense convs
  double eff_memory = 0.5;       // achieved fraction of peak DRAM bandwidth at f_emc
  double launch_us = 10;         // host time per kernel launch at cpu_ref_khz
  double overhead_ms = 0;        // host time per minibatch (framework, sync) at cpu_ref_khz
  double launch_overlap = 0;     // share of min(GPU, launch) of a layer not hidden (0 = async)
  double cpu_ref_khz = 2201600;  // CPU frequency at which launch_us and overhead_ms hold

  // --- Power magnitudes at the calibration device's maximum clocks ---
  double static_w = 10;          // module power with nothing running (all rails)
  double gpu_dynamic_w = 20;     // extra power of a GPU busy 100% of the time
  double memory_dynamic_w = 10;  // extra power of DRAM at 100% of peak bandwidth
  double cpu_dynamic_w = 5;      // extra power of one host thread busy 100% (launches)

  // --- Priors (not fitted) ---
  double gpu_v_min_ratio = 0.6;        // V(f_min)/V(f_max) of the GPU rail; V linear in f between
  double cpu_v_min_ratio = 0.6;        // same for the CPU clusters
  double static_gpu_soc_share = 0.45;  // share of static_w on VDD_GPU_SOC
  double static_cpu_cv_share = 0.20;   // share of static_w on VDD_CPU_CV (rest: VIN_SYS_5V0)
  double static_scalable_share = 0.5;  // share of each rail's static power that scales with mode

  // --- The calibration device, for extrapolating to others ---
  std::string device = "orin-agx-64gb";
  double ref_cuda_cores = 2048;      // its CUDA cores: a mode's share of them on it
  double ref_memory_bus_bits = 256;  // its DRAM bus width, for the record: power does not use it
  double ref_module_peak_w = 60;     // its maximum module power; headroom = this - static_w
};

// The parts of one minibatch's predicted time, in ms; the fit and the power model use them.
struct TimeBreakdown {
  double total_ms = 0;
  double gpu_ms = 0;      // sum over layers of max(compute, memory)
  double compute_ms = 0;  // sum over layers of the compute roofline term
  double launch_ms = 0;   // sum over layers of the launch term
  double host_ms = 0;     // launch_ms + per-minibatch overhead: host-thread busy time
  double dram_bytes = 0;  // bytes moved
};

// Which fitted efficiency a layer's compute runs at.
enum class ComputeClass {
  general,  // eff_compute: dense convolutions and element-wise layers
  matmul,   // eff_matmul: matrix products (linear, matmul, lstm, embedding)
  grouped,  // eff_grouped: grouped/depthwise convolutions
};

// The compute class of a layer, from its kind (and, for a convolution, whether it is grouped).
ComputeClass compute_class(const LayerWork& layer);

// Features of one layer at one mode with all efficiencies 1 and launch cost 1 ms, so that the
// roofline terms are linear in 1/eff_compute, 1/eff_memory and launch time (used by the fit).
struct LayerFeatures {
  double compute_ms = 0;  // flops / (cores_on x 2 x f_gpu)
  double memory_ms = 0;   // bytes / bandwidth(f_emc)
  double launches = 0;    // kernels x cpu_ref / f_cpu  (multiply by launch time in ms)
  ComputeClass compute_class = ComputeClass::general;
};

class AnalyticModel : public PerfModel {
 public:
  explicit AnalyticModel(AnalyticCoefficients coefficients);

  std::string name() const override { return "analytic"; }
  Prediction predict(const PerfQuery& q) const override;
  RailPower idle_power(const DeviceSpec& device, const PowerMode& mode) const override;

  const AnalyticCoefficients& coefficients() const { return c_; }

  // Time of a minibatch given its per-layer work (what predict() does after layer_work()). With
  // host_share < 1 (the host thread gets that share of a core: CPU contention) each layer's
  // launch time and the per-minibatch overhead take 1 / host_share as long in the total;
  // launch_ms and host_ms stay the host thread's core-time.
  TimeBreakdown time(const DeviceSpec& device, const PowerMode& mode,
                     const std::vector<LayerWork>& layers, double host_share = 1.0) const;
  // Power per rail while a minibatch with this breakdown runs.
  RailPower busy_power(const DeviceSpec& device, const PowerMode& mode,
                       const TimeBreakdown& t) const;

 private:
  AnalyticCoefficients c_;
};

// Roofline features of each layer (no coefficients applied). Throws InputError when the mode
// has no GPU cores, a zero frequency or the device lacks what the roofline needs.
std::vector<LayerFeatures> layer_features(const DeviceSpec& device, const PowerMode& mode,
                                          const std::vector<LayerWork>& layers, double cpu_ref_khz);

// DRAM bytes of a layer on a device: its bytes plus its re-read weights when their block does not
// fit in the device's GPU L2 (or the L2 size is unknown).
double dram_bytes(const DeviceSpec& device, const LayerWork& layer);

// Per-minibatch host overhead scale: cpu_ref_khz / f_cpu.
double host_scale(const PowerMode& mode, double cpu_ref_khz);

// V(f)/V(f_max) under the linear voltage prior: v_min_ratio at the table's lowest frequency,
// 1 at its highest.
double voltage_ratio(double f, double f_min, double f_max, double v_min_ratio);

// Where each power component goes among the device's rails (index into DeviceSpec::rails):
// the GPU+SoC component, the CPU component and the memory/system component. Orin AGX names map
// directly; other devices by keyword (GPU, CPU, SYS/5V/IN), unmatched ones to the last rail.
struct RailMap {
  std::size_t gpu_soc = 0;
  std::size_t cpu = 0;
  std::size_t sys = 0;
};
RailMap rail_map(const DeviceSpec& device);

}  // namespace fulcrum::models
