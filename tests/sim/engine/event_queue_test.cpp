#include "sim/engine/event_queue.hpp"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "models/random/rng_streams.hpp"

using fulcrum::models::Rng;
using fulcrum::sim::Action;
using fulcrum::sim::EventId;
using fulcrum::sim::EventQueue;
using fulcrum::sim::Time;

namespace {

// Pops everything, running each action, and returns the times seen.
std::vector<Time> drain(EventQueue& q) {
  std::vector<Time> times;
  while (!q.empty()) {
    EventQueue::Event e = q.pop();
    times.push_back(e.time);
    e.action();
  }
  return times;
}

}  // namespace

TEST_CASE("events at equal times come out in the order they were pushed", "[event_queue]") {
  EventQueue q;
  std::vector<int> order;
  for (int i = 0; i < 50; ++i) q.push(7, [&order, i] { order.push_back(i); });
  drain(q);
  std::vector<int> expected(50);
  for (int i = 0; i < 50; ++i) expected[i] = i;
  CHECK(order == expected);
}

TEST_CASE("random schedules come out sorted by time, then by push order", "[event_queue]") {
  Rng rng(12345);
  for (const int n : {1, 2, 5, 10, 100, 3000}) {
    EventQueue q;
    std::vector<std::pair<Time, int>> reference;
    std::vector<std::pair<Time, int>> seen;
    for (int i = 0; i < n; ++i) {
      // Few distinct times so ties are common.
      const Time t = static_cast<Time>(rng.uniform_below(static_cast<std::uint64_t>(n / 3 + 1)));
      reference.emplace_back(t, i);
      q.push(t, [&seen, t, i] { seen.emplace_back(t, i); });
    }
    std::stable_sort(reference.begin(), reference.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    drain(q);
    CHECK(seen == reference);
  }
}

TEST_CASE("interleaved pushes and pops keep time order", "[event_queue]") {
  Rng rng(99);
  EventQueue q;
  Time last = 0;
  Time now = 0;
  for (int i = 0; i < 20; ++i) q.push(static_cast<Time>(rng.uniform_below(1000)), [] {});
  int popped = 0;
  while (!q.empty() && popped < 100000) {
    EventQueue::Event e = q.pop();
    REQUIRE(e.time >= last);
    last = e.time;
    now = e.time;
    ++popped;
    if (popped < 90000) q.push(now + static_cast<Time>(rng.uniform_below(1000)), [] {});
  }
  CHECK(popped == 90019);
  CHECK(q.empty());
}

TEST_CASE("a cancelled event never comes out and size counts only live events", "[event_queue]") {
  EventQueue q;
  std::vector<int> ran;
  std::vector<EventId> ids;
  for (int i = 0; i < 10; ++i) ids.push_back(q.push(i, [&ran, i] { ran.push_back(i); }));
  REQUIRE(q.size() == 10);
  CHECK(q.cancel(ids[0]));  // the top
  CHECK(q.cancel(ids[5]));
  CHECK(q.cancel(ids[9]));
  CHECK(q.size() == 7);
  CHECK_FALSE(q.cancel(ids[5]));  // twice is a no-op
  CHECK(q.size() == 7);
  CHECK(q.next_time() == Time{1});
  drain(q);
  CHECK(ran == std::vector<int>{1, 2, 3, 4, 6, 7, 8});
}

TEST_CASE("cancelling an event that already came out is a no-op", "[event_queue]") {
  EventQueue q;
  const EventId a = q.push(1, [] {});
  q.push(2, [] {});
  EventQueue::Event e = q.pop();
  CHECK(e.id == a);
  CHECK_FALSE(q.is_pending(a));
  CHECK_FALSE(q.cancel(a));
  CHECK(q.size() == 1);
  // The freed slot is reused; the old id must not reach the new event.
  const EventId c = q.push(3, [] {});
  CHECK(c != a);
  CHECK_FALSE(q.cancel(a));
  CHECK(q.is_pending(c));
  CHECK(q.size() == 2);
}

TEST_CASE("an id that never named an event cancels nothing", "[event_queue]") {
  EventQueue q;
  q.push(1, [] {});
  CHECK_FALSE(q.cancel(EventId{}));
  CHECK_FALSE(q.cancel(EventId{0xffff'ffff'0000'0000ULL | 12345}));
  CHECK(q.size() == 1);
}

TEST_CASE("mass cancellation keeps the live count exact and the survivors in order",
          "[event_queue]") {
  Rng rng(7);
  EventQueue q;
  std::vector<std::pair<Time, EventId>> events;
  for (int i = 0; i < 5000; ++i) {
    const Time t = static_cast<Time>(rng.uniform_below(100000));
    events.emplace_back(t, q.push(t, [] {}));
  }
  std::vector<Time> expected;
  std::size_t live = events.size();
  for (std::size_t i = 0; i < events.size(); ++i) {
    if (i % 10 != 0) {  // cancel 90%: enough to trigger sweeps
      REQUIRE(q.cancel(events[i].second));
      --live;
      REQUIRE(q.size() == live);
    } else {
      expected.push_back(events[i].first);
    }
  }
  std::sort(expected.begin(), expected.end());
  CHECK(drain(q) == expected);
}

TEST_CASE("cancel destroys the action and its captures at once", "[event_queue]") {
  EventQueue q;
  auto token = std::make_shared<int>(1);
  const EventId id = q.push(5, [token] { (void)token; });
  q.push(1, [] {});
  CHECK(token.use_count() == 2);
  CHECK(q.cancel(id));
  CHECK(token.use_count() == 1);
}

TEST_CASE("clear drops every pending event without running it", "[event_queue]") {
  EventQueue q;
  int runs = 0;
  const EventId id = q.push(1, [&runs] { ++runs; });
  q.push(2, [&runs] { ++runs; });
  q.clear();
  CHECK(q.empty());
  CHECK_FALSE(q.next_time().has_value());
  CHECK_FALSE(q.cancel(id));
  q.push(3, [&runs] { ++runs; });
  CHECK_FALSE(q.cancel(id));  // a stale id must not reach an event pushed after the clear
  drain(q);
  CHECK(runs == 1);
}
