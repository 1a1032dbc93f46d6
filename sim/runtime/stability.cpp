#include "sim/runtime/stability.hpp"

#include <algorithm>
#include <cstdio>

namespace fulcrum::sim {

namespace {

constexpr std::size_t kGrowthBatches = 4;  // growth over the second half that is "clearly"
constexpr double kGrowthSeconds = 1.0;     // ... more than noise: max(4 batches, 1 s of arrivals)

std::string with_commas(std::uint64_t n) {
  std::string digits = std::to_string(n);
  std::string out;
  const std::size_t lead = digits.size() % 3;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i != 0 && (i + 3 - lead) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

std::string format(const char* fmt, double a, double b = 0, double c = 0, double d = 0) {
  char text[256];
  std::snprintf(text, sizeof text, fmt, a, b, c, d);
  return text;
}

double fill_seconds(const StreamBacklog& s) {
  return static_cast<double>(s.batch_size) / s.rate_per_s;
}

// Requests came, but no batch ever left: none filled, and nothing sends a partial one.
bool never_dispatched(const StreamBacklog& s) {
  return s.arrived > 0 && s.batches_dispatched == 0 && !s.dispatches_partial;
}

// More than the noise floor of requests, and more than half of those not dropped, still queued
// at the end: most of what arrived was never served, however the backlog moved.
double growth_limit(const StreamBacklog& s) {
  return std::max(static_cast<double>(kGrowthBatches * s.batch_size),
                  kGrowthSeconds * s.rate_per_s);
}

std::uint64_t completed(const StreamBacklog& s) {
  const std::uint64_t left = s.dropped + s.backlog_end;
  return s.arrived > left ? s.arrived - left : 0;
}

bool ended_behind(const StreamBacklog& s) {
  return static_cast<double>(s.backlog_end) > growth_limit(s) && s.backlog_end > completed(s);
}

std::string ended_behind_reason(const StreamBacklog& s) {
  const std::uint64_t admitted = s.arrived - s.dropped;
  return with_commas(s.backlog_end) + " of the " + with_commas(admitted) + " requests admitted" +
         format(" (%.1f%%) were still queued at the end of the run, ",
                100.0 * static_cast<double>(s.backlog_end) / static_cast<double>(admitted)) +
         "more than were completed (" + with_commas(completed(s)) + ")";
}

std::string never_dispatched_reason(const StreamBacklog& s) {
  std::string reason = "no batch was ever dispatched: ";
  if (s.steady_rate && s.rate_per_s > 0) {
    reason += "a batch of " + std::to_string(s.batch_size) +
              format(" takes %.1f s to fill at %.1f/s, longer than the %.1f s run, and ",
                     fill_seconds(s), s.rate_per_s, s.duration_s);
  } else {
    reason += "the " + with_commas(s.arrived) +
              " requests that arrived are fewer than a batch of " + std::to_string(s.batch_size) +
              ", and ";
  }
  return reason +
         "without max_wait_ms a partial batch is never dispatched: " + with_commas(s.arrived) +
         " requests arrived, none completed";
}

}  // namespace

bool is_stable(const StreamBacklog& s) {
  const bool grew = s.backlog_end > s.backlog_mid &&
                    static_cast<double>(s.backlog_end - s.backlog_mid) > growth_limit(s);
  const bool saturated = s.steady_rate && s.rate_per_s > 0 && s.full_batch_time &&
                         to_seconds(*s.full_batch_time) >= fill_seconds(s);
  return !s.overflow_at && !grew && !saturated && !never_dispatched(s) && !ended_behind(s);
}

std::string instability_reason(const StreamBacklog& s, const std::optional<std::string>& starvation,
                               const std::string& policy) {
  const double rate = s.rate_per_s;
  const double fill_ms = rate > 0 ? fill_seconds(s) * 1e3 : 0;
  const bool known = s.full_batch_time.has_value();
  const double batch_ms = known ? to_milliseconds(*s.full_batch_time) : 0.0;
  const bool grew = s.backlog_end > s.backlog_mid &&
                    static_cast<double>(s.backlog_end - s.backlog_mid) > growth_limit(s);
  const std::string growth =
      s.backlog_end > s.backlog_mid ? "backlog grew from " + with_commas(s.backlog_mid) + " to " +
                                          with_commas(s.backlog_end) + " requests"
      : ended_behind(s) ? ended_behind_reason(s)
                        : "backlog " + with_commas(s.backlog_mid) + " requests at mid-run, " +
                              with_commas(s.backlog_end) + " at the end";
  std::string reason;
  if (never_dispatched(s)) {
    reason = never_dispatched_reason(s);
  } else if (rate > 0 && known && batch_ms >= fill_ms) {
    const std::string fill =
        s.batch_size == 1 ? format("the %.1f ms between arrivals at %.1f/s: ", fill_ms, rate)
                          : format("the %.1f ms in which %.0f requests arrive at %.1f/s: ", fill_ms,
                                   static_cast<double>(s.batch_size), rate);
    reason = "one batch of " + std::to_string(s.batch_size) +
             format(" takes %.1f ms, longer than ", batch_ms) + fill + growth;
  } else if (starvation) {
    reason = *starvation + ": " + growth;
  } else if (ended_behind(s) && !grew) {
    // Behind without growing (a burst never caught up): the fill time at the nominal rate says
    // nothing about it.
    reason = ended_behind_reason(s);
  } else if (known) {
    reason = "a batch of " + std::to_string(s.batch_size) +
             format(" takes %.1f ms alone against %.1f ms to fill, but the GPU shared under ",
                    batch_ms, fill_ms) +
             policy + " sharing left too little time: " + growth;
  } else {
    reason = "the GPU shared under " + policy + " sharing left too little time: " + growth;
  }
  if (s.overflow_at) {
    reason += "; the backlog hit its cap of " + with_commas(s.cap) +
              format(" requests at %.1f s and ", to_seconds(*s.overflow_at)) +
              with_commas(s.dropped) + " later arrivals were dropped";
  }
  return reason;
}

}  // namespace fulcrum::sim
