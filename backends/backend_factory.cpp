#include "backends/backend_factory.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <cstdlib>
#include <mutex>
#include <string_view>

#include "backends/cuda/plugin_api.hpp"
#include "backends/simulated_backend.hpp"
#include "models/error.hpp"
#include "models/io/plugin_file.hpp"

namespace fulcrum::backends {

namespace {

std::string joined(const std::vector<std::string>& names) {
  std::string s;
  for (const std::string& n : names) s += (s.empty() ? "" : ", ") + n;
  return s;
}

#ifdef FULCRUM_CUDA_BACKEND
// The plugin's file name (CMake: the cuda backend's MODULE library).
constexpr const char* kPluginFile = FULCRUM_CUDA_PLUGIN_FILE;

// One line for a plugin that cannot be used: InputError under `key` (the machine's or the
// installation's fault, not the program's), naming the plugin and what the loader said.
[[noreturn]] void plugin_failure(const char* key, const std::string& path, const std::string& why) {
  throw InputError(std::nullopt, key,
                   "cannot load the cuda backend " + path + ": " + why +
                       " (FULCRUM_CUDA_PLUGIN may name the plugin file)");
}

// The plugin's table, loaded once per process (and never unloaded: backends it made may live
// until exit). A failure is thrown again by every later call.
const cuda::PluginApi& plugin(const char* key) {
  static std::mutex mutex;
  static const cuda::PluginApi* api = nullptr;
  const std::lock_guard lock(mutex);
  if (api != nullptr) return *api;
  const std::string path = models::plugin_path("FULCRUM_CUDA_PLUGIN", kPluginFile);
  const models::OpenedPlugin opened =
      models::open_plugin(path, cuda::kPluginEntry, "not a fulcrum cuda plugin");
  if (!opened.error.empty()) plugin_failure(key, path, opened.error);
  using Entry = const cuda::PluginApi* (*)();
  const cuda::PluginApi* table = reinterpret_cast<Entry>(opened.entry)();
  if (table == nullptr || table->abi != cuda::kPluginAbi ||
      !(table->layout == cuda::this_build_layout()) || table->make_backend == nullptr ||
      table->probe_gpu == nullptr || table->gpu_count == nullptr) {
    dlclose(opened.handle);
    plugin_failure(key, path,
                   "built by another build of fulcrum (its interface differs); rebuild it");
  }
  api = table;
  return *api;
}
#endif

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
    // An unknown name lists the backends, and those of this build where they differ.
    std::string problem;
    if (is_known)
      problem = "is not available in this build (available: " + joined(available) + ")";
    else if (available == known)
      problem = "is not a backend (backends: " + joined(known) + ")";
    else
      problem = "is not a backend (backends: " + joined(known) +
                "; available in this build: " + joined(available) + ")";
    std::string quoted(1, '\'');
    quoted.append(name).append("' ");
    throw InputError(std::nullopt, "--backend", quoted + problem);
  }
}

bool takes_cuda_options(std::string_view name) { return name == "cuda"; }

bool is_measured_backend(std::string_view name) {
  const std::vector<std::string>& known = backend_names();
  if (std::find(known.begin(), known.end(), name) == known.end()) require_available(name);
  return name != "sim";
}

GpuDescription probe_gpu([[maybe_unused]] int device) {
#ifdef FULCRUM_CUDA_BACKEND
  return plugin("--probe").probe_gpu(device);
#else
  throw InputError(std::nullopt, "--probe",
                   "this build has no cuda backend (CMake found no nvcc or no cuDNN): it cannot "
                   "probe a GPU");
#endif
}

int cuda_gpu_count() {
#ifdef FULCRUM_CUDA_BACKEND
  try {
    return plugin("--backend").gpu_count();
  } catch (const InputError&) {
    return 0;
  }
#else
  return 0;
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
  if (name == "cuda") return plugin("--backend").make_backend(with_environment(options));
#endif
  throw Error("make_backend: '" + std::string(name) + "' is listed as available but not built");
}

}  // namespace fulcrum::backends
