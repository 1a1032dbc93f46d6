// ArrivalProcess: the request arrival times of one inference stream, produced one at a time so
// that each arrival is one engine event that schedules the next (nothing is pre-generated).
//
//   ArrivalProcess a(spec.arrivals, models::RngStreams(seed), "resnet50-0", 600 * kSecond);
//   while (std::optional<Time> t = a.next()) { ... }   // ascending, every t < end
//
// Rules (docs/METRICS.md, "Arrival processes"):
//  - fixed: request k arrives at k / rate (rounded to the nanosecond), the first at t = 0.
//  - poisson: exponential gaps drawn from the stream's own RNG stream "arrivals/<name>"; the first
//    arrival is one gap after t = 0.
//  - piecewise, evenly spaced: within segment [a, b) at rate r, arrivals at a + j / r for
//    j = 0, 1, ... while < b (ceil((b - a) r) arrivals); a zero-rate segment has none.
//  - piecewise, Poisson: exponential gaps at the segment's rate; a gap that crosses into the next
//    segment is discarded and drawing restarts at the boundary (exact for piecewise-constant
//    rates, because the exponential is memoryless).
//  - trace: the given times, those before `end`.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "models/random/rng_streams.hpp"
#include "sim/engine/time.hpp"
#include "sim/scenario/scenario.hpp"

namespace fulcrum::sim {

class ArrivalProcess {
 public:
  // Throws InputError for a rate <= 0 (fixed, poisson), a negative rate or unsorted segments
  // (piecewise), or an unsorted or negative trace.
  ArrivalProcess(const ArrivalSpec& spec, const models::RngStreams& streams,
                 const std::string& stream_name, Time end);

  // The next arrival time, ascending; nullopt once no arrival remains before `end`.
  std::optional<Time> next() {
    Time t = 0;
    if (next_into(t)) return t;
    return std::nullopt;
  }

  // The same, for the hot path: writes the next time to `t` and returns true, or returns false
  // when none remains. (Returning std::optional<Time> through memory costs a store-forwarding
  // stall per request with common compilers.)
  bool next_into(Time& t) {
    if (kind_ != Kind::fixed) return next_other(t);
    // Computed from k, not by adding gaps, so rounding never accumulates; the value is >= 0, so
    // truncating it + 0.5 rounds to the nearest nanosecond.
    t = static_cast<Time>(static_cast<double>(count_) * period_ns_ + 0.5);
    ++count_;
    return t < end_;
  }

  // Whether the arrival times are fixed in advance (fixed, evenly spaced piecewise, trace), so
  // that peek() can tell those to come; Poisson processes (plain or piecewise) are random.
  bool is_deterministic() const {
    return kind_ == Kind::fixed || kind_ == Kind::piecewise_even || kind_ == Kind::trace;
  }

  // Deterministic processes only: writes the j-th arrival (j >= 1) after those next() has
  // produced, without producing it, and returns true; false when none remains before `end`.
  // O(1) for fixed and trace, O(j + segments) for piecewise.
  bool peek(std::uint64_t j, Time& t) const;

  // The long-run rate this process offers, requests per second: fixed and poisson their rate,
  // piecewise its highest segment rate, trace its count before `end` divided by the run length.
  double nominal_rate_per_s() const { return nominal_rate_per_s_; }

 private:
  enum class Kind { fixed, poisson, piecewise_even, piecewise_poisson, trace };

  bool next_other(Time& t);
  std::optional<Time> next_piecewise_even();
  std::optional<Time> next_piecewise_poisson();
  std::optional<Time> checked(double t_s) const;
  // End of segment i in seconds (infinity for the last).
  double segment_end_s(std::size_t i) const;

  Kind kind_;
  Time end_;
  double end_s_;
  double rate_per_s_ = 0;
  double period_ns_ = 0;  // fixed: 1e9 / rate
  double nominal_rate_per_s_ = 0;
  models::Rng rng_;
  std::uint64_t count_ = 0;  // arrivals produced (fixed) or within the segment (even)
  double t_s_ = 0;           // poisson: time of the last arrival, in seconds
  std::vector<RateSegment> segments_;
  std::size_t segment_ = 0;
  std::vector<double> trace_s_;  // a copy: the spec may be a temporary
  std::size_t trace_index_ = 0;
};

}  // namespace fulcrum::sim
