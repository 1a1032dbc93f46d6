// Number formatting for the output files: writes straight into a caller's char buffer (no
// allocation, no locale, no iostreams) because a run writes hundreds of thousands of fields.
// Every put_* returns the end of what it wrote; the caller guarantees the room (kMaxNumberChars).
#pragma once

#include <cstdint>
#include <string>

namespace fulcrum::sim {

// Room enough for any single number put_* writes.
inline constexpr int kMaxNumberChars = 32;

// Significant digits of every double written by the report code: enough for nanosecond times of
// runs up to ~27 hours (in seconds) and for any measured power or energy, short enough to read.
inline constexpr int kReportSignificantDigits = 12;

char* put_integer(char* p, std::int64_t v);
char* put_integer(char* p, std::uint64_t v);

// `value` / 10^decimals as exact decimal text, trailing zeros (and a bare '.') removed:
// (1'500'000, 6) -> "1.5", (10'000'000, 9) -> "0.01", (-2'500, 3) -> "-2.5". Exact, unlike going
// through double: used for every time column (s, ms, us) of the integer-nanosecond clock.
// 0 <= decimals <= 18.
char* put_fixed_decimal(char* p, std::int64_t value, int decimals);

// A finite double with kReportSignificantDigits significant digits in the shortest form ("100",
// "2201.6", "1.5e-07"); -0 as "0". Writes nothing for NaN or infinity and returns p.
char* put_double(char* p, double v);

// The one formatter of numbers in messages and text reports: `v` with exactly `digits` digits
// after the decimal point ("41.60"), as printf's %.*f in the C locale.
std::string fixed(double v, int digits);

}  // namespace fulcrum::sim
