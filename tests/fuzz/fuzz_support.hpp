// The contract every fuzz target checks: an input either is accepted or is rejected with
// fulcrum::InputError. Anything else that escapes is a finding, reported here before aborting so
// libFuzzer saves the input (a plain uncaught exception would say less about what was thrown).
// The targets of sim/config's parsers also check that the error is one line of printable UTF-8
// (what `fulcrum` prints to stderr).
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <string_view>

#include "models/error.hpp"

namespace fulcrum::fuzz {

inline std::string to_text(const std::uint8_t* data, std::size_t size) {
  return std::string(reinterpret_cast<const char*>(data), size);
}

// A broken promise about an accepted result (e.g. a trace that is not sorted).
[[noreturn]] inline void broken(const char* what) {
  std::fprintf(stderr, "fuzz finding: accepted input breaks a documented guarantee: %s\n", what);
  std::abort();
}

// True when `s` is one line of printable UTF-8 (no control character, no stray byte).
inline bool is_one_printable_line(std::string_view s) {
  for (std::size_t i = 0; i < s.size();) {
    const auto b = static_cast<unsigned char>(s[i]);
    if (b < 0x20 || b == 0x7f) return false;
    std::size_t n = b < 0x80             ? 1
                    : (b & 0xE0) == 0xC0 ? 2
                    : (b & 0xF0) == 0xE0 ? 3
                    : (b & 0xF8) == 0xF0 ? 4
                                         : 0;
    if (n == 0 || i + n > s.size()) return false;
    for (std::size_t k = 1; k < n; ++k) {
      if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80) return false;
    }
    if (n == 2 && b == 0xC2 && static_cast<unsigned char>(s[i + 1]) < 0xA0) return false;  // C1
    i += n;
  }
  return true;
}

enum class ErrorLines { any, one_printable };

// Runs `parse`; returns true when it accepted the input, false when it threw InputError (whose
// message must be one printable line when `lines` says so).
template <class Parse>
bool accepts(Parse&& parse, ErrorLines lines = ErrorLines::any) {
  try {
    parse();
    return true;
  } catch (const InputError& e) {
    if (lines == ErrorLines::one_printable && !is_one_printable_line(e.what())) {
      std::fprintf(stderr, "fuzz finding: error message is not one printable line: %s\n", e.what());
      std::abort();
    }
    return false;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "fuzz finding: exception other than InputError escaped: %s\n", e.what());
    std::abort();
  } catch (...) {
    std::fprintf(stderr, "fuzz finding: non-standard exception escaped\n");
    std::abort();
  }
}

}  // namespace fulcrum::fuzz
