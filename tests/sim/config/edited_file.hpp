// Tests of shipped data files: a file's text, and its text with one piece replaced (to build a
// bad variant of a good file).
#pragma once

#include <catch2/catch.hpp>
#include <fstream>
#include <sstream>
#include <string>

namespace fulcrum::testing {

inline std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// The file's text with the first occurrence of `from` replaced by `to`.
inline std::string edited_text(const std::string& path, const std::string& from,
                               const std::string& to) {
  std::string text = read_text(path);
  const auto at = text.find(from);
  REQUIRE(at != std::string::npos);
  text.replace(at, from.size(), to);
  return text;
}

}  // namespace fulcrum::testing
