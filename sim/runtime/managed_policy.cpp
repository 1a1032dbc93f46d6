#include "sim/runtime/managed_policy.hpp"

#include <cassert>

namespace fulcrum::sim {

ManagedPolicy::ManagedPolicy(GpuHost& host)
    : host_(host), share_(static_cast<std::size_t>(host.context_count()), 0.0) {}

void ManagedPolicy::on_work_ready(int /*context*/) {
  if (!running_) start_next();
}

void ManagedPolicy::start_next() {
  assert(!running_ && "managed: at most one item on the GPU");
  std::optional<int> pick = oldest_ready_inference(host_);
  if (!pick && host_.has_ready_work(GpuHost::kTrainingContext)) pick = GpuHost::kTrainingContext;
  if (!pick) {
    host_.set_gpu_state(share_, host_.idle_power_w());  // share_ is all zero here
    return;
  }
  const int c = *pick;
  const ItemCost& cost = host_.begin_item(c);
  running_ = c;
  share_[static_cast<std::size_t>(c)] = 1.0;
  host_.set_gpu_state(share_, cost.rail_power_w);
  host_.simulator().schedule_at(host_.now() + cost.duration, [this] { complete(); });
}

void ManagedPolicy::complete() {
  assert(running_);
  const int c = *running_;
  running_.reset();
  share_[static_cast<std::size_t>(c)] = 0.0;
  host_.finish_item(c);
  start_next();
}

}  // namespace fulcrum::sim
