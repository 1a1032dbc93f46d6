#include "sim/runtime/native_policy.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <limits>

#include "models/error.hpp"
#include "sim/scenario/scenario_limits.hpp"

namespace fulcrum::sim {

namespace {
// An item whose remaining standalone work is below this has completed (floating-point slack).
constexpr double kDoneNs = 0.5;
}  // namespace

double native_slice_fraction(double timeslice_us, double context_switch_us) {
  // The loader's ranges (scenario_limits.hpp), checked again for setups built in code: a share
  // of the GPU near 0 would stretch a completion past the end of int64 time.
  if (!(timeslice_us >= limits::kMinTimesliceUs && timeslice_us <= limits::kMaxTimesliceUs)) {
    throw InputError(std::nullopt, "gpu_sharing.timeslice_us", "must be in 0.001..1e6 us");
  }
  if (!(context_switch_us >= 0 && context_switch_us <= limits::kMaxContextSwitchUs)) {
    throw InputError(std::nullopt, "gpu_sharing.context_switch_us", "must be in 0..1e6 us");
  }
  if (context_switch_us > limits::kMaxSwitchPerSlice * timeslice_us) {
    throw InputError(std::nullopt, "gpu_sharing.context_switch_us",
                     "must be <= 1000 x timeslice_us");
  }
  return timeslice_us / (timeslice_us + context_switch_us);
}

double native_rate(int active, double slice_fraction) {
  if (active <= 1) return 1.0;
  return slice_fraction / static_cast<double>(active);
}

NativePolicy::NativePolicy(GpuHost& host, double timeslice_us, double context_switch_us)
    : host_(host),
      slice_fraction_(native_slice_fraction(timeslice_us, context_switch_us)),
      slots_(static_cast<std::size_t>(host.context_count())),
      share_(static_cast<std::size_t>(host.context_count()), 0.0),
      active_w_(host.rail_count(), 0.0) {}

double NativePolicy::rate(int active) const { return native_rate(active, slice_fraction_); }

void NativePolicy::on_work_ready(int context) {
  if (slots_[static_cast<std::size_t>(context)].running || !host_.has_ready_work(context)) return;
  advance();
  begin(context);
  replan();
}

void NativePolicy::begin(int context) {
  Slot& slot = slots_[static_cast<std::size_t>(context)];
  assert(!slot.running);
  slot.cost = &host_.begin_item(context);
  slot.remaining_ns = static_cast<double>(slot.cost->duration);
  slot.running = true;
  ++active_;
}

void NativePolicy::advance() {
  const Time now = host_.now();
  assert(now >= last_);
  if (active_ > 0 && now > last_) {
    const double progress = static_cast<double>(now - last_) * rate(active_);
    for (Slot& slot : slots_) {
      if (slot.running) slot.remaining_ns -= progress;
    }
  }
  last_ = now;
}

void NativePolicy::replan() {
  host_.simulator().cancel(next_completion_);
  next_completion_ = EventId{};
  std::fill(active_w_.begin(), active_w_.end(), 0.0);
  if (active_ == 0) {
    for (double& s : share_) s = 0;
    host_.set_gpu_state(share_, active_w_);
    return;
  }
  // Context switches run nothing: the GPU draws only the baseload for that share of the time.
  const double r = rate(active_);
  double min_remaining = std::numeric_limits<double>::infinity();
  for (std::size_t c = 0; c < slots_.size(); ++c) {
    const Slot& slot = slots_[c];
    share_[c] = slot.running ? r : 0.0;
    if (!slot.running) continue;
    for (std::size_t rail = 0; rail < active_w_.size(); ++rail) {
      active_w_[rail] += r * slot.cost->rail_active_w[rail];
    }
    if (slot.remaining_ns < min_remaining) min_remaining = slot.remaining_ns;
  }
  host_.set_gpu_state(share_, active_w_);
  // Rounding up: an item never completes before its standalone work is done. A completion further
  // away than any run can last is held at that horizon (it never comes; the conversion stays
  // defined): an item of up to 1e16 ns stretched by the narrowest share could exceed int64.
  constexpr double kHorizonNs = 0x1p62;
  const Time delay =
      static_cast<Time>(std::min(std::ceil(std::max(min_remaining, 0.0) / r), kHorizonNs));
  next_completion_ = host_.simulator().schedule_at(host_.now() + delay, [this] { complete(); });
}

void NativePolicy::complete() {
  next_completion_ = EventId{};
  advance();
  for (std::size_t c = 0; c < slots_.size(); ++c) {
    Slot& slot = slots_[c];
    if (!slot.running || slot.remaining_ns >= kDoneNs) continue;
    slot.running = false;
    slot.cost = nullptr;
    --active_;
    host_.finish_item(static_cast<int>(c));
  }
  for (std::size_t c = 0; c < slots_.size(); ++c) {
    if (!slots_[c].running && host_.has_ready_work(static_cast<int>(c))) begin(static_cast<int>(c));
  }
  replan();
}

ConcurrentNativePolicy::ConcurrentNativePolicy(GpuHost& host, double timeslice_us,
                                               double context_switch_us)
    : host_(host),
      slice_fraction_(native_slice_fraction(timeslice_us, context_switch_us)),
      running_(static_cast<std::size_t>(host.context_count()), nullptr),
      share_(static_cast<std::size_t>(host.context_count()), 0.0),
      active_w_(host.rail_count(), 0.0) {}

void ConcurrentNativePolicy::on_work_ready(int context) {
  if (running_[static_cast<std::size_t>(context)] != nullptr || !host_.has_ready_work(context)) {
    return;
  }
  submit(context);
  declare();
}

void ConcurrentNativePolicy::submit(int context) {
  running_[static_cast<std::size_t>(context)] =
      &host_.submit_item(context, [this, context] { completed(context); });
}

void ConcurrentNativePolicy::completed(int context) {
  running_[static_cast<std::size_t>(context)] = nullptr;
  host_.finish_item(context);
  if (host_.has_ready_work(context)) submit(context);
  declare();
}

void ConcurrentNativePolicy::declare() {
  const int active = static_cast<int>(
      std::count_if(running_.begin(), running_.end(), [](const ItemCost* c) { return c; }));
  const double r = active > 0 ? native_rate(active, slice_fraction_) : 0.0;
  std::fill(active_w_.begin(), active_w_.end(), 0.0);
  for (std::size_t c = 0; c < running_.size(); ++c) {
    share_[c] = running_[c] != nullptr ? r : 0.0;
    if (running_[c] == nullptr) continue;
    for (std::size_t rail = 0; rail < active_w_.size(); ++rail) {
      active_w_[rail] += r * running_[c]->rail_active_w[rail];
    }
  }
  host_.set_gpu_state(share_, active_w_);
}

}  // namespace fulcrum::sim
