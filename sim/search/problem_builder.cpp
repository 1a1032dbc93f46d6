#include "sim/search/problem_builder.hpp"

#include <algorithm>

#include "models/error.hpp"

namespace fulcrum::sim::search {

namespace {

std::string list_of(const std::vector<int>& v) {
  std::string s;
  for (int x : v) s += (s.empty() ? "" : ", ") + std::to_string(x);
  return s;
}

const char* phase_word(models::Phase phase) {
  return phase == models::Phase::training ? "training" : "inference";
}

std::string resolve(const GroundTruth& truth, const std::string& workload, models::Phase phase,
                    const std::string& key) {
  if (std::optional<std::string> name = truth.name_for(workload, phase)) return *name;
  throw InputError(std::nullopt, key,
                   "workload '" + workload + "' has no " + phase_word(phase) + " data in the " +
                       truth.name() + " ground truth");
}

}  // namespace

Problem problem_from(const ProblemRequest& request, const GroundTruth& truth) {
  Problem p;
  if (request.training) {
    const ProblemRequest::Training& t = *request.training;
    p.training = resolve(truth, t.workload, models::Phase::training, t.workload_key);
    p.training_batch = t.batch_size;
    const std::vector<int> has = truth.batch_sizes(p.training, models::Phase::training);
    if (std::find(has.begin(), has.end(), t.batch_size) == has.end()) {
      throw InputError(std::nullopt, t.batch_key,
                       "the " + truth.name() + " ground truth has no training rows of '" +
                           p.training + "' at batch size " + std::to_string(t.batch_size) +
                           " (it has " + list_of(has) + ")");
    }
  }
  for (const ProblemRequest::Stream& s : request.streams) {
    SearchStream out;
    out.workload = resolve(truth, s.workload, models::Phase::inference, s.workload_key);
    out.arrival_per_s = s.arrival_per_s;
    out.latency_budget_s = s.latency_budget_s;
    if (!s.batch_sizes.empty()) {
      const std::vector<int> has = truth.batch_sizes(out.workload, models::Phase::inference);
      for (int b : has) {
        if (std::find(s.batch_sizes.begin(), s.batch_sizes.end(), b) != s.batch_sizes.end()) {
          out.batch_sizes.push_back(b);
        }
      }
      if (out.batch_sizes.empty()) {
        throw InputError(std::nullopt, s.batch_key,
                         "the " + truth.name() + " ground truth has no inference rows of '" +
                             out.workload + "' at batch sizes " + list_of(s.batch_sizes) +
                             " (it has " + list_of(has) + ")");
      }
    }
    p.streams.push_back(std::move(out));
  }
  p.power_budget_w = request.power_budget_w;
  p.power_kind = request.power_kind;
  p.objective = request.objective;
  p.idle_power_w = request.idle_power_w.value_or(catalog_idle_power_w(truth.device()));
  p.grid = request.grid.value_or(truth.default_grid());
  return p;
}

}  // namespace fulcrum::sim::search
