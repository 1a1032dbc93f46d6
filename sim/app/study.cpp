#include "sim/app/study.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cmath>
#include <exception>
#include <mutex>
#include <thread>

#include "models/error.hpp"
#include "sim/app/profiling.hpp"
#include "sim/app/run_plan.hpp"
#include "sim/config/overrides.hpp"
#include "sim/report/interrupt.hpp"
#include "sim/report/number_format.hpp"
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

std::string number(double v) {
  char buf[kMaxNumberChars];
  return std::string(buf, put_double(buf, v));
}

std::string cell(const std::optional<double>& v) { return v ? number(*v) : std::string(); }

// RFC 4180: a field with a comma, a quote or a line break is quoted, quotes doubled.
std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\r\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + '"';
}

// The axis columns of study.csv: one per key (a zipped axis has several).
std::string axis_header(const StudySpec& spec) {
  std::string s;
  for (const StudyAxis& a : spec.axes) {
    for (const StudyKey& k : a.keys) s += ',' + csv_field(k.key_path);
  }
  return s;
}

std::string axis_cells(const StudySpec& spec, std::size_t point) {
  std::string s;
  const std::vector<std::size_t> c = spec.coordinates(point);
  for (std::size_t i = 0; i < spec.axes.size(); ++i) {
    for (const StudyKey& k : spec.axes[i].keys) s += ',' + csv_field(k.values[c[i]]);
  }
  return s;
}

// Every figure name in the rows, in order of first appearance.
std::vector<std::string> figure_names(const std::vector<StudyRow>& rows) {
  std::vector<std::string> names;
  for (const StudyRow& r : rows) {
    for (const auto& [name, value] : r.figures) {
      if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
    }
  }
  return names;
}

std::optional<double> figure(const StudyRow& row, const std::string& name) {
  for (const auto& [n, v] : row.figures) {
    if (n == name) return v;
  }
  return std::nullopt;
}

std::optional<double> flag(const std::optional<bool>& b) {
  if (!b) return std::nullopt;
  return *b ? 1.0 : 0.0;
}

// An InputError caused by one of a run's study values, placed at that value in the study file.
InputError located_in_study(const InputError& e, const StudySpec& spec, std::size_t point) {
  if (!e.where() || e.where()->file != override_location().file) return e;
  const std::vector<std::size_t> c = spec.coordinates(point);
  for (std::size_t i = spec.axes.size(); i-- > 0;) {
    for (const StudyKey& k : spec.axes[i].keys) {
      if (is_overridden(e.key_path(), {k.key_path})) {
        return e.located(k.value_locations[c[i]], e.key_path());
      }
    }
  }
  for (std::size_t i = spec.fixed.size(); i-- > 0;) {
    const std::string key = spec.fixed[i].substr(0, spec.fixed[i].find('='));
    if (is_overridden(e.key_path(), {key})) return e.located(spec.fixed_locations[i], e.key_path());
  }
  return e;
}

}  // namespace

std::vector<double> study_percentiles() {
  std::vector<double> p;
  for (int i = 0; i <= 99; ++i) p.push_back(i);
  p.push_back(99.9);
  p.push_back(100);
  return p;
}

std::vector<double> latency_percentiles(std::vector<double> latencies_ms) {
  std::vector<double> out;
  if (latencies_ms.empty()) return out;
  std::sort(latencies_ms.begin(), latencies_ms.end());
  const double n = static_cast<double>(latencies_ms.size());
  for (double p : study_percentiles()) {
    // Nearest rank: the smallest value with at least p% of the values at or below it.
    const double rank = std::ceil(p / 100.0 * n - 1e-9);
    const auto i = static_cast<std::size_t>(std::clamp(rank, 1.0, n)) - 1;
    out.push_back(latencies_ms[i]);
  }
  return out;
}

double t_quantile_975(std::size_t dof) {
  static constexpr std::array<double, 30> kTable{
      12.7062047, 4.30265273, 3.18244631, 2.77644511, 2.57058184, 2.44691185,
      2.36462425, 2.30600414, 2.26215716, 2.22813885, 2.20098516, 2.17881283,
      2.16036866, 2.14478669, 2.13144955, 2.11990530, 2.10981558, 2.10092204,
      2.09302405, 2.08596345, 2.07961384, 2.07387307, 2.06865761, 2.06389856,
      2.05953855, 2.05552944, 2.05183052, 2.04840714, 2.04522964, 2.04227246};
  if (dof == 0) throw Error("t_quantile_975: needs at least one degree of freedom");
  if (dof <= kTable.size()) return kTable[dof - 1];
  // Beyond the table: the Cornish-Fisher expansion around the normal quantile (error < 1e-5).
  const double z = 1.959963985;
  const double n = static_cast<double>(dof);
  return z + (z * z * z + z) / (4 * n) +
         (5 * std::pow(z, 5) + 16 * z * z * z + 3 * z) / (96 * n * n);
}

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

