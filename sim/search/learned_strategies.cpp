#include "sim/search/learned_strategies.hpp"

#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "models/random/rng_streams.hpp"
#include "sim/config/data_dirs.hpp"
#include "sim/search/steady_state.hpp"
#include "sim/search/strategies.hpp"

namespace fulcrum::sim::search {

const models::MlpModePredictor& powertrain_reference(const std::string& data_dir) {
  static std::mutex mutex;
  static std::map<std::string, std::unique_ptr<const models::MlpModePredictor>> loaded;
  const std::lock_guard<std::mutex> lock(mutex);
  std::unique_ptr<const models::MlpModePredictor>& slot = loaded[data_dir];
  if (!slot) {
    slot = std::make_unique<const models::MlpModePredictor>(
        models::load_mode_predictor(data_dir + "/" + models::kPowertrainReferenceWeights));
  }
  return *slot;
}

namespace {

enum class Learner { nn, powertrain };

// One learnt series: a workload in one phase at one batch size.
using SeriesKey = std::tuple<std::string, models::Phase, int>;

class Learned : public Strategy {
 public:
  Learned(Learner learner, const StrategyOptions& o) : learner_(learner), options_(o) {}
  std::string name() const override { return learner_ == Learner::nn ? "nn" : "powertrain"; }
  std::optional<int> max_modes() const override { return options_.max_modes; }

