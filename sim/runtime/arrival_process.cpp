#include "sim/runtime/arrival_process.hpp"

#include <cassert>
#include <cmath>
#include <limits>

#include "models/error.hpp"
#include "sim/scenario/scenario_limits.hpp"

namespace fulcrum::sim {

namespace {

// The loader's range (scenario_limits.hpp), checked again for setups built in code: a slower
// rate's gaps overflow int64 nanoseconds.
void require_rate(double rate, const std::string& stream_name) {
  if (!(rate >= limits::kMinRatePerS && rate <= limits::kMaxRatePerS)) {
    throw InputError("inference stream '" + stream_name +
                     "': arrival rate must be in 1e-6..1e6 requests/s, got " +
                     std::to_string(rate));
  }
}

}  // namespace

ArrivalProcess::ArrivalProcess(const ArrivalSpec& spec, const models::RngStreams& streams,
                               const std::string& stream_name, Time end)
    : kind_(Kind::fixed),
      end_(end),
      end_s_(to_seconds(end)),
      rng_(streams.stream("arrivals/" + stream_name)) {
  if (const auto* fixed = std::get_if<FixedArrivals>(&spec)) {
    require_rate(fixed->rate_per_s, stream_name);
    kind_ = Kind::fixed;
    rate_per_s_ = fixed->rate_per_s;
    nominal_rate_per_s_ = rate_per_s_;
    period_ns_ = 1e9 / rate_per_s_;
  } else if (const auto* poisson = std::get_if<PoissonArrivals>(&spec)) {
    require_rate(poisson->rate_per_s, stream_name);
    kind_ = Kind::poisson;
    rate_per_s_ = poisson->rate_per_s;
    nominal_rate_per_s_ = rate_per_s_;
  } else if (const auto* piecewise = std::get_if<PiecewiseArrivals>(&spec)) {
    kind_ = piecewise->poisson ? Kind::piecewise_poisson : Kind::piecewise_even;
    segments_ = piecewise->segments;
    if (segments_.empty()) {
      throw InputError("inference stream '" + stream_name + "': piecewise arrivals need segments");
    }
    for (std::size_t i = 0; i < segments_.size(); ++i) {
      const RateSegment& s = segments_[i];
      if (s.rate_per_s != 0) require_rate(s.rate_per_s, stream_name);
      if (!(s.start_s <= limits::kMaxDurationS) ||
          (i == 0 ? s.start_s != 0 : s.start_s <= segments_[i - 1].start_s)) {
        throw InputError("inference stream '" + stream_name +
                         "': segments must start at 0 and ascend strictly up to 1e7 s");
      }
      nominal_rate_per_s_ = std::max(nominal_rate_per_s_, s.rate_per_s);
    }
  } else {
    const auto& trace = std::get<TraceArrivals>(spec);
    kind_ = Kind::trace;
    std::size_t within = 0;
    for (std::size_t i = 0; i < trace.arrival_s.size(); ++i) {
      const double t = trace.arrival_s[i];
      if (!(t >= 0 && t <= limits::kMaxDurationS) || (i > 0 && t < trace.arrival_s[i - 1])) {
        throw InputError("inference stream '" + stream_name +
                         "': trace arrival times must be in 0..1e7 s and ascending");
      }
      if (from_seconds(t) < end) ++within;
    }
    trace_s_.assign(trace.arrival_s.begin(),
                    trace.arrival_s.begin() + static_cast<std::ptrdiff_t>(within));
    nominal_rate_per_s_ = end_s_ > 0 ? static_cast<double>(within) / end_s_ : 0;
  }
}

std::optional<Time> ArrivalProcess::checked(double t_s) const {
  if (!(t_s < end_s_ + 1)) return std::nullopt;  // far past the end: avoid Time overflow
  // Round to the nearest nanosecond; t_s >= 0, so truncating t + 0.5 is that rounding, without
  // the library call of llround on the hot path.
  const Time t = static_cast<Time>(t_s * 1e9 + 0.5);  // NOLINT(bugprone-incorrect-roundings)
  if (t >= end_) return std::nullopt;
  return t;
}

double ArrivalProcess::segment_end_s(std::size_t i) const {
  return i + 1 < segments_.size() ? segments_[i + 1].start_s
                                  : std::numeric_limits<double>::infinity();
}

bool ArrivalProcess::next_other(Time& t) {
  std::optional<Time> next;
  switch (kind_) {
    case Kind::fixed:
      return next_into(t);
    case Kind::poisson:
      t_s_ += rng_.exponential(rate_per_s_);
      next = checked(t_s_);
      break;
    case Kind::piecewise_even:
      next = next_piecewise_even();
      break;
    case Kind::piecewise_poisson:
      next = next_piecewise_poisson();
      break;
    case Kind::trace:
      if (trace_index_ < trace_s_.size()) next = checked(trace_s_[trace_index_++]);
      break;
  }
  if (!next) return false;
  t = *next;
  return true;
}

std::optional<Time> ArrivalProcess::next_piecewise_even() {
  while (segment_ < segments_.size()) {
    const RateSegment& s = segments_[segment_];
    if (s.start_s >= end_s_) return std::nullopt;
    if (s.rate_per_s > 0) {
      const double t_s = s.start_s + static_cast<double>(count_) / s.rate_per_s;
      if (t_s < segment_end_s(segment_)) {
        ++count_;
        return checked(t_s);
      }
    }
    ++segment_;
    count_ = 0;
  }
  return std::nullopt;
}

bool ArrivalProcess::peek(std::uint64_t j, Time& t) const {
  assert(j >= 1 && is_deterministic());
  std::optional<Time> at;
  switch (kind_) {
    case Kind::fixed:
      // next_into()'s expression for arrival count_ + j - 1.
      t = static_cast<Time>(static_cast<double>(count_ + j - 1) * period_ns_ + 0.5);
      return t < end_;
    case Kind::trace:
      if (j - 1 < trace_s_.size() - trace_index_) at = checked(trace_s_[trace_index_ + j - 1]);
      break;
    case Kind::piecewise_even: {
      // next_piecewise_even() on copies of its position, j times.
      std::size_t segment = segment_;
      std::uint64_t count = count_;
      while (!at && segment < segments_.size()) {
        const RateSegment& s = segments_[segment];
        if (s.start_s >= end_s_) return false;
        if (s.rate_per_s > 0) {
          const double t_s = s.start_s + static_cast<double>(count) / s.rate_per_s;
          if (t_s < segment_end_s(segment)) {
            ++count;
            if (--j == 0) at = checked(t_s);
            if (!at && j == 0) return false;
            continue;
          }
        }
        ++segment;
        count = 0;
      }
      break;
    }
    case Kind::poisson:
    case Kind::piecewise_poisson:
      return false;
  }
  if (!at) return false;
  t = *at;
  return true;
}

std::optional<Time> ArrivalProcess::next_piecewise_poisson() {
  while (segment_ < segments_.size()) {
    const RateSegment& s = segments_[segment_];
    if (s.start_s >= end_s_) return std::nullopt;
    const double seg_end = segment_end_s(segment_);
    if (s.rate_per_s > 0) {
      const double t_s = t_s_ + rng_.exponential(s.rate_per_s);
      if (t_s < seg_end) {
        t_s_ = t_s;
        return checked(t_s);
      }
    }
    // Memoryless: restarting at the boundary with the next segment's rate is exact.
    ++segment_;
    if (segment_ < segments_.size()) t_s_ = segments_[segment_].start_s;
  }
  return std::nullopt;
}

}  // namespace fulcrum::sim
