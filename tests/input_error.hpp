// error_of: the InputError a piece of code throws, for tests that check the one line a user sees.
//
//   const InputError e = fulcrum::testing::error_of([&] { load_scenario(path); });
//   CHECK(e.key_path() == "duration_s");
#pragma once

#include <catch2/catch.hpp>
#include <stdexcept>

#include "models/error.hpp"

namespace fulcrum::testing {

// The InputError thrown by `f`, or a test failure.
template <typename F>
InputError error_of(F&& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e;
  }
  FAIL("expected an InputError");
  throw std::logic_error("unreachable");
}

}  // namespace fulcrum::testing
