#include "sim/mpi/communicator.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <cstdlib>
#include <exception>
#include <string>
#include <thread>

#include "models/error.hpp"
#include "models/io/plugin_file.hpp"
#include "sim/mpi/plugin_api.hpp"

namespace fulcrum::sim::mpi {

namespace {

constexpr const char* kPluginFile = "libfulcrum_mpi.so";

std::optional<long> env_number(const char* name) {
  const char* v = std::getenv(name);
  if (v == nullptr || *v == '\0') return std::nullopt;
  char* end = nullptr;
  const long n = std::strtol(v, &end, 10);
  if (*end != '\0') return std::nullopt;
  return n;
}

[[noreturn]] void plugin_failure(const std::string& path, const std::string& why) {
  throw InputError(std::nullopt, "mpi",
                   "started by an MPI launcher, but cannot load " + path + ": " + why +
                       " (a build without OpenMPI runs one process: use --shard K/N; "
                       "FULCRUM_MPI_PLUGIN may name the plugin file)");
}

// The plugin's table, loaded once per process and never unloaded (MPI lives until exit).
const PluginApi& plugin() {
  static const PluginApi* api = nullptr;
  if (api != nullptr) return *api;
  const std::string path = plugin_path();
  // RTLD_GLOBAL: OpenMPI opens components of its own that look for its symbols.
  const models::OpenedPlugin opened = models::open_plugin(
      path, kPluginEntry, "not a fulcrum MPI plugin", RTLD_NOW | RTLD_GLOBAL, true);
  if (!opened.error.empty()) plugin_failure(path, opened.error);
  using Entry = const PluginApi* (*)();
  const PluginApi* table = reinterpret_cast<Entry>(opened.entry)();
  if (table == nullptr || table->abi != kPluginAbi || table->api_size != sizeof(PluginApi) ||
      table->init == nullptr || table->gather == nullptr || table->broadcast == nullptr ||
      table->abort == nullptr || table->finalize == nullptr) {
    plugin_failure(path, "built by another build of fulcrum (its interface differs); rebuild it");
  }
  api = table;
  return *api;
}

class MpiWorld final : public Communicator {
 public:
  explicit MpiWorld(const PluginApi& api) : api_(api) {
    try {
      shape_ = api_.init();
    } catch (const std::exception& e) {
      throw InputError(std::nullopt, "mpi", std::string("MPI did not start: ") + e.what());
    }
  }
  ~MpiWorld() override { api_.finalize(); }
  int rank() const override { return shape_.rank; }
  int size() const override { return shape_.size; }
  int node_ranks() const override { return shape_.node_ranks; }
  std::vector<std::string> gather(const std::string& mine) override { return api_.gather(mine); }
  std::string broadcast(const std::string& from_root) override { return api_.broadcast(from_root); }
  [[noreturn]] void abort(int status) override {
    api_.abort(status);
    std::_Exit(status);  // MPI_Abort does not return; should it, this rank ends all the same
  }

 private:
  const PluginApi& api_;
  WorldShape shape_;
};

}  // namespace

bool launched_by_mpi() {
  if (const std::optional<long> forced = env_number("FULCRUM_MPI")) return *forced != 0;
  if (const std::optional<long> size = env_number("OMPI_COMM_WORLD_SIZE")) return *size > 1;
  if (std::getenv("PMIX_RANK") != nullptr) {
    const std::optional<long> tasks = env_number("SLURM_STEP_NUM_TASKS");
    return tasks && *tasks > 1;
  }
  return false;
}

std::optional<int> launcher_rank() {
  if (!launched_by_mpi()) return std::nullopt;
  for (const char* name : {"OMPI_COMM_WORLD_RANK", "PMIX_RANK"}) {
    if (const std::optional<long> rank = env_number(name)) return static_cast<int>(*rank);
  }
  return std::nullopt;
}

std::string plugin_path() { return models::plugin_path("FULCRUM_MPI_PLUGIN", kPluginFile); }

std::unique_ptr<Communicator> open_world() {
  if (!launched_by_mpi()) return nullptr;
  return std::make_unique<MpiWorld>(plugin());
}

unsigned rank_threads(unsigned requested, const Communicator& world) {
  if (requested != 0) return requested;
  const unsigned cores = std::max(1U, std::thread::hardware_concurrency());
  return std::max(1U, cores / static_cast<unsigned>(std::max(1, world.node_ranks())));
}

}  // namespace fulcrum::sim::mpi
