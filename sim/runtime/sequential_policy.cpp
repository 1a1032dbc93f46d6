#include "sim/runtime/sequential_policy.hpp"

#include <cassert>
#include <cstdio>

namespace fulcrum::sim {

SequentialPolicy::SequentialPolicy(GpuHost& host)
    : host_(host),
      share_(static_cast<std::size_t>(host.context_count()), 0.0),
      had_training_(host.is_training_active()) {}

void SequentialPolicy::on_work_ready(int /*context*/) {
  if (!running_) start_next();
}

void SequentialPolicy::start_next() {
  assert(!running_);
  std::optional<int> pick;
  if (host_.is_training_active()) {
    // The job holds the GPU while it lasts, even while it waits for data.
    if (host_.has_ready_work(GpuHost::kTrainingContext)) pick = GpuHost::kTrainingContext;
  } else {
    pick = oldest_ready_inference(host_);
  }
  if (!pick) {
    host_.set_gpu_state(share_, host_.idle_power_w());
    return;
  }
  const int c = *pick;
  const ItemCost& cost = host_.begin_item(c);
  running_ = c;
  share_[static_cast<std::size_t>(c)] = 1.0;
  host_.set_gpu_state(share_, cost.rail_power_w);
  host_.simulator().schedule_at(host_.now() + cost.duration, [this] { complete(); });
}

void SequentialPolicy::complete() {
  assert(running_);
  const int c = *running_;
  running_.reset();
  share_[static_cast<std::size_t>(c)] = 0.0;
  host_.finish_item(c);
  if (c == GpuHost::kTrainingContext && !host_.is_training_active() && !training_ended_) {
    training_ended_ = host_.now();
  }
  start_next();
}

std::optional<std::string> SequentialPolicy::starvation_reason(int context) const {
  if (context == GpuHost::kTrainingContext || !had_training_) return std::nullopt;
  char text[160];
  if (training_ended_) {
    std::snprintf(text, sizeof text,
                  "starved by sequential sharing: inference waited for the training job, which "
                  "held the GPU until %.1f s",
                  to_seconds(*training_ended_));
  } else {
    std::snprintf(text, sizeof text,
                  "starved by sequential sharing: inference waits for the training job, which "
                  "held the GPU for the whole run");
  }
  return std::string(text);
}

}  // namespace fulcrum::sim
