// CudaBackend: executes work items on an NVIDIA GPU for real. Each (workload, phase, batch size)
// is prepared once (execution_plan.hpp: device buffers sized from the layer graph, cuDNN
// descriptors and algorithms, random weights and inputs) and then run per item: the input copy,
// per layer cuDNN convolutions (forward, backward data, backward filter; grouped and depthwise
// through cuDNN's group count), cuBLAS products (fully connected, attention, LSTM gates) and the
// backend's own kernels (kernels.hpp), then in training the MSE loss, the backward pass in
// reverse order and an SGD-with-momentum update per parameter tensor. The item's duration is its
// wall time from the first launch to the end of its last kernel (CUDA events give the GPU time
// apart, last_gpu_ms()); its energy is the item's average power times that duration, the power
// metered (NVML's energy counter on a data-centre GPU, the INA3221 rails on a Jetson) over its
// warm-up, Options::metered_seconds in all, so that no timed item pays for the meter's calls.
// Every CUDA, cuDNN and cuBLAS call is checked; a failure is an Error naming the workload, the
// layer and the call.
//
// Native sharing: open_context() gives a further CudaBackend on the same GPU with a CUDA context of
// its own (driver_context.hpp), whose execute() may run at the same time as this one's, each from
// its own thread; the driver time-slices the GPU between the two contexts as between processes.
// Nothing is shared between them (a context's stream, handles, buffers and graphs are not usable
// from another context), the options carry over, and each has its own power meter. A backend made
// by the constructor works in the GPU's primary context, as the CUDA runtime does by default.
//
//   CudaBackend gpu(h100_spec, {.cuda_graphs = false, .layer_timing = true});
//   const Completion& c = gpu.execute({&resnet50, Phase::training, 16, mode});
//   for (const LayerTime& t : gpu.last_layer_times()) ...
//
// This header includes no CUDA header, so that the verbs can use it; cuda_backend.cpp does.
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "backends/backend.hpp"
#include "backends/cuda/driver_context.hpp"
#include "backends/hardware/measured_backend.hpp"
#include "backends/hardware/power_meter.hpp"

namespace fulcrum::backends::cuda {

class CudaBackend final : public MeasuredBackend {
 public:
  struct Options {
    int device = 0;             // CUDA device index (and NVML index)
    bool cuda_graphs = false;   // capture each prepared item once, then replay the graph
    bool layer_timing = false;  // CUDA events around every layer (adds a little host time)
    PowerMeterKind power_meter = PowerMeterKind::automatic;
    std::size_t workspace_limit_bytes = std::size_t{512} << 20;  // cuDNN algorithm choice
    // Each (workload, phase, batch) is metered over this much of its warm-up: its average power
    // then stands, and its timed items cost no meter calls (NVML's take milliseconds).
    double metered_seconds = 1.0;
  };

  // Error when there is no usable GPU, naming why (no device, driver too old, ...). Works in the
  // GPU's primary context.
  CudaBackend(const models::DeviceSpec& device, Options options);
  ~CudaBackend() override;
  CudaBackend(const CudaBackend&) = delete;
  CudaBackend& operator=(const CudaBackend&) = delete;

  const models::DeviceSpec& device() const override { return device_; }
  const Completion& execute(const WorkItem& item) override;
  // Metered once, after the power has settled (backends/hardware/settled_idle.hpp).
  models::RailPower idle_power(const models::PowerMode& mode) override;
  std::optional<IdleMetering> idle_metering() const override { return idle_metering_; }
  // A CudaBackend with the same device and options in a new CUDA context of its own (never
  // nullptr). Its execute(), idle_power() and destructor make that context current on the calling
  // thread for their duration and restore what was current before, so that it may be driven from
  // any thread, one call at a time, while this backend runs on another. An item's duration then
  // includes the time the driver gave the GPU to the other context; its energy is what the whole
  // GPU drew, as its own meter measures it (the contexts' figures overlap, they do not add up).
  // Error when the driver cannot create a context.
  std::unique_ptr<Backend> open_context() override;

  // Per-layer times of the last executed item (empty unless Options::layer_timing, and with a
  // replayed graph).
  std::vector<LayerTime> last_layer_times() const override { return layer_times_; }
  // GPU time of the last item between CUDA events around it, ms (the Completion's duration is
  // its wall time, launches included).
  double last_gpu_ms() const { return last_gpu_ms_; }
  // Launches (kernels, library calls, copies, memsets) the last item enqueued.
  int last_launches() const { return last_launches_; }
  const PowerMeter& meter() const override { return *meter_; }
  std::string gpu_name() const override;
  const Options& options() const { return options_; }
  // Whether this backend has a CUDA context of its own (made by open_context()).
  bool owns_context() const { return own_context_ != nullptr; }

 private:
  struct Context;   // CUDA stream, handles, events (cuda_backend.cpp)
  struct Current;   // makes this backend's context current for a call (cuda_backend.cpp)
  struct Prepared;  // one (workload, phase, batch) ready to run
  using Key = std::tuple<const models::Workload*, models::Phase, int>;

  struct RunTimes {
    std::chrono::nanoseconds wall{0};
    float gpu_ms = 0;
  };
  Prepared& prepared(const WorkItem& item);
  // Runs `p` once, metered; adds the meter's window to p's history.
  RunTimes run_once(Prepared& p);
  void enqueue(Prepared& p);
  // Creates the stream, handles, events and the cuBLAS workspace in the current context, and the
  // meter.
  void open_handles();
  // The backend of open_context(): `parent`'s device and options in `context`.
  CudaBackend(const CudaBackend& parent, std::unique_ptr<DriverContext> context);

  const models::DeviceSpec& device_;
  Options options_;
  // Declared before everything allocated in it, so that it is destroyed last.
  std::unique_ptr<DriverContext> own_context_;  // null: the primary context
  std::unique_ptr<Context> ctx_;
  std::unique_ptr<PowerMeter> meter_;
  std::map<Key, std::unique_ptr<Prepared>> prepared_;
  std::optional<models::RailPower> idle_;
  std::optional<IdleMetering> idle_metering_;
  Completion completion_;
  std::vector<LayerTime> layer_times_;
  int last_launches_ = 0;
  double last_gpu_ms_ = 0;
};

// What the CUDA runtime says about a GPU, for `fulcrum devices --probe`.
struct GpuProperties {
  std::string name;
  int compute_major = 0, compute_minor = 0;
  int sms = 0;
  int cuda_cores = 0;    // SMs x FP32 lanes per SM of the architecture (0 when unknown)
  int tensor_cores = 0;  // SMs x tensor cores per SM (0 when unknown)
  double memory_bytes = 0;
  int memory_bus_bits = 0;
  double l2_bytes = 0;
  std::optional<double> sm_clock_khz, memory_clock_khz;  // the runtime's peak clocks, if given
  int runtime_version = 0, driver_version = 0;
};

// Error when there is no GPU `device`.
GpuProperties probe_gpu(int device = 0);

// GPUs the CUDA runtime sees: 0 without a GPU or driver (never throws), for tests that skip.
int gpu_count();

}  // namespace fulcrum::backends::cuda
