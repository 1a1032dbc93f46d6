#include "sim/runtime/managed_policy.hpp"

namespace fulcrum::sim {

std::optional<int> ManagedPolicy::pick_next() {
  if (std::optional<int> inference = host_.oldest_ready_inference()) return inference;
  if (!training_ || !host_.has_ready_work(*training_)) return std::nullopt;
  if (variant_ == ManagedVariant::windowed && !training_fits()) return std::nullopt;
  return training_;
}

bool ManagedPolicy::training_fits() {
  const Time done = host_.now() + host_.predicted_duration(*training_);
  for (int c = 0; c < host_.context_count(); ++c) {
    if (c != *training_ && host_.next_ready_bound(c) < done) return false;
  }
  return true;
}

}  // namespace fulcrum::sim
