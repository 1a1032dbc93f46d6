#include "sim/search/profiler.hpp"

#include <algorithm>
#include <cmath>

#include "models/random/rng_streams.hpp"

namespace fulcrum::sim::search {

const char* to_string(ProfileStatus status) {
  switch (status) {
    case ProfileStatus::ok:
      return "ok";
    case ProfileStatus::no_data:
      return "no data";
    case ProfileStatus::over_budget:
      return "over the profiling budget";
  }
  return "no data";
}

namespace {

// A standard normal draw (Box-Muller on two uniforms; no std:: distributions, whose output
// differs between standard libraries).
double standard_normal(models::Rng& rng) {
  const double u1 = 1.0 - rng.uniform();  // (0, 1]
  const double u2 = rng.uniform();
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * 3.14159265358979323846 * u2);
}

}  // namespace

Profiler::Profiler(const GroundTruth& truth, ProfilerOptions options)
    : truth_(truth), options_(options) {}

bool Profiler::profiled(const models::PowerMode& mode) const {
  return std::find(modes_.begin(), modes_.end(), mode) != modes_.end();
}

bool Profiler::can_profile(const models::PowerMode& mode) const {
  return profiled(mode) || can_profile_new_mode();
}

bool Profiler::can_profile_new_mode() const {
  return !options_.max_modes || static_cast<int>(modes_.size()) < *options_.max_modes;
}

Profile Profiler::profile(std::string_view workload, models::Phase phase, int batch_size,
                          const models::PowerMode& mode) {
  Key key{mode, phase, batch_size, std::string(workload)};
  if (const auto it = taken_.find(key); it != taken_.end()) return it->second;
  if (!can_profile(mode)) {
    ++cost_.refused;
    return Profile{ProfileStatus::over_budget, {}};
  }
  ++truth_reads_;
  const std::optional<MeasuredPoint> truth =
      truth_.at(TruthKey{}, workload, phase, batch_size, mode);
  if (!profiled(mode)) {
    modes_.push_back(mode);
    ++cost_.modes;
  }
  Profile p;
  if (truth) {
    p.status = ProfileStatus::ok;
    p.value = *truth;
    if (options_.noise > 0) {
      // One stream per measurement, named by what is measured: the draw does not depend on the
      // order in which a strategy profiles.
      models::Rng rng =
          models::RngStreams(options_.seed)
              .stream("profiler/" + std::get<3>(key) + "/" + measurement_phase(phase) + "/" +
                      std::to_string(batch_size) + "/" + mode.label());
      p.value.time_ms *= std::max(0.05, 1.0 + options_.noise * standard_normal(rng));
      p.value.power_w *= std::max(0.05, 1.0 + options_.noise * standard_normal(rng));
    }
    ++cost_.measurements;
    cost_.seconds += options_.settle_s + (options_.minibatches + 1) * truth->time_ms / 1000.0;
  } else {
    p.status = ProfileStatus::no_data;
  }
  taken_.emplace(std::move(key), p);
  return p;
}

ModeBudget::ModeBudget(int max_modes, std::size_t grid_size, const Profiler& profiler)
    : modes_(static_cast<std::size_t>(std::min<long>(max_modes, static_cast<long>(grid_size)))),
      profiler_(profiler) {}

bool ModeBudget::allows(std::size_t counted) const {
  return counted < modes_ && profiler_.can_profile_new_mode();
}

}  // namespace fulcrum::sim::search
