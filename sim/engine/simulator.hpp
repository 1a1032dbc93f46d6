// Simulator: owns simulated time and runs pending actions in (time, scheduling order). A plain
// value type -- several can coexist (one per sweep point, one per thread); nothing is global.
//
//   Simulator sim;
//   sim.schedule_after(10 * kMillisecond, [&] { sim.schedule_after(kMillisecond, [] {}); });
//   sim.run_until(600 * kSecond);         // now() == 600 s afterwards
//
// Actions take no arguments: they capture what they need (usually `this` of their owner, which
// can reach the Simulator). They may schedule, cancel and call stop() freely while running.
//
// Paced by a WallClock (pace_with), it runs in real time, best effort as in ns-3's real-time
// simulator: each event waits until its time has come on the wall clock; an event that comes due
// while an earlier action is still running (a backend executing real work) runs as soon as it can,
// and how late it ran is recorded. now() stays the events' own times either way. Other threads
// (workers executing items concurrently on a device) hand it actions with post(), which a paced
// run takes at once, even while it waits for the wall clock, and runs as events at the real time
// they were posted.
#pragma once

#include <cassert>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <type_traits>
#include <utility>

#include "sim/engine/action.hpp"
#include "sim/engine/clock.hpp"
#include "sim/engine/event_id.hpp"
#include "sim/engine/event_queue.hpp"
#include "sim/engine/time.hpp"

namespace fulcrum::sim {

// How far behind real time the events of a paced run ran (all zero when not paced).
struct Lateness {
  static constexpr Time kTolerance = kMillisecond;  // later than this counts as late

  std::uint64_t events = 0;       // events run while paced
  std::uint64_t late_events = 0;  // of which ran more than kTolerance after their time
  Time max = 0;                   // the largest lateness
  Time total = 0;                 // summed over `events` (mean = total / events)
};

class Simulator {
 public:
  Simulator();
  ~Simulator();
  // Movable between runs, not while one is in progress (actions usually hold a reference).
  Simulator(Simulator&&) noexcept;
  Simulator& operator=(Simulator&&) noexcept;
  Simulator(const Simulator&) = delete;
  Simulator& operator=(const Simulator&) = delete;

  // Simulated time: the time of the event being run, or where the last run stopped.
  Time now() const { return clock_.now(); }

  // Runs `action` at absolute time `t`. Precondition: t >= now(). Events at equal times run in
  // the order they were scheduled.
  EventId schedule_at(Time t, Action action) {
    assert(t >= now() && "scheduling an event in the past");
    return queue_.push(t, std::move(action));
  }

  // Runs `action` `delay` after now(). Precondition: delay >= 0. schedule_after(0, a) runs `a`
  // after every event already pending at now().
  EventId schedule_after(Time delay, Action action) {
    assert(delay >= 0 && "negative delay");
    return queue_.push(now() + delay, std::move(action));
  }

  // The same for a lambda or other callable: it is built directly in the queue's slot instead of
  // in a temporary Action that is then moved there. Inline, so that callers' schedules inline.
  template <typename F>
  requires(!std::same_as<std::remove_cvref_t<F>, Action> &&
           std::is_invocable_r_v<void, std::decay_t<F>&>) EventId schedule_at(Time t, F&& f) {
    assert(t >= now() && "scheduling an event in the past");
    return queue_.emplace(t, std::forward<F>(f));
  }
  template <typename F>
  requires(!std::same_as<std::remove_cvref_t<F>, Action> &&
           std::is_invocable_r_v<void, std::decay_t<F>&>) EventId
      schedule_after(Time delay, F&& f) {
    assert(delay >= 0 && "negative delay");
    return queue_.emplace(now() + delay, std::forward<F>(f));
  }

  // Removes a pending event. Returns false if it already ran, was cancelled, or is unknown.
  bool cancel(EventId id);

  // Whether `id` is still waiting to run.
  bool is_pending(EventId id) const { return queue_.is_pending(id); }

  // Runs events until none is pending or an action calls stop().
  void run();

  // Runs every event with time <= horizon (including ones scheduled at the horizon while
  // running), then sets now() to horizon. Precondition: horizon >= now(). If an action calls
  // stop(), returns at once and now() stays at that action's time.
  void run_until(Time horizon);

  // Asks the running run()/run_until() to return after the current action. A request made
  // outside a run is forgotten: each run starts unstopped.
  void stop() { stop_requested_ = true; }

  // Actions run so far, over every run.
  std::uint64_t events_processed() const { return events_processed_; }

  // Events waiting to run (cancelled ones not counted).
  std::size_t pending() const { return queue_.size(); }

  // Time of the next pending event, or nullopt if none.
  std::optional<Time> next_event_time() const { return queue_.next_time(); }

  // From now on, runs each event no earlier than its time on `wall` (which must outlive the runs;
  // restart it so that its 0 is this simulator's now()), and run_until() returns no earlier than
  // its horizon. nullptr: back to running as fast as possible.
  void pace_with(const WallClock* wall);
  const Lateness& lateness() const { return lateness_; }

  // Paced simulators only; thread-safe, the one member that is. Hands `action` over from another
  // thread: the next run_until() takes it as soon as it can (waking from a wait for the wall clock
  // to do so) and schedules it at the wall-clock time of this call, or at now() if the simulation
  // has passed that time already; it then runs in (time, scheduling order) as any event does. An
  // action posted after the last run_until() returned never runs.
  void post(Action action);

 private:
  // Pops and runs the earliest event: the ns-3 loop body (pop, check time, set now, run). The
  // action runs in its queue slot, so nothing is moved per event.
  void run_next() {
    queue_.run_next([this](Time t) {
      assert(t >= now() && "event time went backwards");
      if (wall_ != nullptr) wait_for_wall_clock(t);
      clock_.advance_to(t);
      ++events_processed_;
    });
  }

  // Paced runs: sleeps until `t` on the wall clock, or records how late `t` has come.
  void wait_for_wall_clock(Time t);
  // Paced runs: blocks until `t` on the wall clock (true) or until an action is posted (false).
  bool wait_or_posted(Time t);
  // Moves the posted actions into the queue.
  void take_posted();

  // Actions posted from other threads, with the wall-clock times they were posted at.
  struct Inbox;

  VirtualClock clock_;
  const WallClock* wall_ = nullptr;
  std::unique_ptr<Inbox> inbox_;  // made by pace_with: only a paced run takes posts
  Lateness lateness_;
  EventQueue queue_;
  std::uint64_t events_processed_ = 0;
  bool stop_requested_ = false;
};

}  // namespace fulcrum::sim
