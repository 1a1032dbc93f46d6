// TimeSlicer: an emulated GPU that time-slices its contexts in real time, as a GPU driver does
// between processes (and as the `native` policy models it): the contexts with work take turns of
// one time slice each, a switch between two contexts costs `context_switch` during which no
// context progresses, and a context alone keeps the GPU without switching. It lets the
// wall-clock path of native sharing (two contexts executing at once, sim/runtime) run without
// hardware: the emulated backends' open_context() share one TimeSlicer, and each of their
// execute() calls occupies it for the item's duration instead of sleeping.
//
//   auto gpu = std::make_shared<TimeSlicer>(TimeSlicer::Options{.timeslice = 2ms});
//   std::thread a([&] { gpu->occupy(0, 30ms); });   // with b below, both end after about 60 ms
//   std::thread b([&] { gpu->occupy(1, 30ms); });
#pragma once

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>

#include "models/error.hpp"

namespace fulcrum::backends {

class TimeSlicer {
 public:
  struct Options {
    std::chrono::nanoseconds timeslice{std::chrono::milliseconds(2)};  // > 0
    std::chrono::nanoseconds context_switch{0};                        // >= 0
  };

  // Error for a timeslice <= 0 or a negative switch cost.
  explicit TimeSlicer(Options options);

  // A new context number, for occupy().
  int open_context();

  // Blocks until `context` has had `work` of GPU time, taking turns with the other contexts
  // that occupy the GPU meanwhile (first come, first served, one slice per turn). Each context
  // calls it from one thread at a time; different contexts call it concurrently.
  void occupy(int context, std::chrono::nanoseconds work);

  // Switches between contexts so far (for tests).
  std::uint64_t switches() const;

 private:
  using Clock = std::chrono::steady_clock;

  Options options_;
  mutable std::mutex mutex_;
  std::condition_variable turn_;
  std::deque<int> waiting_;      // contexts waiting for a turn, in arrival order
  int holder_ = -1;              // the context holding the GPU; -1 when free
  int last_ = -1;                // the context that held it last
  Clock::time_point free_at_{};  // when the last turn ended (its nominal end)
  int contexts_ = 0;
  std::uint64_t switches_ = 0;
};

// gpu.occupy(context, work), returning the real time it took (at least 1 ns): what an emulated
// context reports as the item's duration.
std::chrono::nanoseconds occupy_measured(TimeSlicer& gpu, int context,
                                         std::chrono::nanoseconds work);

// An emulated backend's place on an emulated GPU. Alone (no context opened yet), take() sleeps
// for the work; once the backend opens contexts, it and they share one TimeSlicer, made on the
// first share(), and take() occupies it in turn with the others.
class EmulatedGpuSeat {
 public:
  // Blocks for `work` of GPU time and returns the item's time in this context: `work` when
  // alone, the real time it took when shared.
  std::chrono::nanoseconds take(std::chrono::nanoseconds work);
  // The seat of a further context on this seat's GPU (time-sliced with `options`).
  EmulatedGpuSeat share(const TimeSlicer::Options& options);
  bool shared() const { return gpu_ != nullptr; }

 private:
  std::shared_ptr<TimeSlicer> gpu_;
  int context_ = -1;
};

// ---- implementation (header-only: the emulated backends of several libraries use it) ----

inline TimeSlicer::TimeSlicer(Options options) : options_(options) {
  if (options_.timeslice.count() <= 0) throw Error("TimeSlicer: the timeslice must be > 0");
  if (options_.context_switch.count() < 0) {
    throw Error("TimeSlicer: the context switch cost must be >= 0");
  }
}

inline int TimeSlicer::open_context() {
  const std::lock_guard lock(mutex_);
  return contexts_++;
}

inline std::uint64_t TimeSlicer::switches() const {
  const std::lock_guard lock(mutex_);
  return switches_;
}

inline void TimeSlicer::occupy(int context, std::chrono::nanoseconds work) {
  std::unique_lock lock(mutex_);
  while (work.count() > 0) {
    // Wait for a turn: the GPU free and this context first in line.
    const Clock::time_point asked = Clock::now();
    waiting_.push_back(context);
    turn_.wait(lock, [&] { return holder_ == -1 && waiting_.front() == context; });
    waiting_.pop_front();
    holder_ = context;
    // The turn starts when the GPU became free (or when it was asked for, if later): the time
    // this thread took to wake up is the emulation's, not the device's, and is not charged.
    Clock::time_point start = std::max(asked, free_at_);
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
    free_at_ = start;
    turn_.notify_all();
  }
}

inline std::chrono::nanoseconds occupy_measured(TimeSlicer& gpu, int context,
                                                std::chrono::nanoseconds work) {
  const auto start = std::chrono::steady_clock::now();
  gpu.occupy(context, work);
  const auto took = std::chrono::duration_cast<std::chrono::nanoseconds>(
      std::chrono::steady_clock::now() - start);
  return std::max(took, std::chrono::nanoseconds(1));
}

inline std::chrono::nanoseconds EmulatedGpuSeat::take(std::chrono::nanoseconds work) {
  if (gpu_) return occupy_measured(*gpu_, context_, work);
  std::this_thread::sleep_for(work);
  return work;
}

inline EmulatedGpuSeat EmulatedGpuSeat::share(const TimeSlicer::Options& options) {
  if (!gpu_) {
    gpu_ = std::make_shared<TimeSlicer>(options);
    context_ = gpu_->open_context();
  }
  EmulatedGpuSeat seat;
  seat.gpu_ = gpu_;
  seat.context_ = gpu_->open_context();
  return seat;
}

}  // namespace fulcrum::backends
