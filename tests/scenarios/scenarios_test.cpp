// Every file in scenarios/ is run through the library and its summary checked against what the
// scenario's own comment promises, with bounds derived from the model's minibatch times at the
// scenario's power mode (not from pasted outputs). Energy, power and latency figures are checked
// against the run's own output files (trace.json's power changes, requests.csv's latencies),
// integrated and ranked here, not against the summary's own arithmetic.
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "sim/app/run_plan.hpp"
#include "sim/cli/cli.hpp"
#include "sim/config/trace_loader.hpp"
#include "tests/reference_data.hpp"
#include "tests/temp_dir.hpp"

namespace fs = std::filesystem;
using namespace fulcrum;
using namespace fulcrum::sim;
using fulcrum::testing::TempDir;

namespace {

fs::path scenario_file(const std::string& name) {
  return fs::path(FULCRUM_SOURCE_DIR) / "scenarios" / (name + ".yaml");
}

using fulcrum::testing::slurp;

// Runs a shipped scenario with its outputs into a scratch folder.
struct Ran {
  TempDir dir;
  app::ScenarioRun run;
  explicit Ran(const std::string& name, std::vector<std::string> overrides = {})
      : run(app::run_scenario_file(
            {.scenario_path = scenario_file(name).string(), .overrides = std::move(overrides)},
            dir.path() / "out")) {}
  const RunResult& result() const { return run.result; }
  const Scenario& scenario() const { return run.plan.scenario(); }
  fs::path out() const { return dir.path() / "out"; }

  // Standalone time of one minibatch at the run's power mode, as the backend executes it.
  double minibatch_ms(const models::Workload* w, models::Phase phase, int batch) const {
    backends::WorkItem item{w, phase, batch, run.plan.mode()};
    return std::chrono::duration<double, std::milli>(run.plan.backend().execute(item).duration)
        .count();
  }
  double training_ms() const {
    return minibatch_ms(run.plan.resolved().training_workload, models::Phase::training,
                        scenario().training->batch_size);
  }
  double inference_ms(std::size_t stream) const {
    return minibatch_ms(run.plan.resolved().inference_workloads.at(stream),
                        models::Phase::inference, scenario().inference.at(stream).batch_size);
  }
};

std::vector<std::string> split_csv(const std::string& line) {
  std::vector<std::string> cells;
  std::stringstream row(line);
  std::string cell;
  while (std::getline(row, cell, ',')) cells.push_back(cell);
  return cells;
}

// Module power as the run reported it: every change, from trace.json's "power_w" counter events
// (one argument per rail, watts), at integer nanoseconds (ts is in microseconds with at most three
// decimals, so it converts exactly).
struct PowerSteps {
  std::vector<std::int64_t> at_ns;
  std::vector<double> module_w;

