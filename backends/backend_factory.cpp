#include "backends/backend_factory.hpp"

#include <algorithm>
#include <cstdlib>
#include <string_view>

#include "backends/simulated_backend.hpp"
#ifdef FULCRUM_CUDA_BACKEND
#include "backends/cuda/cuda_backend.hpp"
#endif
#include "models/error.hpp"

namespace fulcrum::backends {

namespace {

std::string joined(const std::vector<std::string>& names) {
  std::string s;
  for (const std::string& n : names) s += (s.empty() ? "" : ", ") + n;
  return s;
}

}  // namespace

const std::vector<std::string>& backend_names() {
  static const std::vector<std::string> names{"sim", "cuda"};
  return names;
}

std::vector<std::string> available_backends() {
  std::vector<std::string> names{"sim"};
#ifdef FULCRUM_CUDA_BACKEND
  names.emplace_back("cuda");
#endif
  return names;
}

std::string available_backends_text() { return joined(available_backends()); }

void require_available(std::string_view name) {
  const std::vector<std::string> available = available_backends();
  if (std::find(available.begin(), available.end(), name) == available.end()) {
    const std::vector<std::string>& known = backend_names();
    const bool is_known = std::find(known.begin(), known.end(), name) != known.end();
    throw InputError(std::nullopt, "--backend",
                     "'" + std::string(name) + "' " +
                         (is_known ? "is not available in this build"
                                   : "is not a backend (backends: " + joined(known) + ")") +
                         " (available: " + joined(available) + ")");
  }
}

bool is_measured_backend(std::string_view name) {
  const std::vector<std::string>& known = backend_names();
  if (std::find(known.begin(), known.end(), name) == known.end()) require_available(name);
  return name != "sim";
}

GpuDescription probe_gpu([[maybe_unused]] int device) {
#ifdef FULCRUM_CUDA_BACKEND
  const cuda::GpuProperties p = cuda::probe_gpu(device);
  GpuDescription d;
  d.name = p.name;
  d.sm_version = 10 * p.compute_major + p.compute_minor;
  d.sms = p.sms;
  d.cuda_cores = p.cuda_cores;
  d.tensor_cores = p.tensor_cores;
  d.memory_bytes = p.memory_bytes;
  d.memory_bus_bits = p.memory_bus_bits;
  d.l2_bytes = p.l2_bytes;
  if (p.sm_clock_khz) d.sm_clock_hz = *p.sm_clock_khz * 1e3;
  if (p.memory_clock_khz) d.memory_clock_hz = *p.memory_clock_khz * 1e3;
  d.cuda_runtime = p.runtime_version;
  d.cuda_driver = p.driver_version;
  return d;
#else
  throw Error(
      "this build has no cuda backend (CMake found no nvcc or no cuDNN): it cannot probe a "
      "GPU");
#endif
}

BackendOptions with_environment(BackendOptions options) {
  // FULCRUM_CUDA_GRAPHS=1 turns graph replay on for every verb (docs/HARDWARE.md).
  const char* graphs = std::getenv("FULCRUM_CUDA_GRAPHS");
  if (graphs != nullptr && std::string_view(graphs) == "1") options.cuda_graphs = true;
  return options;
}

std::unique_ptr<Backend> make_backend(std::string_view name, const BackendOptions& options) {
  require_available(name);
  if (options.device == nullptr) throw Error("make_backend: no device given");
  if (name == "sim") {
    if (options.perf_model == nullptr) throw Error("make_backend: sim needs a performance model");
    return std::make_unique<SimulatedBackend>(
        *options.device, *options.perf_model,
        SimulatedBackend::Options{options.real_time, options.slicing});
  }
#ifdef FULCRUM_CUDA_BACKEND
  if (name == "cuda") {
    const BackendOptions o = with_environment(options);
    return std::make_unique<cuda::CudaBackend>(
        *o.device,
        cuda::CudaBackend::Options{.cuda_graphs = o.cuda_graphs, .layer_timing = o.layer_timing});
  }
#endif
  throw Error("make_backend: '" + std::string(name) + "' is listed as available but not built");
}

}  // namespace fulcrum::backends
