#include "sim/runtime/managed_policy.hpp"

namespace fulcrum::sim {

std::optional<int> ManagedPolicy::pick_next() {
  if (std::optional<int> inference = host_.oldest_ready_inference()) return inference;
  const std::optional<int> training = host_.training_context();
  if (training && host_.has_ready_work(*training)) return training;
  return std::nullopt;
}

}  // namespace fulcrum::sim
