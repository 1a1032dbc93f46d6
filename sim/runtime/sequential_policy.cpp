#include "sim/runtime/sequential_policy.hpp"

#include <cstdio>

namespace fulcrum::sim {

SequentialPolicy::SequentialPolicy(GpuHost& host)
    : ExclusivePolicy(host),
      training_(host.training_context()),
      had_training_(host.is_training_active()) {}

std::optional<int> SequentialPolicy::pick_next() {
  if (!host_.is_training_active()) return host_.oldest_ready_inference();
  // The job holds the GPU while it lasts, even while it waits for data.
  if (training_ && host_.has_ready_work(*training_)) return training_;
  return std::nullopt;
}

void SequentialPolicy::on_item_finished(int context) {
  if (host_.kind(context) == ContextKind::training && !host_.is_training_active() &&
      !training_ended_) {
    training_ended_ = host_.now();
  }
}

std::optional<std::string> SequentialPolicy::starvation_reason(int context) const {
  if (host_.kind(context) == ContextKind::training || !had_training_) return std::nullopt;
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
