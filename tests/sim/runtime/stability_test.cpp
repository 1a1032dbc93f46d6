// Stability rules of sim/runtime/stability.hpp on backlogs written by hand.
#include "sim/runtime/stability.hpp"

#include <catch2/catch.hpp>

#include "sim/engine/time.hpp"

using fulcrum::sim::instability_reason;
using fulcrum::sim::is_stable;
using fulcrum::sim::kMillisecond;
using fulcrum::sim::StreamBacklog;

namespace {

// A replayed trace (no steady rate): batches of 8 at a mean of 10 requests/s over 300 s, each
// batch 50 ms alone, so a full batch is far quicker than the 800 ms it takes to fill.
StreamBacklog trace_stream() {
  StreamBacklog s;
  s.batch_size = 8;
  s.rate_per_s = 10;
  s.steady_rate = false;
  s.full_batch_time = 50 * kMillisecond;
  s.cap = 1000000;
  s.duration_s = 300;
  return s;
}

}  // namespace

TEST_CASE("a trace burst with 99.7% of its requests still queued at the end is not stable",
          "[stability]") {
  // 3,000 requests arrived in one burst before mid-run; 10 were served, 2,990 wait. The backlog
  // did not grow over the second half (2,990 at mid-run and at the end), which alone would pass.
  StreamBacklog s = trace_stream();
  s.arrived = 3000;
  s.backlog_mid = 2990;
  s.backlog_end = 2990;
  s.batches_dispatched = 2;
  s.dispatches_partial = true;
  CHECK_FALSE(is_stable(s));
  // 2990 / 3000 = 99.67%: printed with one decimal.
  CHECK(instability_reason(s, std::nullopt, "managed") ==
        "2,990 of the 3,000 requests admitted (99.7%) were still queued at the end of the run, "
        "more than were completed (10)");
}

TEST_CASE("a run that ends with a backlog smaller than what it completed stays stable",
          "[stability]") {
  StreamBacklog s = trace_stream();
  s.arrived = 3000;
  s.batches_dispatched = 300;
  s.dispatches_partial = true;
  SECTION("a burst still being served: 1,500 queued, 1,500 completed (not more than half)") {
    s.backlog_mid = 1500;
    s.backlog_end = 1500;
    CHECK(is_stable(s));
  }
  SECTION("more queued than completed, but within the noise floor of 4 batches (32 requests)") {
    s.arrived = 50;
    s.backlog_mid = 32;
    s.backlog_end = 32;  // 18 completed; 32 is not above max(4 x 8, 1 s x 10/s) = 32
    CHECK(is_stable(s));
    s.backlog_end = 33;  // 33 > 32 and 33 > 17 completed: behind
    s.backlog_mid = 33;
    CHECK_FALSE(is_stable(s));
  }
}

TEST_CASE("dropped requests count neither as queued nor as completed", "[stability]") {
  // 10,000 arrived, 9,000 dropped at the cap, 600 queued, 400 completed: of the 1,000 admitted,
  // 60% still wait (the cap's own rule also fires, so the reason names the cap).
  StreamBacklog s = trace_stream();
  s.arrived = 10000;
  s.dropped = 9000;
  s.cap = 600;
  s.overflow_at = 20 * fulcrum::sim::kSecond;
  s.backlog_mid = 600;
  s.backlog_end = 600;
  s.batches_dispatched = 50;
  CHECK_FALSE(is_stable(s));
  const std::string reason = instability_reason(s, std::nullopt, "managed");
  CHECK_THAT(reason, Catch::StartsWith("600 of the 1,000 requests admitted (60.0%)"));
  CHECK_THAT(reason, Catch::Contains("the backlog hit its cap of 600 requests at 20.0 s"));
}
