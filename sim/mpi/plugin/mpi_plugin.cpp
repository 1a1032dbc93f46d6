// libfulcrum_mpi.so: sim/mpi/plugin_api.hpp over OpenMPI. The only file of the project that
// includes <mpi.h>; every MPI error is fatal to the job (MPI_ERRORS_ARE_FATAL, the default), so
// a rank never waits on a peer that has failed inside MPI.
#include <mpi.h>

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "sim/mpi/plugin_api.hpp"

namespace {

using fulcrum::sim::mpi::PluginApi;
using fulcrum::sim::mpi::WorldShape;

// Messages go in pieces of at most 1 GiB (MPI counts are ints).
constexpr std::uint64_t kPiece = std::uint64_t{1} << 30;
constexpr int kTag = 20;

void check(int code, const char* what) {
  if (code != MPI_SUCCESS) throw std::runtime_error(std::string("MPI: ") + what + " failed");
}

WorldShape init() {
  int provided = 0;
  check(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided), "MPI_Init_thread");
  WorldShape shape;
  check(MPI_Comm_rank(MPI_COMM_WORLD, &shape.rank), "MPI_Comm_rank");
  check(MPI_Comm_size(MPI_COMM_WORLD, &shape.size), "MPI_Comm_size");
  MPI_Comm node = MPI_COMM_NULL;
  check(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node),
        "MPI_Comm_split_type");
  check(MPI_Comm_size(node, &shape.node_ranks), "MPI_Comm_size");
  MPI_Comm_free(&node);
  return shape;
}

void send_bytes(const std::string& data, int to) {
  std::uint64_t size = data.size();
  check(MPI_Send(&size, 1, MPI_UINT64_T, to, kTag, MPI_COMM_WORLD), "MPI_Send");
  for (std::uint64_t at = 0; at < size; at += kPiece) {
    const int n = static_cast<int>(std::min(kPiece, size - at));
    check(MPI_Send(data.data() + at, n, MPI_BYTE, to, kTag, MPI_COMM_WORLD), "MPI_Send");
  }
}

std::string receive_bytes(int from) {
  std::uint64_t size = 0;
  check(MPI_Recv(&size, 1, MPI_UINT64_T, from, kTag, MPI_COMM_WORLD, MPI_STATUS_IGNORE),
        "MPI_Recv");
  std::string data(size, '\0');
  for (std::uint64_t at = 0; at < size; at += kPiece) {
    const int n = static_cast<int>(std::min(kPiece, size - at));
    check(MPI_Recv(data.data() + at, n, MPI_BYTE, from, kTag, MPI_COMM_WORLD, MPI_STATUS_IGNORE),
          "MPI_Recv");
  }
  return data;
}

std::vector<std::string> gather(const std::string& mine) {
  int rank = 0, size = 1;
  check(MPI_Comm_rank(MPI_COMM_WORLD, &rank), "MPI_Comm_rank");
  check(MPI_Comm_size(MPI_COMM_WORLD, &size), "MPI_Comm_size");
  if (rank != 0) {
    send_bytes(mine, 0);
    return {};
  }
  std::vector<std::string> all{mine};
  for (int r = 1; r < size; ++r) all.push_back(receive_bytes(r));
  return all;
}

std::string broadcast(const std::string& from_root) {
  int rank = 0;
  check(MPI_Comm_rank(MPI_COMM_WORLD, &rank), "MPI_Comm_rank");
  std::uint64_t size = rank == 0 ? from_root.size() : 0;
  check(MPI_Bcast(&size, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD), "MPI_Bcast");
  std::string data = rank == 0 ? from_root : std::string(size, '\0');
  for (std::uint64_t at = 0; at < size; at += kPiece) {
    const int n = static_cast<int>(std::min(kPiece, size - at));
    check(MPI_Bcast(data.data() + at, n, MPI_BYTE, 0, MPI_COMM_WORLD), "MPI_Bcast");
  }
  return data;
}

void abort_job(int status) { MPI_Abort(MPI_COMM_WORLD, status); }

void finalize() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (finalized == 0) MPI_Finalize();
}

const PluginApi kApi{fulcrum::sim::mpi::kPluginAbi,
                     sizeof(PluginApi),
                     &init,
                     &gather,
                     &broadcast,
                     &abort_job,
                     &finalize};

}  // namespace

extern "C" __attribute__((visibility("default"))) const PluginApi* fulcrum_mpi_plugin() {
  return &kApi;
}
