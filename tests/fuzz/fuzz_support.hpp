// The contract every fuzz target checks: an input either is accepted or is rejected with
// fulcrum::InputError. Anything else that escapes is a finding, reported here before aborting so
// libFuzzer saves the input (a plain uncaught exception would say less about what was thrown).
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>

#include "models/error.hpp"

namespace fulcrum::fuzz {

inline std::string to_text(const std::uint8_t* data, std::size_t size) {
  return std::string(reinterpret_cast<const char*>(data), size);
}

// Runs `parse`; returns true when it accepted the input, false when it threw InputError.
template <class Parse>
bool accepts(Parse&& parse) {
  try {
    parse();
    return true;
  } catch (const InputError&) {
    return false;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "fuzz finding: exception other than InputError escaped: %s\n", e.what());
    std::abort();
  } catch (...) {
    std::fprintf(stderr, "fuzz finding: non-standard exception escaped\n");
    std::abort();
  }
}

// A broken promise about an accepted result (e.g. a trace that is not sorted).
[[noreturn]] inline void broken(const char* what) {
  std::fprintf(stderr, "fuzz finding: accepted input breaks a documented guarantee: %s\n", what);
  std::abort();
}

}  // namespace fulcrum::fuzz
