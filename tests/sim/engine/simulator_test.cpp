#include "sim/engine/simulator.hpp"

#include <algorithm>
#include <array>
#include <catch2/catch.hpp>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "models/random/rng_streams.hpp"

using fulcrum::models::Rng;
using fulcrum::sim::Action;
using fulcrum::sim::EventId;
using fulcrum::sim::kMillisecond;
using fulcrum::sim::kSecond;
using fulcrum::sim::Simulator;
using fulcrum::sim::Time;

TEST_CASE("a new simulator starts at time zero with nothing pending", "[simulator]") {
  Simulator sim;
  CHECK(sim.now() == 0);
  CHECK(sim.pending() == 0);
  CHECK(sim.events_processed() == 0);
  sim.run();
  CHECK(sim.now() == 0);
}

TEST_CASE("events at equal times run in scheduling order", "[simulator]") {
  Simulator sim;
  std::string order;
  sim.schedule_at(5, [&] { order += 'a'; });
  sim.schedule_at(3, [&] { order += 'x'; });
  sim.schedule_at(5, [&] { order += 'b'; });
  sim.schedule_after(5, [&] { order += 'c'; });
  sim.run();
  CHECK(order == "xabc");
  CHECK(sim.now() == 5);
  CHECK(sim.events_processed() == 4);
}

