// The committed H200 bundles of docs/validation/h200-native-windowed/ (docs/VALIDATION.md,
// "native time-slicing, and the windowed quickstart with the settled idle"): the figures the page
// quotes are checked here on the measured files, so the page cannot drift from them.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <functional>
#include <sstream>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "tests/sim/report/json_check.hpp"
#include "tests/temp_dir.hpp"

using fulcrum::sim::testing::JsonValue;
using fulcrum::sim::testing::parse_json;
using fulcrum::testing::slurp;

namespace {

const std::string kDir = "docs/validation/h200-native-windowed/";

// The error_pct of (scope, metric) in a bundle's comparison.json (a bundle of `dir`).
double error_pct(const std::string& bundle, const std::string& scope, const std::string& metric,
                 const std::string& dir = kDir) {
  const JsonValue c = parse_json(slurp(dir + bundle + "/comparison.json"));
  for (const JsonValue& row : c.at("metrics").items) {
    if (row.at("scope").text == scope && row.at("metric").text == metric) {
      return row.at("error_pct").number;
    }
  }
  FAIL("no row " << scope << " " << metric << " in " << bundle);
  return 0;
}

struct Quoted {
  const char* bundle;
  double p50, p99, training, meter;  // errors in %, as the page rounds them
};

// docs/VALIDATION.md's table, in its order.
const std::vector<Quoted> kQuoted = {
    {"quickstart-h200-windowed", -3.1, -0.4, 0, -2.8},
    {"quickstart-h200-windowed-gpu-bound", -1.3, -0.4, 0, 5.6},
    {"native-h200-graphs", -5.3, -15.3, 0, -2.6},
    {"native-h200-eager", -10.0, -11.3, 0, 2.0},
    {"native-h200-gpu-bound-graphs", -10.1, -16.7, 4.98, 8.0},
    {"native-h200-gpu-bound-eager", 2.3, -7.8, -9.1, -1.2},
};

// The idle row's power (the profile's last column of the `idle` row).
double idle_w(const std::string& bundle, const std::string& dir = kDir) {
  const std::string csv = slurp(dir + bundle + "/inputs/profile.csv");
  const auto at = csv.find(",random,idle,");
  REQUIRE(at != std::string::npos);
  const auto end = csv.find('\n', at);
  const std::string line = csv.substr(at, end - at);
  return std::stod(line.substr(line.rfind(',') + 1));
}

// The simulated or measured value of (scope, metric) in a bundle's comparison.json.
double value(const std::string& bundle, const std::string& scope, const std::string& metric,
             const std::string& run, const std::string& dir = kDir) {
  const JsonValue c = parse_json(slurp(dir + bundle + "/comparison.json"));
  for (const JsonValue& row : c.at("metrics").items) {
    if (row.at("scope").text == scope && row.at("metric").text == metric) {
      return row.at(run).number;
    }
  }
  FAIL("no row " << scope << " " << metric << " in " << bundle);
  return 0;
}

// A profile row's power (its last column) for phase `train` or `infer`.
double profile_w(const std::string& bundle, const std::string& phase) {
  const std::string csv = slurp(kDir + bundle + "/inputs/profile.csv");
  const auto at = csv.find(",random," + phase + ",");
  REQUIRE(at != std::string::npos);
  const std::string line = csv.substr(at, csv.find('\n', at) - at);
  return std::stod(line.substr(line.rfind(',') + 1));
}

// The per-item rerun (call 3): its minibatches.csv files, read as items.py reads them.
const std::string kItems = "native-h200-gpu-bound-graphs-items";
constexpr double kSteadyS = 1.0;  // items starting, requests arriving, from here on
constexpr double kArrivalS = 0.002;
constexpr int kBatch = 16;

struct Item {
  bool training = false;
  int id = 0;
  double start = 0, end = 0, dur = 0, ctx = 0;  // s, s, ms, ms (ctx: the standalone_ms column)
};

std::vector<Item> items(const std::string& run, const std::string& bundle = kItems) {
  std::istringstream in(slurp(kDir + bundle + "/" + run + "/minibatches.csv"));
  std::string line;
  std::getline(in, line);
  REQUIRE(line.rfind("context,kind,item_id,batch_size,start_s,end_s,duration_ms,standalone_ms,",
                     0) == 0);
  std::vector<Item> out;
  while (std::getline(in, line)) {
    std::vector<std::string> f;
    std::istringstream cells(line);
    for (std::string cell; std::getline(cells, cell, ',');) f.push_back(cell);
    REQUIRE(f.size() >= 8);
    out.push_back({f[1] == "training", std::stoi(f[2]), std::stod(f[4]), std::stod(f[5]),
                   std::stod(f[6]), std::stod(f[7])});
  }
  return out;
}

// The profile's standalone time of the training (`train`) or inference (`infer`) minibatch, ms.
double standalone_ms(const std::string& phase, const std::string& bundle = kItems) {
  const std::string csv = slurp(kDir + bundle + "/inputs/profile.csv");
  const auto at = csv.find(",random," + phase + ",");
  REQUIRE(at != std::string::npos);
  const std::string line = csv.substr(at, csv.find('\n', at) - at);
  std::vector<std::string> f;
  std::istringstream cells(line);
  for (std::string cell; std::getline(cells, cell, ',');) f.push_back(cell);
  REQUIRE(f.size() == 11);  // "" and the ten columns from dataset to GPU_w
  return std::stod(f[8]);
}

// Nearest-rank percentile (docs/METRICS.md).
double rank(std::vector<double> v, double p) {
  REQUIRE(!v.empty());
  std::sort(v.begin(), v.end());
  const auto k = static_cast<std::size_t>(std::ceil(p / 100 * static_cast<double>(v.size())));
  return v[k == 0 ? 0 : k - 1];
}

// Every request as (latency ms, arrival s): request r arrived at 2 ms * r, went into batch r / 16
// and completed with that inference item (fixed arrivals, full batches).
std::vector<std::pair<double, double>> requests(const std::vector<Item>& rows) {
  std::vector<std::pair<double, double>> out;
  for (const Item& r : rows) {
    if (r.training) continue;
    for (int j = 0; j < kBatch; ++j) {
      const double arrival = kArrivalS * (kBatch * r.id + j);
      out.push_back({(r.end - arrival) * 1e3, arrival});
    }
  }
  return out;
}

// Request latencies (ms) for arrivals from `from_s`.
std::vector<double> latencies(const std::vector<Item>& rows, double from_s) {
  std::vector<double> out;
  for (const auto& [latency, arrival] : requests(rows)) {
    if (arrival >= from_s - 1e-12) out.push_back(latency);
  }
  return out;
}

}  // namespace

