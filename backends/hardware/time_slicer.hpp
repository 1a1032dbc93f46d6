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

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>

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
  std::deque<int> waiting_;  // contexts waiting for a turn, in arrival order
  int holder_ = -1;          // the context holding the GPU; -1 when free
  int last_ = -1;            // the context that held it last
  int contexts_ = 0;
  std::uint64_t switches_ = 0;
};

// gpu.occupy(context, work), returning the real time it took (at least 1 ns): what an emulated
// context reports as the item's duration.
std::chrono::nanoseconds occupy_measured(TimeSlicer& gpu, int context,
                                         std::chrono::nanoseconds work);

}  // namespace fulcrum::backends
