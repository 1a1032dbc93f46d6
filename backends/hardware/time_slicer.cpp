#include "backends/hardware/time_slicer.hpp"

#include <algorithm>

#include "models/error.hpp"

namespace fulcrum::backends {

TimeSlicer::TimeSlicer(Options options) : options_(options) {
  if (options_.timeslice.count() <= 0) throw Error("TimeSlicer: the timeslice must be > 0");
  if (options_.context_switch.count() < 0) {
    throw Error("TimeSlicer: the context switch cost must be >= 0");
  }
}

int TimeSlicer::open_context() {
  const std::lock_guard lock(mutex_);
  return contexts_++;
}

std::uint64_t TimeSlicer::switches() const {
  const std::lock_guard lock(mutex_);
  return switches_;
}

void TimeSlicer::occupy(int context, std::chrono::nanoseconds work) {
  std::unique_lock lock(mutex_);
  while (work.count() > 0) {
    // Wait for a turn: the GPU free and this context first in line.
    waiting_.push_back(context);
    turn_.wait(lock, [&] { return holder_ == -1 && waiting_.front() == context; });
    waiting_.pop_front();
    holder_ = context;
    Clock::time_point start = Clock::now();
    if (last_ != -1 && last_ != context) {
      ++switches_;
      start += options_.context_switch;
    }
    last_ = context;
    // Slices back to back while nobody else waits: times chain from the nominal end of the last
    // slice, so that a context alone runs for `work` without drift from waking up late.
    for (;;) {
      const std::chrono::nanoseconds slice = std::min(work, options_.timeslice);
      const Clock::time_point end = start + slice;
      // Others arriving meanwhile only queue: the slice is not preempted.
      while (Clock::now() < end) turn_.wait_until(lock, end);
      work -= slice;
      start = end;
      if (work.count() <= 0 || !waiting_.empty()) break;
    }
    holder_ = -1;
    turn_.notify_all();
  }
}

std::chrono::nanoseconds occupy_measured(TimeSlicer& gpu, int context,
                                         std::chrono::nanoseconds work) {
  const auto start = std::chrono::steady_clock::now();
  gpu.occupy(context, work);
  const auto took = std::chrono::duration_cast<std::chrono::nanoseconds>(
      std::chrono::steady_clock::now() - start);
  return std::max(took, std::chrono::nanoseconds(1));
}

}  // namespace fulcrum::backends
