// Clock: where "now" comes from. The simulator runs on a VirtualClock that jumps from event to
// event; a wall clock (sleeping until the next event's real time) comes with the hardware backend.
#pragma once

#include <cassert>

#include "sim/engine/time.hpp"

namespace fulcrum::sim {

class Clock {
 public:
  virtual ~Clock() = default;
  virtual Time now() const = 0;
};

// Virtual time: advances only when told to, and never backwards.
class VirtualClock final : public Clock {
 public:
  Time now() const override { return now_; }

  // Precondition: t >= now().
  void advance_to(Time t) {
    assert(t >= now_ && "virtual time must not go backwards");
    now_ = t;
  }

 private:
  Time now_ = 0;
};

}  // namespace fulcrum::sim