std::string study_runs_csv(const StudySpec& spec, const std::vector<StudyRow>& rows) {
  const std::vector<std::string> names = figure_names(rows);
  std::string out = "run,point,seed" + axis_header(spec);
  for (const std::string& n : names) out += ',' + csv_field(n);
  out += '\n';
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const StudyRow& r = rows[i];
    out += std::to_string(i) + ',' + std::to_string(r.point) + ',' + std::to_string(r.seed) +
           axis_cells(spec, r.point);
    for (const std::string& n : names) out += ',' + cell(figure(r, n));
    out += '\n';
  }
  return out;
}

std::string study_summary_csv(const StudySpec& spec, const std::vector<StudyRow>& rows) {
  const std::vector<std::string> names = figure_names(rows);
  std::string out = "point" + axis_header(spec) + ",runs";
  for (const std::string& n : names)
    out += ',' + csv_field(n + "_mean") + ',' + csv_field(n + "_ci95");
  out += '\n';
  std::size_t begin = 0;
  while (begin < rows.size()) {
    std::size_t end = begin;
    while (end < rows.size() && rows[end].point == rows[begin].point) ++end;
    out += std::to_string(rows[begin].point) + axis_cells(spec, rows[begin].point) + ',' +
           std::to_string(end - begin);
    for (const std::string& n : names) {
      std::vector<double> v;
      for (std::size_t i = begin; i < end; ++i) {
        if (auto x = figure(rows[i], n)) v.push_back(*x);
      }
      if (v.empty()) {
        out += ",,";
        continue;
      }
      double sum = 0;
      for (double x : v) sum += x;
      const double mean = sum / static_cast<double>(v.size());
      out += ',' + number(mean) + ',';
      if (v.size() >= 2) {
        double ss = 0;
        for (double x : v) ss += (x - mean) * (x - mean);
        const double sd = std::sqrt(ss / static_cast<double>(v.size() - 1));
        out += number(t_quantile_975(v.size() - 1) * sd / std::sqrt(static_cast<double>(v.size())));
      }
    }
    out += '\n';
    begin = end;
  }
  return out;
}

std::string study_latency_csv(const StudySpec& spec, const std::vector<StudyRow>& rows) {
  const std::vector<double> percentiles = study_percentiles();
  std::string out = "run,point,seed" + axis_header(spec) + ",stream,percentile,latency_ms\n";
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const StudyRow& r = rows[i];
    const std::string prefix = std::to_string(i) + ',' + std::to_string(r.point) + ',' +
                               std::to_string(r.seed) + axis_cells(spec, r.point) + ',';
    for (const auto& [stream, values] : r.latency_ms) {
      for (std::size_t k = 0; k < values.size(); ++k) {
        out += prefix + csv_field(stream) + ',' + number(percentiles[k]) + ',' + number(values[k]) +
               '\n';
      }
    }
  }
  return out;
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

StudyReport run_study(const StudyRequest& request, StudyProgress progress) {
  const auto started = std::chrono::steady_clock::now();
  StudyReport report;
  report.spec = load_study_spec(request.study_path);
  const StudySpec& spec = report.spec;
  report.out_dir = request.out_dir ? *request.out_dir : std::filesystem::path("out") / spec.name;
  ResultFolder::Options folder_options;
  folder_options.wait = request.wait;
  ResultFolder folder(report.out_dir, std::move(folder_options));

  const std::size_t total = spec.runs();
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
        rows[i] = run_study_point(spec, i, request.data_dir);
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
  unsigned threads = request.jobs != 0 ? request.jobs : std::thread::hardware_concurrency();
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
  if (const std::optional<int> signal = pending_interrupt()) throw folder.interrupted(*signal);

  write_file_atomically(folder.staging_dir() / "study.csv", study_runs_csv(spec, rows));
  write_file_atomically(folder.staging_dir() / "study_summary.csv", study_summary_csv(spec, rows));
  write_file_atomically(folder.staging_dir() / "study_latency.csv", study_latency_csv(spec, rows));
  folder.publish();
  for (const char* name : {"study.csv", "study_summary.csv", "study_latency.csv"}) {
    report.outputs.push_back(report.out_dir / name);
  }
  report.rows = std::move(rows);
  report.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return report;
}

}  // namespace fulcrum::sim::app
