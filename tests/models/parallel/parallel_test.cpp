#include "models/parallel/parallel.hpp"

#include <atomic>
#include <catch2/catch.hpp>
#include <stdexcept>
#include <vector>

namespace fulcrum::models {

TEST_CASE("parallel_for runs every index once, on any number of threads") {
  for (unsigned threads : {1U, 2U, 3U, 8U}) {
    std::vector<std::atomic<int>> seen(37);
    parallel_for(5, 37, threads, [&](std::size_t i) { ++seen[i]; });
    for (std::size_t i = 0; i < seen.size(); ++i) CHECK(seen[i] == (i >= 5 ? 1 : 0));
  }
  // An empty range calls nothing.
  bool called = false;
  parallel_for(4, 4, 2, [&](std::size_t) { called = true; });
  CHECK_FALSE(called);
}

TEST_CASE("parallel_for rethrows an exception of fn after every thread has stopped") {
  std::vector<int> done(100, 0);
  CHECK_THROWS_WITH(parallel_for(0, 100, 2,
                                 [&](std::size_t i) {
                                   if (i == 3) throw std::runtime_error("index 3");
                                   done[i] = 1;
                                 }),
                    "index 3");
  // Every thread was joined before the throw reached here: nothing writes `done` any more, and
  // the index that threw did not finish.
  CHECK(done[3] == 0);
}

TEST_CASE("thread_count: a request as given, 0 for every core, never 0") {
  CHECK(thread_count(3) == 3);
  CHECK(thread_count(0) >= 1);
}

}  // namespace fulcrum::models
