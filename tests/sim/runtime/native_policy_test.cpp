#include <catch2/catch.hpp>

#include "runtime_fakes.hpp"

using namespace fulcrum::sim;
using namespace fulcrum::sim::testing;
using fulcrum::models::Phase;

namespace {

Harness native_harness(bool with_training) {
  Harness h;
  h.scenario = base_scenario(5.0, SharingPolicy::native);
  h.scenario.gpu_sharing.timeslice_us = 1024;
  h.scenario.gpu_sharing.context_switch_us = 25;
  if (with_training) h.scenario.training = training_spec(16);
  h.scenario.inference.push_back(stream_spec("s0", 1, FixedArrivals{1}));
  h.backend.set(h.train, Phase::training, {100, 0, {20, 4, 6}});
  h.backend.set(h.infer, Phase::inference, {10, 0, {12, 2, 4}});
  h.backend.set_idle({2, 1, 1});
  return h;
}

}  // namespace

TEST_CASE(
    "native: with training active an inference minibatch takes about twice its standalone "
    "time plus switch overhead") {
  Harness h = native_harness(true);
  RecordingObserver obs;
  const RunResult r = h.run(&obs);
  // One round robin of the two contexts takes 2 x (1024 + 25) = 2098 us and gives the inference
  // item 1024 us of work: its 10 ms need 10 / 1024 x 2098 ms = 20.488 281 25 ms.
  int inference_items = 0;
  for (const ItemRecord& it : obs.items) {
    if (it.phase != Phase::inference) continue;
    ++inference_items;
    CHECK(it.standalone == 10 * kMillisecond);
    CHECK(static_cast<double>(it.end - it.start) == Approx(20'488'281.25).margin(1));
  }
  CHECK(inference_items == 5);
  CHECK(r.inference[0].completed == 5);
  // The stream's context executed for its share of the time while shared: 10 ms per item.
  CHECK(r.inference[0].gpu_busy_s == Approx(5 * 0.010).epsilon(1e-6));
  CHECK(r.gpu_utilization == Approx(1.0));
}

TEST_CASE("native: a context alone on the GPU runs at full speed") {
  Harness h = native_harness(false);
  RecordingObserver obs;
  h.run(&obs);
  REQUIRE(obs.items.size() == 5);
  for (const ItemRecord& it : obs.items) CHECK(it.end - it.start == 10 * kMillisecond);
}

TEST_CASE("native: shared GPU power is the share-weighted mix with idle power for the switches") {
  Harness h = native_harness(true);
  RecordingObserver obs;
  h.run(&obs);
  // Per round robin of 2098 us: 1024 us of the training item, 1024 us of the inference item and
  // 2 x 25 us of switches at idle power. Rail 0: (1024 x 20 + 1024 x 12 + 50 x 2) / 2098 W.
  // The last change at t = 0 is both contexts sharing.
  const PowerStep* at_zero = nullptr;
  for (const PowerStep& p : obs.power) {
    if (p.at == 0) at_zero = &p;
  }
  REQUIRE(at_zero != nullptr);
  CHECK(at_zero->rail_power_w[0] == Approx(32868.0 / 2098));  // 15.666 W
  CHECK(at_zero->rail_power_w[1] == Approx(6194.0 / 2098));   // 2.952 W
  CHECK(at_zero->rail_power_w[2] == Approx(10290.0 / 2098));  // 4.905 W
}
