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
  clock_.advance_to(horizon);
}

}  // namespace fulcrum::sim
