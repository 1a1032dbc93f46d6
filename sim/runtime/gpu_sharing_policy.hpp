// GpuSharingPolicy: decides which context's work runs on the GPU, and how fast, whenever work
// becomes ready or an item completes. The event engine knows nothing of it.
//
// Adding a policy (no engine change needed):
//  1. Subclass GpuSharingPolicy; take a GpuHost& in the constructor. (A policy that runs one item
//     at a time alone on the GPU subclasses ExclusivePolicy instead and only picks the next
//     context: exclusive_policy.hpp.)
//  2. In on_work_ready(), start items with host.begin_item(c) when your rule allows (the backend
//     executes each one), declare the GPU state with host.set_gpu_state(shares, the power the
//     work adds over the idle device), and schedule the completion yourself
//     (host.simulator().schedule_at(...)); at completion call host.finish_item(c) and pick again.
//  3. Add an enumerator to SharingPolicy (sim/scenario/scenario.hpp), its name to the scenario
//     loader, and one line to make_gpu_sharing_policy() (gpu_sharing_policy.cpp), the one list
//     of implementations.
// A policy written outside the runtime (in Python: python/policy_module.cpp) is given to a run
// through a GpuSharingPolicyFactory instead (run(), RunPlan::set_policy, RunRequest::policy).
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "sim/runtime/gpu_host.hpp"
#include "sim/scenario/scenario.hpp"

namespace fulcrum::sim {

class GpuSharingPolicy {
 public:
  virtual ~GpuSharingPolicy() = default;

  // `context` has new ready work (a batch was dispatched, training data became ready, the run
  // started). Called only from the runtime's own events, never from inside a GpuHost call.
  virtual void on_work_ready(int context) = 0;

  // Why an overloaded inference context fell behind, when the cause is the policy itself (for
  // example sequential sharing starving it); nullopt when the policy has nothing to say.
  virtual std::optional<std::string> starvation_reason(int /*context*/) const {
    return std::nullopt;
  }
};

std::unique_ptr<GpuSharingPolicy> make_gpu_sharing_policy(const GpuSharing& spec, GpuHost& host);

// Makes a run's policy in place of the scenario's gpu_sharing (a policy written outside the
// runtime, e.g. in Python: python/policy_module.cpp). Called once, when the run is set up; the
// scenario's gpu_sharing still sets the runtime's other parameters (gpu_sharing.risk for
// next_ready_bound) and is what the summary records.
using GpuSharingPolicyFactory = std::function<std::unique_ptr<GpuSharingPolicy>(GpuHost& host)>;

}  // namespace fulcrum::sim
