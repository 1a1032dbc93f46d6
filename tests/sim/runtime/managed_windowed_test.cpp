// Windowed managed sharing (the default `managed` variant) against its closed form, with the fake
// performance model so that every time is exact in nanoseconds.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdint>
#include <vector>

#include "models/error.hpp"
#include "runtime_fakes.hpp"

using namespace fulcrum::sim;
using namespace fulcrum::sim::testing;
using fulcrum::models::Phase;

namespace {

// One fixed-arrival configuration: batch size b, rate a (requests/s, a whole number of
// nanoseconds apart), inference time t_in and training time t_train (ns).
struct Case {
  int b;
  double a;
  Time t_in;
  Time t_train;
  std::int64_t n;  // the closed form's n, written out for the reader (checked against it)
};

Harness windowed_harness(double duration_s, int b, ArrivalSpec arrivals, Time t_in, Time t_train,
                         ManagedVariant variant = ManagedVariant::windowed) {
  Harness h;
  h.scenario = base_scenario(duration_s, SharingPolicy::managed);
  h.scenario.gpu_sharing.variant = variant;
  h.scenario.training = training_spec(16);
  h.scenario.inference.push_back(stream_spec("s0", b, std::move(arrivals)));
  h.backend.set(h.train, Phase::training, {to_milliseconds(t_train), 0, {20, 4, 6}});
  h.backend.set(h.infer, Phase::inference, {to_milliseconds(t_in), 0, {15, 3, 5}});
  return h;
}

std::vector<ItemRecord> by_start(std::vector<ItemRecord> items) {
  std::sort(items.begin(), items.end(),
            [](const ItemRecord& x, const ItemRecord& y) { return x.start < y.start; });
  return items;
}

// Batches (per stream) that became ready while a training minibatch was on the GPU: those that
// waited behind training.
std::size_t batches_behind_training(const RecordingObserver& obs) {
  std::vector<Time> dispatches;  // one per batch (a batch's requests are reported together)
  const RequestRecord* previous = nullptr;
  for (const RequestRecord& q : obs.requests) {
    if (previous == nullptr || q.stream != previous->stream || q.batch_id != previous->batch_id) {
      dispatches.push_back(q.dispatch);
    }
    previous = &q;
  }
  std::vector<ItemRecord> training;
  for (const ItemRecord& it : obs.items) {
    if (it.phase == Phase::training) training.push_back(it);
  }
  training = by_start(std::move(training));
  std::size_t behind = 0;
  for (Time d : dispatches) {
    // The last training item that started at or before d: still running at d?
    auto it = std::upper_bound(training.begin(), training.end(), d,
                               [](Time t, const ItemRecord& r) { return t < r.start; });
    if (it != training.begin() && std::prev(it)->end > d) ++behind;
  }
  return behind;
}

}  // namespace

