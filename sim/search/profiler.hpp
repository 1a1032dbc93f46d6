// Profiler: the only way a strategy learns about a power mode. It returns the ground truth (with
// optional seeded multiplicative noise, as a real measurement would scatter) and charges the
// profiling cost: distinct modes profiled, and simulated seconds (settle time + N minibatches per
// measurement; defaults from reference/measurements/README.md, "The device and the method").
// With max_modes set it refuses a measurement at a new mode beyond the budget.
//
//   Profiler profiler(truth, {.max_modes = 15});
//   Profile p = profiler.profile("resnet18", Phase::training, 16, mode);
//   if (p.ok()) use(p.value.time_ms, p.value.power_w);
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "models/device/power_mode.hpp"
#include "models/workload/phase_cost.hpp"
#include "sim/search/ground_truth.hpp"
#include "sim/search/problem.hpp"

namespace fulcrum::sim::search {

struct ProfilerOptions {
  // Standard deviation of the multiplicative noise on time and on power (0.02 = 2%); 0 = exact.
  double noise = 0;
  std::uint64_t seed = 0;
  // Power-settling window per measurement, s (README: "a 2-3 s power-settling window").
  double settle_s = 2.5;
  // Minibatches timed per measurement (README: "about 40 minibatches after the first"); the first
  // (cuDNN autotuning) is charged too.
  int minibatches = 40;
  // Most distinct modes that may be profiled; absent = no limit.
  std::optional<int> max_modes = std::nullopt;
};

enum class ProfileStatus {
  ok,
  no_data,      // the ground truth has no value there (a mode the table did not measure)
  over_budget,  // a new mode beyond max_modes: refused, nothing charged
};
const char* to_string(ProfileStatus status);

struct Profile {
  ProfileStatus status = ProfileStatus::no_data;
  MeasuredPoint value;  // valid when ok()
  bool ok() const { return status == ProfileStatus::ok; }
};

class Profiler {
 public:
  explicit Profiler(const GroundTruth& truth, ProfilerOptions options = {});

  // Measures (workload, phase, batch size) at `mode`. A measurement already taken returns the
  // same value again at no cost. The first measurement at a mode charges a mode; every new
  // measurement charges settle_s + (minibatches + 1) x its time.
  Profile profile(std::string_view workload, models::Phase phase, int batch_size,
                  const models::PowerMode& mode);

  // Whether `mode` has been charged already (measuring more there costs no new mode).
  bool profiled(const models::PowerMode& mode) const;
  // Whether a measurement at `mode` would be accepted (already profiled, or budget left).
  bool can_profile(const models::PowerMode& mode) const;
  // Whether a mode not profiled yet would be accepted (max_modes unset or not reached).
  bool can_profile_new_mode() const;
  // Modes profiled, in the order they were first profiled.
  const std::vector<models::PowerMode>& modes() const { return modes_; }

  const ProfilingCost& cost() const { return cost_; }
  const ProfilerOptions& options() const { return options_; }
  std::optional<int> max_modes() const { return options_.max_modes; }
  // Ground-truth values this profiler has read.
  std::uint64_t truth_reads() const { return truth_reads_; }

 private:
  // The mode first: most lookups differ there, before the workload's name is compared.
  using Key = std::tuple<models::PowerMode, models::Phase, int, std::string>;

  const GroundTruth& truth_;
  ProfilerOptions options_;
  std::map<Key, Profile> taken_;
  std::vector<models::PowerMode> modes_;
  ProfilingCost cost_;
  std::uint64_t truth_reads_ = 0;
};

// A strategy's own profiling budget -- `max_modes` distinct modes, capped at its grid's size --
// within the Profiler's max_modes.
//
//   ModeBudget budget(options_.max_modes, grid.size(), profiler);
//   while (budget.allows(profiler.modes().size())) profile_one_more();
class ModeBudget {
 public:
  ModeBudget(int max_modes, std::size_t grid_size, const Profiler& profiler);
  // The strategy's budget in modes: max_modes capped at the grid's size.
  std::size_t modes() const { return modes_; }
  // Whether one more mode may be profiled when `counted` modes have been charged to the
  // strategy: below its budget, and the profiler would accept a new mode.
  bool allows(std::size_t counted) const;

 private:
  std::size_t modes_;
  const Profiler& profiler_;
};

}  // namespace fulcrum::sim::search
