#include "sim/engine/simulator.hpp"

#include <cassert>
#include <utility>

namespace fulcrum::sim {

EventId Simulator::schedule_at(Time t, Action action) {
  assert(t >= now() && "scheduling an event in the past");
  return queue_.push(t, std::move(action));
}

EventId Simulator::schedule_after(Time delay, Action action) {
  assert(delay >= 0 && "negative delay");
  return queue_.push(now() + delay, std::move(action));
}

bool Simulator::cancel(EventId id) { return queue_.cancel(id); }

void Simulator::run_next() {
  EventQueue::Event event = queue_.pop();
  assert(event.time >= now() && "event time went backwards");
  clock_.advance_to(event.time);
  ++events_processed_;
  event.action();
}

void Simulator::run() {
  stop_requested_ = false;
  while (!stop_requested_ && !queue_.empty()) run_next();
  stop_requested_ = false;
}

void Simulator::run_until(Time horizon) {
  assert(horizon >= now() && "run_until() into the past");
  stop_requested_ = false;
  for (;;) {
    if (stop_requested_) {
      stop_requested_ = false;
      return;
    }
    const std::optional<Time> next = queue_.next_time();
    if (!next || *next > horizon) break;
    run_next();
  }
  clock_.advance_to(horizon);
}

}  // namespace fulcrum::sim