  // Energy in joules over [from_ns, to_ns): power is constant from one change to the next.
  double energy_j(std::int64_t from_ns, std::int64_t to_ns) const {
    double e = 0;
    for (std::size_t i = 0; i < at_ns.size(); ++i) {
      const std::int64_t begin = std::max(at_ns[i], from_ns);
      const std::int64_t end = std::min(i + 1 < at_ns.size() ? at_ns[i + 1] : to_ns, to_ns);
      if (end > begin) e += module_w[i] * static_cast<double>(end - begin) * 1e-9;
    }
    return e;
  }
};

std::int64_t micros_text_to_ns(const std::string& text) {
  const auto dot = text.find('.');
  std::int64_t ns = std::stoll(text.substr(0, dot)) * 1000;
  if (dot != std::string::npos) {
    std::string frac = text.substr(dot + 1);
    REQUIRE(frac.size() <= 3);
    frac.resize(3, '0');
    ns += std::stoll(frac);
  }
  return ns;
}

PowerSteps power_from_trace(const fs::path& trace_json) {
  std::ifstream in(trace_json);
  REQUIRE(in);
  PowerSteps steps;
  int out_of_order = 0;
  const std::string ts_key = "\"ts\":";
  const std::string args_key = "\"args\":{";
  for (std::string line; std::getline(in, line);) {
    if (line.find("\"ph\":\"C\"") == std::string::npos ||
        line.find("\"name\":\"power_w\"") == std::string::npos) {
      continue;
    }
    const auto ts = line.find(ts_key) + ts_key.size();
    const std::int64_t at = micros_text_to_ns(line.substr(ts, line.find(',', ts) - ts));
    // args: {"RAIL":watts,...}: sum the values after each colon.
    double module_w = 0;
    std::size_t at_colon = line.find(args_key) + args_key.size();
    const std::size_t args_end = line.find('}', at_colon);
    while ((at_colon = line.find(':', at_colon)) < args_end) {
      module_w += std::stod(line.substr(at_colon + 1));
      ++at_colon;
    }
    if (!steps.at_ns.empty() && at <= steps.at_ns.back()) ++out_of_order;
    steps.at_ns.push_back(at);
    steps.module_w.push_back(module_w);
  }
  REQUIRE_FALSE(steps.at_ns.empty());
  CHECK(steps.at_ns.front() == 0);
  REQUIRE(out_of_order == 0);  // one event per instant, in time order
  return steps;
}

// The highest average module power over consecutive full windows [j W, (j + 1) W) of the run
// (the run's own average when it is shorter than one window), as docs/METRICS.md defines it.
double max_window_w(const PowerSteps& p, std::int64_t duration_ns, std::int64_t window_ns) {
  if (duration_ns < window_ns) {
    return p.energy_j(0, duration_ns) / (static_cast<double>(duration_ns) * 1e-9);
  }
  double best = 0;
  for (std::int64_t from = 0; from + window_ns <= duration_ns; from += window_ns) {
    best = std::max(best,
                    p.energy_j(from, from + window_ns) / (static_cast<double>(window_ns) * 1e-9));
  }
  return best;
}

// Latencies in ms of each stream's completed requests, from requests.csv.
std::map<std::size_t, std::vector<double>> latencies_from_requests(const fs::path& csv) {
  std::ifstream in(csv);
  REQUIRE(in);
  std::string line;
  std::getline(in, line);
  const auto header = split_csv(line);
  REQUIRE(header.front() == "stream");
  REQUIRE(header.back() == "latency_ms");
  std::map<std::size_t, std::vector<double>> out;
  int malformed = 0;
  while (std::getline(in, line)) {
    const auto cells = split_csv(line);
    if (cells.size() != header.size()) {
      ++malformed;
      continue;
    }
    out[std::stoul(cells.front())].push_back(std::stod(cells.back()));
  }
  REQUIRE(malformed == 0);
  return out;
}

// The p-th percentile by nearest rank (docs/METRICS.md): the ceil(p/100 x n)-th smallest.
double nearest_rank_ms(std::vector<double> values, int percentile) {
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  // ceil(p n / 100) in integers: exact, no floating-point rounding.
  const std::size_t rank = (static_cast<std::size_t>(percentile) * n + 99) / 100;
  return values.at(rank - 1);
}

double mean_of(const std::vector<double>& v) {
  double sum = 0;
  for (double x : v) sum += x;
  return sum / static_cast<double>(v.size());
}

// Module energy, average and maximum-window power of a run, from its trace.json.
struct TracePower {
  double energy_j = 0;
  double avg_w = 0;
  double max_window_w = 0;
};

TracePower trace_power(const Ran& r) {
  const PowerSteps steps = power_from_trace(r.out() / "trace.json");
  const auto duration_ns = static_cast<std::int64_t>(std::llround(r.scenario().duration_s * 1e9));
  TracePower t;
  t.energy_j = steps.energy_j(0, duration_ns);
  t.avg_w = t.energy_j / r.scenario().duration_s;
  t.max_window_w = max_window_w(
      steps, duration_ns, static_cast<std::int64_t>(r.scenario().budgets.power_window_s * 1e9));
  return t;
}

// Whether two of the run's power changes (an item starting or ending) fall within one
// millisecond interval, of which trace.json keeps only the last; true when minibatches.csv, which
// tells, was not written.
bool power_changes_within_a_millisecond(const Ran& r) {
  std::ifstream in(r.out() / "minibatches.csv");
  std::string line;
  if (!in || !std::getline(in, line)) return true;
  const auto header = split_csv(line);
  const auto col = [&](const char* name) {
    return static_cast<std::size_t>(std::find(header.begin(), header.end(), name) - header.begin());
  };
  const std::size_t start_col = col("start_s");
  const std::size_t end_col = col("end_s");
  REQUIRE(end_col < header.size());
  std::vector<std::int64_t> at_ns;
  while (std::getline(in, line)) {
    const auto cells = split_csv(line);
    for (std::size_t c : {start_col, end_col}) {
      at_ns.push_back(static_cast<std::int64_t>(std::llround(std::stod(cells.at(c)) * 1e9)));
    }
  }
  std::sort(at_ns.begin(), at_ns.end());
  at_ns.erase(std::unique(at_ns.begin(), at_ns.end()), at_ns.end());
  constexpr std::int64_t kMs = 1'000'000;
  for (std::size_t i = 1; i < at_ns.size(); ++i) {
    if (at_ns[i] / kMs == at_ns[i - 1] / kMs) return true;
  }
  return false;
}

// Checks every run must pass, whatever the scenario.
void check_invariants(const Ran& r) {
  const RunResult& res = r.result();
  CHECK(res.duration_s == Approx(r.scenario().duration_s).epsilon(1e-12));
  for (std::size_t i = 0; i < res.inference.size(); ++i) {
    const StreamResult& s = res.inference[i];
    INFO("stream " << s.name);
    CHECK(s.arrived == s.completed + s.queued + s.dropped);  // requests are conserved
    if (s.completed > 0) {
      // A request waits at least for its own batch to execute.
      CHECK(s.latency->p50_ms >= r.inference_ms(i) * (1 - 1e-9));
      CHECK(s.latency->p50_ms <= s.latency->p95_ms);
      CHECK(s.latency->p95_ms <= s.latency->p99_ms);
      CHECK(s.latency->p99_ms <= s.latency->max_ms);
    }
    if (!s.stable) CHECK_FALSE(s.unstable_reason.empty());
  }
  double busy_s = res.training ? res.training->gpu_busy_s : 0.0;
  for (const StreamResult& s : res.inference) busy_s += s.gpu_busy_s;
  if (r.scenario().gpu_sharing.policy != SharingPolicy::native) {
    CHECK(busy_s <= res.duration_s * (1 + 1e-9));  // at most one item on the GPU at a time
  }

  // Energy is the integral of the power the run reported, as trace.json holds it. The trace keeps
  // the last power change of each millisecond (docs/METRICS.md, counter resolution): exact when
  // changes are at least 1 ms apart; a GPU idle gap shorter than 1 ms (windowed sharing idles
  // from its last training minibatch until the next batch is ready, however short that is) is
  // missing from it, so those runs agree to 1e-4 only.
  const TracePower traced = trace_power(r);
  const double trace_epsilon = power_changes_within_a_millisecond(r) ? 1e-4 : 1e-9;
  CHECK(res.power.energy_j == Approx(traced.energy_j).epsilon(trace_epsilon));
  CHECK(res.power.avg_w == Approx(traced.avg_w).epsilon(trace_epsilon));
  CHECK(res.power.max_window_w == Approx(traced.max_window_w).epsilon(trace_epsilon));
  if (const auto budget_w = r.scenario().budgets.power_w) {
    const double measured_w = r.scenario().budgets.power_kind == PowerBudgetKind::average
                                  ? traced.avg_w
                                  : traced.max_window_w;
    REQUIRE(res.budgets.power_met);
    // A budget within rounding of the measure could go either way; the shipped ones are not.
    REQUIRE(std::abs(measured_w - *budget_w) > 1e-6 * *budget_w);
    CHECK(*res.budgets.power_met == (measured_w <= *budget_w));
  }

  // Latency statistics are those of the completed requests in requests.csv, by nearest rank.
  const auto latencies = latencies_from_requests(r.out() / "requests.csv");
  for (std::size_t i = 0; i < res.inference.size(); ++i) {
    const StreamResult& s = res.inference[i];
    INFO("stream " << s.name);
    const auto it = latencies.find(i);
    const std::size_t rows = it == latencies.end() ? 0 : it->second.size();
    CHECK(rows == s.completed);
    CHECK(s.latency.has_value() == (rows > 0));
    if (rows == 0 || !s.latency) continue;
    const std::vector<double>& ms = it->second;
    CHECK(s.latency->p50_ms == Approx(nearest_rank_ms(ms, 50)).epsilon(1e-12));
    CHECK(s.latency->p95_ms == Approx(nearest_rank_ms(ms, 95)).epsilon(1e-12));
    CHECK(s.latency->p99_ms == Approx(nearest_rank_ms(ms, 99)).epsilon(1e-12));
    CHECK(s.latency->max_ms == Approx(*std::max_element(ms.begin(), ms.end())).epsilon(1e-12));
    CHECK(s.latency->mean_ms == Approx(mean_of(ms)).epsilon(1e-9));
  }
  CHECK(fs::exists(r.out() / "summary.json"));
  CHECK(slurp(r.out() / "summary.json") == r.run.summary_json);
}

// Per-item durations of one kind ("training" / "inference") from minibatches.csv: (duration,
// standalone) in ms.
std::vector<std::pair<double, double>> item_durations(const fs::path& csv,
                                                      const std::string& kind) {
  std::ifstream in(csv);
  std::string line;
  std::getline(in, line);
  std::vector<std::string> header;
  {
    std::stringstream h(line);
    std::string cell;
    while (std::getline(h, cell, ',')) header.push_back(cell);
  }
  auto col = [&](const std::string& name) {
    const auto it = std::find(header.begin(), header.end(), name);
    REQUIRE(it != header.end());
    return static_cast<std::size_t>(it - header.begin());
  };
  const std::size_t kind_col = col("kind");
  const std::size_t dur_col = col("duration_ms");
  const std::size_t alone_col = col("standalone_ms");
  std::vector<std::pair<double, double>> out;
  while (std::getline(in, line)) {
    std::vector<std::string> cells;
    std::stringstream row(line);
    std::string cell;
    while (std::getline(row, cell, ',')) cells.push_back(cell);
    if (cells.size() != header.size() || cells[kind_col] != kind) continue;
    out.emplace_back(std::stod(cells[dur_col]), std::stod(cells[alone_col]));
  }
  return out;
}

}  // namespace

