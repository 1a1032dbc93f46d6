// SimulatedBackend: the Backend conformance checks (with the analytic and the table model),
// exact energy = power x duration, memoisation, and the emulated real-time mode.
#include "backends/simulated_backend.hpp"

#include <catch2/catch.hpp>
#include <chrono>
#include <sstream>
#include <string>
#include <vector>

#include "backends/backend_factory.hpp"
#include "models/error.hpp"
#include "models/perf/analytic_model.hpp"
#include "models/perf/profile_csv.hpp"
#include "models/perf/reference_anchors.hpp"
#include "models/perf/table_model.hpp"
#include "models/workload/workload_catalog.hpp"
#include "tests/backends/backend_conformance.hpp"

using namespace fulcrum;
using namespace fulcrum::backends;
using models::Phase;

namespace {

models::DeviceSpec orin() {
  models::DeviceSpec d;
  d.name = "orin-agx-64gb";
  d.cpu_cores = 12;
  d.cpu_khz = {729600, 1497600, 2201600};
  d.gpu_tpcs = 8;
  d.cuda_cores = 2048;
  d.gpu_hz = {420750000, 828750000, 1300500000};
  d.emc_hz = {665600000, 2133000000, 3199000000};
  d.memory_bus_bits = 256;
  d.rails = {"VDD_GPU_SOC", "VDD_CPU_CV", "VIN_SYS_5V0"};
  return d;
}

// A PerfModel with fixed answers that counts how often it is asked.
class CountingModel : public models::PerfModel {
 public:
  std::string name() const override { return "counting"; }
  models::Prediction predict(const models::PerfQuery& q) const override {
    ++calls;
    models::Prediction p;
    p.time_ms = 1.2345678 * q.batch_size;
    p.power.power_w = {10, 5, 3};
    return p;
  }
  models::RailPower idle_power(const models::DeviceSpec&, const models::PowerMode&) const override {
    return {{2, 1, 3}};
  }
  mutable int calls = 0;
};

}  // namespace

TEST_CASE("the simulated backend on the analytic model passes the backend conformance checks") {
  const models::DeviceSpec d = orin();
  const models::AnalyticModel model(models::AnalyticCoefficients{});
  SimulatedBackend backend(d, model);
  std::vector<WorkItem> items;
  for (const char* name : {"resnet50", "lenet5", "bert-base"}) {
    for (Phase phase : {Phase::inference, Phase::training}) {
      items.push_back({&models::workload_catalog().get(name), phase, 8, models::maxn_mode(d)});
    }
  }
  models::PowerMode slow = models::maxn_mode(d);
  slow.gpu_hz = 420750000;
  items.push_back({&models::workload_catalog().get("resnet50"), Phase::inference, 1, slow});
  testing::ConformanceCase c;
  c.items = items;
  testing::check_backend_conformance(backend, c);
}

TEST_CASE("the simulated backend on a table model passes the backend conformance checks") {
  const models::DeviceSpec d = orin();
  // Two measured modes of resnet50; lenet5 has no rows, so the backend cannot execute it.
  std::istringstream csv(
      "workload,cores,cpu_khz,gpu_hz,emc_hz,phase,batch_size,time_ms,power_w\n"
      "resnet50,12,2201600,1300500000,3199000000,inference,16,50,40\n"
      "resnet50,12,2201600,420750000,3199000000,inference,16,120,25\n"
      "resnet50,12,2201600,1300500000,3199000000,training,16,200,45\n");
  models::TableModel model;
  model.add_profiles(models::parse_profile_csv(csv, "conformance.csv"));
  SimulatedBackend backend(d, model);
  const models::Workload* resnet = &models::workload_catalog().get("resnet50");
  models::PowerMode between = models::maxn_mode(d);
  between.gpu_hz = 828750000;
  testing::ConformanceCase c;
  c.items = {{resnet, Phase::inference, 16, models::maxn_mode(d)},
             {resnet, Phase::inference, 8, between},
             {resnet, Phase::training, 16, models::maxn_mode(d)}};
  c.unknown_workload = WorkItem{&models::workload_catalog().get("lenet5"), Phase::inference, 16,
                                models::maxn_mode(d)};
  testing::check_backend_conformance(backend, c);
  // Each completion keeps the table's mark: measured at a profiled point, not otherwise.
  CHECK(backend.execute({resnet, Phase::inference, 16, models::maxn_mode(d)}).provenance ==
        models::Provenance::measured);
  CHECK(backend.execute({resnet, Phase::inference, 16, between}).provenance ==
        models::Provenance::interpolated);
}

TEST_CASE("energy per rail is the predicted rail power times the rounded duration") {
  const models::DeviceSpec d = orin();
  const CountingModel model;
  SimulatedBackend backend(d, model);
  const WorkItem item{&models::workload_catalog().get("resnet18"), Phase::inference, 3,
                      models::maxn_mode(d)};
  const Completion c = backend.execute(item);
  CHECK(c.duration.count() == 3703703);  // 3.7037034 ms rounded to integer ns
  const double s = 3703703e-9;
  REQUIRE(c.rail_energy_j.size() == 3);
  CHECK(c.rail_energy_j[0] == Approx(10 * s));
  CHECK(c.rail_energy_j[1] == Approx(5 * s));
  CHECK(c.rail_energy_j[2] == Approx(3 * s));
  CHECK(c.module_energy_j == Approx(18 * s));
}

