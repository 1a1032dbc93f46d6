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
#include <optional>
#include <thread>

#include "backends/backend.hpp"
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
  // calls it from one thread at a time; different contexts call it concurrently. Returns false
  // when `limit` (may be null) ended it before, with the GPU given up at once.
  bool occupy(int context, std::chrono::nanoseconds work, const RealTimeLimit* limit = nullptr);

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

// Whether `limit` (may be null) ends a sleep now: its stop answers true, or its deadline passed.
bool limit_reached(const RealTimeLimit* limit, std::chrono::steady_clock::time_point now);
// When a sleep until `until` under `limit` must wake next to look at the limit again.
std::chrono::steady_clock::time_point next_look(const RealTimeLimit* limit,
                                                std::chrono::steady_clock::time_point until,
                                                std::chrono::steady_clock::time_point now);
// Sleeps until `until` or until `limit` ends it (may be null: the whole time); true when it slept
// the whole time.
bool sleep_limited(std::chrono::steady_clock::time_point until, const RealTimeLimit* limit);

// gpu.occupy(context, work, limit), returning the real time it took (at least 1 ns): what an
// emulated context reports as the item's duration; nullopt when `limit` ended it.
std::optional<std::chrono::nanoseconds> occupy_measured(TimeSlicer& gpu, int context,
                                                        std::chrono::nanoseconds work,
                                                        const RealTimeLimit* limit = nullptr);

// An emulated backend's place on an emulated GPU. Alone (no context opened yet), take() sleeps
// for the work; once the backend opens contexts, it and they share one TimeSlicer, made on the
// first share(), and take() occupies it in turn with the others. A seat and the seats shared from
// it also share one RealTimeLimit (limit()).
class EmulatedGpuSeat {
 public:
  // Blocks for `work` of GPU time and returns the item's time in this context: `work` when
  // alone, the real time it took when shared; nullopt when the limit ended it before.
  std::optional<std::chrono::nanoseconds> take(std::chrono::nanoseconds work);
  // The seat of a further context on this seat's GPU (time-sliced with `options`).
  EmulatedGpuSeat share(const TimeSlicer::Options& options);
  bool shared() const { return gpu_ != nullptr; }
  // Sets the limit of this seat and of every seat shared with it (Backend::limit_real_time).
  void limit(std::shared_ptr<const RealTimeLimit> limit);

 private:
  // The limit the seats of one GPU share; set from the run's thread, read by the sleepers.
  struct SharedLimit {
    std::mutex mutex;
    std::shared_ptr<const RealTimeLimit> limit;
  };
  std::shared_ptr<TimeSlicer> gpu_;
  int context_ = -1;
  std::shared_ptr<SharedLimit> limit_ = std::make_shared<SharedLimit>();
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

inline bool limit_reached(const RealTimeLimit* limit, std::chrono::steady_clock::time_point now) {
  if (limit == nullptr) return false;
  if (limit->deadline && now >= *limit->deadline) return true;
  return limit->stop && limit->stop();
}

inline std::chrono::steady_clock::time_point next_look(const RealTimeLimit* limit,
                                                       std::chrono::steady_clock::time_point until,
                                                       std::chrono::steady_clock::time_point now) {
  if (limit == nullptr) return until;
  if (limit->deadline) until = std::min(until, *limit->deadline);
  if (limit->stop) until = std::min(until, now + RealTimeLimit::kStopPoll);
  return until;
}

inline bool sleep_limited(std::chrono::steady_clock::time_point until, const RealTimeLimit* limit) {
  for (;;) {
    const auto now = std::chrono::steady_clock::now();
    if (now >= until) return true;
    if (limit_reached(limit, now)) return false;
    std::this_thread::sleep_until(next_look(limit, until, now));
  }
}

inline bool TimeSlicer::occupy(int context, std::chrono::nanoseconds work,
                               const RealTimeLimit* limit) {
  std::unique_lock lock(mutex_);
  while (work.count() > 0) {
    // Wait for a turn: the GPU free and this context first in line.
    const Clock::time_point asked = Clock::now();
    waiting_.push_back(context);
    turn_.wait(lock, [&] { return holder_ == -1 && waiting_.front() == context; });
    waiting_.pop_front();
    if (limit_reached(limit, Clock::now())) {
      turn_.notify_all();  // the next in line may take its turn
      return false;
    }
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
      // Others arriving meanwhile only queue: the slice is not preempted, except by the limit.
      for (Clock::time_point now = Clock::now(); now < end; now = Clock::now()) {
        if (limit_reached(limit, now)) {
          holder_ = -1;
          last_ = context;
          free_at_ = now;
          turn_.notify_all();
          return false;
        }
        turn_.wait_until(lock, next_look(limit, end, now));
      }
      work -= slice;
      start = end;
      if (work.count() <= 0 || !waiting_.empty()) break;
    }
    holder_ = -1;
    free_at_ = start;
    turn_.notify_all();
  }
  return true;
}

inline std::optional<std::chrono::nanoseconds> occupy_measured(TimeSlicer& gpu, int context,
                                                               std::chrono::nanoseconds work,
                                                               const RealTimeLimit* limit) {
  const auto start = std::chrono::steady_clock::now();
  if (!gpu.occupy(context, work, limit)) return std::nullopt;
  const auto took = std::chrono::duration_cast<std::chrono::nanoseconds>(
      std::chrono::steady_clock::now() - start);
  return std::max(took, std::chrono::nanoseconds(1));
}

inline std::optional<std::chrono::nanoseconds> EmulatedGpuSeat::take(
    std::chrono::nanoseconds work) {
  std::shared_ptr<const RealTimeLimit> limit;
  {
    const std::lock_guard lock(limit_->mutex);
    limit = limit_->limit;
  }
  if (gpu_) return occupy_measured(*gpu_, context_, work, limit.get());
  if (!sleep_limited(std::chrono::steady_clock::now() + work, limit.get())) return std::nullopt;
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
  seat.limit_ = limit_;
  return seat;
}

inline void EmulatedGpuSeat::limit(std::shared_ptr<const RealTimeLimit> limit) {
  const std::lock_guard lock(limit_->mutex);
  limit_->limit = std::move(limit);
}

}  // namespace fulcrum::backends