TEST_CASE("every shipped scenario has checks here", "[scenarios]") {
  const std::set<std::string> checked{"quickstart",        "native",       "sequential",
                                      "mode-30w",          "poisson",      "two-streams",
                                      "trace-replay",      "unstable-bs1", "measured-modes",
                                      "optimize-measured", "own-model"};
  std::set<std::string> shipped;
  for (const auto& e : fs::directory_iterator(fs::path(FULCRUM_SOURCE_DIR) / "scenarios")) {
    if (e.path().extension() == ".yaml") shipped.insert(e.path().stem().string());
  }
  CHECK(shipped == checked);
}

TEST_CASE(
    "own-model: a workload file trains by path, and ResNet-18 read from a file costs what the "
    "built-in one does",
    "[scenarios]") {
  const Ran r("own-model");
  check_invariants(r);
  const RunResult& res = r.result();
  CHECK(r.scenario().training->workload == "cifar-convnet");
  REQUIRE(res.training.has_value());
  CHECK(res.training->minibatches > 0);
  REQUIRE(res.inference.size() == 1);
  CHECK(res.inference[0].stable);
  const Ran built_in("own-model", {"inference[0].workload=resnet18"});
  CHECK(r.inference_ms(0) == built_in.inference_ms(0));
  CHECK(res.inference[0].gpu_busy_s == built_in.result().inference[0].gpu_busy_s);
  CHECK(res.inference[0].latency->max_ms == built_in.result().inference[0].latency->max_ms);
  // Training as in the closed form of windowed sharing: n minibatches after each batch.
  const double window_ms = 8 * 1000.0 / 50;
  const double n = std::floor((window_ms - r.inference_ms(0)) / r.training_ms());
  CHECK(res.training->minibatches == Approx(n * res.inference[0].batches).margin(n));
}

TEST_CASE(
    "quickstart: windowed managed sharing gives the closed form -- n training minibatches per "
    "window, no request waiting behind training -- and greedy the old bound",
    "[scenarios]") {
  const Ran r("quickstart");
  check_invariants(r);
  const RunResult& res = r.result();
  REQUIRE(res.inference.size() == 1);
  CHECK(res.gpu_sharing_variant == "windowed");
  const StreamResult& s = res.inference[0];
  const double rate = 100;
  const int batch = 16;
  CHECK(s.stable);
  CHECK(s.arrived == static_cast<std::uint64_t>(rate * res.duration_s));
  CHECK(s.queued + s.dropped <= 2 * batch);        // only the last batches are unfinished
  const double window_ms = batch * 1000.0 / rate;  // b / a
  const double fill_ms = (batch - 1) * 1000.0 / rate;
  const double n = std::floor((window_ms - r.inference_ms(0)) / r.training_ms());
  INFO("t_train " << r.training_ms() << " ms, t_inf " << r.inference_ms(0) << " ms, n " << n);
  CHECK(n >= 1);
  // Every batch starts as it is full: the first request waited (b - 1) / a, then the batch ran.
  CHECK(s.latency->max_ms == Approx(fill_ms + r.inference_ms(0)).epsilon(1e-9));
  CHECK(s.latency->p99_ms == Approx(fill_ms + r.inference_ms(0)).epsilon(1e-9));
  // n training minibatches per window of b / a: n a / b per second, up to the run's two ends.
  REQUIRE(res.training);
  CHECK(res.training->minibatches_per_s == Approx(n * rate / batch).epsilon(0.005));
  // The p99 (from requests.csv) is under the 250 ms budget (the scenario's comment says so).
  const double p99_ms =
      nearest_rank_ms(latencies_from_requests(r.out() / "requests.csv").at(0), 99);
  CHECK(p99_ms < 250);
  REQUIRE(res.budgets.latency_met);
  CHECK(*res.budgets.latency_met);

  // Greedy: training takes the GPU time inference leaves, (1 - u) / t_train minibatches per
  // second, and a batch can wait for one training minibatch: p99 above the budget.
  const Ran g("quickstart", {"gpu_sharing={policy: managed, variant: greedy}"});
  check_invariants(g);
  const RunResult& gres = g.result();
  CHECK(gres.gpu_sharing_variant == "greedy");
  const StreamResult& gs = gres.inference.at(0);
  const double bound_ms = fill_ms + r.training_ms() + r.inference_ms(0);
  CHECK(gs.latency->p99_ms <= bound_ms + 1e-6);
  CHECK(gs.latency->max_ms <= bound_ms + 1e-6);
  const double u = rate / batch * r.inference_ms(0) / 1000.0;
  CHECK(gres.training->minibatches_per_s ==
        Approx((1 - u) * 1000.0 / r.training_ms()).epsilon(0.02));
  CHECK(gres.training->minibatches_per_s > res.training->minibatches_per_s);
  CHECK(gs.latency->p99_ms > 250);
  CHECK_FALSE(*gres.budgets.latency_met);
}

