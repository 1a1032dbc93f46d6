// SimulatedBackend: the Backend conformance body, exact energy = power x duration, memoisation.
#include "backends/simulated_backend.hpp"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "models/error.hpp"
#include "models/perf/analytic_model.hpp"
#include "models/perf/reference_anchors.hpp"
#include "models/workload/workload_catalog.hpp"

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

// What every Backend must satisfy, whatever executes the work.
void check_backend_conformance(Backend& backend, const WorkItem& item) {
  const Completion c = backend.execute(item);
  CHECK(c.duration.count() > 0);
  REQUIRE(c.rail_energy_j.size() == backend.device().rails.size());
  for (double e : c.rail_energy_j) CHECK(e >= 0);
  const models::RailPower idle = backend.idle_power(item.mode);
  REQUIRE(idle.power_w.size() == backend.device().rails.size());
  const double seconds = static_cast<double>(c.duration.count()) * 1e-9;
  CHECK(idle.module_w() * seconds < c.module_energy_j());
}

}  // namespace

TEST_CASE("the simulated backend passes the backend conformance checks") {
  const models::DeviceSpec d = orin();
  models::AnalyticCoefficients coeffs;
  const models::AnalyticModel model(coeffs);
  SimulatedBackend backend(d, model);
  for (const char* name : {"resnet50", "lenet5"}) {
    for (Phase phase : {Phase::inference, Phase::training}) {
      INFO(name);
      check_backend_conformance(
          backend, {&models::workload_catalog().get(name), phase, 8, models::maxn_mode(d)});
    }
  }
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
  CHECK(c.module_energy_j() == Approx(18 * s));
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
  CHECK(backend.execute({w, Phase::inference, 16, slow}).duration >
        backend.execute({w, Phase::inference, 16, models::maxn_mode(d)}).duration);
}

TEST_CASE("a work item without a workload is an input error") {
  const models::DeviceSpec d = orin();
  const CountingModel model;
  SimulatedBackend backend(d, model);
  CHECK_THROWS_AS(backend.execute({nullptr, Phase::inference, 1, models::maxn_mode(d)}),
                  InputError);
}

TEST_CASE("idle power is passed through from the model per rail") {
  const models::DeviceSpec d = orin();
  const CountingModel model;
  SimulatedBackend backend(d, model);
  const models::RailPower idle = backend.idle_power(models::maxn_mode(d));
  CHECK(idle.power_w == std::vector<double>{2, 1, 3});
  CHECK(idle.module_w() == Approx(6));
}
