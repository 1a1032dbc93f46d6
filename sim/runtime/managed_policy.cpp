#include "sim/runtime/managed_policy.hpp"

namespace fulcrum::sim {

std::optional<int> ManagedPolicy::pick_next() {
  if (std::optional<int> inference = host_.oldest_ready_inference()) return inference;
  if (training_ && host_.has_ready_work(*training_)) return training_;
  return std::nullopt;
}

}  // namespace fulcrum::sim
