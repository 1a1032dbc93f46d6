#include <algorithm>
#include <catch2/catch.hpp>

#include "runtime_fakes.hpp"

using namespace fulcrum::sim;
using namespace fulcrum::sim::testing;
using fulcrum::models::Phase;

TEST_CASE(
    "managed greedy: the first request waits for its batch to fill, the training item in flight, "
    "and its own inference") {
  Harness h = managed_greedy_harness(1.0);
  RecordingObserver obs;
  h.run(&obs);
  REQUIRE_FALSE(obs.requests.empty());
  const RequestRecord& first = obs.requests.front();
  CHECK(first.arrival == 0);
  CHECK(first.dispatch == 30 * kMillisecond);  // 4th request arrives at 30 ms
  CHECK(first.start == 80 * kMillisecond);     // the training minibatch started at 0 runs to 80
  // latency = fill 30 + remaining training 50 + inference 20
  CHECK(first.completion - first.arrival == 100 * kMillisecond);
}

TEST_CASE(
    "managed greedy: no latency exceeds fill time plus one training and one inference minibatch") {
  Harness h = managed_greedy_harness(60.0);
  h.scenario.budgets.latency_ms = 130;
  const RunResult r = h.run();
  REQUIRE(r.inference.size() == 1);
  const StreamResult& s = r.inference[0];
  CHECK(s.stable);
  CHECK(s.completed > 5'000);
  CHECK(s.latency->max_ms <= 30.0 + 80.0 + 20.0 + 1e-9);
  CHECK(s.latency->max_ms >= s.latency->p99_ms);
  CHECK(r.budgets.latency_met == true);
  REQUIRE(r.training.has_value());
  CHECK(r.training->minibatches > 0);
}

TEST_CASE("managed greedy: exactly one item runs on the GPU at a time") {
  Harness h = managed_greedy_harness(20.0);
  h.scenario.inference.push_back(stream_spec("s1", 2, PoissonArrivals{30}));
  RecordingObserver obs;
  h.run(&obs);
  REQUIRE(obs.items.size() > 100);
  std::vector<ItemRecord> items = obs.items;
  std::sort(items.begin(), items.end(),
            [](const ItemRecord& a, const ItemRecord& b) { return a.start < b.start; });
  for (std::size_t i = 1; i < items.size(); ++i) {
    INFO("item " << i);
    REQUIRE(items[i - 1].end <= items[i].start);
  }
  for (const ItemRecord& it : items) CHECK(it.end - it.start == it.standalone);
}

TEST_CASE(
    "managed greedy: at a boundary the batch holding the oldest request runs first across "
    "streams") {
  Harness h;
  h.scenario = base_scenario(1.0, SharingPolicy::managed);
  h.scenario.gpu_sharing.variant = ManagedVariant::greedy;
  h.scenario.training = training_spec(16);
  h.scenario.inference.push_back(stream_spec("late", 1, TraceArrivals{"", {0.050}}));
  h.scenario.inference.push_back(stream_spec("early", 1, TraceArrivals{"", {0.020}}));
  h.backend.set(h.train, Phase::training, {100, 0, {20, 4, 6}});
  h.backend.set(h.infer, Phase::inference, {10, 0, {15, 3, 5}});
  RecordingObserver obs;
  h.run(&obs);
  REQUIRE(obs.requests.size() == 2);
  CHECK(obs.requests[0].stream == 1);
  CHECK(obs.requests[0].start == 100 * kMillisecond);
  CHECK(obs.requests[1].stream == 0);
  CHECK(obs.requests[1].start == 110 * kMillisecond);
}

TEST_CASE("managed: an idle GPU starts a batch the moment it is dispatched") {
  Harness h;
  h.scenario = base_scenario(1.0, SharingPolicy::managed);
  h.scenario.inference.push_back(stream_spec("s0", 2, FixedArrivals{10}));
  h.backend.set(h.infer, Phase::inference, {5, 0, {15, 3, 5}});
  RecordingObserver obs;
  const RunResult r = h.run(&obs);
  REQUIRE(obs.requests.size() == 10);
  for (const RequestRecord& q : obs.requests) CHECK(q.start == q.dispatch);
  CHECK(r.inference[0].latency->max_ms == Approx(105.0));  // waits 100 ms for its partner
  CHECK(r.inference[0].latency->p50_ms == Approx(5.0));
}
