// SequentialPolicy: the naive baseline -- the training job runs its minibatches back to back
// until it finishes its epochs (or the run ends); inference batches run only while it is not
// running, oldest first, one at a time. Inference starves while training lasts.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "sim/runtime/gpu_sharing_policy.hpp"

namespace fulcrum::sim {

class SequentialPolicy final : public GpuSharingPolicy {
 public:
  explicit SequentialPolicy(GpuHost& host);

  void on_work_ready(int context) override;
  std::optional<std::string> starvation_reason(int context) const override;

 private:
  void start_next();
  void complete();

  GpuHost& host_;
  std::optional<int> running_;
  std::vector<double> share_;
  bool had_training_;                   // a training job existed when the run started
  std::optional<Time> training_ended_;  // when the training job finished its epochs
};

}  // namespace fulcrum::sim