TEST_CASE("the H200 bundles hold the errors docs/VALIDATION.md quotes", "[h200]") {
  for (const Quoted& q : kQuoted) {
    INFO(q.bundle);
    CHECK(error_pct(q.bundle, "stream resnet50", "p50_latency_ms") == Approx(q.p50).margin(0.05));
    CHECK(error_pct(q.bundle, "stream resnet50", "p99_latency_ms") == Approx(q.p99).margin(0.05));
    const double training = error_pct(q.bundle, "training", "minibatches_per_s");
    CHECK(training == Approx(q.training).margin(q.training == 4.98 ? 0.005 : 0.05));
    CHECK(error_pct(q.bundle, "power", "avg_power_w (device meter)") ==
          Approx(q.meter).margin(0.05));
  }
}

TEST_CASE(
    "on the H200, the windowed quickstart meets every target and each of the six runs of "
    "the table meets the energy target, while native misses on p99",
    "[h200]") {
  for (const Quoted& q : kQuoted) {
    INFO(q.bundle);
    CHECK(std::abs(error_pct(q.bundle, "power", "energy_j (device meter)")) < 10);
    if (std::string(q.bundle).rfind("quickstart", 0) == 0) {
      CHECK(std::abs(q.p50) < 5);
      CHECK(std::abs(q.p99) < 5);
      CHECK(std::abs(q.training) < 5);
    } else {
      CHECK(q.p99 < -5);  // the simulation's tail is below the GPU's in all four native runs
    }
  }
}

