#include <algorithm>
#include <catch2/catch.hpp>
#include <vector>

#include "runtime_fakes.hpp"

using namespace fulcrum::sim;
using namespace fulcrum::sim::testing;
using fulcrum::models::Phase;

namespace {

struct Observed {
  RunResult result;
  std::vector<RequestRecord> requests;
  std::vector<ItemRecord> items;
};

// 20 s of training next to a Poisson stream with max_wait_ms: every kind of event.
Harness busy_harness() {
  Harness h;
  h.scenario = base_scenario(20.0);
  h.scenario.training = training_spec(16);
  h.scenario.inference.push_back(stream_spec("s0", 4, PoissonArrivals{60}, 30.0));
  h.backend.set(h.train, Phase::training, {30, 0});
  h.backend.set(h.infer, Phase::inference, {12, 0});
  return h;
}

Observed busy_run(ProgressFn progress) {
  Harness h = busy_harness();
  RecordingObserver obs;
  Observed o;
  o.result = h.run(&obs, std::move(progress));
  o.requests = obs.requests;
  o.items = obs.items;
  return o;
}

}  // namespace

TEST_CASE("progress is reported in steps of simulated time, rising to the end") {
  std::vector<Time> reached;
  Time end_seen = 0;
  busy_run([&](Time at, Time end) {
    reached.push_back(at);
    end_seen = end;
  });
  REQUIRE(end_seen == 20 * kSecond);
  CHECK(reached.size() == static_cast<std::size_t>(kProgressSteps));
  CHECK(std::is_sorted(reached.begin(), reached.end()));
  CHECK(reached.front() == end_seen / kProgressSteps);
  CHECK(reached.back() == end_seen);
}

TEST_CASE("a run reporting progress gives exactly the results of one that does not") {
  int calls = 0;
  const Observed with = busy_run([&](Time, Time) { ++calls; });
  const Observed without = busy_run({});
  CHECK(calls > 0);
  REQUIRE(with.requests.size() == without.requests.size());
  for (std::size_t i = 0; i < with.requests.size(); ++i) {
    CHECK(with.requests[i].arrival == without.requests[i].arrival);
    CHECK(with.requests[i].completion == without.requests[i].completion);
  }
  REQUIRE(with.items.size() == without.items.size());
  for (std::size_t i = 0; i < with.items.size(); ++i) {
    CHECK(with.items[i].start == without.items[i].start);
    CHECK(with.items[i].context == without.items[i].context);
  }
  CHECK(with.result.events_processed == without.result.events_processed);
  CHECK(with.result.power.energy_j == without.result.power.energy_j);
  CHECK(with.result.inference[0].latency->p99_ms == without.result.inference[0].latency->p99_ms);
}

TEST_CASE("an observer hears the run advance, and nothing it hears later is at or before then") {
  // Everything an observer is told, in order, by its time: what PowerCsv relies on to write the
  // samples before an advance as settled.
  class TimeLog final : public RunObserver {
   public:
    void on_request(const RequestRecord& r) override { check(r.completion); }
    void on_item(const ItemRecord& item) override { check(item.end); }
    void on_power(Time at, const std::vector<double>&) override { check(at); }
    void on_queue_length(int, Time at, std::size_t) override { check(at); }
    void on_advance(Time now) override {
      CHECK(now > last_advance);
      last_advance = now;
      advances.push_back(now);
    }
    void check(Time at) {
      ++reports;
      if (at <= last_advance) ++reports_in_the_past;
    }
    std::vector<Time> advances;
    Time last_advance = -1;
    int reports = 0;
    int reports_in_the_past = 0;
  };
  Harness h = busy_harness();
  TimeLog log;
  h.run(&log);  // no progress display: the observer alone asks for the steps
  REQUIRE(log.advances.size() == static_cast<std::size_t>(kProgressSteps - 1));
  CHECK(log.advances.front() == 20 * kMillisecond);  // every 1/1000 of the run
  CHECK(log.advances.back() == 19'980 * kMillisecond);
  CHECK(log.reports > 1000);
  CHECK(log.reports_in_the_past == 0);
}