  Choice choose(const Problem& problem, Profiler& profiler, const SearchContext& context) override {
    // Both seeds, combined so that equal ones do not cancel (compare_strategy passes the same).
    const std::uint64_t seed = options_.seed * 0x9E3779B97F4A7C15ULL + context.seed;
    const std::vector<models::PowerMode> grid = context.grid.to_vector();
    const std::vector<std::vector<int>> combos = batch_combinations(context);

    // 1. Sample: k distinct random modes (partial Fisher-Yates, seeded; nn and powertrain draw
    //    the same modes), one left for verification when a budget is set. Each sampled mode is
    //    measured for the training and for every stream at every candidate batch size.
    std::size_t n =
        static_cast<std::size_t>(std::max(1, options_.k.value_or(kLearnedDefaultSample)));
    if (options_.max_modes) n = std::min<std::size_t>(n, std::max(1, *options_.max_modes - 1));
    n = std::min(n, grid.size());
    models::Rng rng = models::RngStreams(seed).stream("search/learned");
    std::vector<std::size_t> order(grid.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::map<SeriesKey, std::vector<models::ModeMeasurement>> rows;
    std::vector<Measured> seen;
    for (std::size_t i = 0; i < n; ++i) {
      const std::size_t j = i + static_cast<std::size_t>(rng.uniform_below(order.size() - i));
      std::swap(order[i], order[j]);
      measure_mode(problem, profiler, context, combos, grid[order[i]], rows, seen);
    }

    // 2. Learn every series the problem needs and predict it at every grid mode.
    std::map<SeriesKey, std::vector<MeasuredPoint>> predicted;
    for (const SeriesKey& key : needed(problem, context)) {
      const auto it = rows.find(key);
      if (it == rows.end() || it->second.empty()) {
        return answer(problem, profiler, seen,
                      "nothing measurable for " + std::get<0>(key) + "; best measured feasible");
      }
      predicted.emplace(key, predict(key, it->second, problem.grid, grid, seed));
    }

    // 3. The best predicted-feasible configuration (time and power raised by the margin).
    const std::optional<std::pair<std::size_t, std::vector<int>>> pick =
        best_predicted(problem, context, predicted);
    if (!pick) return answer(problem, profiler, seen, "no predicted-feasible configuration");

    // 4. Verify it by profiling (every batch combination at that mode); answer the best measured
    //    feasible configuration, the sample's when the prediction misses on measurement.
    const models::PowerMode& mode = grid[pick->first];
    if (!profiler.can_profile(mode)) {
      return answer(problem, profiler, seen, "no budget left to verify; best measured feasible");
    }
    std::vector<Measured> verified;
    measure_mode(problem, profiler, context, combos, mode, rows, verified);
    seen.insert(seen.end(), verified.begin(), verified.end());
    const std::optional<Measured> at_pick = best_feasible(problem, verified);
    const std::optional<Measured> best = best_feasible(problem, seen);
    std::string note = !at_pick ? "predicted best misses the budgets on measurement; best of the "
                                  "sample"
                       : best && best->mode == mode
                           ? "predicted best verified"
                           : "a sampled mode beats the verified prediction";
    return answer(problem, profiler, seen, std::move(note));
  }

 private:
  // Measures the training and every stream at every candidate batch size at `mode`; adds the
  // rows learnt from and the measured candidates (every batch combination).
  static void measure_mode(const Problem& problem, Profiler& profiler, const SearchContext& context,
                           const std::vector<std::vector<int>>& combos,
                           const models::PowerMode& mode,
                           std::map<SeriesKey, std::vector<models::ModeMeasurement>>& rows,
                           std::vector<Measured>& seen) {
    for (const SeriesKey& key : needed(problem, context)) {
      const auto& [workload, phase, batch] = key;
      const Profile p = profiler.profile(workload, phase, batch, mode);
      if (!p.ok()) continue;
      std::vector<models::ModeMeasurement>& r = rows[key];
      if (std::none_of(r.begin(), r.end(), [&](const auto& m) { return m.mode == mode; })) {
        r.push_back({mode, p.value.time_ms / 1e3, p.value.power_w});
      }
    }
    for (const std::vector<int>& batches : combos) {
      if (const std::optional<SteadyState> s = profile_state(problem, profiler, mode, batches)) {
        seen.push_back({mode, batches, *s});
      }
    }
  }

  // The series a problem needs: its training, and each stream at each candidate batch size.
  static std::vector<SeriesKey> needed(const Problem& problem, const SearchContext& context) {
    std::vector<SeriesKey> out;
    if (!problem.training.empty()) {
      out.emplace_back(problem.training, models::Phase::training, problem.training_batch);
    }
    for (std::size_t i = 0; i < problem.streams.size(); ++i) {
      for (int b : context.stream_batches[i]) {
        SeriesKey key{problem.streams[i].workload, models::Phase::inference, b};
        if (std::find(out.begin(), out.end(), key) == out.end()) out.push_back(std::move(key));
      }
    }
    return out;
  }

  // A series predicted at every grid mode, margin applied. Memoised on everything the fit depends
  // on (series, grid, seed, the measured rows): a comparison over many budgets of the same
  // workloads profiles the same sample and fits once.
  std::vector<MeasuredPoint> predict(const SeriesKey& key,
                                     const std::vector<models::ModeMeasurement>& rows,
                                     const std::string& grid_name,
                                     const std::vector<models::PowerMode>& grid,
                                     std::uint64_t seed) {
    std::vector<double> flat;
    for (const models::ModeMeasurement& r : rows) {
      flat.insert(flat.end(), {static_cast<double>(r.mode.cores), r.mode.cpu_khz, r.mode.gpu_hz,
                               r.mode.emc_hz, r.time_s, r.power_w});
    }
    MemoKey memo{key, grid_name, seed, std::move(flat)};
    if (const auto it = memo_.find(memo); it != memo_.end()) return it->second;
    const models::ModeFitOptions fit;
    const models::MlpModePredictor predictor =
        learner_ == Learner::nn ? models::fit_mode_predictor(rows, fit, seed)
                                : models::transfer_mode_predictor(
                                      powertrain_reference(options_.data_dir), rows, fit, seed);
    const std::vector<models::ModeEstimate> estimates = predictor.predict_all(grid);
    std::vector<MeasuredPoint> out;
    out.reserve(estimates.size());
    for (const models::ModeEstimate& e : estimates) {
      out.push_back(
          {e.time_s * 1e3 * (1 + kLearnedSafetyMargin), e.power_w * (1 + kLearnedSafetyMargin)});
    }
    return memo_.emplace(std::move(memo), std::move(out)).first->second;
  }

  // The best predicted-feasible (grid index, batch sizes): CandidateTable's scan for zero or one
  // stream, every pair of batch sizes for two.
  static std::optional<std::pair<std::size_t, std::vector<int>>> best_predicted(
      const Problem& problem, const SearchContext& context,
      const std::map<SeriesKey, std::vector<MeasuredPoint>>& predicted) {
    const std::size_t modes = context.grid.size();
    auto series = [&](const SeriesKey& key) {
      const std::vector<MeasuredPoint>& p = predicted.at(key);
      return std::vector<std::optional<MeasuredPoint>>(p.begin(), p.end());
    };
    std::vector<std::optional<MeasuredPoint>> train;
    if (!problem.training.empty()) {
      train = series({problem.training, models::Phase::training, problem.training_batch});
    }
    if (problem.streams.size() <= 1) {
      std::vector<int> batches;
      std::vector<std::vector<std::optional<MeasuredPoint>>> infer;
      if (!problem.streams.empty()) {
        batches = context.stream_batches[0];
        for (int b : batches) {
          infer.push_back(series({problem.streams[0].workload, models::Phase::inference, b}));
        }
      }
      const CandidateTable::Best b = CandidateTable(problem, batches, train, infer).best(problem);
      if (!b.found) return std::nullopt;
      return std::pair{
          b.mode, problem.streams.empty() ? std::vector<int>{} : std::vector<int>{b.batch_size}};
    }
    std::optional<std::pair<std::size_t, std::vector<int>>> best;
    std::optional<SteadyState> best_state;
    for (std::size_t m = 0; m < modes; ++m) {
      for (int b1 : context.stream_batches[0]) {
        for (int b2 : context.stream_batches[1]) {
          const SteadyState s = steady_state_two(
              problem, train.empty() ? std::nullopt : train[m],
              predicted.at({problem.streams[0].workload, models::Phase::inference, b1})[m], b1,
              predicted.at({problem.streams[1].workload, models::Phase::inference, b2})[m], b2);
          if (!s.feasible() || (best_state && !better(problem.objective, s, *best_state))) continue;
          best_state = s;
          best = std::pair{m, std::vector<int>{b1, b2}};
        }
      }
    }
    return best;
  }

  static Choice answer(const Problem& problem, const Profiler& profiler,
                       const std::vector<Measured>& seen, std::string note) {
    const std::optional<Measured> best = best_feasible(problem, seen);
    if (!best) note += "; no measured configuration meets the budgets";
    return choice_from(best, static_cast<int>(profiler.modes().size()), std::move(note),
                       problem.power_kind);
  }

  using MemoKey = std::tuple<SeriesKey, std::string, std::uint64_t, std::vector<double>>;

  Learner learner_;
  StrategyOptions options_;
  std::map<MemoKey, std::vector<MeasuredPoint>> memo_;
};

}  // namespace

std::unique_ptr<Strategy> make_nn(const StrategyOptions& o) {
  return std::make_unique<Learned>(Learner::nn, o);
}
std::unique_ptr<Strategy> make_powertrain(const StrategyOptions& o) {
  return std::make_unique<Learned>(Learner::powertrain, o);
}

void add_learned_strategies(StrategyRegistry& r) {
  r.add({"nn", "k random modes, MLPs fitted from scratch, best predicted-feasible mode verified",
         kLearnedDefaultSample + 1, make_nn});
  r.add({"powertrain",
         "k random modes, the resnet18 reference MLPs transferred, best predicted-feasible mode "
         "verified",
         kLearnedDefaultSample + 1, make_powertrain});
}

}  // namespace fulcrum::sim::search
