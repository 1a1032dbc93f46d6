#include "sim/engine/simulator.hpp"

#include <cassert>
#include <utility>

namespace fulcrum::sim {

bool Simulator::cancel(EventId id) { return queue_.cancel(id); }

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
  if (wall_ != nullptr) wall_->sleep_until(horizon);
  clock_.advance_to(horizon);
}

void Simulator::wait_for_wall_clock(Time t) {
  wall_->sleep_until(t);
  const Time late = wall_->now() - t;
  ++lateness_.events;
  lateness_.total += late;
  if (late > lateness_.max) lateness_.max = late;
  if (late > Lateness::kTolerance) ++lateness_.late_events;
}

}  // namespace fulcrum::sim
