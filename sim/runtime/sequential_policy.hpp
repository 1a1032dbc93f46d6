// SequentialPolicy: the naive baseline -- the training job runs its minibatches back to back
// until it finishes its epochs (or the run ends); inference batches run only while it is not
// running, oldest first, one at a time. Inference starves while training lasts.
#pragma once

#include <optional>
#include <string>

#include "sim/runtime/exclusive_policy.hpp"

namespace fulcrum::sim {

class SequentialPolicy final : public ExclusivePolicy<SequentialPolicy> {
 public:
  explicit SequentialPolicy(GpuHost& host);

  std::optional<std::string> starvation_reason(int context) const override;

  std::optional<int> pick_next();
  void on_item_finished(int context);

 private:
  std::optional<int> training_;         // the training job's context, fixed for the run
  bool had_training_;                   // a training job existed when the run started
  std::optional<Time> training_ended_;  // when the training job finished its epochs
};

}  // namespace fulcrum::sim
