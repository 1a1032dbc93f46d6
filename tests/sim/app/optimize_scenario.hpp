// scenarios/optimize-measured.yaml, and variants of it with one piece of text replaced: the
// scenario the optimize tests (app and command line) search.
#pragma once

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <string>

#include "tests/temp_dir.hpp"

namespace fulcrum::testing {

inline const std::string kOptimizeScenario =
    std::string(FULCRUM_SOURCE_DIR) + "/scenarios/optimize-measured.yaml";

// The scenario's text with `from` replaced by `to` (which must be there), written into `dir`.
inline std::string optimize_variant(const TempDir& dir, const std::string& from,
                                    const std::string& to) {
  std::string text = slurp(kOptimizeScenario);
  const std::size_t at = text.find(from);
  REQUIRE(at != std::string::npos);
  text.replace(at, from.size(), to);
  const std::string path = (dir.path() / "variant.yaml").string();
  std::ofstream(path) << text;
  return path;
}

}  // namespace fulcrum::testing
