// NativePolicy: the driver's native time-slicing -- each workload is its own context (the
// training job, each inference stream); contexts with work share the GPU round-robin in slices
// of `timeslice_us`, paying `context_switch_us` per switch; an item progresses only in its slices.
//
// Modelled exactly at the fluid level rather than slice by slice (600 s of 1 ms slices would be
// 600,000 events): while k >= 2 contexts have work, each progresses at
//     rate(k) = timeslice / (k * (timeslice + context_switch))
// of its standalone speed, and a context alone runs at full speed (no switches). The GPU's work
// adds the share-weighted mix of the running items' powers over the idle device; switch time adds
// nothing.
// Events happen only when the set of contexts with work changes or an item completes.
#pragma once

#include <vector>

#include "sim/engine/event_id.hpp"
#include "sim/runtime/gpu_sharing_policy.hpp"

namespace fulcrum::sim {

// timeslice / (timeslice + context_switch): the fraction of time the GPU runs work while it
// switches between contexts. InputError for parameters outside the scenario loader's ranges.
double native_slice_fraction(double timeslice_us, double context_switch_us);
// Fraction of its standalone speed at which each of `active` contexts progresses.
double native_rate(int active, double slice_fraction);

class NativePolicy final : public GpuSharingPolicy {
 public:
  NativePolicy(GpuHost& host, double timeslice_us, double context_switch_us);

  void on_work_ready(int context) override;

  // Fraction of its standalone speed at which each of `active` contexts progresses.
  double rate(int active) const;

 private:
  struct Slot {
    bool running = false;
    double remaining_ns = 0;         // standalone execution time still to do
    const ItemCost* cost = nullptr;  // valid while running
  };

  void begin(int context);
  void advance();  // progresses every running item to now()
  void replan();   // declares the GPU state and schedules the next completion
  void complete();

  GpuHost& host_;
  double slice_fraction_;  // timeslice / (timeslice + context_switch)
  std::vector<Slot> slots_;
  int active_ = 0;
  Time last_ = 0;
  EventId next_completion_;
  std::vector<double> share_;
  std::vector<double> active_w_;
};

// Native time-slicing where the contexts really execute at once (GpuHost::executes_concurrently:
// a real-time backend with a context of its own per GPU-sharing context). Every context with
// ready work has its item on the device, and the device -- the GPU driver, or an emulated time
// slicer -- shares itself between them; each item's measured time in its context says what that
// sharing cost. The policy hands items over as they become ready and declares the GPU's state as
// NativePolicy would: each running context at rate(k) of the GPU, adding that share of its
// item's active power.
class ConcurrentNativePolicy final : public GpuSharingPolicy {
 public:
  ConcurrentNativePolicy(GpuHost& host, double timeslice_us, double context_switch_us);

  void on_work_ready(int context) override;

 private:
  void submit(int context);
  void completed(int context);
  void declare();  // the GPU state for the running items

  GpuHost& host_;
  double slice_fraction_;
  std::vector<const ItemCost*> running_;  // per context: its item in flight, or null
  std::vector<double> share_;
  std::vector<double> active_w_;
};

}  // namespace fulcrum::sim
