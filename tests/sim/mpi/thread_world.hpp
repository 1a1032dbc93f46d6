// Ranks as threads of one process: a Communicator (sim/mpi/communicator.hpp) for each of N
// threads, so that the runners' logic -- blocks, agreement, gathering in order -- is tested
// without MPI. on_ranks() runs a function on N such ranks and joins them.
//
//   std::vector<int> got = on_ranks<int>(3, [](Communicator& w) { return w.rank(); });
#pragma once

#include <barrier>
#include <cstdlib>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "sim/mpi/communicator.hpp"

namespace fulcrum::sim::mpi::testing {

class ThreadWorld final : public Communicator {
 public:
  struct Shared {
    explicit Shared(int n) : size(n), sync(n), slots(static_cast<std::size_t>(n)) {}
    int size;
    std::barrier<> sync;
    std::vector<std::string> slots;
    std::string root;
  };
  ThreadWorld(std::shared_ptr<Shared> shared, int rank) : shared_(std::move(shared)), rank_(rank) {}
  int rank() const override { return rank_; }
  int size() const override { return shared_->size; }
  int node_ranks() const override { return shared_->size; }
  std::vector<std::string> gather(const std::string& mine) override {
    shared_->slots[static_cast<std::size_t>(rank_)] = mine;
    shared_->sync.arrive_and_wait();
    std::vector<std::string> all;
    if (rank_ == 0) all = shared_->slots;
    shared_->sync.arrive_and_wait();
    return all;
  }
  std::string broadcast(const std::string& from_root) override {
    if (rank_ == 0) shared_->root = from_root;
    shared_->sync.arrive_and_wait();
    std::string out = shared_->root;
    shared_->sync.arrive_and_wait();
    return out;
  }
  [[noreturn]] void abort(int) override { std::abort(); }

 private:
  std::shared_ptr<Shared> shared_;
  int rank_;
};

// Runs fn on `n` thread ranks; each rank's result, in rank order. An exception escaping fn on
// some rank is rethrown after all have ended.
template <typename T>
std::vector<T> on_ranks(int n, const std::function<T(Communicator&)>& fn) {
  auto shared = std::make_shared<ThreadWorld::Shared>(n);
  std::vector<T> results(static_cast<std::size_t>(n));
  std::vector<std::exception_ptr> errors(static_cast<std::size_t>(n));
  {
    std::vector<std::jthread> ranks;
    for (int r = 0; r < n; ++r) {
      ranks.emplace_back([&, r] {
        ThreadWorld world(shared, r);
        try {
          results[static_cast<std::size_t>(r)] = fn(world);
        } catch (...) {
          errors[static_cast<std::size_t>(r)] = std::current_exception();
        }
      });
    }
  }
  for (const std::exception_ptr& e : errors) {
    if (e) std::rethrow_exception(e);
  }
  return results;
}

}  // namespace fulcrum::sim::mpi::testing
