// Every file in scenarios/ is run through the library and its summary checked against what the
// scenario's own comment promises, with bounds derived from the model's minibatch times at the
// scenario's power mode (not from pasted outputs).
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "sim/cli/scenario_run.hpp"
#include "sim/config/trace_loader.hpp"
#include "tests/reference_data.hpp"

namespace fs = std::filesystem;
using namespace fulcrum;
using namespace fulcrum::sim;

namespace {

fs::path scenario_file(const std::string& name) {
  return fs::path(FULCRUM_SOURCE_DIR) / "scenarios" / (name + ".yaml");
}

struct TempDir {
  fs::path path;
  TempDir() {
    static int counter = 0;
    path = fs::temp_directory_path() / ("fulcrum-scenarios-test-" + std::to_string(::getpid()) +
                                        "-" + std::to_string(counter++));
    fs::create_directories(path);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// Runs a shipped scenario with its outputs into a scratch folder.
struct Ran {
  TempDir dir;
  ScenarioRun run;
  explicit Ran(const std::string& name)
      : run(run_scenario_file(scenario_file(name).string(), options(dir.path / "out"))) {}
  static RunOptions options(const fs::path& out_dir) {
    RunOptions o;
    o.out_dir = out_dir;
    return o;
  }
  const RunResult& result() const { return run.result; }
  const Scenario& scenario() const { return run.prepared.resolved.scenario; }
  fs::path out() const { return dir.path / "out"; }

  // Standalone time of one minibatch at the run's power mode, as the backend executes it.
  double minibatch_ms(const models::Workload* w, models::Phase phase, int batch) const {
    backends::WorkItem item{w, phase, batch, run.prepared.resolved.mode};
    return std::chrono::duration<double, std::milli>(run.prepared.backend->execute(item).duration)
        .count();
  }
  double training_ms() const {
    return minibatch_ms(run.prepared.resolved.training_workload, models::Phase::training,
                        scenario().training->batch_size);
  }
  double inference_ms(std::size_t stream) const {
    return minibatch_ms(run.prepared.resolved.inference_workloads.at(stream),
                        models::Phase::inference, scenario().inference.at(stream).batch_size);
  }
};

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
  CHECK(res.power.energy_j == Approx(res.power.avg_w * res.duration_s).epsilon(1e-6));
  if (r.scenario().budgets.power_w && r.scenario().budgets.power_kind == PowerBudgetKind::average) {
    REQUIRE(res.budgets.power_met);
    CHECK(*res.budgets.power_met == (res.power.avg_w <= *r.scenario().budgets.power_w));
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
  const std::set<std::string> checked{"quickstart",   "native",       "sequential",
                                      "mode-30w",     "poisson",      "two-streams",
                                      "trace-replay", "unstable-bs1", "measured-modes"};
  std::set<std::string> shipped;
  for (const auto& e : fs::directory_iterator(fs::path(FULCRUM_SOURCE_DIR) / "scenarios")) {
    if (e.path().extension() == ".yaml") shipped.insert(e.path().stem().string());
  }
  CHECK(shipped == checked);
}

TEST_CASE(
    "quickstart: inference keeps up and p99 latency stays within fill + one training + one "
    "inference minibatch",
    "[scenarios]") {
  const Ran r("quickstart");
  check_invariants(r);
  const RunResult& res = r.result();
  REQUIRE(res.inference.size() == 1);
  const StreamResult& s = res.inference[0];
  const double rate = 100;
  const int batch = 16;
  CHECK(s.stable);
  CHECK(s.arrived == static_cast<std::uint64_t>(rate * res.duration_s));
  CHECK(s.queued + s.dropped <= 2 * batch);  // only the last batches are unfinished
  const double fill_ms = (batch - 1) * 1000.0 / rate;
  const double bound_ms = fill_ms + r.training_ms() + r.inference_ms(0);
  INFO("t_train " << r.training_ms() << " ms, t_inf " << r.inference_ms(0) << " ms, bound "
                  << bound_ms << " ms");
  CHECK(s.latency->p99_ms <= bound_ms + 1e-6);
  CHECK(s.latency->max_ms <= bound_ms + 1e-6);
  // Training gets the GPU time inference leaves: (1 - u) / t_train minibatches per second.
  REQUIRE(res.training);
  const double u = rate / batch * r.inference_ms(0) / 1000.0;
  CHECK(res.training->minibatches_per_s ==
        Approx((1 - u) * 1000.0 / r.training_ms()).epsilon(0.02));
  REQUIRE(res.budgets.latency_met);
  CHECK(*res.budgets.latency_met == (s.latency->p99_ms <= 250));
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
  const Ran r("measured-modes");
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
    REQUIRE(c.size() == 11);
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
}

TEST_CASE("mode-30w: training is slower than at MAXN and power is lower", "[scenarios]") {
  const Ran low("mode-30w");
  const Ran maxn("quickstart");
  check_invariants(low);
  CHECK(low.run.prepared.resolved.mode.cores == 8);
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
  const Ran quick("quickstart");
  // Less inference load than the quickstart (16% + 15% of the GPU vs 32%): training is not slower.
  CHECK(res.training->minibatches_per_s >= quick.result().training->minibatches_per_s * 0.98);
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
  RunOptions wall;
  wall.overrides = {"duration_s=2"};
  wall.real_time = true;
  wall.out_dir = dir.path / "wall";
  RunOptions virtual_time = wall;
  virtual_time.real_time = false;
  virtual_time.out_dir = dir.path / "virtual";
  const auto start = std::chrono::steady_clock::now();
  const ScenarioRun w = run_scenario_file(scenario_file("quickstart").string(), wall);
  CHECK(std::chrono::steady_clock::now() - start >= std::chrono::seconds(2));
  const ScenarioRun v = run_scenario_file(scenario_file("quickstart").string(), virtual_time);
  REQUIRE(w.result.lateness.has_value());
  CHECK(w.result.lateness->events == w.result.events_processed);
  CHECK_FALSE(v.result.lateness.has_value());
  for (const char* f :
       {"summary.json", "requests.csv", "minibatches.csv", "power.csv", "trace.json"}) {
    INFO(f);
    const std::string x = slurp(dir.path / "wall" / f);
    CHECK_FALSE(x.empty());
    CHECK(x == slurp(dir.path / "virtual" / f));
  }
  CHECK(slurp(dir.path / "wall" / "run.json").find("\"clock\": \"wall\"") != std::string::npos);
  CHECK(slurp(dir.path / "virtual" / "run.json").find("\"clock\": \"virtual\"") !=
        std::string::npos);
}

TEST_CASE("the quickstart run twice gives byte-identical outputs", "[scenarios][determinism]") {
  const Ran a("quickstart");
  const Ran b("quickstart");
  for (const char* f :
       {"summary.json", "requests.csv", "minibatches.csv", "power.csv", "trace.json"}) {
    INFO(f);
    const std::string x = slurp(a.out() / f);
    CHECK_FALSE(x.empty());
    CHECK(x == slurp(b.out() / f));
  }
}
