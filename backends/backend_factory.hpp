// make_backend: the one place that turns a backend's name into a Backend. Every verb that runs
// work items (run, and later optimize, profile, validate) goes through it, so a new backend is one
// entry here and nothing else asks which backend it has.
//
//   auto backend = make_backend("sim", {.device = &orin, .perf_model = &model});
//   for (const std::string& name : available_backends()) std::cout << name << "\n";
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "backends/backend.hpp"
#include "backends/time_slicer.hpp"
#include "models/device/device_spec.hpp"
#include "models/perf/perf_model.hpp"

namespace fulcrum::backends {

struct BackendOptions {
  const models::DeviceSpec* device = nullptr;     // the device the run is for; required
  const models::PerfModel* perf_model = nullptr;  // what `sim` asks; required for it
  // Execute in real time: `sim` then sleeps for each item's duration (an emulated device, to
  // drive the wall-clock path without hardware); a hardware backend always does.
  bool real_time = false;
  // cuda: capture each (workload, phase, batch) once as a CUDA graph and replay it (removes the
  // host's per-launch cost); time every layer with CUDA events.
  bool cuda_graphs = false;
  bool layer_timing = false;
  // `sim` in real time: how the contexts it opens share its emulated GPU (native sharing).
  TimeSlicer::Options slicing{};
};

// `options` as the cuda backend takes them: graph replay also when the environment has
// FULCRUM_CUDA_GRAPHS=1 (what --cuda-graphs sets on the command line).
BackendOptions with_environment(BackendOptions options);

// Every backend Fulcrum knows, whether or not this build has it: "sim", "cuda".
const std::vector<std::string>& backend_names();

// The backends this build can run: "sim" always; "cuda" when it was built with the CUDA backend
// (CMake found nvcc and backends/cuda/ has the backend).
std::vector<std::string> available_backends();

// available_backends() as people read it: "sim" or "sim, cuda".
std::string available_backends_text();

// Whether the backend called `name` measures a real device (Backend::is_measured() of what
// make_backend would return), for a verb that must decide before it makes one: "cuda" yes, "sim"
// no. InputError as require_available() for a name that is not a backend.
bool is_measured_backend(std::string_view name);

// Whether the backend called `name` takes the CUDA options (BackendOptions::cuda_graphs,
// profile_layers): "cuda" yes, "sim" no. Asked before a backend is made, to refuse the flags.
bool takes_cuda_options(std::string_view name);

// Throws what make_backend would for a name that is unknown or not in this build.
void require_available(std::string_view name);

// What the CUDA runtime says about the GPU at hand (`fulcrum devices --probe`).
struct GpuDescription {
  std::string name;    // "NVIDIA H100 80GB HBM3"
  int sm_version = 0;  // compute capability x 10 (90)
  int sms = 0;
  int cuda_cores = 0;  // 0 when the architecture is unknown
  int tensor_cores = 0;
  double memory_bytes = 0;
  int memory_bus_bits = 0;
  double l2_bytes = 0;
  std::optional<double> sm_clock_hz, memory_clock_hz;  // the runtime's peak clocks
  int cuda_runtime = 0, cuda_driver = 0;               // versions, 13000 = 13.0
};

// InputError (key "--probe", one line) when this build has no cuda backend, its plugin cannot be
// loaded (naming the plugin and the library that failed), or no GPU `device` answers.
GpuDescription probe_gpu(int device = 0);

// GPUs the cuda backend sees: 0 without the backend, its plugin, a driver or a GPU (never throws;
// for tests that skip without a GPU).
int cuda_gpu_count();

// The backend called `name`, built for options.device. InputError (key path "--backend") for a
// name that is unknown or not in this build, naming what is available; for "cuda" also when its
// plugin (libfulcrum_cuda.so, loaded here and only here) or a CUDA library it needs cannot be
// loaded, and when no GPU answers. The device and the objects the options point to must outlive
// the backend.
std::unique_ptr<Backend> make_backend(std::string_view name, const BackendOptions& options);

}  // namespace fulcrum::backends
