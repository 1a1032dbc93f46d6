#include "models/parallel/parallel.hpp"

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace fulcrum::models {

unsigned thread_count(unsigned requested) {
  if (requested > 0) return requested;
  return std::max(1U, std::thread::hardware_concurrency());
}

void parallel_for(std::size_t begin, std::size_t end, unsigned threads,
                  const std::function<void(std::size_t)>& fn) {
  std::atomic<std::size_t> next{begin};
  std::atomic<bool> failed{false};
  std::exception_ptr error;
  std::mutex error_mutex;
  auto work = [&] {
    for (std::size_t i = next++; i < end && !failed.load(); i = next++) {
      try {
        fn(i);
      } catch (...) {
        const std::lock_guard<std::mutex> lock(error_mutex);
        if (!error) error = std::current_exception();
        failed = true;
      }
    }
  };
  const unsigned n = std::max(
      1U,
      std::min<unsigned>(threads, static_cast<unsigned>(std::max<std::size_t>(end - begin, 1))));
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < n; ++t) pool.emplace_back(work);
  work();
  for (std::thread& t : pool) t.join();
  if (error) std::rethrow_exception(error);
}

}  // namespace fulcrum::models
