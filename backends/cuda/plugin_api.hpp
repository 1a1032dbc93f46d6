// The CUDA backend as a plugin: what the shared library libfulcrum_cuda.so hands to the
// executable that opened it. `fulcrum` links no CUDA library; make_backend("cuda"), probe_gpu()
// and cuda_gpu_count() (backends/backend_factory.hpp) dlopen() the plugin the first time they are
// asked and call through this table, so that a simulation never loads cuBLAS, cuDNN or the CUDA
// runtime (docs/HARDWARE.md, "How the CUDA backend is found").
//
//   const PluginApi* api = fulcrum_cuda_plugin();   // the one exported symbol (kPluginEntry)
//   std::unique_ptr<Backend> gpu = api->make_backend(options);
//
// The plugin and the executable must come from the same build: both sides compare kPluginAbi
// and the sizes of the types that cross, and the loader refuses a plugin that differs. Both use
// the same C++ runtime (libstdc++), so a std::unique_ptr, a std::string and an exception cross
// the boundary as they would between two objects of one program.
// No CUDA header here: backends/backend_factory.cpp includes it.
#pragma once

#include <cstddef>
#include <memory>

#include "backends/backend_factory.hpp"

namespace fulcrum::backends::cuda {

// Raised with every change of PluginApi or of what its functions take and return.
inline constexpr int kPluginAbi = 1;
// The name of the function the plugin exports (extern "C", returns const PluginApi*).
inline constexpr const char* kPluginEntry = "fulcrum_cuda_plugin";

// Sizes of the types that cross the boundary, so that a plugin of another build is refused
// instead of misread.
struct PluginLayout {
  std::size_t api, options, gpu, completion, device;
  friend bool operator==(const PluginLayout&, const PluginLayout&) = default;
};

struct PluginApi {
  int abi = kPluginAbi;
  PluginLayout layout{};
  // The cuda backend for options.device. InputError (key "--backend") when no GPU answers;
  // Error for a failure of the device.
  std::unique_ptr<Backend> (*make_backend)(const BackendOptions& options) = nullptr;
  // What the CUDA runtime says about GPU `device`; InputError when there is none.
  GpuDescription (*probe_gpu)(int device) = nullptr;
  // GPUs the CUDA runtime sees; 0 without a GPU or driver (never throws).
  int (*gpu_count)() = nullptr;
};

// This build's layout (the same expression on both sides).
inline PluginLayout this_build_layout() {
  return {sizeof(PluginApi), sizeof(BackendOptions), sizeof(GpuDescription), sizeof(Completion),
          sizeof(models::DeviceSpec)};
}

}  // namespace fulcrum::backends::cuda
