#include "sim/search/problem.hpp"

#include <cmath>
#include <sstream>

#include "models/error.hpp"

namespace fulcrum::sim::search {

namespace {

std::string number(double v) {
  std::ostringstream out;
  out << v;
  return out.str();
}

void require_positive(double v, const std::string& key) {
  if (!(std::isfinite(v) && v > 0)) {
    throw InputError(std::nullopt, key, "must be > 0, got " + number(v));
  }
}

}  // namespace

void check_problem(const Problem& p) {
  require_positive(p.training_batch, "training_batch");
  if (p.streams.size() > 2) {
    throw InputError(std::nullopt, "streams",
                     "at most two inference streams, got " + std::to_string(p.streams.size()));
  }
  if (p.training.empty() && p.streams.empty()) {
    throw InputError(std::nullopt, "", "a problem needs a training workload or a stream");
  }
  for (std::size_t i = 0; i < p.streams.size(); ++i) {
    const SearchStream& s = p.streams[i];
    const std::string key = "streams[" + std::to_string(i) + "]";
    if (s.workload.empty()) throw InputError(std::nullopt, key + ".workload", "is empty");
    require_positive(s.arrival_per_s, key + ".arrival_per_s");
    if (s.latency_budget_s) require_positive(*s.latency_budget_s, key + ".latency_budget_s");
    for (std::size_t j = 0; j < s.batch_sizes.size(); ++j) {
      const std::string bkey = key + ".batch_sizes[" + std::to_string(j) + "]";
      require_positive(s.batch_sizes[j], bkey);
      if (j > 0 && s.batch_sizes[j] <= s.batch_sizes[j - 1]) {
        throw InputError(std::nullopt, bkey, "batch sizes must be ascending");
      }
    }
  }
  if (p.power_budget_w) require_positive(*p.power_budget_w, "power_budget_w");
  if (!(std::isfinite(p.idle_power_w) && p.idle_power_w >= 0)) {
    throw InputError(std::nullopt, "idle_power_w", "must be >= 0, got " + number(p.idle_power_w));
  }
  if (p.grid.empty()) throw InputError(std::nullopt, "grid", "is empty");
}

double catalog_idle_power_w(const models::DeviceSpec& device) {
  return device.idle_w.value_or(0.0);
}

}  // namespace fulcrum::sim::search
