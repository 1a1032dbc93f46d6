// MPI as a plugin: what the shared library libfulcrum_mpi.so (sim/mpi/plugin/) hands to the
// executable that opened it. `fulcrum` links no MPI library: a plain run never loads or starts
// MPI. open_world() (sim/mpi/communicator.hpp) dlopen()s the plugin only when the process was
// started by an MPI launcher, and calls through this table.
//
//   const PluginApi* api = fulcrum_mpi_plugin();   // the one exported symbol (kPluginEntry)
//   WorldShape shape = api->init();
//
// The plugin and the executable come from the same build (the loader compares kPluginAbi and
// the table's size); both use the same C++ runtime, so a std::string, a std::vector and an
// exception cross the boundary as between two objects of one program. No MPI header here.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace fulcrum::sim::mpi {

// Raised with every change of PluginApi or of what its functions take and return.
inline constexpr int kPluginAbi = 1;
// The name of the function the plugin exports (extern "C", returns const PluginApi*).
inline constexpr const char* kPluginEntry = "fulcrum_mpi_plugin";

// This process's place in the job.
struct WorldShape {
  int rank = 0;
  int size = 1;
  int node_ranks = 1;  // ranks on this machine (this one included)
};

struct PluginApi {
  int abi = kPluginAbi;
  std::size_t api_size = sizeof(PluginApi);
  // Starts MPI (only the calling thread makes MPI calls). std::runtime_error when it cannot.
  WorldShape (*init)() = nullptr;
  // Every rank's bytes, on rank 0 in rank order (empty on the other ranks). Collective; any size.
  std::vector<std::string> (*gather)(const std::string& mine) = nullptr;
  // Rank 0's bytes on every rank. Collective; any size.
  std::string (*broadcast)(const std::string& from_root) = nullptr;
  // Ends every rank of the job with `status` (MPI_Abort); does not return.
  void (*abort)(int status) = nullptr;
  // Ends MPI (collective).
  void (*finalize)() = nullptr;
};

}  // namespace fulcrum::sim::mpi
