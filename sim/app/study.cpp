#include "sim/app/study.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cmath>
#include <exception>
#include <memory>
#include <mutex>
#include <thread>

#include "models/error.hpp"
#include "sim/app/profiling.hpp"
#include "sim/app/run_plan.hpp"
#include "sim/config/overrides.hpp"
#include "sim/report/interrupt.hpp"
#include "sim/report/result_folder.hpp"

namespace fulcrum::sim::app {

namespace {

// Collects each stream's request latencies (ms) during one run.
class LatencyCollector final : public RunObserver {
 public:
  explicit LatencyCollector(std::size_t streams) : latencies_ms_(streams) {}
  void on_request(const RequestRecord& r) override {
    const auto i = static_cast<std::size_t>(r.stream);
    if (i < latencies_ms_.size()) {
      latencies_ms_[i].push_back(static_cast<double>(r.completion - r.arrival) / 1e6);
    }
  }
  std::vector<std::vector<double>>& latencies_ms() { return latencies_ms_; }

 private:
  std::vector<std::vector<double>> latencies_ms_;
};

std::optional<double> flag(const std::optional<bool>& b) {
  if (!b) return std::nullopt;
  return *b ? 1.0 : 0.0;
}

// An InputError caused by one of a run's study values, placed at that value in the study file:
// an error at or under the study's key (a bad value), or on the way to it (a key that names no
// field, an index past the list's end).
InputError located_in_study(const InputError& e, const StudySpec& spec, std::size_t point) {
  if (!e.where() || e.where()->file != override_location().file) return e;
  const auto caused_by = [&](const std::string& key) {
    return is_overridden(e.key_path(), {key}) ||
           (!e.key_path().empty() && is_overridden(key, {e.key_path()}));
  };
  const std::vector<std::size_t> c = spec.coordinates(point);
  for (std::size_t i = spec.axes.size(); i-- > 0;) {
    for (const StudyKey& k : spec.axes[i].keys) {
      if (caused_by(k.key_path)) return e.located(k.value_locations[c[i]], e.key_path());
    }
  }
  for (std::size_t i = spec.fixed.size(); i-- > 0;) {
    const std::string key = spec.fixed[i].substr(0, spec.fixed[i].find('='));
    if (caused_by(key)) return e.located(spec.fixed_locations[i], e.key_path());
  }
  return e;
}

}  // namespace

std::vector<std::pair<std::string, std::optional<double>>> study_figures(const RunResult& r) {
  std::vector<std::pair<std::string, std::optional<double>>> f;
  if (r.training) {
    f.emplace_back("training_samples_per_s", r.training->samples_per_s);
    f.emplace_back("training_minibatches_per_s", r.training->minibatches_per_s);
  }
  for (const StreamResult& s : r.inference) {
    const auto lat = [&](double LatencyStats::*m) -> std::optional<double> {
      if (!s.latency) return std::nullopt;
      return (*s.latency).*m;
    };
    f.emplace_back(s.name + ".throughput_per_s", s.throughput_per_s);
    f.emplace_back(s.name + ".p50_ms", lat(&LatencyStats::p50_ms));
    f.emplace_back(s.name + ".p99_ms", lat(&LatencyStats::p99_ms));
    f.emplace_back(s.name + ".max_ms", lat(&LatencyStats::max_ms));
    f.emplace_back(s.name + ".stable", s.stable ? 1.0 : 0.0);
  }
  f.emplace_back("power_avg_w", r.power.avg_w);
  f.emplace_back("power_max_window_w", r.power.max_window_w);
  f.emplace_back("energy_j", r.power.energy_j);
  f.emplace_back("latency_budget_met", flag(r.budgets.latency_met));
  f.emplace_back("power_budget_met", flag(r.budgets.power_met));
  return f;
}

StudyAxes study_axes(const StudySpec& spec) {
  StudyAxes axes;
  for (const StudyAxis& a : spec.axes) {
    for (const StudyKey& k : a.keys) axes.keys.push_back(k.key_path);
  }
  axes.values.reserve(spec.points());
  for (std::size_t point = 0; point < spec.points(); ++point) {
    std::vector<std::string> values;
    const std::vector<std::size_t> c = spec.coordinates(point);
    for (std::size_t i = 0; i < spec.axes.size(); ++i) {
      for (const StudyKey& k : spec.axes[i].keys) values.push_back(k.labels[c[i]]);
    }
    axes.values.push_back(std::move(values));
  }
  return axes;
}

StudyRow run_study_point(const StudySpec& spec, std::size_t index, const std::string& data_dir) {
  const std::size_t per_point = spec.seeds.empty() ? 1 : spec.seeds.size();
  StudyRow row;
  row.point = index / per_point;
  PlanRequest request{.scenario_path = spec.scenario_path,
                      .overrides = spec.overrides(row.point),
                      .seed = std::nullopt,
                      .data_dir = data_dir};
  if (!spec.seeds.empty()) request.seed = spec.seeds[index % per_point];
  try {
    const RunPlan plan = RunPlan::load(request);
    LatencyCollector latencies(plan.scenario().inference.size());
    const RunResult result = plan.simulate(&latencies);
    row.seed = result.seed;
    row.figures = study_figures(result);
    for (std::size_t s = 0; s < result.inference.size(); ++s) {
      row.latency_ms.emplace_back(result.inference[s].name,
                                  latency_percentiles(std::move(latencies.latencies_ms()[s])));
    }
  } catch (const InputError& e) {
    throw located_in_study(e, spec, row.point);
  }
  return row;
}

std::unique_ptr<ResultFolder> claim_study_folder(const StudyRequest& request,
                                                 const StudySpec& spec) {
  ResultFolder::Options folder_options;
  folder_options.wait = request.wait;
  folder_options.layout = &study_layout();
  return std::make_unique<ResultFolder>(
      request.out_dir ? *request.out_dir : std::filesystem::path("out") / spec.name,
      std::move(folder_options));
}

std::vector<StudyRow> run_study_runs(const StudySpec& spec, std::size_t begin, std::size_t end,
                                     unsigned jobs, const std::string& data_dir,
                                     const StudyProgress& progress) {
  const std::size_t total = end - begin;
  std::vector<StudyRow> rows(total);
  std::vector<std::exception_ptr> errors(total);
  std::atomic<std::size_t> next{0};
  std::atomic<bool> stop{false};
  std::mutex progress_mutex;
  std::size_t done = 0;
  auto worker = [&] {
    for (;;) {
      if (stop.load() || pending_interrupt()) return;
      const std::size_t i = next.fetch_add(1);
      if (i >= total) return;
      try {
        rows[i] = run_study_point(spec, begin + i, data_dir);
      } catch (...) {
        errors[i] = std::current_exception();
        stop.store(true);
        return;
      }
      if (progress) {
        const std::lock_guard lock(progress_mutex);
        progress(++done, total);
      }
    }
  };
  unsigned threads = jobs != 0 ? jobs : std::thread::hardware_concurrency();
  threads =
      static_cast<unsigned>(std::clamp<std::size_t>(threads, 1, std::max<std::size_t>(total, 1)));
  {
    std::vector<std::jthread> pool;
    for (unsigned t = 1; t < threads; ++t) pool.emplace_back(worker);
    worker();
  }
  // Indices are handed out in order, so every run before a failing one has run: the first
  // failure in run order is the same whatever the threads.
  for (const std::exception_ptr& e : errors) {
    if (e) std::rethrow_exception(e);
  }
  if (const std::optional<int> signal = pending_interrupt()) throw Interrupted(*signal);
  return rows;
}

void publish_study(ResultFolder& folder, StudyReport& report, std::vector<StudyRow> rows) {
  if (const std::optional<int> signal = pending_interrupt()) throw folder.interrupted(*signal);
  const StudyAxes axes = study_axes(report.spec);
  write_file_atomically(folder.staging_dir() / "study.csv", study_runs_csv(axes, rows));
  write_file_atomically(folder.staging_dir() / "study_summary.csv", study_summary_csv(axes, rows));
  write_file_atomically(folder.staging_dir() / "study_latency.csv", study_latency_csv(axes, rows));
  folder.publish();
  report.out_dir = folder.target();
  report.outputs.clear();
  for (const char* name : {"study.csv", "study_summary.csv", "study_latency.csv"}) {
    report.outputs.push_back(report.out_dir / name);
  }
  report.rows = std::move(rows);
}

StudyReport run_study(const StudyRequest& request, StudyProgress progress) {
  const auto started = std::chrono::steady_clock::now();
  StudyReport report;
  report.spec = load_study_spec(request.study_path);
  const std::unique_ptr<ResultFolder> folder = claim_study_folder(request, report.spec);
  std::vector<StudyRow> rows;
  try {
    rows = run_study_runs(report.spec, 0, report.spec.runs(), request.jobs, request.data_dir,
                          progress);
  } catch (const Interrupted& e) {
    throw folder->interrupted(e.signal());
  }
  publish_study(*folder, report, std::move(rows));
  report.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return report;
}

}  // namespace fulcrum::sim::app
