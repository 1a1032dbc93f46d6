#include "sim/report/number_format.hpp"

#include <cassert>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <system_error>

namespace fulcrum::sim {

char* put_integer(char* p, std::int64_t v) {
  auto [end, ec] = std::to_chars(p, p + kMaxNumberChars, v);
  assert(ec == std::errc());
  return end;
}

char* put_integer(char* p, std::uint64_t v) {
  auto [end, ec] = std::to_chars(p, p + kMaxNumberChars, v);
  assert(ec == std::errc());
  return end;
}

namespace {

constexpr std::uint64_t pow10(int n) {
  std::uint64_t r = 1;
  for (int i = 0; i < n; ++i) r *= 10;
  return r;
}

// The decimals are a template parameter so that the divisions become multiplications: times are
// by far the most frequent fields.
template <int Decimals>
char* put_fixed(char* p, std::int64_t value) {
  constexpr std::uint64_t kScale = pow10(Decimals);
  // Magnitude as unsigned so that INT64_MIN is representable.
  const bool negative = value < 0;
  const std::uint64_t mag =
      negative ? ~static_cast<std::uint64_t>(value) + 1 : static_cast<std::uint64_t>(value);
  if (negative) *p++ = '-';
  p = put_integer(p, mag / kScale);
  std::uint64_t frac = mag % kScale;
  if (frac == 0) return p;
  int digits = Decimals;
  while (frac % 10 == 0) {  // drop trailing zeros
    frac /= 10;
    --digits;
  }
  *p++ = '.';
  for (int i = digits - 1; i >= 0; --i) {
    p[i] = static_cast<char>('0' + frac % 10);
    frac /= 10;
  }
  return p + digits;
}

char* put_fixed_any(char* p, std::int64_t value, int decimals) {
  switch (decimals) {
    case 0:
      return put_integer(p, value);
    case 1:
      return put_fixed<1>(p, value);
    case 2:
      return put_fixed<2>(p, value);
    case 4:
      return put_fixed<4>(p, value);
    case 5:
      return put_fixed<5>(p, value);
    case 7:
      return put_fixed<7>(p, value);
    case 8:
      return put_fixed<8>(p, value);
    case 10:
      return put_fixed<10>(p, value);
    case 11:
      return put_fixed<11>(p, value);
    case 12:
      return put_fixed<12>(p, value);
    case 13:
      return put_fixed<13>(p, value);
    case 14:
      return put_fixed<14>(p, value);
    case 15:
      return put_fixed<15>(p, value);
    case 16:
      return put_fixed<16>(p, value);
    case 17:
      return put_fixed<17>(p, value);
    case 18:
      return put_fixed<18>(p, value);
    default:
      break;
  }
  assert(false && "decimals out of range");
  return p;
}

}  // namespace

char* put_fixed_decimal(char* p, std::int64_t value, int decimals) {
  switch (decimals) {
    case 3:
      return put_fixed<3>(p, value);  // microseconds (trace)
    case 6:
      return put_fixed<6>(p, value);  // milliseconds
    case 9:
      return put_fixed<9>(p, value);  // seconds
    default:
      return put_fixed_any(p, value, decimals);
  }
}

char* put_double(char* p, double v) {
  if (!std::isfinite(v)) return p;
  if (v == 0) v = 0;  // folds -0 into 0
  auto [end, ec] = std::to_chars(p, p + kMaxNumberChars, v, std::chars_format::general,
                                 kReportSignificantDigits);
  assert(ec == std::errc());
  return end;
}

std::string fixed(double v, int digits) {
  char buf[512];
  const int n = std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  if (n >= 0 && static_cast<std::size_t>(n) < sizeof buf)
    return std::string(buf, static_cast<std::size_t>(n));
  std::string big(static_cast<std::size_t>(n) + 1, '\0');
  std::snprintf(big.data(), big.size(), "%.*f", digits, v);
  big.resize(static_cast<std::size_t>(n));
  return big;
}

}  // namespace fulcrum::sim
