#include "sim/runtime/runtime.hpp"

#include <algorithm>
#include <atomic>
#include <catch2/catch.hpp>
#include <chrono>
#include <cmath>
#include <map>
#include <thread>

#include "backends/simulated_backend.hpp"
#include "models/error.hpp"
#include "runtime_fakes.hpp"
#include "sim/runtime/budgets.hpp"

using namespace fulcrum::sim;
using namespace fulcrum::sim::testing;
using fulcrum::models::Phase;

namespace {

// Module energy of the on_power stream, integrated by hand up to `end`.
double integrate(const std::vector<PowerStep>& steps, Time end) {
  double energy = 0;
  for (std::size_t i = 0; i < steps.size(); ++i) {
    const Time until = i + 1 < steps.size() ? steps[i + 1].at : end;
    double module_w = 0;
    for (double p : steps[i].rail_power_w) module_w += p;
    energy += module_w * to_seconds(until - steps[i].at);
  }
  return energy;
}

}  // namespace

TEST_CASE("a partial batch is dispatched when its oldest request has waited max_wait_ms") {
  Harness h;
  h.scenario = base_scenario(1.0);
  h.scenario.inference.push_back(stream_spec("s0", 4, FixedArrivals{100}, 25.0));
  h.backend.set(h.infer, Phase::inference, {5, 0});
  RecordingObserver obs;
  const RunResult r = h.run(&obs);
  // Requests at 0, 10, 20 ms; the timer of the one at 0 fires at 25 ms: batches of 3.
  REQUIRE(obs.items.size() >= 30);
  for (const ItemRecord& it : obs.items) CHECK(it.batch_size == 3);
  CHECK(obs.requests.front().dispatch == 25 * kMillisecond);
  CHECK(r.inference[0].latency->max_ms == Approx(30.0));  // waited 25, ran 5
  CHECK(r.inference[0].latency->p50_ms == Approx(20.0));
  CHECK(r.inference[0].batches == obs.items.size());
}

TEST_CASE("a full batch cancels its max_wait_ms timer") {
  Harness h;
  h.scenario = base_scenario(1.0);
  h.scenario.inference.push_back(stream_spec("s0", 2, FixedArrivals{100}, 15.0));
  h.backend.set(h.infer, Phase::inference, {5, 0});
  RecordingObserver obs;
  h.run(&obs);
  for (const ItemRecord& it : obs.items) CHECK(it.batch_size == 2);
  CHECK(obs.items.size() == 50);
}

TEST_CASE("the same seed gives the same run and a different seed a different one") {
  auto once = [](std::uint64_t seed) {
    Harness h;
    h.scenario = base_scenario(30.0);
    h.scenario.seed = seed;
    h.scenario.training = training_spec(16);
    h.scenario.inference.push_back(stream_spec("s0", 4, PoissonArrivals{40}));
    h.backend.set(h.train, Phase::training, {30, 0});
    h.backend.set(h.infer, Phase::inference, {12, 0});
    RecordingObserver obs;
    const RunResult r = h.run(&obs);
    std::vector<Time> arrivals;
    for (const RequestRecord& q : obs.requests) arrivals.push_back(q.arrival);
    return std::make_pair(r, arrivals);
  };
  const auto [a, arrivals_a] = once(11);
  const auto [b, arrivals_b] = once(11);
  const auto [c, arrivals_c] = once(12);
  CHECK(arrivals_a == arrivals_b);
  CHECK(a.inference[0].arrived == b.inference[0].arrived);
  CHECK(a.inference[0].latency->p99_ms == b.inference[0].latency->p99_ms);
  CHECK(a.training->minibatches == b.training->minibatches);
  CHECK(a.power.energy_j == b.power.energy_j);
  CHECK(arrivals_a != arrivals_c);
}

TEST_CASE("piecewise rates produce the right number of requests in each segment") {
  Harness h;
  h.scenario = base_scenario(30.0);
  PiecewiseArrivals p;
  p.segments = {{0, 10}, {10, 0}, {20, 50}};
  h.scenario.inference.push_back(stream_spec("s0", 1, p));
  h.backend.set(h.infer, Phase::inference, {1, 0});
  RecordingObserver obs;
  const RunResult r = h.run(&obs);
  std::size_t seg[3] = {0, 0, 0};
  for (const RequestRecord& q : obs.requests) {
    ++seg[q.arrival < 10 * kSecond ? 0 : q.arrival < 20 * kSecond ? 1 : 2];
  }
  CHECK(seg[0] == 100);
  CHECK(seg[1] == 0);
  CHECK(seg[2] == 500);
  CHECK(r.inference[0].arrived == 600);
  CHECK(r.inference[0].completed == 600);
}