TEST_CASE("on the H200, the idle row settled after 1.5 s at 115-122 W", "[h200]") {
  for (const char* bundle : {"quickstart-h200-windowed", "quickstart-h200-windowed-gpu-bound"}) {
    INFO(bundle);
    const std::string csv = slurp(kDir + bundle + "/inputs/profile.csv");
    CHECK(csv.find("idle metered after settling: the last two of 3 window(s) of 0.50 s") !=
          std::string::npos);
    CHECK(csv.find("agreed within 2.0 % after 1.5 s") != std::string::npos);
  }
  CHECK(idle_w("quickstart-h200-windowed") == Approx(115.4).margin(0.05));
  CHECK(idle_w("quickstart-h200-windowed-gpu-bound") == Approx(121.6).margin(0.05));
}

TEST_CASE(
    "on the H200, the idle row carries 38% of the windowed quickstart's simulated energy with "
    "the dataloader and 5.5% without, and at the items' mean power it would be +16%, not +74%",
    "[h200]") {
  struct Case {
    const char* bundle;
    double share, if_idle_at_active_pct;
  };
  for (const Case& c : {Case{"quickstart-h200-windowed", 0.379, -1},
                        Case{"quickstart-h200-windowed-gpu-bound", 0.055, 15.9}}) {
    INFO(c.bundle);
    const JsonValue sim = parse_json(slurp(kDir + c.bundle + "/simulated/summary.json"));
    const double busy = sim.path("gpu.utilization").number;
    const double seconds = sim.at("duration_s").number;
    const double energy = sim.at("energy_j").number;
    const double idle_j = (1 - busy) * seconds * idle_w(c.bundle);
    CHECK(idle_j / energy == Approx(c.share).margin(0.001));
    if (c.if_idle_at_active_pct < 0) continue;
    const double active_w = (energy - idle_j) / (busy * seconds);
    const double meter_w = parse_json(slurp(kDir + c.bundle + "/device.json"))
                               .path("whole_run_meter.avg_power_w")
                               .number;
    CHECK(active_w == Approx(338).margin(0.5));
    CHECK((active_w / meter_w - 1) * 100 == Approx(c.if_idle_at_active_pct).margin(0.1));
  }
}

TEST_CASE(
    "on the H200, the dataloader holds training to 19.7 minibatches/s in both runs of the "
    "windowed quickstart, waiting for data about 20.7 s of 30",
    "[h200]") {
  for (const char* run : {"simulated", "measured"}) {
    INFO(run);
    const JsonValue s =
        parse_json(slurp(kDir + "quickstart-h200-windowed/" + run + "/summary.json"));
    CHECK(s.path("training.minibatches_per_s").number == Approx(19.73).margin(0.005));
    CHECK(s.path("training.fetch_stall_s").number == Approx(20.7).margin(0.1));
  }
}

