// libfulcrum_mpi.so: sim/mpi/plugin_api.hpp over OpenMPI. The only file of the project that
// includes <mpi.h>; every MPI error is fatal to the job (MPI_ERRORS_ARE_FATAL, the default), so
// a rank never waits on a peer that has failed inside MPI. Gather and broadcast are messages
// from and to rank 0, each waited for by polling with sleeps (wait()).
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
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

// Waits for `request` without spinning: a rank that waits for a slower one (at the end of its
// block, most of all) sleeps -- from 50 us up to 5 ms between polls -- and leaves the cores to
// the ranks still working, where MPI's own waits would poll at full speed.
void wait(MPI_Request& request) {
  auto pause = std::chrono::microseconds(50);
  for (;;) {
    int done = 0;
    check(MPI_Test(&request, &done, MPI_STATUS_IGNORE), "MPI_Test");
    if (done != 0) return;
    std::this_thread::sleep_for(pause);
    pause = std::min<std::chrono::microseconds>(pause * 2, std::chrono::milliseconds(5));
  }
}

void send(const void* data, int count, MPI_Datatype type, int to) {
  MPI_Request request = MPI_REQUEST_NULL;
  check(MPI_Isend(data, count, type, to, kTag, MPI_COMM_WORLD, &request), "MPI_Isend");
  wait(request);
}

void receive(void* data, int count, MPI_Datatype type, int from) {
  MPI_Request request = MPI_REQUEST_NULL;
  check(MPI_Irecv(data, count, type, from, kTag, MPI_COMM_WORLD, &request), "MPI_Irecv");
  wait(request);
}

void send_bytes(const std::string& data, int to) {
  std::uint64_t size = data.size();
  send(&size, 1, MPI_UINT64_T, to);
  for (std::uint64_t at = 0; at < size; at += kPiece) {
    send(data.data() + at, static_cast<int>(std::min(kPiece, size - at)), MPI_BYTE, to);
  }
}

std::string receive_bytes(int from) {
  std::uint64_t size = 0;
  receive(&size, 1, MPI_UINT64_T, from);
  std::string data(size, '\0');
  for (std::uint64_t at = 0; at < size; at += kPiece) {
    receive(data.data() + at, static_cast<int>(std::min(kPiece, size - at)), MPI_BYTE, from);
  }
  return data;
}

std::pair<int, int> rank_and_size() {
  int rank = 0, size = 1;
  check(MPI_Comm_rank(MPI_COMM_WORLD, &rank), "MPI_Comm_rank");
  check(MPI_Comm_size(MPI_COMM_WORLD, &size), "MPI_Comm_size");
  return {rank, size};
}

std::vector<std::string> gather(const std::string& mine) {
  const auto [rank, size] = rank_and_size();
  if (rank != 0) {
    send_bytes(mine, 0);
    return {};
  }
  std::vector<std::string> all{mine};
  for (int r = 1; r < size; ++r) all.push_back(receive_bytes(r));
  return all;
}

std::string broadcast(const std::string& from_root) {
  const auto [rank, size] = rank_and_size();
  if (rank != 0) return receive_bytes(0);
  for (int r = 1; r < size; ++r) send_bytes(from_root, r);
  return from_root;
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
