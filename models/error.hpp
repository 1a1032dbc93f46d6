// The error family of Fulcrum: bad input throws InputError (exit 2), anything else Error (exit 1).
// Only main() catches. An InputError raised deep in a model carries no location; the loader that
// knows where the value came from re-throws it with file:line:col and the key path.
#pragma once

#include <optional>
#include <stdexcept>
#include <string>
#include <utility>

namespace fulcrum {

class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Where a value came from: file, 1-based line and column. Absent parts print as nothing.
struct SourceLocation {
  std::string file;
  int line = 0;    // 1-based; 0 = unknown
  int column = 0;  // 1-based; 0 = unknown
};

// Bad user input. what() is the one line printed to stderr:
//   "file:line:col: key.path: problem"   (parts that are unknown are left out)
class InputError : public Error {
 public:
  explicit InputError(std::string problem) : InputError(std::nullopt, "", std::move(problem)) {}
  InputError(std::optional<SourceLocation> where, std::string key_path, std::string problem)
      : Error(format(where, key_path, problem)),
        where_(std::move(where)),
        key_path_(std::move(key_path)),
        problem_(std::move(problem)) {}

  const std::optional<SourceLocation>& where() const { return where_; }
  const std::string& key_path() const { return key_path_; }
  const std::string& problem() const { return problem_; }

  // The same problem, placed at a location and key path (used by loaders to add context).
  InputError located(SourceLocation where, std::string key_path) const {
    return InputError(std::move(where), std::move(key_path), problem_);
  }

 private:
  static std::string format(const std::optional<SourceLocation>& where, const std::string& key_path,
                            const std::string& problem) {
    std::string out;
    if (where && !where->file.empty()) {
      out += where->file;
      if (where->line > 0) {
        out += ':' + std::to_string(where->line);
        if (where->column > 0) out += ':' + std::to_string(where->column);
      }
      out += ": ";
    }
    if (!key_path.empty()) out += key_path + ": ";
    return out + problem;
  }

  std::optional<SourceLocation> where_;
  std::string key_path_;
  std::string problem_;
};

}  // namespace fulcrum
