// The ranks of an MPI job as the runners (sim/mpi/mpi_runner.hpp) see them: rank, size, a
// gather of bytes on rank 0 in rank order and a broadcast from rank 0. open_world() gives the
// real one when an MPI launcher started the process (MPI through the plugin
// libfulcrum_mpi.so, sim/mpi/plugin_api.hpp); tests give ranks that are threads of one process.
//
//   if (std::unique_ptr<Communicator> world = open_world()) {   // under mpirun -n 3
//     std::vector<std::string> all = world->gather(mine);        // rank 0: 3 strings
//   }
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace fulcrum::sim::mpi {

class Communicator {
 public:
  virtual ~Communicator() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  // Ranks of the job on this machine (this one included): a rank's share of the cores.
  virtual int node_ranks() const = 0;
  // Every rank's bytes, on rank 0 in rank order; empty on the other ranks. Every rank calls it.
  virtual std::vector<std::string> gather(const std::string& mine) = 0;
  // Rank 0's bytes, on every rank. Every rank calls it.
  virtual std::string broadcast(const std::string& from_root) = 0;
  // Ends every rank of the job at once with `status`, for a rank that cannot take its part in
  // the next collective step (MPI_Abort).
  [[noreturn]] virtual void abort(int status) = 0;
};

// Whether this process is one of several ranks started by an MPI launcher, from the
// environment alone (nothing is loaded): FULCRUM_MPI=0 says no and FULCRUM_MPI=1 yes; else
// OpenMPI's mpirun (OMPI_COMM_WORLD_SIZE above 1), or Slurm's srun with PMIx (PMIX_RANK set and
// SLURM_STEP_NUM_TASKS above 1). A single rank runs as a plain process.
bool launched_by_mpi();

// This process's rank from the launcher's environment (OMPI_COMM_WORLD_RANK, else PMIX_RANK) when
// launched_by_mpi(), before MPI starts; nullopt for a plain process or where the launcher does
// not say. An error every rank meets before MPI starts (a bad option) is printed by rank 0 only.
std::optional<int> launcher_rank();

// The job's ranks when launched_by_mpi(): MPI started, and ended when the communicator is
// destroyed (every rank must destroy it). nullptr for a plain process. InputError (key "mpi",
// one line) when this build has no MPI plugin or it cannot be loaded or MPI cannot start.
std::unique_ptr<Communicator> open_world();

// The plugin's path: $FULCRUM_MPI_PLUGIN when set; else libfulcrum_mpi.so beside the
// executable, or in ../lib/fulcrum/ from its folder (an install).
std::string plugin_path();

// The threads a rank uses for `requested` (0: its share of this machine's cores, at least 1).
unsigned rank_threads(unsigned requested, const Communicator& world);

}  // namespace fulcrum::sim::mpi