TEST_CASE(
    "on the H200, the per-item rerun of native: the p99 miss is mostly the first second of the "
    "measured run (-17.1% in all, -6.4% from 1.0 s)",
    "[h200]") {
  CHECK(error_pct(kItems, "stream resnet50", "p50_latency_ms") == Approx(-11.0).margin(0.05));
  CHECK(error_pct(kItems, "stream resnet50", "p99_latency_ms") == Approx(-17.1).margin(0.05));
  CHECK(error_pct(kItems, "stream resnet50", "max_latency_ms") == Approx(-43.4).margin(0.05));
  CHECK(error_pct(kItems, "training", "minibatches_per_s") == Approx(5.35).margin(0.005));
  CHECK(error_pct(kItems, "power", "avg_power_w (device meter)") == Approx(13.9).margin(0.05));
  CHECK(value(kItems, "power", "avg_power_w (device meter)", "simulated") ==
        Approx(363.9).margin(0.05));
  CHECK(value(kItems, "power", "avg_power_w (device meter)", "measured") ==
        Approx(319.7).margin(0.05));
  // This call's profile read higher item powers than the second call's.
  CHECK(profile_w(kItems, "train") == Approx(342.3).margin(0.05));
  CHECK(profile_w(kItems, "infer") == Approx(531.5).margin(0.05));
  CHECK(profile_w("native-h200-gpu-bound-graphs", "train") == Approx(310.6).margin(0.05));
  CHECK(profile_w("native-h200-gpu-bound-graphs", "infer") == Approx(504.8).margin(0.05));
  // The earlier run of the scenario had a max of the same size.
  CHECK(value("native-h200-gpu-bound-graphs", "stream resnet50", "max_latency_ms", "measured") ==
        Approx(63.0).margin(0.05));
  const std::vector<Item> meas = items("measured");
  const std::vector<Item> sim = items("simulated");
  // The latencies recomputed from the items are the runs' own (comparison.json's p99).
  const JsonValue c = parse_json(slurp(kDir + kItems + "/comparison.json"));
  for (const JsonValue& row : c.at("metrics").items) {
    if (row.at("metric").text != "p99_latency_ms") continue;
    CHECK(rank(latencies(meas, 0), 99) == Approx(row.at("measured").number).margin(0.005));
    CHECK(rank(latencies(sim, 0), 99) == Approx(row.at("simulated").number).margin(0.005));
  }
  // The 99 highest latencies all arrived before 0.87 s.
  std::vector<std::pair<double, double>> all;  // latency ms, arrival s
  for (const Item& r : meas) {
    for (int j = 0; !r.training && j < kBatch; ++j) {
      const double arrival = kArrivalS * (kBatch * r.id + j);
      all.emplace_back((r.end - arrival) * 1e3, arrival);
    }
  }
  std::sort(all.begin(), all.end());
  REQUIRE(all.size() == 9984);
  for (std::size_t k = all.size() - all.size() / 100; k < all.size(); ++k) {
    CHECK(all[k].second < 0.87);
  }
  // Until 1.0 s the run saw inference items a median 13.5 ms longer than their own context did.
  std::vector<double> before, after;
  for (const Item& r : meas) {
    if (!r.training) (r.start < kSteadyS ? before : after).push_back(r.dur - r.ctx);
  }
  CHECK(rank(before, 50) == Approx(13.54).margin(0.005));
  CHECK(rank(after, 50) == Approx(0.15).margin(0.005));
  // From 1.0 s: p50 -8.7 %, p99 -6.4 %, max -12.1 %.
  const std::vector<double> m = latencies(meas, kSteadyS);
  const std::vector<double> s = latencies(sim, kSteadyS);
  CHECK(rank(m, 50) == Approx(24.08).margin(0.005));
  CHECK(rank(m, 99) == Approx(40.55).margin(0.005));
  CHECK(*std::max_element(m.begin(), m.end()) == Approx(43.20).margin(0.005));
  CHECK(rank(s, 50) == Approx(21.97).margin(0.005));
  CHECK(rank(s, 99) == Approx(37.97).margin(0.005));
  CHECK((rank(s, 50) / rank(m, 50) - 1) * 100 == Approx(-8.7).margin(0.05));
  CHECK((rank(s, 99) / rank(m, 99) - 1) * 100 == Approx(-6.4).margin(0.05));
  CHECK((*std::max_element(s.begin(), s.end()) / *std::max_element(m.begin(), m.end()) - 1) * 100 ==
        Approx(-12.1).margin(0.05));
  // Training from 1.0 s: 72.16 minibatches/s measured, 74.84 simulated.
  for (const auto& [run, rate] : {std::pair{&meas, 72.16}, std::pair{&sim, 74.84}}) {
    const auto n = std::count_if(run->begin(), run->end(), [](const Item& r) {
      return r.training && r.end >= kSteadyS && r.end < 20.0;
    });
    CHECK(static_cast<double>(n) / (20.0 - kSteadyS) == Approx(rate).margin(0.005));
  }
  CHECK((74.84 / 72.16 - 1) * 100 == Approx(3.7).margin(0.05));
}