TEST_CASE(
    "managed windowed: on fixed arrivals the run reproduces the closed form exactly -- n "
    "training minibatches per window, no wait behind training, n a / b minibatches/s") {
  constexpr Time ms = kMillisecond;
  const std::vector<Case> cases = {
      {4, 100, 10 * ms, 7 * ms, 4},        // (40 - 10) / 7 = 4.29
      {4, 100, 10 * ms, 35 * ms, 0},       // n = 0: the GPU idles from batch to batch
      {8, 200, 10 * ms, 10 * ms, 3},       // (40 - 10) / 10 = 3 exactly: the last ends as
                                           // the next batch is full
      {8, 200, 10 * ms, 10 * ms + 1, 2},   // 1 ns longer: only 2 fit
      {1, 50, 5 * ms, 4 * ms, 3},          // batch of 1: (20 - 5) / 4 = 3.75
      {16, 100, 60'770'000, 33 * ms, 3},   // quickstart-like: (160 - 60.77) / 33 = 3.007
      {16, 100, 155 * ms, 5 * ms, 1},      // (160 - 155) / 5 = 1 exactly
      {16, 100, 155 * ms, 5 * ms + 1, 0},  // 1 ns longer: none fits
  };
  for (const Case& c : cases) {
    const Time period = static_cast<Time>(1e9 / c.a);
    REQUIRE(static_cast<double>(period) * c.a == 1e9);     // whole nanoseconds apart
    const Time window = c.b * period;                      // b / a
    const std::int64_t n = (window - c.t_in) / c.t_train;  // floor((b/a - t_in) / t_train)
    INFO("b " << c.b << ", a " << c.a << "/s, t_in " << c.t_in << " ns, t_train " << c.t_train
              << " ns, n " << n);
    REQUIRE(n == c.n);

    Harness h = windowed_harness(20.0, c.b, FixedArrivals{c.a}, c.t_in, c.t_train);
    RecordingObserver obs;
    const RunResult r = h.run(&obs);
    const StreamResult& s = r.inference.at(0);
    REQUIRE(s.stable);

    // No request waits behind training: each batch starts the moment it is full.
    for (const RequestRecord& q : obs.requests) REQUIRE(q.start == q.dispatch);
    CHECK(batches_behind_training(obs) == 0);

    // Each window between two batch starts holds exactly n training minibatches.
    const std::vector<ItemRecord> items = by_start(obs.items);
    std::vector<Time> batch_starts;
    for (const ItemRecord& it : items) {
      if (it.phase == Phase::inference) batch_starts.push_back(it.start);
    }
    REQUIRE(batch_starts.size() > 100);
    std::size_t training_in_windows = 0;
    for (std::size_t w = 0; w + 1 < batch_starts.size(); ++w) {
      INFO("window " << w);
      REQUIRE(batch_starts[w + 1] - batch_starts[w] == window);
      std::int64_t in_window = 0;
      for (const ItemRecord& it : items) {
        if (it.phase == Phase::training && it.start >= batch_starts[w] &&
            it.start < batch_starts[w + 1]) {
          ++in_window;
          REQUIRE(it.end <= batch_starts[w + 1]);
        }
      }
      REQUIRE(in_window == n);
      training_in_windows += static_cast<std::size_t>(in_window);
    }
    // Training minibatches per second over the whole windows: n a / b.
    const double span_s = to_seconds(batch_starts.back() - batch_starts.front());
    CHECK(static_cast<double>(training_in_windows) / span_s ==
          Approx(static_cast<double>(n) * c.a / c.b).epsilon(1e-12));

    // Peak latency: the first request of a batch arrived (b - 1) / a before it was full, so
    // the event-driven maximum is (b - 1) / a + t_in, exactly one inter-arrival gap under the
    // closed form's b / a + t_in (which counts the whole window as fill time).
    const Time closed_form_peak = window + c.t_in;
    Time max_latency = 0;
    for (const RequestRecord& q : obs.requests) {
      max_latency = std::max(max_latency, q.completion - q.arrival);
    }
    CHECK(max_latency == (c.b - 1) * period + c.t_in);
    CHECK(max_latency == closed_form_peak - period);
    CHECK(s.latency->max_ms == Approx(to_milliseconds(max_latency)).epsilon(1e-12));
  }
}

TEST_CASE("managed greedy, on the same fixed arrivals, trains more and lets batches wait") {
  const Time ms = kMillisecond;
  // (40 - 10) / 7: windowed runs 4 minibatches a window; greedy fills the idle 2 ms too.
  Harness w = windowed_harness(20.0, 4, FixedArrivals{100}, 10 * ms, 7 * ms);
  Harness g =
      windowed_harness(20.0, 4, FixedArrivals{100}, 10 * ms, 7 * ms, ManagedVariant::greedy);
  RecordingObserver wobs;
  RecordingObserver gobs;
  const RunResult wr = w.run(&wobs);
  const RunResult gr = g.run(&gobs);
  CHECK(wr.gpu_sharing_variant == "windowed");
  CHECK(gr.gpu_sharing_variant == "greedy");
  CHECK(gr.training->minibatches > wr.training->minibatches);
  CHECK(batches_behind_training(wobs) == 0);
  CHECK(batches_behind_training(gobs) > 100);
  // Greedy: a batch waits up to one training minibatch.
  CHECK(gr.inference[0].latency->max_ms <= 30.0 + 7.0 + 10.0 + 1e-9);
  CHECK(gr.inference[0].latency->max_ms > wr.inference[0].latency->max_ms);
  CHECK(wr.inference[0].latency->max_ms == Approx(40.0));  // 30 ms fill + 10 ms inference
}

