// ExclusivePolicy: the mechanics of sharing policies that put one item on the GPU at a time and
// let it run alone at full speed (managed, sequential). A subclass only says which ready context
// goes next; starting, power, completion and picking again at every boundary live here once.
// Static polymorphism (CRTP), so the pick costs no virtual call per item on the hot path:
//
//   class MyPolicy final : public ExclusivePolicy<MyPolicy> {
//    public:
//     explicit MyPolicy(GpuHost& host) : ExclusivePolicy(host) {}
//     std::optional<int> pick_next();            // a ready context, or nullopt: stay idle
//     void on_item_finished(int context) {}      // optional; after host.finish_item(context)
//   };
#pragma once

#include <cassert>
#include <optional>
#include <vector>

#include "sim/runtime/gpu_sharing_policy.hpp"

namespace fulcrum::sim {

template <class Derived>
class ExclusivePolicy : public GpuSharingPolicy {
 public:
  void on_work_ready(int /*context*/) final {
    if (!running_) start_next();
  }

  // The context whose item is on the GPU, if any.
  std::optional<int> running() const { return running_; }

  // Default: nothing to remember when an item finishes.
  void on_item_finished(int /*context*/) {}

 protected:
  explicit ExclusivePolicy(GpuHost& host)
      : host_(host),
        share_(static_cast<std::size_t>(host.context_count()), 0.0),
        idle_active_w_(host.rail_count(), 0.0) {}

  GpuHost& host_;

 private:
  Derived& self() { return static_cast<Derived&>(*this); }

  void start_next() {
    assert(!running_ && "at most one item on the GPU");
    const std::optional<int> pick = self().pick_next();
    if (!pick) {
      host_.set_gpu_state(share_, idle_active_w_);  // share_ is all zero here
      return;
    }
    const int c = *pick;
    const ItemCost& cost = host_.begin_item(c);
    running_ = c;
    share_[static_cast<std::size_t>(c)] = 1.0;
    host_.set_gpu_state(share_, cost.rail_active_w);
    host_.simulator().schedule_at(host_.now() + cost.duration, [this] { complete(); });
  }

  void complete() {
    assert(running_);
    const int c = *running_;
    running_.reset();
    share_[static_cast<std::size_t>(c)] = 0.0;
    host_.finish_item(c);
    self().on_item_finished(c);
    start_next();
  }

  std::optional<int> running_;
  std::vector<double> share_;          // one-hot while an item runs, all zero when idle
  std::vector<double> idle_active_w_;  // zeros: an idle GPU adds nothing to the baseload
};

}  // namespace fulcrum::sim
