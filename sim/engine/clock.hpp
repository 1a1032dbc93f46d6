// Clock: where "now" comes from. The simulator runs on a VirtualClock that jumps from event to
// event. A WallClock measures real time; a simulator paced by one (Simulator::pace_with) runs each
// event no earlier than its time in real time, as ns-3's real-time simulator does, so that a
// hardware backend sees arrivals released at their real times.
#pragma once

#include <cassert>
#include <chrono>
#include <thread>

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

// Real time elapsed since construction or the last restart(), from the monotonic steady clock.
class WallClock final : public Clock {
 public:
  WallClock() : start_(std::chrono::steady_clock::now()) {}

  Time now() const override {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() -
                                                                start_)
        .count();
  }

  // Blocks until now() >= t (returns at once when that is already so).
  void sleep_until(Time t) const { std::this_thread::sleep_until(at(t)); }

  // The steady-clock instant of time `t` on this clock.
  std::chrono::steady_clock::time_point at(Time t) const {
    return start_ + std::chrono::nanoseconds(t);
  }

  // Time 0 is now.
  void restart() { start_ = std::chrono::steady_clock::now(); }

 private:
  std::chrono::steady_clock::time_point start_;
};

}  // namespace fulcrum::sim
