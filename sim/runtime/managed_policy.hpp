// ManagedPolicy: Fulcrum's managed interleaving -- exactly one minibatch on the GPU at a time; at
// each boundary the oldest ready inference batch (across streams) runs first. What runs when no
// batch is ready depends on the variant (ManagedVariant, sim/scenario/scenario.hpp):
//  - windowed: a training minibatch whose data is ready, only if it is predicted to finish no
//    later than every stream's next batch can be ready (GpuHost::predicted_duration and
//    next_ready_bound); else idle. On fixed arrivals each window of b/a holds one batch and
//    n = floor((b/a - t_in) / t_train) training minibatches, and no request waits for training.
//  - greedy: a training minibatch whose data is ready, else idle; a batch that becomes ready
//    while it runs waits for it.
// Idling needs no wake-up of its own: until a batch is dispatched, the time each stream leaves
// before its next batch can be ready (bound - now) only shrinks, so a minibatch refused now would
// be refused later too; a dispatch or new training data is announced through on_work_ready.
#pragma once

#include <optional>

#include "sim/runtime/exclusive_policy.hpp"
#include "sim/scenario/scenario.hpp"

namespace fulcrum::sim {

class ManagedPolicy final : public ExclusivePolicy<ManagedPolicy> {
 public:
  explicit ManagedPolicy(GpuHost& host, ManagedVariant variant = ManagedVariant::windowed)
      : ExclusivePolicy(host), training_(host.training_context()), variant_(variant) {}

  std::optional<int> pick_next();

 private:
  // Windowed: the training minibatch finishes before any stream's next batch can be ready.
  bool training_fits();

  std::optional<int> training_;  // the training job's context, fixed for the run
  ManagedVariant variant_;
};

}  // namespace fulcrum::sim
