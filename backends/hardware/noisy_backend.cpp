#include "backends/hardware/noisy_backend.hpp"

#include <cmath>

#include "models/error.hpp"

namespace fulcrum::backends {

NoisyBackend::NoisyBackend(std::unique_ptr<Backend> inner, Options options)
    : inner_(std::move(inner)), options_(options), rng_(options.seed) {
  if (!(options_.sigma >= 0) || !std::isfinite(options_.sigma)) {
    throw InputError(std::nullopt, "--noise", "must be a finite number >= 0");
  }
}

const Completion& NoisyBackend::execute(const WorkItem& item) {
  last_ = inner_->execute(item);
  if (options_.sigma > 0) {
    const double factor = std::exp(options_.sigma * normal_(rng_));
    const double ns =
        std::max(1.0, std::round(static_cast<double>(last_.duration.count()) * factor));
    const double scale = ns / static_cast<double>(last_.duration.count());
    last_.duration = std::chrono::nanoseconds(static_cast<std::int64_t>(ns));
    for (double& e : last_.rail_energy_j) e *= scale;
    last_.module_energy_j *= scale;
  }
  if (options_.real_time) last_.duration = seat_.take(last_.duration);
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
