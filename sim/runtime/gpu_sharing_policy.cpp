#include "sim/runtime/gpu_sharing_policy.hpp"

#include "models/error.hpp"
#include "sim/runtime/managed_policy.hpp"
#include "sim/runtime/native_policy.hpp"
#include "sim/runtime/sequential_policy.hpp"

namespace fulcrum::sim {

const ItemCost& GpuHost::submit_item(int /*context*/, std::function<void()> /*done*/) {
  throw Error("submit_item: this run executes one item at a time (no concurrent contexts)");
}

std::unique_ptr<GpuSharingPolicy> make_gpu_sharing_policy(const GpuSharing& spec, GpuHost& host) {
  switch (spec.policy) {
    case SharingPolicy::managed:
      return std::make_unique<ManagedPolicy>(host, spec.variant);
    case SharingPolicy::native:
      if (host.executes_concurrently()) {
        return std::make_unique<ConcurrentNativePolicy>(host, spec.timeslice_us,
                                                        spec.context_switch_us);
      }
      return std::make_unique<NativePolicy>(host, spec.timeslice_us, spec.context_switch_us);
    case SharingPolicy::sequential:
      return std::make_unique<SequentialPolicy>(host);
  }
  return std::make_unique<ManagedPolicy>(host);
}

}  // namespace fulcrum::sim