TEST_CASE(
    "budget verdicts flip when the budget crosses the power and latency measured from the output "
    "files",
    "[scenarios][budgets]") {
  const Ran base("quickstart");
  const TracePower traced = trace_power(base);
  const double p99_ms =
      nearest_rank_ms(latencies_from_requests(base.out() / "requests.csv").at(0), 99);
  // The maximum 1 s window is above the run's average: a budget between them tells the two
  // measures apart.
  REQUIRE(traced.max_window_w > traced.avg_w * 1.001);
  auto set = [](const std::string& key, double value) {
    std::ostringstream s;
    s.precision(17);
    s << key << "=" << value;
    return s.str();
  };
  struct Case {
    std::vector<std::string> overrides;
    bool power_met;
  };
  const double between_w = (traced.avg_w + traced.max_window_w) / 2;
  const std::vector<Case> power_cases = {
      {{set("budgets.power_w", traced.avg_w * (1 + 1e-6))}, true},
      {{set("budgets.power_w", traced.avg_w * (1 - 1e-6))}, false},
      {{set("budgets.power_w", between_w)}, true},
      {{set("budgets.power_w", between_w), "budgets.power_kind=max_window"}, false},
      {{set("budgets.power_w", traced.max_window_w * (1 + 1e-6)), "budgets.power_kind=max_window"},
       true},
      {{set("budgets.power_w", traced.max_window_w * (1 - 1e-6)), "budgets.power_kind=max_window"},
       false},
  };
  for (const Case& c : power_cases) {
    INFO(c.overrides.front() << (c.overrides.size() > 1 ? " " + c.overrides.back() : ""));
    const Ran r("quickstart", c.overrides);
    REQUIRE(r.result().budgets.power_met);
    CHECK(*r.result().budgets.power_met == c.power_met);
  }
  // The stream is stable, so the latency verdict is the p99 against the budget alone.
  REQUIRE(base.result().inference.at(0).stable);
  const Ran above("quickstart", {set("budgets.latency_ms", p99_ms + 1e-3)});
  const Ran below("quickstart", {set("budgets.latency_ms", p99_ms - 1e-3)});
  REQUIRE(above.result().budgets.latency_met);
  REQUIRE(below.result().budgets.latency_met);
  CHECK(*above.result().budgets.latency_met);
  CHECK_FALSE(*below.result().budgets.latency_met);
}

TEST_CASE(
    "native: an inference minibatch takes about twice its standalone time and latency is higher "
    "than managed",
    "[scenarios]") {
  const Ran native("native");
  const Ran managed("quickstart");
  check_invariants(native);
  const auto items = item_durations(native.out() / "minibatches.csv", "inference");
  REQUIRE(items.size() > 100);
  std::vector<double> ratios;
  for (const auto& [dur, alone] : items) ratios.push_back(dur / alone);
  std::sort(ratios.begin(), ratios.end());
  const double median = ratios[ratios.size() / 2];
  CHECK(median > 1.6);  // two contexts time-sliced round-robin: about half the GPU each
  CHECK(median < 2.4);
  const StreamResult& n = native.result().inference.at(0);
  const StreamResult& m = managed.result().inference.at(0);
  CHECK(n.stable);
  CHECK(n.latency->mean_ms > m.latency->mean_ms);
  CHECK(n.latency->p50_ms > m.latency->p50_ms);
}

TEST_CASE("sequential: inference starves behind training and is reported unstable", "[scenarios]") {
  const Ran r("sequential");
  check_invariants(r);
  const StreamResult& s = r.result().inference.at(0);
  CHECK_FALSE(s.stable);
  CHECK_FALSE(s.unstable_reason.empty());
  CHECK(s.completed < s.arrived / 10);
}

// The measured row of `csv` for (model, batch) at the measured-modes scenario's power mode:
// {time_ms, power_w}, found by matching the row's text, as a reader of the file would.
std::pair<double, double> measured_row(const std::string& csv, const std::string& prefix) {
  std::ifstream in(csv);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(prefix, 0) != 0) continue;
    std::vector<std::string> cells;
    std::stringstream row(line);
    std::string cell;
    while (std::getline(row, cell, ',')) cells.push_back(cell);
    REQUIRE(cells.size() >= 10);  // model,dataset,phase,minibatch_size,cores,cpu,gpu,mem,time,power
    return {std::stod(cells[8]), std::stod(cells[9])};
  }
  FAIL("no row starting with " << prefix << " in " << csv);
  return {0, 0};
}

TEST_CASE("measured-modes: every minibatch takes the measured time and power of its mode",
          "[scenarios]") {
  const auto training_csv =
      fulcrum::testing::reference_path("measurements/orin-agx-training-modes.csv");
  const auto inference_csv =
      fulcrum::testing::reference_path("measurements/orin-agx-inference-modes.csv");
  if (!training_csv || !inference_csv) return;
  // As shipped (windowed), no training minibatch fits in a window at this mode (see the
  // scenario's comment); greedy runs some, so that both kinds of minibatch are checked.
  const Ran windowed("measured-modes");
  check_invariants(windowed);
  const Ran r("measured-modes", {"gpu_sharing={policy: managed, variant: greedy}"});
  check_invariants(r);
  const RunResult& res = r.result();
  CHECK(res.perf_model == "table");
  const auto [train_ms, train_w] =
      measured_row(*training_csv, "mobilenet_v3,gld23k,train,16,8,1344000,726750000,2133000000,");
  const auto [infer_ms, infer_w] = measured_row(
      *inference_csv, "resnet50,imagenet_val50k,infer,16,8,1344000,726750000,2133000000,");
  INFO("measured: training " << train_ms << " ms at " << train_w << " W, inference " << infer_ms
                             << " ms at " << infer_w << " W");

  // Every full minibatch of either kind ran exactly its measured time (to the nanosecond) and drew
  // its measured module power; the partial last minibatch of an epoch is the only other kind.
  std::ifstream in(r.out() / "minibatches.csv");
  std::string line;
  std::getline(in, line);
  std::uint64_t full_training = 0;
  std::uint64_t partial_training = 0;
  std::uint64_t inference = 0;
  while (std::getline(in, line)) {
    std::vector<std::string> c;
    std::stringstream row(line);
    std::string cell;
    while (std::getline(row, cell, ',')) c.push_back(cell);
    REQUIRE(c.size() == 14);
    const double standalone_ms = std::stod(c[7]);
    const double energy_j = std::stod(c[9]);
    const bool training = c[1] == "training";
    if (training && c[3] != "16") {
      ++partial_training;
      CHECK(c[10] == "extrapolated");
      continue;
    }
    const double ms = training ? train_ms : infer_ms;
    const double w = training ? train_w : infer_w;
    (training ? full_training : inference) += 1;
    CHECK(standalone_ms == Approx(ms).epsilon(1e-8));
    CHECK(energy_j == Approx(w * ms / 1e3).epsilon(1e-8));
    CHECK(c[10] == "measured");
  }
  REQUIRE(res.training);
  CHECK(res.training->provenance.measured == full_training);
  CHECK(res.training->provenance.extrapolated == partial_training);
  CHECK(partial_training == static_cast<std::uint64_t>(res.training->epochs_completed));
  CHECK(res.inference[0].provenance.measured == inference);
  CHECK(res.inference[0].provenance.modelled == 0);
  // Inference keeps up: a measured batch is far shorter than the 160 ms it takes to fill.
  CHECK(res.inference[0].stable);
  CHECK(res.budgets.power_met == true);  // the measured powers are all below 30 W
  CHECK(train_w < 30);
  CHECK(infer_w < 30);

  // Windowed: n = floor((b/a - t_in) / t_train) = floor((160 - 84) / 164) = 0, so the GPU runs
  // the batches alone and each request waits only for its batch to fill and run.
  CHECK(std::floor((160.0 - infer_ms) / train_ms) == 0);
  const RunResult& w = windowed.result();
  REQUIRE(w.training);
  CHECK(w.training->minibatches == 0);
  CHECK(w.inference.at(0).latency->max_ms == Approx(150.0 + infer_ms).epsilon(1e-8));
  CHECK(w.budgets.latency_met == true);
  CHECK(w.budgets.power_met == true);
}