TEST_CASE("repeated items are predicted once and return identical completions") {
  const models::DeviceSpec d = orin();
  const CountingModel model;
  SimulatedBackend backend(d, model);
  const models::Workload* w = &models::workload_catalog().get("resnet18");
  const WorkItem item{w, Phase::training, 16, models::maxn_mode(d)};
  const Completion first = backend.execute(item);
  for (int i = 0; i < 1000; ++i) {
    const Completion again = backend.execute(item);
    CHECK(again.duration == first.duration);
    CHECK(again.rail_energy_j == first.rail_energy_j);
  }
  CHECK(model.calls == 1);
  CHECK(backend.cached_items() == 1);

  models::PowerMode slower = item.mode;
  slower.gpu_hz = 420750000;
  backend.execute({w, Phase::training, 16, slower});
  backend.execute({w, Phase::inference, 16, item.mode});
  backend.execute({w, Phase::training, 8, item.mode});
  CHECK(model.calls == 4);
  CHECK(backend.cached_items() == 4);
}

TEST_CASE("the analytic model through the backend is slower in a slower mode") {
  const models::DeviceSpec d = orin();
  const models::AnalyticModel model(models::AnalyticCoefficients{});
  SimulatedBackend backend(d, model);
  const models::Workload* w = &models::workload_catalog().get("resnet50");
  models::PowerMode slow = models::maxn_mode(d);
  slow.gpu_hz = 420750000;
  slow.emc_hz = 665600000;
  const auto slow_ns = backend.execute({w, Phase::inference, 16, slow}).duration;
  CHECK(slow_ns > backend.execute({w, Phase::inference, 16, models::maxn_mode(d)}).duration);
}

TEST_CASE("idle power is passed through from the model per rail") {
  const models::DeviceSpec d = orin();
  const CountingModel model;
  SimulatedBackend backend(d, model);
  const models::RailPower idle = backend.idle_power(models::maxn_mode(d));
  CHECK(idle.power_w == std::vector<double>{2, 1, 3});
  CHECK(idle.module_w() == Approx(6));
}

TEST_CASE("in real-time mode the simulated backend blocks for each item's duration", "[wall]") {
  const models::DeviceSpec d = orin();
  const CountingModel model;  // 1.2345678 ms per sample
  SimulatedBackend backend(d, model, {.real_time = true});
  CHECK(backend.runs_in_real_time());
  CHECK_FALSE(SimulatedBackend(d, model).runs_in_real_time());
  const WorkItem item{&models::workload_catalog().get("resnet18"), Phase::inference, 8,
                      models::maxn_mode(d)};
  const auto start = std::chrono::steady_clock::now();
  const Completion c = backend.execute(item);
  const auto waited = std::chrono::steady_clock::now() - start;
  CHECK(waited >= c.duration);  // 9.88 ms; only the lower bound is certain on a busy machine
}

TEST_CASE("make_backend builds the simulated backend and refuses what this build lacks") {
  const models::DeviceSpec d = orin();
  const CountingModel model;
  const auto backend = make_backend("sim", {.device = &d, .perf_model = &model});
  REQUIRE(backend != nullptr);
  CHECK(&backend->device() == &d);
  CHECK_FALSE(backend->runs_in_real_time());
  CHECK(make_backend("sim", {.device = &d, .perf_model = &model, .real_time = true})
            ->runs_in_real_time());
  // An emulation is never a measurement, in real time or not.
  CHECK_FALSE(backend->is_measured());
  CHECK(backend->measured() == nullptr);
  CHECK_FALSE(
      make_backend("sim", {.device = &d, .perf_model = &model, .real_time = true})->is_measured());
  CHECK_FALSE(is_measured_backend("sim"));
  CHECK(is_measured_backend("cuda"));
  CHECK_THROWS_AS(is_measured_backend("gpu"), InputError);
  const std::vector<std::string> available = available_backends();
  REQUIRE_FALSE(available.empty());
  CHECK(available.front() == "sim");
  for (const std::string& name : available) {
    CHECK(std::find(backend_names().begin(), backend_names().end(), name) != backend_names().end());
  }
  const auto error_of = [&](const char* name) {
    try {
      make_backend(name, {.device = &d, .perf_model = &model});
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK(error_of("gpu") ==
        "--backend: 'gpu' is not a backend (backends: sim, cuda" +
            std::string(available.size() == 1 ? "; available in this build: sim" : "") + ")");
  if (available.size() == 1) {
    CHECK(error_of("cuda") == "--backend: 'cuda' is not available in this build (available: sim)");
  }
}

TEST_CASE("a predicted minibatch longer than the longest run is bad input, not an overflow") {
  // A profile cannot hold such a time any more (time_ms is at most an hour, refused where it
  // stands); the backend's own bound still guards every other model's predictions.
  std::istringstream csv(
      "workload,cores,cpu_khz,gpu_hz,emc_hz,phase,batch_size,time_ms,power_w\n"
      "resnet50,12,2201600,1300500000,3199000000,inference,16,2e10,40\n");  // 2e7 s > 1e7 s
  CHECK_THROWS_WITH(models::parse_profile_csv(csv, "absurd.csv"),
                    Catch::StartsWith("absurd.csv:2:56: time_ms: expected a number in"));
  CHECK(duration_of_prediction(1e10, "m", "w").count() == 10'000'000'000'000'000);  // 1e7 s: ok
  CHECK_THROWS_AS(duration_of_prediction(1.0000001e10, "m", "w"), InputError);
  // A workload file's layers can make any workload that large; the error says so, in seconds.
  CHECK_THROWS_WITH(duration_of_prediction(3.3155e12, "analytic-modes", "t"),
                    "performance model analytic-modes predicts 3.32e+09 s for a minibatch of t, "
                    "longer than the longest run (1e7 s): the workload is too large for the "
                    "device");
}
