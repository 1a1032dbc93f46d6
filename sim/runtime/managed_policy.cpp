#include "sim/runtime/managed_policy.hpp"

namespace fulcrum::sim {

std::optional<int> ManagedPolicy::pick_next() {
  if (std::optional<int> inference = oldest_ready_inference(host_)) return inference;
  if (host_.has_ready_work(GpuHost::kTrainingContext)) return GpuHost::kTrainingContext;
  return std::nullopt;
}

}  // namespace fulcrum::sim
