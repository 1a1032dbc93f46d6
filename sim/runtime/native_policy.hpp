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

}  // namespace fulcrum::sim