TEST_CASE(
    "on the H200, native gave inference 39.5% of the GPU beside training, not the model's "
    "48.8%: inference items took 2.43 times their standalone time at the median, not 2.05",
    "[h200]") {
  const double inf = standalone_ms("infer");
  const double train = standalone_ms("train");
  CHECK(inf == Approx(3.891).margin(0.0005));
  CHECK(train == Approx(11.666).margin(0.0005));
  const std::vector<Item> meas = items("measured");
  std::vector<double> dur, ctx, sim_dur, alone, beside;
  for (const Item& r : items("simulated")) {
    if (!r.training) sim_dur.push_back(r.dur / inf);
  }
  CHECK(rank(sim_dur, 50) == Approx(2.049).margin(0.0005));
  CHECK(rank(sim_dur, 100) == Approx(2.049).margin(0.0005));
  CHECK(rank(sim_dur, 50) * inf == Approx(7.97).margin(0.005));
  std::vector<double> sim_train;
  for (const Item& r : items("simulated")) {
    if (r.training) sim_train.push_back(r.dur / train);
  }
  CHECK(rank(sim_train, 100) == Approx(1.35).margin(0.005));
  std::vector<Item> training;
  for (const Item& r : meas) {
    if (r.training) training.push_back(r);
  }
  std::vector<double> inside_ctx, share_inf, share_train, lost, across_ctx;
  for (const Item& r : meas) {
    if (r.training || r.start < kSteadyS) continue;
    dur.push_back(r.dur / inf);
    ctx.push_back(r.ctx / inf);
    // The training item running when it started (training runs back to back).
    const Item* t = nullptr;
    for (const Item& x : training) {
      if (x.start <= r.start) t = &x;
    }
    REQUIRE(t != nullptr);
    if (t->end >= r.end) {
      inside_ctx.push_back(r.ctx);
      share_inf.push_back(inf / r.ctx);
      lost.push_back(t->ctx - train);
      share_train.push_back((r.ctx - (t->ctx - train)) / r.ctx);
    } else {
      across_ctx.push_back(r.ctx);
    }
  }
  CHECK(dur.size() == 593);
  CHECK(rank(dur, 50) == Approx(2.43).margin(0.005));
  CHECK(rank(dur, 90) == Approx(2.77).margin(0.005));
  CHECK(rank(dur, 99) == Approx(3.06).margin(0.005));
  CHECK(rank(dur, 100) == Approx(3.39).margin(0.005));
  CHECK(rank(ctx, 50) == Approx(2.38).margin(0.005));
  CHECK(rank(ctx, 90) == Approx(2.70).margin(0.005));
  CHECK(rank(ctx, 99) == Approx(2.79).margin(0.005));
  CHECK(rank(ctx, 100) == Approx(3.33).margin(0.005));
  CHECK(inside_ctx.size() == 318);
  CHECK(across_ctx.size() == 275);
  CHECK(rank(inside_ctx, 50) == Approx(9.86).margin(0.005));
  CHECK(rank(inside_ctx, 10) == Approx(8.98).margin(0.005));
  CHECK(rank(inside_ctx, 90) == Approx(10.68).margin(0.005));
  CHECK(rank(across_ctx, 50) == Approx(7.53).margin(0.005));
  CHECK(rank(share_inf, 50) * 100 == Approx(39.5).margin(0.05));
  CHECK(rank(share_inf, 10) * 100 == Approx(36.4).margin(0.05));
  CHECK(rank(share_inf, 90) * 100 == Approx(43.3).margin(0.05));
  CHECK(rank(share_train, 50) * 100 == Approx(50.5).margin(0.05));
  std::vector<double> neither;  // the time neither context progressed
  for (std::size_t k = 0; k < share_inf.size(); ++k) {
    neither.push_back(1 - share_inf[k] - share_train[k]);
  }
  CHECK(rank(neither, 50) * 100 == Approx(10.1).margin(0.05));
  CHECK(rank(lost, 50) == Approx(4.89).margin(0.005));
  // The model: each of two contexts at 1024 / (2 * (1024 + 25)) of its speed.
  CHECK(1024.0 / (2 * (1024.0 + 25)) * 100 == Approx(48.8).margin(0.05));
  // Training items: alone at their standalone time, beside inference at most 1.43 times it.
  for (const Item& t : training) {
    if (t.start < kSteadyS) continue;
    const bool overlapped = std::any_of(meas.begin(), meas.end(), [&](const Item& r) {
      return !r.training && r.start < t.end && r.end > t.start;
    });
    (overlapped ? beside : alone).push_back(t.ctx / train);
  }
  CHECK(rank(alone, 50) == Approx(1.000).margin(0.0005));
  CHECK(rank(beside, 100) == Approx(1.43).margin(0.005));
}

