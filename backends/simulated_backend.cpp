#include "backends/simulated_backend.hpp"

#include <algorithm>
#include <bit>
#include <cassert>
#include <cmath>
#include <iomanip>
#include <limits>
#include <sstream>
#include <string>

#include "models/error.hpp"

namespace fulcrum::backends {

namespace {

std::size_t mix(std::size_t h, std::uint64_t v) {
  // boost::hash_combine's mixing step, widened to 64 bits.
  return h ^ (v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2));
}

}  // namespace

std::size_t SimulatedBackend::ItemKeyHash::operator()(const ItemKey& k) const {
  std::size_t h = std::hash<const void*>{}(k.workload);
  h = mix(h, static_cast<std::uint64_t>(k.phase));
  h = mix(h, static_cast<std::uint64_t>(k.batch_size));
  h = mix(h, static_cast<std::uint64_t>(k.mode.cores));
  h = mix(h, std::bit_cast<std::uint64_t>(k.mode.cpu_khz));
  h = mix(h, std::bit_cast<std::uint64_t>(k.mode.gpu_hz));
  h = mix(h, std::bit_cast<std::uint64_t>(k.mode.emc_hz));
  h = mix(h, static_cast<std::uint64_t>(k.mode.gpu_tpcs));
  return mix(h, std::bit_cast<std::uint64_t>(k.host_share));
}

std::chrono::nanoseconds duration_of_prediction(double time_ms, const std::string& model_name,
                                                const std::string& workload_name) {
  const double ns = std::round(time_ms * 1e6);
  if (!(ns >= 0) || !std::isfinite(ns)) {
    throw Error("performance model " + model_name + " predicted an unusable time of " +
                std::to_string(time_ms) + " ms for " + workload_name);
  }
  if (ns > kMaxItemNs) {
    // A workload can be any size (a workload file's layers): a minibatch longer than any run is
    // bad input, not a clock that overflows later.
    std::ostringstream seconds;
    seconds << std::setprecision(3) << time_ms / 1e3;
    throw InputError("performance model " + model_name + " predicts " + seconds.str() +
                     " s for a minibatch of " + workload_name +
                     ", longer than the longest run (1e7 s): the workload is too large for the "
                     "device");
  }
  return std::chrono::nanoseconds(std::max<std::int64_t>(1, static_cast<std::int64_t>(ns)));
}

SimulatedBackend::SimulatedBackend(const models::DeviceSpec& device, const models::PerfModel& model,
                                   Options options)
    : device_(device), model_(model), options_(options) {}

Completion SimulatedBackend::predict(const WorkItem& item) const {
  if (item.batch_size < 1) {
    throw InputError("cannot execute a minibatch of " + std::to_string(item.batch_size) + " " +
                     item.workload->name() + " samples: the batch size must be >= 1");
  }
  const models::Prediction p = model_.predict(
      {device_, item.mode, *item.workload, item.phase, item.batch_size, item.host_share});
  if (p.power.power_w.size() != device_.rails.size()) {
    throw Error("performance model " + model_.name() + " predicted " +
                std::to_string(p.power.power_w.size()) + " rail powers for " + device_.name +
                ", which has " + std::to_string(device_.rails.size()) + " rails");
  }
  Completion c;
  c.duration = duration_of_prediction(p.time_ms, model_.name(), item.workload->name());
  const double seconds = static_cast<double>(c.duration.count()) * 1e-9;
  c.rail_energy_j = models::RailValues(p.power.power_w.size());
  for (std::size_t r = 0; r < p.power.power_w.size(); ++r) {
    c.rail_energy_j[r] = p.power.power_w[r] * seconds;
  }
  c.module_energy_j = p.power.module_w() * seconds;
  c.provenance = p.provenance;
  return c;
}

const Completion& SimulatedBackend::lookup(const ItemKey& key, const WorkItem& item) {
  for (std::size_t i = 0; i < recent_count_; ++i) {
    if (recent_[i].key == key) return *recent_[i].completion;
  }
  auto it = completions_.find(key);
  if (it == completions_.end()) it = completions_.emplace(key, predict(item)).first;
  // Most recent first: shift the others down, dropping the oldest when full.
  if (recent_count_ < kRecent) ++recent_count_;
  for (std::size_t i = recent_count_ - 1; i > 0; --i) recent_[i] = recent_[i - 1];
  recent_[0] = Recent{key, &it->second};
  return it->second;
}

const Completion& SimulatedBackend::execute(const WorkItem& item) {
  assert(item.workload != nullptr && "a work item always names its workload");
  const Completion& c =
      lookup(ItemKey{item.workload, item.phase, item.batch_size, item.mode, item.host_share}, item);
  if (!options_.real_time) return c;
  const std::optional<std::chrono::nanoseconds> took = seat_.take(c.duration);
  if (took && !seat_.shared()) return c;  // alone and whole: the memo as it is
  shared_last_ = c;
  if (took) {
    shared_last_.duration = *took;
  } else {
    shared_last_.cut_short = true;  // the duration it would have taken stays
  }
  return shared_last_;
}

std::unique_ptr<Backend> SimulatedBackend::open_context() {
  auto context = std::make_unique<SimulatedBackend>(device_, model_, options_);
  if (options_.real_time) context->seat_ = seat_.share(options_.slicing);
  return context;
}

models::RailPower SimulatedBackend::idle_power(const models::PowerMode& mode) {
  if (const auto it = idle_.find(mode); it != idle_.end()) return it->second;
  models::RailPower p = model_.idle_power(device_, mode);
  idle_.emplace(mode, p);
  return p;
}

}  // namespace fulcrum::backends
