#include "sim/runtime/gpu_sharing_policy.hpp"

#include "sim/runtime/managed_policy.hpp"
#include "sim/runtime/native_policy.hpp"
#include "sim/runtime/sequential_policy.hpp"

namespace fulcrum::sim {

std::unique_ptr<GpuSharingPolicy> make_gpu_sharing_policy(const GpuSharing& spec, GpuHost& host) {
  switch (spec.policy) {
    case SharingPolicy::managed:
      return std::make_unique<ManagedPolicy>(host);
    case SharingPolicy::native:
      return std::make_unique<NativePolicy>(host, spec.timeslice_us, spec.context_switch_us);
    case SharingPolicy::sequential:
      return std::make_unique<SequentialPolicy>(host);
  }
  return std::make_unique<ManagedPolicy>(host);
}

std::optional<int> oldest_ready_inference(const GpuHost& host) {
  std::optional<int> best;
  Time best_since = 0;
  for (int c = 0; c < host.context_count(); ++c) {
    if (host.kind(c) != ContextKind::inference || !host.has_ready_work(c)) continue;
    const Time since = host.ready_since(c);
    if (!best || since < best_since) {
      best = c;
      best_since = since;
    }
  }
  return best;
}

}  // namespace fulcrum::sim
