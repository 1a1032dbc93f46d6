#include <catch2/catch.hpp>
#include <memory>

#include "runtime_fakes.hpp"
#include "sim/runtime/managed_policy.hpp"

using namespace fulcrum::sim;
using namespace fulcrum::sim::testing;

TEST_CASE("a run given a policy factory runs with the policy it makes instead of the scenario's") {
  Harness h = managed_greedy_harness(1.0);
  int made = 0;
  const GpuSharingPolicyFactory windowed = [&made](GpuHost& host) {
    ++made;
    return std::make_unique<ManagedPolicy>(host, ManagedVariant::windowed);
  };
  RecordingObserver greedy_obs, windowed_obs;
  run(h.setup(), h.backend, &greedy_obs);
  run(h.setup(), h.backend, &windowed_obs, {}, windowed);
  CHECK(made == 1);
  REQUIRE_FALSE(greedy_obs.requests.empty());
  REQUIRE_FALSE(windowed_obs.requests.empty());
  // The scenario's greedy starts training at 0, and the first batch (dispatched at 30 ms, when
  // its 4th request arrives) waits for it to end at 80 ms: 100 ms of latency.
  CHECK(greedy_obs.requests.front().start == 80 * kMillisecond);
  CHECK(greedy_obs.requests.front().completion == 100 * kMillisecond);
  // Windowed refuses the 80 ms minibatch at 0 (the batch can be ready at 30 ms), so the batch
  // starts when dispatched: 30 ms of filling and 20 ms of inference.
  CHECK(windowed_obs.requests.front().dispatch == 30 * kMillisecond);
  CHECK(windowed_obs.requests.front().start == 30 * kMillisecond);
  CHECK(windowed_obs.requests.front().completion == 50 * kMillisecond);
}

TEST_CASE("a policy factory that makes no policy is an internal error, before the run starts") {
  Harness h = managed_greedy_harness(1.0);
  const GpuSharingPolicyFactory none = [](GpuHost&) { return nullptr; };
  CHECK_THROWS_WITH(run(h.setup(), h.backend, nullptr, {}, none),
                    Catch::Contains("factory made no policy"));
}
