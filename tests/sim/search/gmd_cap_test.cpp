// The published GMD at its 25-try cap, on a hand-made table (no reference data needed): where the
// backtracking's probes bring the tries to exactly 25, the probe made at 25 is still evaluated and
// answers when it meets every constraint; a failed probe at 25 ends the search.
#include <catch2/catch.hpp>
#include <memory>
#include <string>
#include <vector>

#include "models/device/mode_space.hpp"
#include "sim/search/strategy.hpp"
#include "tests/sim/search/search_fixture.hpp"

namespace fulcrum::sim::search {
namespace {

using testing::orin;

// The pagoda-441 modes GMD visits on this table (power is flat, so its loop stops after the
// middle mode and the four probes at each axis's maximum), and MAXN.
models::PowerMode mode(int cores, double cpu_khz, double gpu_hz, double emc_hz) {
  models::PowerMode m = models::ModeSpace::grid(orin(), "pagoda-441").at(0);  // its TPCs
  m.cores = cores;
  m.cpu_khz = cpu_khz;
  m.gpu_hz = gpu_hz;
  m.emc_hz = emc_hz;
  return m;
}
const models::PowerMode kMid = mode(8, 1344000, 726750000, 2133000000);
const models::PowerMode kCores12 = mode(12, 1344000, 726750000, 2133000000);
const models::PowerMode kGpuMax = mode(8, 1344000, 1300500000, 2133000000);
const models::PowerMode kCpuMax = mode(8, 2201600, 726750000, 2133000000);
const models::PowerMode kEmcMax = mode(8, 1344000, 726750000, 3199000000);
const models::PowerMode kMaxn = mode(12, 2201600, 1300500000, 3199000000);

// Training "t": 100 ms and 10 W at every mode. Inference "i":
//   b = 64: 12 W; MAXN 0.5 s; cores12 0.7, gpu-max 0.8, cpu-max 0.9, emc-max 1.0, mid 1.1 s;
//           every other mode 2.0 s.
//   b = 2, 4, 16, 32: 25 W (over the 20 W budget), 0.1 s at every mode.
//   b = 1: 15 W; 0.08 s at mid when `mid_stable_at_1`, else 0.15 s like every other mode.
class CapTruth : public GroundTruth {
 public:
  CapTruth(std::vector<int> sizes, bool mid_stable_at_1)
      : sizes_(std::move(sizes)), mid_stable_at_1_(mid_stable_at_1) {}
  std::string name() const override { return "hand-made"; }
  std::string default_grid() const override { return "pagoda-441"; }
  std::vector<int> batch_sizes(std::string_view workload, models::Phase phase) const override {
    if (phase == models::Phase::training) {
      return workload == "t" ? std::vector<int>{16} : std::vector<int>{};
    }
    return workload == "i" ? sizes_ : std::vector<int>{};
  }
  const models::DeviceSpec& device() const override { return orin(); }

 protected:
  std::optional<MeasuredPoint> lookup(std::string_view, models::Phase phase, int b,
                                      const models::PowerMode& m) const override {
    if (phase == models::Phase::training) return MeasuredPoint{100, 10};
    if (b == 64) {
      double s = 2.0;
      if (m == kMaxn) s = 0.5;
      if (m == kCores12) s = 0.7;
      if (m == kGpuMax) s = 0.8;
      if (m == kCpuMax) s = 0.9;
      if (m == kEmcMax) s = 1.0;
      if (m == kMid) s = 1.1;
      return MeasuredPoint{s * 1000, 12};
    }
    if (b == 1) return MeasuredPoint{(mid_stable_at_1_ && m == kMid) ? 80.0 : 150.0, 15};
    return MeasuredPoint{100, 25};
  }

 private:
  std::vector<int> sizes_;
  bool mid_stable_at_1_;
};

// 10 requests/s, 7 s latency budget, 20 W.
Choice run_gmd(const GroundTruth& truth) {
  Problem p;
  p.training = "t";
  p.streams.push_back({"i", 10, 7.0, {}});
  p.power_budget_w = 20;
  p.objective = Objective::per_window;
  const SearchContext ctx = make_context(truth, p);
  return run_strategy(*strategy_registry().make("gmd", {}), p, ctx);
}

// By hand, batch sizes {1, 4, 16, 32, 64}: at MAXN b = 64 holds (6.4 + 0.5 = 6.9 s <= 7, 5 <= 64):
// 1 try. Power is 12 W < 20 at the middle mode, so the probes go to each maximum, and every
// slope is 0 (|dP| < 1 W): 5 modes, 6 tries. At b = 64 every visited mode is stable (t * 10 <= 64)
// but misses the latency (6.4 + 0.7 = 7.1 s and more). Backtracking, modes in increasing t_in at
// 64 (cores12, gpu, cpu, emc, mid): b = 32, 16, 4 fail on power (25 W): 15 tries, 21; b = 1:
// cores12, gpu, cpu, emc unstable (0.15 s x 10 > 1): 25 tries; mid at 25 tries: stable
// (0.8 <= 1), latency 0.1 + 0.08 s, power max(10, 15) = 15 W; floor((100 - 80) / 100) = 0.
TEST_CASE("gmd answers with the probe made at exactly 25 tries when it meets every constraint",
          "[search][gmd]") {
  const CapTruth truth({1, 4, 16, 32, 64}, true);
  const Choice c = run_gmd(truth);
  REQUIRE(c.found);
  CHECK(c.tries == 25);
  CHECK(c.mode == kMid);
  CHECK(c.batch_sizes == std::vector<int>{1});
  CHECK(c.predicted_per_window == 0);
  CHECK(c.predicted_power_w == 15);
  // MAXN and the five visited modes; backtracking measures no new mode.
  CHECK(c.cost.modes == 6);
}

TEST_CASE("gmd answers nothing with 25 tries when the probe made at 25 fails", "[search][gmd]") {
  const CapTruth truth({1, 4, 16, 32, 64}, false);
  const Choice c = run_gmd(truth);
  CHECK_FALSE(c.found);
  CHECK(c.tries == 25);
}

// With b = 2 added, the four failed b = 1 probes become five failed b = 2 probes: the one at 25
// tries (mid at b = 2, 25 W) fails and ends the search, although mid at b = 1 would answer.
TEST_CASE("gmd stops after a failed probe at 25 tries even when a later probe would answer",
          "[search][gmd]") {
  const CapTruth truth({1, 2, 4, 16, 32, 64}, true);
  const Choice c = run_gmd(truth);
  CHECK_FALSE(c.found);
  CHECK(c.tries == 25);
}

}  // namespace
}  // namespace fulcrum::sim::search