TEST_CASE(
    "optimize-measured: prior finds the oracle's choice, and the event-driven run in it gives "
    "the closed form",
    "[scenarios][optimize]") {
  if (!fulcrum::testing::reference_path("measurements")) return;
  fulcrum::testing::TempDir dir;
  std::ostringstream out, err;
  REQUIRE(sim::run_cli(
              {"optimize",
               (fs::path(FULCRUM_SOURCE_DIR) / "scenarios" / "optimize-measured.yaml").string(),
               "--out", dir.path().string()},
              out, err) == 0);
  std::ifstream in(dir.path() / "optimize.json");
  std::ostringstream text;
  text << in.rdbuf();
  const std::string j = text.str();
  // The choice is the oracle's (both objects name the same mode and batch size).
  const std::size_t choice = j.find("\"choice\"");
  const std::size_t oracle = j.find("\"oracle\"");
  REQUIRE(choice != std::string::npos);
  REQUIRE(oracle != std::string::npos);
  const std::string mode = "\"cores\": 8,\n      \"cpu_mhz\": 729.6,\n      \"gpu_mhz\": 1134.75";
  CHECK(j.find(mode, choice) < oracle);
  CHECK(j.find(mode, oracle) != std::string::npos);
  CHECK(j.find("\"budgets_met\": true") != std::string::npos);
  CHECK(j.find("\"modes\": 19") != std::string::npos);
  // Event-driven training throughput: one minibatch per 320 ms window, as the closed form says.
  CHECK(out.str().find("event-driven: training 3.12 minibatches/s") != std::string::npos);
  CHECK(out.str().find("1 training minibatches per window, 3.12/s") != std::string::npos);
}

TEST_CASE("mode-30w: training is slower than at MAXN and power is lower", "[scenarios]") {
  const Ran low("mode-30w");
  const Ran maxn("quickstart");
  check_invariants(low);
  CHECK(low.run.plan.mode().cores == 8);
  CHECK(low.training_ms() > maxn.training_ms());
  CHECK(low.inference_ms(0) > maxn.inference_ms(0));
  REQUIRE(low.result().training);
  CHECK(low.result().training->minibatches_per_s < maxn.result().training->minibatches_per_s);
  CHECK(low.result().power.avg_w < maxn.result().power.avg_w);
  // Stable exactly when a batch executes faster than it fills (160 ms at 100/s, batch 16).
  const bool keeps_up = low.inference_ms(0) < 160.0 * 0.98;
  if (keeps_up) CHECK(low.result().inference.at(0).stable);
}

TEST_CASE("poisson: the same mean rate with Poisson arrivals has a higher p99 than fixed arrivals",
          "[scenarios]") {
  const Ran p("poisson");
  const Ran fixed("quickstart");
  check_invariants(p);
  const StreamResult& s = p.result().inference.at(0);
  CHECK(s.stable);
  // 60,000 expected arrivals; a Poisson count has standard deviation sqrt(60000) ~ 245.
  CHECK(std::abs(static_cast<double>(s.arrived) - 60000.0) < 5 * 245.0);
  CHECK(s.latency->p99_ms > fixed.result().inference.at(0).latency->p99_ms);
  // Windowed sharing cannot know when a Poisson batch will be full, so it trains only at a small
  // risk of delaying it: less than greedy, and more as the accepted risk grows.
  const Ran greedy("poisson", {"gpu_sharing={policy: managed, variant: greedy}"});
  const Ran risky("poisson", {"gpu_sharing={policy: managed, risk: 0.1}"});
  const double windowed_per_s = p.result().training->minibatches_per_s;
  CHECK(greedy.result().training->minibatches_per_s > windowed_per_s);
  CHECK(risky.result().training->minibatches_per_s > windowed_per_s);
  CHECK(greedy.result().inference.at(0).latency->p99_ms > s.latency->p99_ms);
}

TEST_CASE("two-streams: both streams are stable and every request is accounted for",
          "[scenarios]") {
  const Ran r("two-streams");
  check_invariants(r);
  const RunResult& res = r.result();
  REQUIRE(res.inference.size() == 2);
  CHECK(res.inference[0].arrived == 30000);
  CHECK(res.inference[1].arrived == 12000);
  for (std::size_t i = 0; i < 2; ++i) {
    INFO(res.inference[i].name);
    CHECK(res.inference[i].stable);
    CHECK(res.inference[i].queued <=
          2u * static_cast<unsigned>(r.scenario().inference[i].batch_size));
  }
  // No batch waits behind training: a request waits for its batch to fill, at most one batch of
  // the other stream, and its own batch.
  const double other_ms[2] = {r.inference_ms(1), r.inference_ms(0)};
  for (std::size_t i = 0; i < 2; ++i) {
    const InferenceStreamSpec& spec = r.scenario().inference[i];
    const double rate = std::get<FixedArrivals>(spec.arrivals).rate_per_s;
    const double bound_ms = (spec.batch_size - 1) * 1000.0 / rate + other_ms[i] + r.inference_ms(i);
    INFO(spec.name << ": bound " << bound_ms << " ms");
    CHECK(res.inference[i].latency->max_ms <= bound_ms + 1e-6);
  }
  // Two streams' windows cut the GPU's time into shorter gaps than one stream's at the same
  // load, so windowed sharing trains less than greedy, which fills every gap.
  const Ran greedy("two-streams", {"gpu_sharing={policy: managed, variant: greedy}"});
  CHECK(greedy.result().training->minibatches_per_s > res.training->minibatches_per_s);
  CHECK(res.training->minibatches_per_s > 0);
}

