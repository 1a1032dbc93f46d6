// parallel_for: runs fn(i) for every i in [begin, end) on `threads` threads (the calling one
// included), handing out indices one at a time. fn must not depend on which thread runs it; the
// first exception thrown is rethrown after every thread has stopped.
//
//   parallel_for(0, n, 2, [&](std::size_t i) { out[i] = work(i); });
#pragma once

#include <cstddef>
#include <functional>

namespace fulcrum::models {

// The number of threads to use for `requested` (0 = every core the machine reports, at least 1).
unsigned thread_count(unsigned requested);

void parallel_for(std::size_t begin, std::size_t end, unsigned threads,
                  const std::function<void(std::size_t)>& fn);

}  // namespace fulcrum::models