TEST_CASE(
    "managed windowed: with Poisson arrivals a batch waits behind training in at most 1% of "
    "batches at the default risk of 1e-3 per minibatch") {
  // Batches of 8 at 100 requests/s (80 ms on average to fill), 10 ms inference, 5 ms training:
  // right after a batch, 8 more arrivals take under 5 ms with probability far below 1e-3, so
  // training runs; as the batch fills it stops. Each window starts a handful of minibatches,
  // each at risk <= 1e-3, so the expected share of batches delayed stays well under 1%.
  const Time ms = kMillisecond;
  Harness w = windowed_harness(600.0, 8, PoissonArrivals{100}, 10 * ms, 5 * ms);
  Harness g =
      windowed_harness(600.0, 8, PoissonArrivals{100}, 10 * ms, 5 * ms, ManagedVariant::greedy);
  RecordingObserver wobs;
  RecordingObserver gobs;
  const RunResult wr = w.run(&wobs);
  const RunResult gr = g.run(&gobs);
  const double batches = static_cast<double>(wr.inference[0].batches);
  REQUIRE(batches > 5000);
  const double behind = static_cast<double>(batches_behind_training(wobs));
  INFO("windowed: " << behind << " of " << batches << " batches behind training; "
                    << wr.training->minibatches_per_s << " minibatches/s");
  CHECK(behind <= 0.01 * batches);
  // It still trains, if less than greedy (whose minibatches also fill the end of each filling
  // batch): 82 against 175 minibatches/s when this was written.
  CHECK(wr.training->minibatches_per_s > 0.4 * gr.training->minibatches_per_s);
  // Greedy, for contrast, delays most batches (the test can fail).
  CHECK(static_cast<double>(batches_behind_training(gobs)) >
        0.5 * static_cast<double>(gr.inference[0].batches));
  // A delay never exceeds one training minibatch.
  for (const RequestRecord& q : wobs.requests) REQUIRE(q.start - q.dispatch <= 5 * ms);
  // A smaller risk delays no more batches.
  Harness careful = windowed_harness(600.0, 8, PoissonArrivals{100}, 10 * ms, 5 * ms);
  careful.scenario.gpu_sharing.risk = 1e-6;
  RecordingObserver cobs;
  careful.run(&cobs);
  CHECK(batches_behind_training(cobs) <= batches_behind_training(wobs));
}

TEST_CASE("managed windowed: a partial batch's max_wait_ms deadline bounds the window") {
  // One request at 0 in a batch of 4 that never fills: dispatched at 30 ms by its timer.
  // Training (20 ms) fits once before it, not twice.
  const Time ms = kMillisecond;
  Harness h = windowed_harness(1.0, 4, TraceArrivals{"", {0.0}}, 5 * ms, 20 * ms);
  h.scenario.inference[0].max_wait_ms = 30;
  RecordingObserver obs;
  h.run(&obs);
  REQUIRE(obs.requests.size() == 1);
  CHECK(obs.requests[0].dispatch == 30 * ms);
  CHECK(obs.requests[0].start == 30 * ms);
  const std::vector<ItemRecord> items = by_start(obs.items);
  REQUIRE(items.size() >= 3);
  CHECK(items[0].phase == Phase::training);
  CHECK(items[0].start == 0);
  CHECK(items[1].phase == Phase::inference);
  CHECK(items[1].start == 30 * ms);
  // After the only batch no arrival remains: training runs back to back to the end.
  CHECK(items[2].start == 35 * ms);
}

TEST_CASE("managed windowed: two fixed-rate streams never wait behind training") {
  const Time ms = kMillisecond;
  Harness h = windowed_harness(30.0, 4, FixedArrivals{100}, 6 * ms, 7 * ms);
  h.scenario.inference.push_back(stream_spec("s1", 3, FixedArrivals{40}));
  RecordingObserver obs;
  const RunResult r = h.run(&obs);
  REQUIRE(r.training->minibatches > 100);
  CHECK(batches_behind_training(obs) == 0);
  for (const StreamResult& s : r.inference) CHECK(s.stable);
}

TEST_CASE("managed windowed: piecewise arrivals are known in advance, so no batch waits") {
  const Time ms = kMillisecond;
  PiecewiseArrivals p;
  p.segments = {{0, 100}, {5, 0}, {7, 250}, {12, 50}};
  Harness h = windowed_harness(20.0, 5, p, 8 * ms, 6 * ms);
  RecordingObserver obs;
  const RunResult r = h.run(&obs);
  REQUIRE(r.inference[0].batches > 100);
  CHECK(r.training->minibatches > 100);
  CHECK(batches_behind_training(obs) == 0);
}

TEST_CASE("managed windowed: a risk outside 1e-12..0.5 in a setup built in code is refused") {
  Harness h = windowed_harness(1.0, 4, FixedArrivals{100}, kMillisecond, kMillisecond);
  h.scenario.gpu_sharing.risk = 0;
  CHECK_THROWS_AS(h.run(), fulcrum::InputError);
}