TEST_CASE("trace-replay: every arrival of the trace is replayed and the stream keeps up",
          "[scenarios]") {
  const Ran r("trace-replay");
  check_invariants(r);
  const std::vector<double> trace =
      load_arrival_trace((fs::path(FULCRUM_SOURCE_DIR) / "scenarios/traces/bursty.csv").string());
  const auto in_run = static_cast<std::uint64_t>(std::count_if(
      trace.begin(), trace.end(), [&](double t) { return t < r.scenario().duration_s; }));
  const StreamResult& s = r.result().inference.at(0);
  CHECK(in_run > 3000);
  CHECK(s.arrived == in_run);
  CHECK(s.stable);
  CHECK(s.queued <= 2u * 8u);
  // A partial batch leaves after max_wait_ms, so no request waits for more than that plus a
  // training minibatch, a full queue of inference batches ahead of it and its own batch.
  CHECK(s.latency->max_ms < 200 + r.training_ms() + 10 * r.inference_ms(0));
}

TEST_CASE("unstable-bs1: batch size 1 at 100 requests/s cannot keep up and says why",
          "[scenarios]") {
  const Ran r("unstable-bs1");
  check_invariants(r);
  // Each single-image batch takes longer than the 10 ms between arrivals.
  CHECK(r.inference_ms(0) > 10.0);
  const StreamResult& s = r.result().inference.at(0);
  CHECK_FALSE(s.stable);
  CHECK_FALSE(s.unstable_reason.empty());
  CHECK(s.completed < s.arrived);
}

TEST_CASE("a wall-clock run of the quickstart gives the bytes of its virtual-time run",
          "[scenarios][wall]") {
  // Two simulated seconds in real time on the simulated backend, which then sleeps for each
  // minibatch: the simulated timeline is the events' own, so every deterministic file is equal.
  TempDir dir;
  app::PlanRequest wall{.scenario_path = scenario_file("quickstart").string(),
                        .overrides = {"duration_s=2"}};
  wall.backend.real_time = true;
  app::PlanRequest virtual_time = wall;
  virtual_time.backend.real_time = false;
  const auto start = std::chrono::steady_clock::now();
  const app::ScenarioRun w = app::run_scenario_file(wall, dir.path() / "wall");
  CHECK(std::chrono::steady_clock::now() - start >= std::chrono::seconds(2));
  const app::ScenarioRun v = app::run_scenario_file(virtual_time, dir.path() / "virtual");
  REQUIRE(w.result.lateness.has_value());
  CHECK(w.result.lateness->events == w.result.events_processed);
  CHECK_FALSE(v.result.lateness.has_value());
  for (const char* f : {"summary.json", "requests.csv", "minibatches.csv", "epochs.csv",
                        "power.csv", "trace.json"}) {
    INFO(f);
    const std::string x = slurp(dir.path() / "wall" / f);
    CHECK_FALSE(x.empty());
    CHECK(x == slurp(dir.path() / "virtual" / f));
  }
  CHECK(slurp(dir.path() / "wall" / "run.json").find("\"clock\": \"wall\"") != std::string::npos);
  CHECK(slurp(dir.path() / "virtual" / "run.json").find("\"clock\": \"virtual\"") !=
        std::string::npos);
}

TEST_CASE("the quickstart run twice gives byte-identical outputs", "[scenarios][determinism]") {
  const Ran a("quickstart");
  const Ran b("quickstart");
  for (const char* f : {"summary.json", "requests.csv", "minibatches.csv", "epochs.csv",
                        "power.csv", "trace.json"}) {
    INFO(f);
    const std::string x = slurp(a.out() / f);
    CHECK_FALSE(x.empty());
    CHECK(x == slurp(b.out() / f));
  }
}

// The published characterisation of training on Jetsons (reference/published-results.md:
// SIGMETRICS 2023 and companions, Xavier AGX) with the data pipeline in place: training-only
// scenarios with 4 dataloader workers, the second (cached) epoch's time in custom modes around
// the study's mode b (8 cores, CPU 1.2 GHz, GPU 670 MHz, EMC 1333 MHz; clocks from the device's
// tables). Signs as published: the GPU clock speeds up ResNet-18 (-20% here, -22.3% published);
// the CPU clock matters more than the GPU clock for LeNet-5 (launch-bound; -44% here, -36.8%
// published); a lower memory clock slows ResNet-18.
namespace {

// The cached second epoch of a training-only scenario on `device` (the scenario's device mapping,
// inline): minibatch 16, 2 epochs, `workers` dataloader workers on eMMC.
double second_epoch_s(const std::string& device, const std::string& workload,
                      const std::string& dataset, double scale, int workers) {
  TempDir dir;
  const fs::path file = dir.path() / "epochs.yaml";
  std::ofstream(file) << "version: 1\nname: epochs\nseed: 7\nduration_s: 1000000\n"
                      << "device: " << device << "\n"
                      << "gpu_sharing: managed\ntraining:\n  workload: " << workload
                      << "\n  dataset: " << dataset
                      << "\n  batch_size: 16\n  epochs: 2\n  data_pipeline: dataloader\n"
                      << "  dataloader: {workers: " << workers
                      << ", prefetch_factor: 2, storage: emmc, "
                      << "dataset_scale: " << scale << "}\n"
                      << "outputs: {requests: false, minibatches: false, power: false, "
                         "trace: false, epochs: false}\n";
  const app::ScenarioRun run =
      app::run_scenario_file({.scenario_path = file.string()}, dir.path() / "out");
  REQUIRE(run.result.training);
  REQUIRE(run.result.training->epochs.size() == 2);
  return run.result.training->epochs[1].time_s;
}

double cached_epoch_s(const std::string& workload, const std::string& dataset, double scale,
                      double cpu_mhz, double gpu_mhz, double emc_mhz, int cores = 8,
                      int workers = 4) {
  std::ostringstream device;
  device << "{model: xavier-agx-32gb, cores: " << cores << ", cpu_mhz: " << cpu_mhz
         << ", gpu_mhz: " << gpu_mhz << ", emc_mhz: " << emc_mhz << "}";
  return second_epoch_s(device.str(), workload, dataset, scale, workers);
}

}  // namespace

