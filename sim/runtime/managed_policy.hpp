// ManagedPolicy: Fulcrum's managed interleaving -- exactly one minibatch on the GPU at a time; at
// each boundary the oldest ready inference batch (across streams), else a training minibatch
// whose data is ready, else idle until work arrives.
#pragma once

#include <optional>
#include <vector>

#include "sim/runtime/gpu_sharing_policy.hpp"

namespace fulcrum::sim {

class ManagedPolicy final : public GpuSharingPolicy {
 public:
  explicit ManagedPolicy(GpuHost& host);

  void on_work_ready(int context) override;

  // The context whose item is on the GPU, if any.
  std::optional<int> running() const { return running_; }

 private:
  void start_next();
  void complete();

  GpuHost& host_;
  std::optional<int> running_;
  std::vector<double> share_;  // one-hot while an item runs
};

}  // namespace fulcrum::sim