TEST_CASE("random schedules run in the same order as a stable sort by time", "[simulator]") {
  Rng rng(2024);
  Simulator sim;
  std::vector<std::pair<Time, int>> reference;
  std::vector<std::pair<Time, int>> seen;
  for (int i = 0; i < 2000; ++i) {
    const Time t = static_cast<Time>(rng.uniform_below(500));
    reference.emplace_back(t, i);
    sim.schedule_at(t, [&seen, &sim, i] { seen.emplace_back(sim.now(), i); });
  }
  std::stable_sort(reference.begin(), reference.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  sim.run();
  CHECK(seen == reference);
}

TEST_CASE("now() is the event's time while its action runs and never goes back", "[simulator]") {
  Rng rng(5);
  Simulator sim;
  Time last = -1;
  bool monotone = true;
  bool matches = true;
  for (int i = 0; i < 500; ++i) {
    const Time t = static_cast<Time>(rng.uniform_below(1'000'000));
    sim.schedule_at(t, [&, t] {
      matches = matches && sim.now() == t;
      monotone = monotone && sim.now() >= last;
      last = sim.now();
    });
  }
  sim.run();
  CHECK(matches);
  CHECK(monotone);
}

TEST_CASE("a cancelled event never runs and pending() stays exact", "[simulator]") {
  Simulator sim;
  int runs = 0;
  const EventId a = sim.schedule_at(10, [&] { ++runs; });
  const EventId b = sim.schedule_at(20, [&] { ++runs; });
  sim.schedule_at(30, [&] { ++runs; });
  CHECK(sim.pending() == 3);
  CHECK(sim.cancel(b));
  CHECK(sim.pending() == 2);
  CHECK_FALSE(sim.cancel(b));
  CHECK(sim.pending() == 2);
  sim.run();
  CHECK(runs == 2);
  CHECK(sim.events_processed() == 2);
  CHECK_FALSE(sim.cancel(a));  // already ran
  CHECK(sim.pending() == 0);
}

TEST_CASE("an action can cancel a later event", "[simulator]") {
  Simulator sim;
  bool later_ran = false;
  const EventId later = sim.schedule_at(100, [&] { later_ran = true; });
  bool cancelled = false;
  sim.schedule_at(50, [&] { cancelled = sim.cancel(later); });
  sim.run();
  CHECK(cancelled);
  CHECK_FALSE(later_ran);
  CHECK(sim.now() == 50);
}

TEST_CASE("an action cancelling its own id gets false: it is no longer pending", "[simulator]") {
  Simulator sim;
  EventId self;
  bool result = true;
  self = sim.schedule_at(1, [&] { result = sim.cancel(self); });
  sim.run();
  CHECK_FALSE(result);
}

TEST_CASE("run_until leaves now() at the horizon and does not run later events", "[simulator]") {
  Simulator sim;
  std::vector<Time> ran;
  for (const Time t : {Time{10}, Time{20}, Time{30}}) {
    sim.schedule_at(t, [&] { ran.push_back(sim.now()); });
  }
  sim.run_until(25);
  CHECK(ran == std::vector<Time>{10, 20});
  CHECK(sim.now() == 25);
  CHECK(sim.pending() == 1);
  sim.run_until(25);  // an empty step is fine
  CHECK(sim.now() == 25);
  sim.run_until(1000);
  CHECK(ran == std::vector<Time>{10, 20, 30});
  CHECK(sim.now() == 1000);
}

TEST_CASE("events exactly at the horizon run, including ones scheduled there while running",
          "[simulator]") {
  Simulator sim;
  int at_horizon = 0;
  sim.schedule_at(kSecond, [&] {
    ++at_horizon;
    sim.schedule_after(0, [&] { ++at_horizon; });
    sim.schedule_after(1, [&] { ++at_horizon; });  // one past the horizon: must wait
  });
  sim.run_until(kSecond);
  CHECK(at_horizon == 2);
  CHECK(sim.now() == kSecond);
  CHECK(sim.pending() == 1);
}

TEST_CASE("run_until with nothing pending just advances the clock", "[simulator]") {
  Simulator sim;
  sim.run_until(3 * kSecond);
  CHECK(sim.now() == 3 * kSecond);
  sim.schedule_after(kMillisecond, [] {});
  CHECK(sim.next_event_time() == 3 * kSecond + kMillisecond);
}

TEST_CASE("stop() inside an action ends the run after that action", "[simulator]") {
  Simulator sim;
  std::vector<int> ran;
  sim.schedule_at(1, [&] { ran.push_back(1); });
  sim.schedule_at(2, [&] {
    ran.push_back(2);
    sim.stop();
  });
  sim.schedule_at(2, [&] { ran.push_back(3); });
  sim.schedule_at(4, [&] { ran.push_back(4); });
  sim.run();
  CHECK(ran == std::vector<int>{1, 2});
  CHECK(sim.now() == 2);
  CHECK(sim.pending() == 2);
  sim.run();  // a new run resumes where the last one stopped
  CHECK(ran == std::vector<int>{1, 2, 3, 4});
  CHECK(sim.now() == 4);
}

TEST_CASE("stop() inside run_until leaves now() at the stopping event", "[simulator]") {
  Simulator sim;
  sim.schedule_at(10, [&] { sim.stop(); });
  sim.schedule_at(20, [] {});
  sim.run_until(100);
  CHECK(sim.now() == 10);
  CHECK(sim.pending() == 1);
  sim.run_until(100);
  CHECK(sim.now() == 100);
  CHECK(sim.pending() == 0);
}

TEST_CASE("events scheduled from inside actions run at their times", "[simulator]") {
  Simulator sim;
  std::vector<Time> ticks;
  // A self-rescheduling ticker: every 10 ms until 100 ms.
  struct Ticker {
    Simulator* sim;
    std::vector<Time>* ticks;
    void operator()() const {
      ticks->push_back(sim->now());
      if (sim->now() < 100 * kMillisecond) sim->schedule_after(10 * kMillisecond, *this);
    }
  };
  sim.schedule_at(0, Ticker{&sim, &ticks});
  sim.run();
  REQUIRE(ticks.size() == 11);
  for (std::size_t i = 0; i < ticks.size(); ++i) {
    CHECK(ticks[i] == static_cast<Time>(i) * 10 * kMillisecond);
  }
  CHECK(sim.events_processed() == 11);
}

TEST_CASE("schedule_after(0) runs after events already pending at the same time", "[simulator]") {
  Simulator sim;
  std::string order;
  sim.schedule_at(5, [&] {
    order += 'a';
    sim.schedule_after(0, [&] { order += 'z'; });
  });
  sim.schedule_at(5, [&] { order += 'b'; });
  sim.schedule_at(5, [&] { order += 'c'; });
  sim.run();
  CHECK(order == "abcz");
}

TEST_CASE("actions with large captures are stored and run correctly", "[simulator]") {
  Simulator sim;
  std::vector<int> big(100, 1);   // a vector by value: not trivially copyable
  std::array<double, 32> wide{};  // 256 bytes: larger than the inline buffer
  wide[31] = 2.5;
  int sum = 0;
  double last = 0;
  sim.schedule_at(1, [&sum, big] {
    for (const int v : big) sum += v;
  });
  sim.schedule_at(2, [&last, wide] { last = wide[31]; });
  auto owned = std::make_unique<int>(7);
  int moved_in = 0;
  sim.schedule_at(3, [&moved_in, p = std::move(owned)] { moved_in = *p; });
  // Grow the slot pool while those actions wait, so they are relocated at least once.
  for (int i = 0; i < 1000; ++i) sim.schedule_at(4, [] {});
  sim.run();
  CHECK(sum == 100);
  CHECK(last == 2.5);
  CHECK(moved_in == 7);
}

TEST_CASE("actions that are never run are destroyed with the simulator", "[simulator]") {
  auto token = std::make_shared<int>(0);
  {
    Simulator sim;
    sim.schedule_at(1, [token] { (void)token; });
    CHECK(token.use_count() == 2);
  }
  CHECK(token.use_count() == 1);
}

TEST_CASE("Action is move-only and empty after being moved from", "[action]") {
  STATIC_REQUIRE_FALSE(std::is_copy_constructible_v<Action>);
  STATIC_REQUIRE(std::is_nothrow_move_constructible_v<Action>);
  int hits = 0;
  Action a = [&hits] { ++hits; };
  Action b = std::move(a);
  CHECK_FALSE(
      static_cast<bool>(a));  // NOLINT(bugprone-use-after-move): checking the moved-from state
  REQUIRE(static_cast<bool>(b));
  b();
  b();
  CHECK(hits == 2);
}

TEST_CASE("a virtual clock reads what it was advanced to, through the Clock interface", "[clock]") {
  fulcrum::sim::VirtualClock clock;
  const fulcrum::sim::Clock& as_clock = clock;
  CHECK(as_clock.now() == 0);
  clock.advance_to(5 * kMillisecond);
  clock.advance_to(5 * kMillisecond);  // standing still is allowed
  CHECK(as_clock.now() == 5 * kMillisecond);
}

TEST_CASE("an action keeps its captures intact while it schedules enough events to grow the pool",
          "[simulator]") {
  // Actions run in their queue slot; scheduling thousands of events from inside one must not
  // move or overwrite the running action's captures.
  Simulator sim;
  std::vector<int> ran;
  const std::string label = "a capture long enough to live outside the small-string buffer";
  sim.schedule_at(1, [&sim, &ran, label] {
    for (int i = 0; i < 5000; ++i) sim.schedule_at(2, [&ran, i] { ran.push_back(i); });
    CHECK(label == "a capture long enough to live outside the small-string buffer");
    ran.push_back(-1);
  });
  sim.run();
  REQUIRE(ran.size() == 5001);
  CHECK(ran.front() == -1);
  for (int i = 0; i < 5000; ++i) CHECK(ran[static_cast<std::size_t>(i) + 1] == i);
  CHECK(sim.pending() == 0);
}

TEST_CASE("an action that throws is destroyed and its slot reused, later events still run",
          "[simulator]") {
  Simulator sim;
  auto token = std::make_shared<int>(0);
  sim.schedule_at(1, [token] { throw std::runtime_error("boom"); });
  int later = 0;
  sim.schedule_at(2, [&later] { ++later; });
  CHECK_THROWS_AS(sim.run(), std::runtime_error);
  CHECK(token.use_count() == 1);  // the thrown-from action (and its capture) is gone
  sim.run();
  CHECK(later == 1);
  // The freed slots are handed out again and run normally.
  for (int i = 0; i < 10; ++i) sim.schedule_after(1, [&later] { ++later; });
  sim.run();
  CHECK(later == 11);
}

TEST_CASE("prebuilt Actions and lambdas schedule into the same order", "[simulator]") {
  Simulator sim;
  std::vector<int> order;
  Action first = [&order] { order.push_back(0); };
  sim.schedule_at(5, std::move(first));
  sim.schedule_at(5, [&order] { order.push_back(1); });
  sim.schedule_after(5, Action([&order] { order.push_back(2); }));
  const auto named = [&order] { order.push_back(3); };
  sim.schedule_after(5, named);  // an lvalue callable is copied in
  sim.run();
  CHECK(order == std::vector<int>{0, 1, 2, 3});
}

TEST_CASE("paced by a wall clock, each event runs no earlier than its time in real time",
          "[simulator][wall]") {
  fulcrum::sim::WallClock wall;
  Simulator sim;
  sim.pace_with(&wall);
  std::vector<std::pair<Time, Time>> ran;  // (event time, real time when it ran)
  for (Time t : {Time{0}, 5 * kMillisecond, 12 * kMillisecond, 20 * kMillisecond}) {
    sim.schedule_at(t, [&ran, &sim, &wall] { ran.emplace_back(sim.now(), wall.now()); });
  }
  wall.restart();
  sim.run_until(30 * kMillisecond);
  REQUIRE(ran.size() == 4);
  for (const auto& [at, real] : ran) CHECK(real >= at);
  CHECK(wall.now() >= 30 * kMillisecond);  // run_until returns no earlier than its horizon
  CHECK(sim.now() == 30 * kMillisecond);
  CHECK(sim.lateness().events == 4);
}

TEST_CASE("paced by a wall clock, an event due during a long action runs late and says so",
          "[simulator][wall]") {
  fulcrum::sim::WallClock wall;
  Simulator sim;
  sim.pace_with(&wall);
  Time second_ran_at = -1;
  // The first action blocks for 20 ms of real time, as a backend executing real work does; the
  // second was due 5 ms in, so it runs at least 15 ms late, at its own simulated time.
  sim.schedule_at(0, [&wall] { wall.sleep_until(20 * kMillisecond); });
  sim.schedule_at(5 * kMillisecond, [&second_ran_at, &sim] { second_ran_at = sim.now(); });
  wall.restart();
  sim.run();
  CHECK(second_ran_at == 5 * kMillisecond);
  CHECK(sim.lateness().events == 2);
  CHECK(sim.lateness().max >= 15 * kMillisecond);
  CHECK(sim.lateness().late_events >= 1);
  CHECK(sim.lateness().total >= sim.lateness().max);
}

TEST_CASE("an unpaced simulator records no lateness", "[simulator]") {
  Simulator sim;
  sim.schedule_at(kSecond, [] {});
  sim.run();
  CHECK(sim.lateness().events == 0);
  CHECK(sim.lateness().max == 0);
}

TEST_CASE("a paced run wakes for an action posted from another thread and runs it at its time",
          "[simulator][wall]") {
  fulcrum::sim::WallClock wall;
  Simulator sim;
  sim.pace_with(&wall);
  const Time horizon = 5 * kSecond;
  Time posted_after = -1, ran_at = -1, follow_up_at = -1;
  wall.restart();
  // Nothing is scheduled: the run waits for its horizon, and the post must cut that wait short.
  std::thread worker([&] {
    wall.sleep_until(10 * kMillisecond);
    posted_after = wall.now();
    sim.post([&] {
      ran_at = sim.now();
      sim.schedule_after(kMillisecond, [&] {
        follow_up_at = sim.now();
        sim.stop();
      });
    });
  });
  sim.run_until(horizon);
  worker.join();
  REQUIRE(ran_at >= 0);
  CHECK(ran_at >= posted_after);  // scheduled at the wall-clock time of the post
  CHECK(ran_at < horizon);        // not held back until the horizon
  CHECK(follow_up_at == ran_at + kMillisecond);
  CHECK(sim.now() == follow_up_at);  // stopped there, well before the horizon
}

TEST_CASE("posted actions run in the order of their times among the scheduled events",
          "[simulator][wall]") {
  fulcrum::sim::WallClock wall;
  Simulator sim;
  sim.pace_with(&wall);
  std::vector<int> order;
  wall.restart();
  // Posted at once, before the run starts: due at about 0, so before the event at 20 ms.
  sim.post([&] { order.push_back(1); });
  sim.post([&] { order.push_back(2); });
  sim.schedule_at(20 * kMillisecond, [&] { order.push_back(3); });
  sim.run_until(30 * kMillisecond);
  CHECK(order == std::vector<int>{1, 2, 3});
  CHECK(wall.now() >= 30 * kMillisecond);
}