// The fourth call, after CudaBackend's metering moved into the warm-up: the same scenario and
// outputs as the per-item rerun. The first second's items now end when their context finishes
// them, and the whole-run errors are those the per-item rerun had from 1.0 s on.
TEST_CASE(
    "on the H200, with the metering in the warm-up the first second's inference items end within "
    "0.14 ms of their context (13.54 ms before) and the whole run's p99 error is -6.1%",
    "[h200]") {
  const std::string bundle = "native-h200-gpu-bound-graphs-warm-metered";
  CHECK(error_pct(bundle, "stream resnet50", "p50_latency_ms") == Approx(-8.39).margin(0.005));
  CHECK(error_pct(bundle, "stream resnet50", "p99_latency_ms") == Approx(-6.06).margin(0.005));
  CHECK(error_pct(bundle, "stream resnet50", "max_latency_ms") == Approx(-7.86).margin(0.005));
  CHECK(error_pct(bundle, "training", "minibatches_per_s") == Approx(3.42).margin(0.005));
  CHECK(error_pct(bundle, "power", "energy_j (device meter)") == Approx(-2.44).margin(0.005));
  const auto late_ms = [](const std::string& b, bool before) {
    std::vector<double> v;
    for (const Item& r : items("measured", b)) {
      if (!r.training && (r.start < kSteadyS) == before) v.push_back(r.dur - r.ctx);
    }
    return v;
  };
  CHECK(rank(late_ms(kItems, true), 50) == Approx(13.54).margin(0.005));
  CHECK(rank(late_ms(bundle, true), 50) == Approx(0.14).margin(0.005));
  CHECK(rank(late_ms(bundle, false), 50) == Approx(0.16).margin(0.005));
  // The 1 % highest latencies: all in the first 0.87 s before, spread over the run now.
  const auto slowest_arrivals = [](const std::string& b) {
    std::vector<std::pair<double, double>> v = requests(items("measured", b));
    std::sort(v.begin(), v.end(), std::greater<>());
    v.resize(v.size() / 100);
    double last = 0;
    for (const auto& [latency, arrival] : v) last = std::max(last, arrival);
    return last;
  };
  CHECK(slowest_arrivals(kItems) < 0.87);
  CHECK(slowest_arrivals(bundle) > 19);
  const std::vector<double> all = latencies(items("measured", bundle), 0);
  CHECK(all.size() == 9984);
  CHECK(rank(all, 99) == Approx(40.47).margin(0.005));
}

// docs/validation/h200-poisson-two-streams/: the two H100 scenarios whose energy missed most
// (Poisson +42.6 %, two streams +15.1 %), rerun with the settled idle row.
TEST_CASE(
    "on the H200, with the settled idle the Poisson run's energy is +3.7% against the meter "
    "(+42.6% on the H100) and two streams' +8.0%",
    "[h200]") {
  const std::string dir = "docs/validation/h200-poisson-two-streams/";
  const std::string poisson = "poisson-h200-gpu-bound", two = "two-streams-h200-gpu-bound";
  const auto err = [&](const std::string& b, const char* scope, const char* metric) {
    return error_pct(b, scope, metric, dir);
  };
  CHECK(err(poisson, "stream resnet50", "p50_latency_ms") == Approx(-0.6).margin(0.005));
  CHECK(err(poisson, "stream resnet50", "p99_latency_ms") == Approx(-0.23).margin(0.005));
  CHECK(err(poisson, "training", "minibatches_per_s") == Approx(5.26).margin(0.005));
  CHECK(err(poisson, "power", "avg_power_w (device meter)") == Approx(3.73).margin(0.005));
  CHECK(err(two, "stream resnet50", "p50_latency_ms") == Approx(-0.43).margin(0.005));
  CHECK(err(two, "stream resnet50", "p99_latency_ms") == Approx(-0.18).margin(0.005));
  CHECK(err(two, "stream yolov8n", "p50_latency_ms") == Approx(-1.88).margin(0.005));
  CHECK(err(two, "stream yolov8n", "p99_latency_ms") == Approx(-0.68).margin(0.005));
  CHECK(err(two, "training", "minibatches_per_s") == Approx(0).margin(0.005));
  CHECK(err(two, "power", "avg_power_w (device meter)") == Approx(8.04).margin(0.005));
  // The run's own power figure against the meter, and the idle rows.
  for (const auto& [b, own_pct, idle] :
       {std::tuple{poisson, -18.7, 120.0}, std::tuple{two, -31.6, 121.9}}) {
    const double own = value(b, "power", "avg_power_w", "measured", dir);
    const double meter = value(b, "power", "avg_power_w (device meter)", "measured", dir);
    CHECK((own / meter - 1) * 100 == Approx(own_pct).margin(0.05));
    CHECK(idle_w(b, dir) == Approx(idle).margin(0.05));
  }
}