TEST_CASE("pipeline: the published Xavier AGX training sensitivities in sign, with the dataloader",
          "[scenarios][pipeline]") {
  const double cpu_b = 1190.4, cpu_e = 2112, gpu_b = 675.75, gpu_c = 905.25, emc_b = 1331.2,
               emc_low = 800;
  auto change = [](double from, double to) { return (to - from) / from * 100.0; };
  const auto resnet = [&](double cpu, double gpu, double emc) {
    return cached_epoch_s("resnet18", "imagenet", 0.005, cpu, gpu, emc);
  };
  const auto lenet = [&](double cpu, double gpu, double emc) {
    return cached_epoch_s("lenet5", "mnist", 0.1, cpu, gpu, emc);
  };
  const double resnet_b = resnet(cpu_b, gpu_b, emc_b);
  const double lenet_b = lenet(cpu_b, gpu_b, emc_b);
  const double resnet_gpu = change(resnet_b, resnet(cpu_b, gpu_c, emc_b));
  const double lenet_gpu = change(lenet_b, lenet(cpu_b, gpu_c, emc_b));
  const double lenet_cpu = change(lenet(cpu_b, gpu_c, emc_b), lenet(cpu_e, gpu_c, emc_b));
  const double resnet_emc = change(resnet_b, resnet(cpu_b, gpu_b, emc_low));
  const double lenet_emc = change(lenet_b, lenet(cpu_b, gpu_b, emc_low));
  WARN("GPU 675->905 MHz: resnet18 "
       << resnet_gpu << "%, lenet5 " << lenet_gpu << "%; CPU 1190->2112 MHz: lenet5 " << lenet_cpu
       << "%; EMC 1331->800 MHz: resnet18 " << resnet_emc << "%, lenet5 " << lenet_emc << "%");
  CHECK(resnet_gpu < -5.0);                          // published -22.3%
  CHECK(lenet_cpu < -10.0);                          // published -36.8%
  CHECK(std::abs(lenet_cpu) > std::abs(lenet_gpu));  // published: +5.5% (noise) for the GPU
  CHECK(resnet_emc > 2.0);                           // memory frequency matters (here +10%)
  // Not reproduced: LeNet-5's cached epoch barely moves with the memory clock here (its
  // launch-bound minibatches and cheap MNIST samples touch little DRAM), where the studies report
  // that memory frequency matters for all models; docs/PIPELINE.md.
  CHECK(lenet_emc >= 0.0);
}

TEST_CASE(
    "pipeline: fewer online cores slow Xavier AGX training by the published sizes, more so "
    "with more workers",
    "[scenarios][pipeline][contention]") {
  // Xavier AGX at MAXN's clocks (CPU 2265.6, GPU 1377, EMC 2133 MHz), 4 workers, the cached
  // second epoch; docs/PIPELINE.md "CPU contention".
  const double cpu = 2265.6, gpu = 1377, emc = 2133;
  const auto epoch = [&](const char* workload, const char* dataset, double scale, int cores,
                         int workers) {
    return cached_epoch_s(workload, dataset, scale, cpu, gpu, emc, cores, workers);
  };
  const auto slowdown_pct = [](double from, double to) { return (to - from) / from * 100.0; };

  struct Case {
    const char* workload;
    const char* dataset;
    double scale;
  };
  const std::vector<Case> cases{{"lenet5", "mnist", 0.1},
                                {"mobilenetv3-large", "gld23k", 0.05},
                                {"resnet18", "imagenet", 0.005}};
  std::vector<double> pct;  // 8 -> 2 cores with 4 workers, per case
  for (const Case& c : cases) {
    // The effect grows as cores shrink (4 workers)...
    std::vector<double> by_cores;
    for (int cores : {8, 6, 4, 3, 2})
      by_cores.push_back(epoch(c.workload, c.dataset, c.scale, cores, 4));
    // ... and, 8 -> 2 cores, as workers grow (2, 4 and 8).
    std::vector<double> by_workers;
    for (int workers : {2, 4, 8}) {
      by_workers.push_back(slowdown_pct(epoch(c.workload, c.dataset, c.scale, 8, workers),
                                        epoch(c.workload, c.dataset, c.scale, 2, workers)));
    }
    WARN(c.workload << " 4 workers, 8/6/4/3/2 cores: " << by_cores[0] << " / " << by_cores[1]
                    << " / " << by_cores[2] << " / " << by_cores[3] << " / " << by_cores[4]
                    << " s; 8 -> 2 cores with 2/4/8 workers: +" << by_workers[0] << "% / +"
                    << by_workers[1] << "% / +" << by_workers[2] << "%");
    INFO(c.workload);
    for (std::size_t i = 1; i < by_cores.size(); ++i) CHECK(by_cores[i] >= by_cores[i - 1]);
    CHECK(by_cores.back() > by_cores.front());
    CHECK(by_workers[1] > by_workers[0]);
    CHECK(by_workers[2] > by_workers[1]);
    pct.push_back(slowdown_pct(by_cores.front(), by_cores.back()));
  }
  // One core: the workers and the launches share it (LeNet-5, launch-bound).
  CHECK(epoch("lenet5", "mnist", 0.1, 1, 4) > 1.5 * epoch("lenet5", "mnist", 0.1, 8, 4));

  // The three workloads of the published characterisation, 8 -> 2 cores with 4 workers:
  // tens of percent for LeNet-5 and MobileNetV3, a few percent for ResNet-18 (published sizes as
  // the issue states them; the reference gives no exact figure).
  const double lenet_pct = pct[0], mobilenet_pct = pct[1], resnet_pct = pct[2];
  CHECK(lenet_pct >= 10.0);  // here +28.6%
  CHECK(lenet_pct <= 60.0);
  CHECK(mobilenet_pct >= 10.0);  // here +30.8%
  CHECK(mobilenet_pct <= 60.0);
  CHECK(resnet_pct >= 2.0);  // here +3.1%: "a few percent"
  CHECK(resnet_pct <= 9.0);
  CHECK(resnet_pct < mobilenet_pct / 5);
}

