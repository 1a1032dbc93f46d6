// The data rows of a sweep CSV (its two header lines skipped), each split at its commas: the
// sweep tests' view of what run_sweep and merge_sweep write.
#pragma once

#include <sstream>
#include <string>
#include <vector>

namespace fulcrum::sim::sweep::testing {

inline std::vector<std::vector<std::string>> csv_rows(const std::string& text) {
  std::vector<std::vector<std::string>> out;
  std::istringstream in(text);
  std::string line;
  std::getline(in, line);  // comment
  std::getline(in, line);  // columns
  while (std::getline(in, line)) {
    out.emplace_back(1);
    for (char c : line) {
      if (c == ',') {
        out.back().emplace_back();
      } else {
        out.back().back() += c;
      }
    }
  }
  return out;
}

}  // namespace fulcrum::sim::sweep::testing