TEST_CASE("trace replay reproduces the given arrival times exactly") {
  Harness h;
  h.scenario = base_scenario(2.0);
  const std::vector<double> times{0.001, 0.0025, 0.5, 0.5, 1.75, 2.5};
  h.scenario.inference.push_back(stream_spec("s0", 1, TraceArrivals{"t.csv", times}));
  h.backend.set(h.infer, Phase::inference, {1, 0});
  RecordingObserver obs;
  const RunResult r = h.run(&obs);
  REQUIRE(obs.requests.size() == 5);
  const std::vector<Time> expected_ns{1'000'000, 2'500'000, 500'000'000, 500'000'000,
                                      1'750'000'000};
  for (std::size_t i = 0; i < 5; ++i) CHECK(obs.requests[i].arrival == expected_ns[i]);
  CHECK(r.inference[0].arrived == 5);
  // The second request at 0.5 s waits for the first's 1 ms batch.
  CHECK(obs.requests[3].completion - obs.requests[3].arrival == 2 * kMillisecond);
}

TEST_CASE("energy is integrated exactly: hand-computed total and window maximum") {
  Harness h;
  h.scenario = base_scenario(1.0);
  h.scenario.budgets.power_window_s = 0.5;
  h.scenario.training = training_spec(16, 1);
  h.dataset_samples = 48;  // 3 minibatches of 100 ms
  h.backend.set(h.train, Phase::training, {100, 0, {10, 5, 2}});
  h.backend.set_idle({1, 1, 1});
  RecordingObserver obs;
  const RunResult r = h.run(&obs);
  // 0.3 s at 17 W, 0.7 s at 3 W.
  CHECK(r.power.energy_j == Approx(0.3 * 17 + 0.7 * 3));
  CHECK(r.power.rail_energy_j[0] == Approx(0.3 * 10 + 0.7));
  CHECK(r.power.avg_w == Approx(7.2));
  CHECK(r.power.max_window_w == Approx((0.3 * 17 + 0.2 * 3) / 0.5));
  CHECK(integrate(obs.power, obs.ended_at) == Approx(r.power.energy_j).epsilon(1e-12));
  CHECK(r.gpu_utilization == Approx(0.3));
  CHECK(r.training->gpu_busy_s == Approx(0.3));
}

TEST_CASE("energy equals the integral of the reported power in busy mixed runs") {
  for (SharingPolicy policy :
       {SharingPolicy::managed, SharingPolicy::native, SharingPolicy::sequential}) {
    Harness h;
    h.scenario = base_scenario(20.0, policy);
    h.scenario.training = training_spec(16, 3);
    h.dataset_samples = 1000;
    h.scenario.inference.push_back(stream_spec("s0", 4, PoissonArrivals{60}, 40.0));
    h.scenario.inference.push_back(stream_spec("s1", 1, FixedArrivals{7}));
    h.backend.set(h.train, Phase::training, {20, 2, {20, 4, 6}});
    h.backend.set(h.infer, Phase::inference, {3, 1, {14, 3, 5}});
    RecordingObserver obs;
    const RunResult r = h.run(&obs);
    INFO(r.gpu_sharing);
    CHECK(obs.ended_at == 20 * kSecond);
    CHECK(integrate(obs.power, obs.ended_at) == Approx(r.power.energy_j).epsilon(1e-9));
    for (std::size_t i = 1; i < obs.power.size(); ++i)
      REQUIRE(obs.power[i].at >= obs.power[i - 1].at);
  }
}

TEST_CASE("requests are conserved and every latency covers its item's execution time") {
  for (SharingPolicy policy : {SharingPolicy::managed, SharingPolicy::native}) {
    Harness h;
    h.scenario = base_scenario(15.0, policy);
    h.scenario.training = training_spec(8);
    h.scenario.inference.push_back(stream_spec("s0", 8, PoissonArrivals{100}, 30.0));
    h.scenario.inference.push_back(stream_spec("s1", 2, FixedArrivals{20}));
    h.backend.set(h.train, Phase::training, {25, 0});
    h.backend.set(h.infer, Phase::inference, {4, 0.5});
    RecordingObserver obs;
    const RunResult r = h.run(&obs);
    INFO(r.gpu_sharing);
    std::map<std::pair<int, std::uint64_t>, const ItemRecord*> items;
    for (const ItemRecord& it : obs.items) items[{it.context, it.item_id}] = &it;
    for (const RequestRecord& q : obs.requests) {
      const ItemRecord* it = items.at({q.stream + 1, q.batch_id});
      REQUIRE(q.arrival <= q.dispatch);
      REQUIRE(q.dispatch <= q.start);
      REQUIRE(q.completion - q.arrival >= it->end - it->start);
      REQUIRE(it->end - it->start >= it->standalone);
    }
    for (const StreamResult& s : r.inference) {
      CHECK(s.arrived == s.completed + s.queued + s.dropped);
      CHECK(s.arrived > 0);
    }
    CHECK(r.events_processed > 0);
  }
}

TEST_CASE("epochs stop the training job, the last minibatch of an epoch being partial") {
  Harness h;
  h.scenario = base_scenario(2.0);
  h.scenario.training = training_spec(16, 2);
  h.dataset_samples = 40;  // minibatches of 16, 16, 8
  h.backend.set(h.train, Phase::training, {0, 5});
  RecordingObserver obs;
  const RunResult r = h.run(&obs);
  REQUIRE(r.training.has_value());
  CHECK(r.training->minibatches == 6);
  CHECK(r.training->samples == 80);
  CHECK(r.training->epochs_completed == 2);
  REQUIRE(r.training->epoch_time_s);
  CHECK(r.training->epoch_time_s->first_s == Approx(0.2));
  CHECK(r.training->epoch_time_s->last_s == Approx(0.2));
  CHECK(r.training->samples_per_s == Approx(40.0));
  CHECK(r.training->minibatches_per_s == Approx(3.0));
  CHECK(r.training->fetch_stall_s == 0);
  REQUIRE(obs.items.size() == 6);
  CHECK(obs.items[2].batch_size == 8);
  CHECK(obs.items.back().end == 400 * kMillisecond);
}

TEST_CASE("each epoch is reported as it completes, and the result keeps a digest of their times") {
  Harness h;
  h.scenario = base_scenario(2.0);
  h.scenario.training = training_spec(16, 3);
  h.dataset_samples = 40;                           // minibatches of 16, 16, 8
  h.backend.set(h.train, Phase::training, {0, 5});  // 80, 80 and 40 ms...
  h.backend.slowdown_per_call_ms = 1;               // ...plus 1 ms more on each call
  RecordingObserver obs;
  const RunResult r = h.run(&obs);
  // Calls 0-2 take 80, 81 and 42 ms (epoch 203 ms), calls 3-5 83, 84 and 45 ms (212 ms), calls
  // 6-8 86, 87 and 48 ms (221 ms).
  REQUIRE(obs.epochs.size() == 3);
  const Time ends_ms[] = {203, 415, 636};
  const Time times_ms[] = {203, 212, 221};
  for (std::size_t e = 0; e < 3; ++e) {
    CHECK(obs.epochs[e].epoch == e);
    CHECK(obs.epochs[e].end == ends_ms[e] * kMillisecond);
    CHECK(obs.epochs[e].time == times_ms[e] * kMillisecond);
    CHECK(obs.epochs[e].minibatches == 3);
    CHECK(obs.epochs[e].samples == 40);
    CHECK(obs.epochs[e].fetch_stall == 0);
  }
  REQUIRE(r.training);
  CHECK(r.training->epochs_completed == 3);
  REQUIRE(r.training->epoch_time_s);
  CHECK(r.training->epoch_time_s->first_s == Approx(0.203));
  CHECK(r.training->epoch_time_s->last_s == Approx(0.221));
  CHECK(r.training->epoch_time_s->mean_s == Approx(0.212));
  CHECK(r.training->epoch_time_s->min_s == Approx(0.203));
  CHECK(r.training->epoch_time_s->max_s == Approx(0.221));
}

TEST_CASE("a run whose training job completes no epoch has no epoch times") {
  Harness h;
  h.scenario = base_scenario(0.1);
  h.scenario.training = training_spec(16);
  h.dataset_samples = 1600;  // 100 minibatches of 10 ms: one epoch needs 1 s
  h.backend.set(h.train, Phase::training, {10, 0});
  RecordingObserver obs;
  const RunResult r = h.run(&obs);
  CHECK(obs.epochs.empty());
  CHECK(r.training->epochs_completed == 0);
  CHECK_FALSE(r.training->epoch_time_s);
}

TEST_CASE("work in flight at the end is not counted as completed") {
  Harness h;
  h.scenario = base_scenario(0.25);
  h.scenario.training = training_spec(16);
  h.backend.set(h.train, Phase::training, {100, 0});
  const RunResult r = h.run();
  CHECK(r.training->minibatches == 2);
  CHECK(r.training->gpu_busy_s == Approx(0.25));
}

TEST_CASE("batch 1 at 15 ms against 100 requests/s is unstable, and says why") {
  Harness h;
  h.scenario = base_scenario(60.0);
  h.scenario.inference.push_back(stream_spec("resnet", 1, FixedArrivals{100}));
  h.backend.set(h.infer, Phase::inference, {15, 0});
  h.scenario.budgets.latency_ms = 1e9;
  const RunResult r = h.run();
  const StreamResult& s = r.inference[0];
  CHECK_FALSE(s.stable);
  CHECK_THAT(s.unstable_reason,
             Catch::StartsWith("one batch of 1 takes 15.0 ms, longer than the 10.0 ms between "
                               "arrivals at 100.0/s: backlog grew from 1,001 to 2,000 requests"));
  CHECK_THAT(s.unstable_reason, Catch::Contains("backlog grew from"));
  CHECK(r.budgets.latency_met == false);
}

TEST_CASE("batch 16 at 51.6 ms against 100 requests/s alone is stable") {
  Harness h;
  h.scenario = base_scenario(60.0);
  h.scenario.inference.push_back(stream_spec("resnet", 16, FixedArrivals{100}));
  h.backend.set(h.infer, Phase::inference, {51.6, 0});
  const RunResult r = h.run();
  const StreamResult& s = r.inference[0];
  CHECK(s.stable);
  CHECK(s.unstable_reason.empty());
  CHECK(s.queued <= 16);  // at most the batch in flight at the end
  CHECK(s.latency->max_ms == Approx(150 + 51.6));
}

TEST_CASE(
    "a batch a little slower than its fill time is unstable although its backlog grows slowly") {
  Harness h;
  h.scenario = base_scenario(60.0);
  h.scenario.inference.push_back(stream_spec("resnet", 16, FixedArrivals{100}));
  h.backend.set(h.infer, Phase::inference, {160.2, 0});  // fills in 160 ms
  const RunResult r = h.run();
  const StreamResult& s = r.inference[0];
  CHECK(s.queued < 64);  // far below what backlog growth alone would call unstable
  CHECK_FALSE(s.stable);
  CHECK_THAT(s.unstable_reason,
             Catch::StartsWith("one batch of 16 takes 160.2 ms, longer than the 160.0 ms in which "
                               "16 requests arrive at 100.0/s"));
}

TEST_CASE("a stream that keeps up on average through a short overload is stable") {
  Harness h;
  h.scenario = base_scenario(60.0);
  PiecewiseArrivals p;
  p.segments = {{0, 50}, {20, 120}, {25, 50}};  // 5 s above the 100/s it can serve
  h.scenario.inference.push_back(stream_spec("s0", 1, p));
  h.backend.set(h.infer, Phase::inference, {10, 0});
  const RunResult r = h.run();
  CHECK(r.inference[0].stable);
  CHECK(r.inference[0].queued <= 1);
}

TEST_CASE("an overloaded stream stops storing arrivals at its cap and counts them as dropped") {
  Harness h;
  h.scenario = base_scenario(100.0);
  h.scenario.inference.push_back(stream_spec("flood", 1, FixedArrivals{1000}));
  h.backend.set(h.infer, Phase::inference, {2, 0});  // serves 500/s
  const RunResult r = h.run();
  const StreamResult& s = r.inference[0];
  CHECK_FALSE(s.stable);
  CHECK(s.queued <= 30'000);  // cap = max(10,000, 30 s x 1000/s)
  CHECK(s.dropped > 15'000);
  CHECK(s.arrived == 100'000);
  CHECK(s.arrived == s.completed + s.queued + s.dropped);
  CHECK_THAT(s.unstable_reason, Catch::Contains("cap of 30,000 requests"));
}

TEST_CASE("a batch larger than 10,000 requests fills, runs and completes") {
  Harness h;
  h.scenario = base_scenario(500.0);
  h.scenario.inference.push_back(stream_spec("big", 20'000, FixedArrivals{100}));
  h.backend.set(h.infer, Phase::inference, {1000, 0});  // 1 s a batch
  const RunResult r = h.run();
  const StreamResult& s = r.inference[0];
  // Request k arrives at k x 10 ms: batches fill at 199.99 s and 399.99 s and take 1 s each;
  // the 10,000 arrivals of the last 100 s wait for a third.
  CHECK(s.dropped == 0);
  CHECK(s.batches == 2);
  CHECK(s.completed == 40'000);
  CHECK(s.queued == 10'000);
  REQUIRE(s.latency);
  CHECK(s.latency->max_ms == Approx(200'990.0));  // request 0: filled at 199.99 s, then 1 s
  CHECK(s.stable);
}

TEST_CASE("a stream whose first batch never fills, without max_wait_ms, is unstable and says so") {
  Harness h;
  h.scenario = base_scenario(60.0);
  h.scenario.inference.push_back(stream_spec("huge", 65'536, FixedArrivals{100}));
  h.backend.set(h.infer, Phase::inference, {1000, 0});
  const RunResult r = h.run();
  const StreamResult& s = r.inference[0];
  CHECK(s.arrived == 6'000);
  CHECK(s.completed == 0);
  CHECK(s.dropped == 0);
  CHECK_FALSE(s.stable);
  // 65,536 requests at 100/s take 655.36 s to arrive.
  CHECK(s.unstable_reason ==
        "no batch was ever dispatched: a batch of 65536 takes 655.4 s to fill at 100.0/s, longer "
        "than the 60.0 s run, and without max_wait_ms a partial batch is never dispatched: 6,000 "
        "requests arrived, none completed");
}

TEST_CASE("a stream whose few requests wait for max_wait_ms at the end is not called unstable") {
  Harness h;
  h.scenario = base_scenario(1.0);
  TraceArrivals trace;
  trace.arrival_s = {0.95, 0.96};  // a batch of 8 never fills; the 200 ms timer is still running
  h.scenario.inference.push_back(stream_spec("late", 8, trace, 200.0));
  h.backend.set(h.infer, Phase::inference, {10, 0});
  const RunResult r = h.run();
  CHECK(r.inference[0].completed == 0);
  CHECK(r.inference[0].queued == 2);
  CHECK(r.inference[0].stable);
}

TEST_CASE("at a very high rate the backlog cap stops at 4,194,304 requests") {
  Harness h;
  h.scenario = base_scenario(5.0);
  h.scenario.inference.push_back(stream_spec("flood", 1, FixedArrivals{1e6}));
  h.backend.set(h.infer, Phase::inference, {1000, 0});  // 1 request a second
  const RunResult r = h.run();
  const StreamResult& s = r.inference[0];
  // 30 s of arrivals would be 30 million requests; the cap is 2^22 instead. 5 million arrive,
  // 5 complete (at 1, 2, 3, 4 and, at the very end, 5 s), the rest wait or are dropped; the
  // completion at the end leaves the backlog one below its cap.
  CHECK(s.arrived == 5'000'000);
  CHECK(s.completed == 5);
  CHECK(s.queued == 4'194'304 - 1);
  CHECK(s.dropped == 5'000'000 - 5 - (4'194'304 - 1));
  CHECK_FALSE(s.stable);
  CHECK_THAT(s.unstable_reason, Catch::Contains("cap of 4,194,304 requests"));
}

TEST_CASE("budgets compare the chosen percentile and the chosen power measure") {
  Harness h;
  h.scenario = base_scenario(10.0);
  // Greedy, so that some requests wait behind training and the percentiles differ.
  h.scenario.gpu_sharing.variant = ManagedVariant::greedy;
  h.scenario.inference.push_back(stream_spec("s0", 1, FixedArrivals{10}));
  h.backend.set(h.infer, Phase::inference, {20, 0, {10, 0, 0}});
  h.scenario.training = training_spec(16, 1);
  h.dataset_samples = 48;  // one epoch of 3 minibatches of 100 ms at 17 W, then training ends
  h.backend.set(h.train, Phase::training, {100, 0, {10, 5, 2}});
  h.backend.set_idle({1, 1, 1});
  // 100 inference batches of 20 ms at 10 W (2 s: 20 J), 3 training minibatches (0.3 s at 17 W:
  // 5.1 J), idle at 3 W for the other 7.7 s (23.1 J): average 48.2 J / 10 s = 4.82 W. The first
  // second holds all the training, 10 batches (2 J) and 0.5 s idle (1.5 J): 8.6 W.
  h.scenario.budgets.latency_ms = 1000;
  h.scenario.budgets.power_w = 5;
  RunResult r = h.run();
  CHECK(r.power.avg_w == Approx(4.82));
  CHECK(r.power.max_window_w == Approx(8.6));
  CHECK(r.budgets.power_met == true);  // 4.82 W on average
  h.scenario.budgets.power_kind = PowerBudgetKind::max_window;
  r = h.run();
  CHECK(r.budgets.power_met == false);  // 8.6 W in the first second
  // The requests at 0, 0.1, 0.2 and 0.3 s wait behind training (120, 40, 60 and 80 ms); the other
  // 96 take their own 20 ms, so p95 is 20 ms and the maximum 120 ms.
  h.scenario.budgets.latency_ms = 20;
  h.scenario.budgets.latency_percentile = 95;
  r = h.run();
  CHECK(r.inference[0].latency->p95_ms == Approx(20));
  CHECK(r.inference[0].latency->max_ms == Approx(120));
  CHECK(r.budgets.latency_met == true);
  h.scenario.budgets.latency_percentile = 100;
  r = h.run();
  CHECK(r.budgets.latency_met == false);  // the first request waited behind a training minibatch
  h.scenario.budgets = Budgets{};
  r = h.run();
  CHECK_FALSE(r.budgets.latency_met.has_value());
  CHECK_FALSE(r.budgets.power_met.has_value());
}

TEST_CASE("settings a run cannot honour are input errors") {
  Harness h;
  h.scenario = base_scenario(0.0);
  CHECK_THROWS_AS(h.run(), fulcrum::InputError);
  h.scenario = base_scenario(1.0);
  h.scenario.training = training_spec(16, 2);
  h.dataset_samples = 0;
  CHECK_THROWS_AS(h.run(), fulcrum::InputError);
}

TEST_CASE("the backend executes every item the run starts, in the order they start") {
  Harness h;
  h.scenario = base_scenario(30.0);
  h.scenario.training = training_spec(16);
  h.scenario.inference.push_back(stream_spec("s0", 8, FixedArrivals{100}, 20.0));
  h.backend.set(h.train, Phase::training, {30, 0});
  h.backend.set(h.infer, Phase::inference, {5, 0});
  RecordingObserver obs;
  h.run(&obs);
  // Managed sharing completes items in the order they start; at most one is still running.
  REQUIRE(obs.items.size() > 1000);
  REQUIRE(h.backend.executed.size() >= obs.items.size());
  CHECK(h.backend.executed.size() - obs.items.size() <= 1);
  for (std::size_t i = 0; i < obs.items.size(); ++i) {
    INFO("item " << i);
    REQUIRE(h.backend.executed[i].phase == obs.items[i].phase);
    REQUIRE(h.backend.executed[i].batch_size == obs.items[i].batch_size);
  }
}

TEST_CASE("each item runs as long as the backend said for that item, never a replayed answer") {
  Harness h;
  h.scenario = base_scenario(2.0);
  h.scenario.training = training_spec(16);
  h.scenario.inference.push_back(stream_spec("s0", 4, FixedArrivals{100}));
  h.backend.set(h.train, Phase::training, {30, 0});
  h.backend.set(h.infer, Phase::inference, {5, 0});
  h.backend.slowdown_per_call_ms = 0.25;  // call k takes k x 0.25 ms longer than the model says
  RecordingObserver obs;
  h.run(&obs);
  REQUIRE(obs.items.size() > 20);
  for (std::size_t k = 0; k < obs.items.size(); ++k) {
    INFO("item " << k);
    const double base_ms = obs.items[k].phase == Phase::training ? 30 : 5;
    CHECK(to_milliseconds(obs.items[k].standalone) == Approx(base_ms + 0.25 * k));
    CHECK(obs.items[k].end - obs.items[k].start == obs.items[k].standalone);
  }
}

TEST_CASE("a wall-clock run releases arrivals no earlier than their real times", "[wall]") {
  Harness h;
  h.scenario = base_scenario(0.3);
  h.scenario.training = training_spec(16);
  h.scenario.inference.push_back(stream_spec("s0", 2, FixedArrivals{50}));
  h.backend.set(h.train, Phase::training, {25, 0});
  h.backend.set(h.infer, Phase::inference, {8, 0});
  h.backend.sleep = true;  // a backend that runs in real time makes it a wall-clock run

  // Records, for every arrival, how much real time had passed since the run began.
  struct ArrivalClock final : RunObserver {
    std::chrono::steady_clock::time_point begin = std::chrono::steady_clock::now();
    std::vector<std::pair<Time, Time>> seen;  // (simulated time, real time since begin)
    void on_queue_length(int, Time at, std::size_t queued) override {
      if (queued == 0) return;  // a dispatch, not an arrival
      seen.emplace_back(at, (std::chrono::steady_clock::now() - begin).count());
    }
  } clock;
  const auto begin = std::chrono::steady_clock::now();
  clock.begin = begin;
  const RunResult r = h.run(&clock);
  const auto wall = std::chrono::steady_clock::now() - begin;

  CHECK(wall >= std::chrono::milliseconds(300));  // a 0.3 s run lasts at least 0.3 s
  REQUIRE(clock.seen.size() >= 5);                // every other arrival (batches of 2)
  for (const auto& [at, real] : clock.seen) CHECK(real >= at);
  REQUIRE(r.lateness.has_value());
  CHECK(r.lateness->events == r.events_processed);
  CHECK(r.lateness->max >= 0);
  // Virtual time is the events' own: the results are those of a virtual run of the same setup.
  Harness v;
  v.scenario = h.scenario;
  v.backend.set(v.train, Phase::training, {25, 0});
  v.backend.set(v.infer, Phase::inference, {8, 0});
  const RunResult virtual_run = v.run();
  CHECK_FALSE(virtual_run.lateness.has_value());
  CHECK(r.inference[0].completed == virtual_run.inference[0].completed);
  CHECK(r.training->minibatches == virtual_run.training->minibatches);
  CHECK(r.power.energy_j == virtual_run.power.energy_j);
}

TEST_CASE("native time-slicing on a real-time backend that cannot open contexts is refused") {
  Harness h;
  h.scenario = base_scenario(1.0, SharingPolicy::native);
  h.scenario.inference.push_back(stream_spec("s0", 2, FixedArrivals{50}));
  h.backend.set(h.infer, Phase::inference, {8, 0});
  h.backend.sleep = true;  // real time, and FakeBackend opens no contexts
  CHECK_THROWS_AS(h.run(), fulcrum::InputError);
}

TEST_CASE("native time-slicing in real time runs each context in a device context of its own",
          "[wall]") {
  Harness h;
  h.scenario = base_scenario(0.6, SharingPolicy::native);
  h.scenario.gpu_sharing.timeslice_us = 1000;
  h.scenario.gpu_sharing.context_switch_us = 0;
  h.scenario.training = training_spec(16);
  h.dataset_samples = 1e6;
  h.scenario.inference.push_back(stream_spec("s0", 2, FixedArrivals{40}));
  h.backend.set(h.train, Phase::training, {30, 0, {10, 0, 0}});
  h.backend.set(h.infer, Phase::inference, {6, 0, {4, 0, 0}});
  h.backend.set_idle({1, 0, 0});
  // The emulated device: the contexts take turns of 1 ms on one GPU, in real time.
  fulcrum::backends::SimulatedBackend device(
      h.device, h.backend.model(),
      {.real_time = true, .slicing = {.timeslice = std::chrono::milliseconds(1)}});
  RecordingObserver obs;
  RunSetup setup = h.setup();
  int clock_starts = 0;
  std::size_t items_at_clock_end = 0;
  setup.on_clock_start = [&clock_starts] { ++clock_starts; };
  // At the end of the clock, before the results are collected: every item is already reported.
  setup.on_clock_end = [&] { items_at_clock_end = obs.items.size() + 1; };
  const RunResult r = fulcrum::sim::run(setup, device, &obs);
  CHECK(clock_starts == 1);
  CHECK(items_at_clock_end == obs.items.size() + 1);
  REQUIRE(r.training.has_value());
  CHECK(r.training->minibatches > 0);
  CHECK(r.inference[0].batches > 0);
  // Training always has work, so an inference batch runs beside a training minibatch: its time
  // in its context is stretched past its 6 ms alone, and so is the minibatch it overlapped. On a
  // loaded machine the training thread may start its next minibatch late, and a batch may then
  // fall wholly into that gap and run alone; most batches still overlap.
  std::size_t stretched_inference = 0, overlapped_training = 0;
  for (const ItemRecord& item : obs.items) {
    if (item.phase != Phase::inference) continue;
    if (item.standalone > 6 * kMillisecond) ++stretched_inference;
    for (const ItemRecord& t : obs.items) {
      if (t.phase == Phase::training && t.start < item.end && item.start < t.end) {
        ++overlapped_training;
        CHECK(t.standalone > 30 * kMillisecond);
        break;
      }
    }
    CHECK(item.end - item.start >= item.standalone);
  }
  CHECK(2 * stretched_inference >= r.inference[0].batches);
  CHECK(2 * overlapped_training >= r.inference[0].batches);
  // Power as the native policy declares it: both running, each at half the GPU.
  bool both_running = false;
  for (const PowerStep& step : obs.power) {
    if (std::abs(step.rail_power_w[0] - (1 + 0.5 * 9 + 0.5 * 3)) < 1e-9) both_running = true;
  }
  CHECK(both_running);
}

TEST_CASE("a device context that fails mid-run ends the run with the device's error", "[wall]") {
  // A real-time backend whose contexts fail on their second item (the first is the warm-up).
  class Failing final : public fulcrum::backends::Backend {
   public:
    explicit Failing(FakeBackend& inner) : inner_(inner) {}
    const fulcrum::models::DeviceSpec& device() const override { return inner_.device(); }
    const fulcrum::backends::Completion& execute(const fulcrum::backends::WorkItem& item) override {
      if (++calls_ > 1) throw fulcrum::Error("device lost in context");
      return inner_.execute(item);
    }
    fulcrum::models::RailPower idle_power(const fulcrum::models::PowerMode& m) override {
      return inner_.idle_power(m);
    }
    bool runs_in_real_time() const override { return true; }
    std::unique_ptr<fulcrum::backends::Backend> open_context() override {
      return std::make_unique<Failing>(inner_);
    }

   private:
    FakeBackend& inner_;
    int calls_ = 0;
  };
  Harness h;
  h.scenario = base_scenario(5.0, SharingPolicy::native);
  h.scenario.inference.push_back(stream_spec("s0", 1, FixedArrivals{50}));
  h.backend.set(h.infer, Phase::inference, {2, 0});
  Failing device(h.backend);
  RunSetup setup = h.setup();
  int executed_before_clock = -1;
  // The context's warm-up (its first item) runs before the clock starts.
  setup.on_clock_start = [&] { executed_before_clock = h.backend.calls; };
  const auto started = std::chrono::steady_clock::now();
  CHECK_THROWS_WITH(fulcrum::sim::run(setup, device, nullptr), Catch::Contains("device lost"));
  CHECK(executed_before_clock == 1);
  // It ended at the failure, not at the end of the 5 s run.
  CHECK(std::chrono::steady_clock::now() - started < std::chrono::seconds(5));
}

TEST_CASE("energy is split by source: the mode's baseload all run long, the GPU's work on top") {
  Harness h;
  h.scenario = base_scenario(1.0);
  h.scenario.training = training_spec(16, 1);
  h.dataset_samples = 48;  // 3 minibatches of 100 ms
  h.backend.set(h.train, Phase::training, {100, 0, {10, 5, 2}});
  h.backend.set_idle({1, 1, 1});
  const RunResult r = h.run();
  REQUIRE(r.power.sources == std::vector<std::string>{"baseload", "gpu"});
  CHECK(r.power.source_energy_j[0] == Approx(3.0));             // 3 W for 1 s
  CHECK(r.power.source_energy_j[1] == Approx(0.3 * (17 - 3)));  // 14 W more for 0.3 s
  // Its one epoch ended at 0.3 s: the rates while it trained, beside those over the whole run.
  REQUIRE(r.training->finished_s.has_value());
  CHECK(*r.training->finished_s == Approx(0.3));
  CHECK(r.training->minibatches_per_s == Approx(3.0));
  CHECK(*r.training->minibatches_per_s_while_training == Approx(10.0));
  CHECK(*r.training->samples_per_s_while_training == Approx(160.0));
}

TEST_CASE("a training job without epochs trains to the end and has no finishing time") {
  Harness h;
  h.scenario = base_scenario(1.0);
  h.scenario.training = training_spec(16);
  h.dataset_samples = 48;
  h.backend.set(h.train, Phase::training, {100, 0});
  const RunResult r = h.run();
  CHECK(r.training->minibatches == 10);
  CHECK_FALSE(r.training->finished_s.has_value());
  CHECK_FALSE(r.training->minibatches_per_s_while_training.has_value());
}

TEST_CASE("a data pipeline draws power as a source of its own, summed with the others") {
  // Workers prepare each minibatch's data in 10 ms, drawing 4 W on the CPU rail while they do.
  class WorkersPipeline final : public DataPipeline {
   public:
    void attach(Simulator&, PowerSink& power, RunObserver*, NotifyFn) override {
      workers_ = power.add_source("dataloader");
    }
    std::optional<Time> ready_at(std::uint64_t, Time wanted) override {
      sink_->set_power(workers_, std::vector<double>{0, 4, 0});
      return wanted + 10 * kMillisecond;
    }
    void on_compute_start(std::uint64_t, Time) override {
      sink_->set_power(workers_, std::vector<double>{0, 0, 0});
    }
    PowerSink* sink_ = nullptr;

   private:
    PowerSource workers_;
  };
  Harness h;
  h.scenario = base_scenario(1.0);
  h.scenario.training = training_spec(16, 1);
  h.dataset_samples = 48;  // 3 minibatches of 100 ms, each after 10 ms of data preparation
  h.backend.set(h.train, Phase::training, {100, 0, {10, 5, 2}});
  h.backend.set_idle({1, 1, 1});
  WorkersPipeline pipeline;
  const RunSetup setup = h.setup();
  RecordingObserver obs;
  Runtime runtime(setup, h.backend, &obs, pipeline);
  pipeline.sink_ = &runtime;
  const RunResult r = runtime.run();
  REQUIRE(r.power.sources == std::vector<std::string>{"baseload", "gpu", "dataloader"});
  CHECK(r.power.source_energy_j[0] == Approx(3.0));       // 3 W all second
  CHECK(r.power.source_energy_j[1] == Approx(0.3 * 14));  // +14 W for 3 x 100 ms
  CHECK(r.power.source_energy_j[2] == Approx(0.03 * 4));  // +4 W for 3 x 10 ms
  CHECK(r.power.energy_j == Approx(3.0 + 4.2 + 0.12));
  CHECK(r.power.rail_energy_j[1] == Approx(1.0 + 0.3 * 4 + 0.03 * 4));  // idle + GPU + workers
  CHECK(r.training->fetch_stall_s == Approx(0.03));
  CHECK(r.training->epoch_time_s->first_s == Approx(0.33));
  REQUIRE(obs.epochs.size() == 1);
  CHECK(obs.epochs[0].fetch_stall == 30 * kMillisecond);  // its three minibatches' stalls
}

TEST_CASE("budgets are judged from the result by the same rule a search uses") {
  RunResult r;
  StreamResult s;
  s.arrived = 100;
  s.completed = 100;
  s.latency = LatencyStats{10, 20, 30, 40, 50};
  r.inference.push_back(s);
  r.power.avg_w = 12;
  r.power.max_window_w = 18;
  Budgets b;
  b.latency_ms = 35;
  b.latency_percentile = 95;
  b.power_w = 15;
  BudgetResult v = judge_budgets(r, b);
  CHECK(v.latency_met == true);  // p95 30 ms
  CHECK(v.power_met == true);    // average 12 W
  b.latency_percentile = 99;     // p99 40 ms
  b.power_kind = PowerBudgetKind::max_window;
  v = judge_budgets(r, b);
  CHECK(v.latency_met == false);
  CHECK(v.power_met == false);  // 18 W in the worst window
  b.latency_percentile = 100;
  b.latency_ms = 50;
  CHECK(judge_budgets(r, b).latency_met == true);  // max 50 ms is within 50 ms
  r.inference[0].stable = false;
  CHECK(judge_budgets(r, b).latency_met == false);  // an unstable stream never meets it
  r.inference[0].stable = true;
  r.inference[0].completed = 0;
  r.inference[0].latency.reset();
  CHECK(judge_budgets(r, b).latency_met == false);  // arrivals but nothing served
  CHECK_FALSE(judge_budgets(r, Budgets{}).latency_met.has_value());
  CHECK_FALSE(judge_budgets(r, Budgets{}).power_met.has_value());
}

TEST_CASE("distinct_items lists every size a run can execute, by context") {
  Harness h;
  h.scenario = base_scenario(1.0);
  h.scenario.training = training_spec(16, 2);
  h.dataset_samples = 50;  // three minibatches of 16, then one of 2, per epoch
  h.scenario.inference.push_back(stream_spec("a", 4, FixedArrivals{10}, 5.0));  // partial ones
  h.scenario.inference.push_back(stream_spec("b", 8, FixedArrivals{10}));       // full only
  const std::vector<ContextItem> items = distinct_items(h.setup());
  std::vector<std::pair<int, int>> got;  // (context, batch size)
  for (const ContextItem& c : items) got.emplace_back(c.context, c.item.batch_size);
  CHECK(got ==
        std::vector<std::pair<int, int>>{{0, 16}, {0, 2}, {1, 4}, {1, 3}, {1, 2}, {1, 1}, {2, 8}});
  CHECK(items[0].item.phase == Phase::training);
  CHECK(items[0].item.workload == &h.train);
  CHECK(items[2].item.phase == Phase::inference);
  // A dataset that divides evenly has no smaller last minibatch.
  h.dataset_samples = 48;
  CHECK(distinct_items(h.setup()).size() == 6);
}

TEST_CASE("a real-time run executes each distinct item once before its clock starts") {
  Harness h;
  h.scenario = base_scenario(0.2);
  h.scenario.training = training_spec(16);
  h.dataset_samples = 40;  // minibatches of 16, 16, 8
  h.backend.set(h.train, Phase::training, {5, 0});
  h.backend.sleep = true;
  RunSetup setup = h.setup();
  std::size_t executed_at_clock_start = 0;
  setup.on_clock_start = [&] { executed_at_clock_start = h.backend.executed.size(); };
  const RunResult r = fulcrum::sim::run(setup, h.backend);
  REQUIRE(executed_at_clock_start == 2);
  CHECK(h.backend.executed[0].batch_size == 16);
  CHECK(h.backend.executed[1].batch_size == 8);
  // The run's own items come after them (its completed minibatches, and perhaps one still running
  // at the end): the warm-up is not counted as the run's work.
  REQUIRE(r.training->minibatches >= 1);
  CHECK(h.backend.executed.size() - 2 >= r.training->minibatches);
  CHECK(h.backend.executed.size() - 2 <= r.training->minibatches + 1);
}

namespace {

// A wall-clock run on the emulated device whose training minibatch takes a minute.
struct MinuteMinibatch {
  Harness h;
  MinuteMinibatch(double duration_s, SharingPolicy policy) {
    h.scenario = base_scenario(duration_s, policy);
    h.scenario.training = training_spec(16);
    h.dataset_samples = 1e6;
    h.backend.set(h.train, Phase::training, {60'000, 0, {10, 0, 0}});
    h.backend.set(h.infer, Phase::inference, {6, 0, {4, 0, 0}});
    h.backend.set_idle({1, 0, 0});
  }
};

double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

}  // namespace

TEST_CASE("a wall-clock run on an emulated device ends at its duration, not after a long item",
          "[runtime][wall]") {
  for (const SharingPolicy policy : {SharingPolicy::managed, SharingPolicy::native}) {
    INFO(to_string(policy));
    MinuteMinibatch m(0.5, policy);
    m.h.scenario.inference.push_back(stream_spec("s0", 2, FixedArrivals{20}));
    fulcrum::backends::SimulatedBackend device(
        m.h.device, m.h.backend.model(),
        {.real_time = true, .slicing = {.timeslice = std::chrono::milliseconds(1)}});
    const auto start = std::chrono::steady_clock::now();
    const RunResult r = fulcrum::sim::run(m.h.setup(), device, nullptr);
    const double took_s = seconds_since(start);
    // No warm-up sleep of a minute, no minute-long item past the end: about 0.5 s (the bound
    // leaves room for a loaded machine).
    CHECK(took_s >= 0.5);
    CHECK(took_s < 15);
    REQUIRE(r.training.has_value());
    CHECK(r.training->minibatches == 0);  // the minute-long minibatch did not finish in the run
  }
}

TEST_CASE("a wall-clock run on an emulated device stops promptly when asked to during an item",
          "[runtime][wall]") {
  MinuteMinibatch m(30, SharingPolicy::managed);
  fulcrum::backends::SimulatedBackend device(m.h.device, m.h.backend.model(), {.real_time = true});
  std::atomic<bool> signalled{false};
  RunSetup setup = m.h.setup();
  setup.stop_requested = [&signalled] { return signalled.load(); };
  // As the command line does: a progress step that throws once the signal came.
  struct Stopped {};
  ProgressFn progress = [&signalled](Time, Time) {
    if (signalled) throw Stopped{};
  };
  // The clock starts before the signaller's sleep does, so the run cannot seem to stop before
  // the signal came.
  const auto start = std::chrono::steady_clock::now();
  std::thread signaller([&signalled] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    signalled = true;
  });
  CHECK_THROWS_AS(fulcrum::sim::run(setup, device, nullptr, progress), Stopped);
  const double took_s = seconds_since(start);
  signaller.join();
  CHECK(took_s >= 0.3);
  CHECK(took_s < 15);  // not the minute of the item, nor the 30 s of the run
}