namespace {

// The cached second epoch of training on Orin AGX 64GB (analytic-modes, minibatch 16, 4 workers,
// eMMC) at `cores` online cores and CPU `cpu_mhz`, GPU 1236.75 MHz (the top clock's column at 2
// cores contradicts its own GPU-clock sweep: docs/MODEL.md) and EMC 3199 MHz.
double orin_epoch_s(const std::string& workload, const std::string& dataset, double scale,
                    int cores, double cpu_mhz) {
  std::ostringstream device;
  device << "{model: orin-agx-64gb, perf_model: analytic-modes, cores: " << cores
         << ", cpu_mhz: " << cpu_mhz << ", gpu_mhz: 1236.75, emc_mhz: 3199}";
  return second_epoch_s(device.str(), workload, dataset, scale, 4);
}

}  // namespace

TEST_CASE(
    "pipeline: the slowdown at 2 and 4 cores against the Orin AGX measurements, host threads "
    "first",
    "[scenarios][pipeline][contention]") {
  // Measured minibatch times at 2 and 4 cores over those at 12, at each of the 14 CPU clocks
  // (GPU 1236.75 MHz, EMC 3199 MHz), against the runtime's cached epochs over the same ratio;
  // docs/PIPELINE.md "CPU contention", "Against the Orin AGX measurements".
  const std::optional<std::string> csv =
      testing::reference_path("measurements/orin-agx-training-modes.csv");
  if (!csv) return;                                               // skipped
  std::map<std::tuple<std::string, int, long>, double> measured;  // (model, cores, kHz) -> ms
  {
    std::ifstream in(*csv);
    std::string line;
    std::vector<std::string> header;
    while (std::getline(in, line)) {
      if (line.empty() || line[0] == '#') continue;
      const auto cells = split_csv(line);
      if (header.empty()) {
        header = cells;
        continue;
      }
      const auto col = [&](const char* name) {
        const auto it = std::find(header.begin(), header.end(), name);
        REQUIRE(it != header.end());
        return cells.at(static_cast<std::size_t>(it - header.begin()));
      };
      if (col("gpu_freq_hz") != "1236750000" || col("mem_freq_hz") != "3199000000") continue;
      measured[{col("model"), std::stoi(col("cores")), std::stol(col("cpu_freq_khz"))}] =
          std::stod(col("minibatch_time_ms"));
    }
  }
  struct Case {
    const char* workload;
    const char* measured_as;
    const char* dataset;
    double scale;
  };
  const std::vector<long> cpu_khz{268800,  422400,  576000,  729600,  883200,  1036800, 1190400,
                                  1344000, 1497600, 1651200, 1804800, 1958400, 2112000, 2201600};
  // Mean |error| and mean signed error (bias) of the runtime's ratio against the measured one,
  // in percent, per (workload, cores).
  std::map<std::pair<std::string, int>, std::pair<double, double>> errors;
  for (const Case& c : std::vector<Case>{{"resnet18", "resnet18", "imagenet", 0.005},
                                         {"mobilenetv3-large", "mobilenet_v3", "gld23k", 0.05}}) {
    for (int cores : {2, 4}) {
      double abs_sum = 0, sum = 0;
      for (long khz : cpu_khz) {
        const double mhz = static_cast<double>(khz) / 1000;
        const auto m = measured.find({c.measured_as, cores, khz});
        const auto m12 = measured.find({c.measured_as, 12, khz});
        REQUIRE(m != measured.end());
        REQUIRE(m12 != measured.end());
        const double ran = orin_epoch_s(c.workload, c.dataset, c.scale, cores, mhz) /
                           orin_epoch_s(c.workload, c.dataset, c.scale, 12, mhz);
        const double error = (ran / (m->second / m12->second) - 1) * 100;
        abs_sum += std::abs(error);
        sum += error;
      }
      const double n = static_cast<double>(cpu_khz.size());
      errors[{c.workload, cores}] = {abs_sum / n, sum / n};
      WARN(c.workload << " " << cores << " cores over 12: mean |error| " << abs_sum / n
                      << "%, bias " << sum / n << "%");
    }
  }
  // Bounded at the figures reached (without the oversubscribed cores' lost clock: ResNet-18
  // 36.4 / -36.4 at 2 cores and 20.1 / -20.1 at 4; MobileNetV3 26.4 / -26.4 and 8.8 / -8.4).
  CHECK(errors[{"resnet18", 2}].first < 32.5);           // here 31.8
  CHECK(errors[{"resnet18", 2}].second < -20.0);         // too fast still: -31.8
  CHECK(errors[{"resnet18", 4}].first < 20.5);           // 19.7
  CHECK(errors[{"mobilenetv3-large", 2}].first < 21.5);  // 20.6
  CHECK(errors[{"mobilenetv3-large", 4}].first < 8.5);   // 8.2
}

TEST_CASE("the quickstart's window-averaged power has the run's true mean; its samples alias",
          "[scenarios][power]") {
  // A batch every 160 ms sampled every 1 s: the instantaneous samples alternate between two
  // phases of the cycle and their mean is well off the true average. The window averages tile
  // the 600 s exactly, so their mean is the energy over the run divided by 600 s.
  const Ran r("quickstart");
  std::ifstream in(r.out() / "power.csv");
  std::string line;
  std::getline(in, line);
  std::vector<std::string> header;
  {
    std::stringstream h(line);
    for (std::string c; std::getline(h, c, ',');) header.push_back(c);
  }
  const auto col = [&](const std::string& name) {
    const auto it = std::find(header.begin(), header.end(), name);
    REQUIRE(it != header.end());
    return static_cast<std::size_t>(it - header.begin());
  };
  const std::size_t sample = col("module_w"), window = col("module_avg_w");
  double sample_sum = 0, window_sum = 0;
  int samples = 0, windows = 0;
  while (std::getline(in, line)) {
    std::vector<std::string> cells;
    std::stringstream row(line);
    for (std::string c; std::getline(row, c, ',');) cells.push_back(c);
    cells.resize(header.size());  // a trailing empty cell
    sample_sum += std::stod(cells[sample]);
    ++samples;
    if (!cells[window].empty()) {
      window_sum += std::stod(cells[window]);
      ++windows;
    }
  }
  REQUIRE(samples == 601);  // 0, 1, ..., 600 s
  REQUIRE(windows == 600);  // none ends at 0
  const double energy_j = r.result().power.energy_j;
  CHECK(window_sum / windows == Approx(energy_j / 600).epsilon(1e-9));
  CHECK(std::abs(sample_sum / samples - energy_j / 600) > 1.0);  // 43.6 W against 41.6 W
}
