// The entry point of libfulcrum_cuda.so (plugin_api.hpp): the cuda backend, the GPU probe and the
// GPU count behind one exported table. Errors that are the machine's and not the program's (no
// GPU, no driver) are InputErrors, so that `--backend cuda` on a machine without a GPU is one
// line and exit 2.
#include <cuda_runtime_api.h>

#include <memory>
#include <optional>
#include <string>

#include "backends/cuda/cuda_backend.hpp"
#include "backends/cuda/plugin_api.hpp"
#include "models/error.hpp"

namespace fulcrum::backends::cuda {
namespace {

// Throws InputError under `key` when the CUDA runtime sees no GPU, with the runtime's reason.
void require_gpu(const char* key) {
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status == cudaSuccess && count > 0) return;
  cudaGetLastError();
  const std::string why = status == cudaSuccess ? std::string("the CUDA runtime sees no GPU")
                                                : std::string(cudaGetErrorString(status));
  throw InputError(std::nullopt, key, "no GPU answers on this machine (" + why + ")");
}

std::unique_ptr<Backend> make(const BackendOptions& o) {
  require_gpu("--backend");
  if (o.device == nullptr) throw Error("make_backend: no device given");
  return std::make_unique<CudaBackend>(
      *o.device,
      CudaBackend::Options{.cuda_graphs = o.cuda_graphs, .layer_timing = o.layer_timing});
}

GpuDescription probe(int device) {
  require_gpu("--probe");
  const GpuProperties p = probe_gpu(device);
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
}

const PluginApi api{.abi = kPluginAbi,
                    .layout = this_build_layout(),
                    .make_backend = &make,
                    .probe_gpu = &probe,
                    .gpu_count = &gpu_count};

}  // namespace
}  // namespace fulcrum::backends::cuda

extern "C" __attribute__((visibility("default"))) const fulcrum::backends::cuda::PluginApi*
fulcrum_cuda_plugin() {
  return &fulcrum::backends::cuda::api;
}
