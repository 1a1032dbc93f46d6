#include <catch2/catch.hpp>

#include "runtime_fakes.hpp"

using namespace fulcrum::sim;
using namespace fulcrum::sim::testing;
using fulcrum::models::Phase;

TEST_CASE(
    "sequential: a training job that lasts the whole run starves inference, reported "
    "unstable") {
  Harness h;
  h.scenario = base_scenario(20.0, SharingPolicy::sequential);
  h.scenario.training = training_spec(16);
  h.scenario.inference.push_back(stream_spec("s0", 1, FixedArrivals{10}));
  h.backend.set(h.train, Phase::training, {100, 0});
  h.backend.set(h.infer, Phase::inference, {10, 0});
  const RunResult r = h.run();
  const StreamResult& s = r.inference[0];
  CHECK(s.arrived == 200);
  CHECK(s.completed == 0);
  CHECK(s.queued == 200);
  CHECK_FALSE(s.stable);
  CHECK_THAT(s.unstable_reason, Catch::Contains("sequential"));
  CHECK_THAT(s.unstable_reason, Catch::Contains("backlog grew from 100 to 200 requests"));
  CHECK(r.training->minibatches == 200);
}

TEST_CASE("sequential: inference runs only once the training job has finished its epochs") {
  Harness h;
  h.scenario = base_scenario(5.0, SharingPolicy::sequential);
  h.scenario.training = training_spec(16, 1);
  h.dataset_samples = 160;  // 10 minibatches of 100 ms
  h.scenario.inference.push_back(stream_spec("s0", 1, FixedArrivals{10}));
  h.backend.set(h.train, Phase::training, {100, 0});
  h.backend.set(h.infer, Phase::inference, {10, 0});
  RecordingObserver obs;
  const RunResult r = h.run(&obs);
  CHECK(r.training->minibatches == 10);
  CHECK(r.training->epochs_completed == 1);
  REQUIRE_FALSE(obs.requests.empty());
  for (const RequestRecord& q : obs.requests) CHECK(q.start >= 1 * kSecond);
  CHECK(obs.requests.front().completion == 1 * kSecond + 10 * kMillisecond);
  CHECK(r.inference[0].stable);
  CHECK(r.inference[0].completed == 50);
}
