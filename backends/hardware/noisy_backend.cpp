#include "backends/hardware/noisy_backend.hpp"

#include <algorithm>
#include <cmath>
#include <optional>

#include "backends/simulated_backend.hpp"
#include "models/error.hpp"

namespace fulcrum::backends {

NoisyBackend::NoisyBackend(std::unique_ptr<Backend> inner, Options options)
    : inner_(std::move(inner)), options_(options), rng_(options.seed) {
  if (!(options_.sigma >= 0 && options_.sigma <= kMaxSigma)) {
    throw InputError(std::nullopt, "--noise",
                     "must be a number in [0, " + std::to_string(static_cast<int>(kMaxSigma)) +
                         "] (the standard deviation of the log of the time factor; 0.05 ~ 5%)");
  }
}

const Completion& NoisyBackend::execute(const WorkItem& item) {
  last_ = inner_->execute(item);
  if (options_.sigma > 0) {
    const double z = std::clamp(normal_(rng_), -kMaxDeviations, kMaxDeviations);
    const double factor = std::exp(options_.sigma * z);
    const double ns = std::clamp(std::round(static_cast<double>(last_.duration.count()) * factor),
                                 1.0, kMaxItemNs);
    const double scale = ns / static_cast<double>(last_.duration.count());
    last_.duration = std::chrono::nanoseconds(static_cast<std::int64_t>(ns));
    for (double& e : last_.rail_energy_j) e *= scale;
    last_.module_energy_j *= scale;
  }
  if (options_.real_time) {
    if (const std::optional<std::chrono::nanoseconds> took = seat_.take(last_.duration)) {
      last_.duration = *took;
    } else {
      last_.cut_short = true;  // the duration it would have taken stays
    }
  }
  return last_;
}

std::unique_ptr<Backend> NoisyBackend::open_context() {
  std::unique_ptr<Backend> inner = inner_->open_context();
  if (!inner) return nullptr;
  Options options = options_;
  options.seed = options_.seed + 0x9e3779b97f4a7c15ULL * ++contexts_opened_;
  auto context = std::make_unique<NoisyBackend>(std::move(inner), options);
  if (options_.real_time) context->seat_ = seat_.share(options_.slicing);
  return context;
}

}  // namespace fulcrum::backends
