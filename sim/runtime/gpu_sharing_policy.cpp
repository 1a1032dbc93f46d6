#include "sim/runtime/gpu_sharing_policy.hpp"

#include "sim/runtime/managed_policy.hpp"
#include "sim/runtime/native_policy.hpp"
#include "sim/runtime/sequential_policy.hpp"

namespace fulcrum::sim {

std::unique_ptr<GpuSharingPolicy> make_gpu_sharing_policy(const GpuSharing& spec, GpuHost& host) {
  switch (spec.policy) {
    case SharingPolicy::managed:
      return std::make_unique<ManagedPolicy>(host, spec.variant);
    case SharingPolicy::native:
      return std::make_unique<NativePolicy>(host, spec.timeslice_us, spec.context_switch_us);
    case SharingPolicy::sequential:
      return std::make_unique<SequentialPolicy>(host);
  }
  return std::make_unique<ManagedPolicy>(host);
}

}  // namespace fulcrum::sim
