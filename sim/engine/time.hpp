// Time: simulated time as a signed 64-bit count of nanoseconds (about 292 years of range).
// Integer arithmetic keeps runs bit-exact; convert to double seconds only at the edges.
#pragma once

#include <cmath>
#include <cstdint>

namespace fulcrum::sim {

using Time = std::int64_t;  // nanoseconds

inline constexpr Time kNanosecond = 1;
inline constexpr Time kMicrosecond = 1'000;
inline constexpr Time kMillisecond = 1'000'000;
inline constexpr Time kSecond = 1'000'000'000;

// Rounds to the nearest nanosecond.
inline Time from_seconds(double s) { return static_cast<Time>(std::llround(s * 1e9)); }
inline Time from_milliseconds(double ms) { return static_cast<Time>(std::llround(ms * 1e6)); }
inline constexpr double to_seconds(Time t) { return static_cast<double>(t) * 1e-9; }
inline constexpr double to_milliseconds(Time t) { return static_cast<double>(t) * 1e-6; }

}  // namespace fulcrum::sim
