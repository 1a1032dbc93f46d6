// Tests that read the public reference data in place (FULCRUM_REFERENCE_DIR, a CMake cache
// variable; DESIGN.md) skip when it is absent: the helper prints one marker line, which CTest's
// SKIP_REGULAR_EXPRESSION (cmake/FulcrumTargets.cmake) reports as "skipped", and the test returns.
//
//   const std::optional<std::string> csv = testing::reference_path("training-anchors.csv");
//   if (!csv) return;  // skipped
#pragma once

#include <filesystem>
#include <iostream>
#include <optional>
#include <string>
#include <string_view>

namespace fulcrum::testing {

// FULCRUM_REFERENCE_DIR joined with `relative` ("" for the folder itself) when that exists; else
// prints "fulcrum-test-skipped: reference ... not found (...)" on stdout and returns nullopt.
inline std::optional<std::string> reference_path(std::string_view relative = "") {
  std::string path = FULCRUM_REFERENCE_DIR;
  if (!relative.empty()) {
    path += '/';
    path.append(relative);
  }
  std::error_code ec;
  if (std::filesystem::exists(path, ec)) return path;
  std::cout << FULCRUM_SKIP_MARKER << " reference " << (relative.empty() ? "folder " : "file ")
            << path << " not found (configure with -DFULCRUM_REFERENCE_DIR=DIR)" << std::endl;
  return std::nullopt;
}

}  // namespace fulcrum::testing
