// ScopedEnv: sets an environment variable (nullptr: unsets it) for its lifetime, then restores
// what was there -- for tests of code that reads the environment (FULCRUM_DATA_DIR,
// FULCRUM_REFERENCE_DIR, an MPI launcher's variables).
//
//   const fulcrum::testing::ScopedEnv env("FULCRUM_DATA_DIR", dir.string().c_str());
#pragma once

#include <stdlib.h>

#include <optional>
#include <string>

namespace fulcrum::testing {

class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    if (value != nullptr) {
      ::setenv(name, value, 1);
    } else {
      ::unsetenv(name);
    }
  }
  ScopedEnv(const char* name, const std::string& value) : ScopedEnv(name, value.c_str()) {}
  ~ScopedEnv() {
    if (old_) {
      ::setenv(name_, old_->c_str(), 1);
    } else {
      ::unsetenv(name_);
    }
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  const char* name_;
  std::optional<std::string> old_;
};

}  // namespace fulcrum::testing
