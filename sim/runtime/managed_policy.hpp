// ManagedPolicy: Fulcrum's managed interleaving -- exactly one minibatch on the GPU at a time; at
// each boundary the oldest ready inference batch (across streams), else a training minibatch
// whose data is ready, else idle until work arrives.
#pragma once

#include <optional>

#include "sim/runtime/exclusive_policy.hpp"

namespace fulcrum::sim {

class ManagedPolicy final : public ExclusivePolicy<ManagedPolicy> {
 public:
  explicit ManagedPolicy(GpuHost& host)
      : ExclusivePolicy(host), training_(host.training_context()) {}

  std::optional<int> pick_next();

 private:
  std::optional<int> training_;  // the training job's context, fixed for the run
};

}  // namespace fulcrum::sim
