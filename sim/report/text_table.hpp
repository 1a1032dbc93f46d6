// A plain text table for the CLI's listings: each column padded to its widest cell, two spaces
// between columns, no trailing padding on the last column.
//
//   TextTable t({"device", "CUDA cores"});
//   t.add({"orin-agx-64gb", "2048"});
//   out << t.str();
#pragma once

#include <string>
#include <vector>

namespace fulcrum::sim {

class TextTable {
 public:
  explicit TextTable(std::vector<std::string> header);
  void add(std::vector<std::string> row);
  // The header and the rows, one line each, every line ending in '\n'.
  std::string str() const;

 private:
  std::vector<std::vector<std::string>> rows_;
};

}  // namespace fulcrum::sim
