// run_shell: runs a shell command line with its stdout and stderr in files of a folder, and
// returns its exit status (-1 when a signal ended it) and both texts -- for the tests that run
// the `fulcrum` binary (or mpirun) as a user would. shell_quote makes a path or argument one
// shell word.
//
//   const ShellOutcome o = run_shell(shell_quote(FULCRUM_BINARY) + " run x.yaml", dir);
#pragma once

#include <stdlib.h>
#include <sys/wait.h>

#include <filesystem>
#include <string>

#include "tests/temp_dir.hpp"

namespace fulcrum::testing {

struct ShellOutcome {
  int status = -1;
  std::string out;
  std::string err;
};

// 's' with every ' written as '\''.
inline std::string shell_quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

// `command` with stdout into dir/stdout.txt and stderr into dir/stderr.txt (both replaced).
inline ShellOutcome run_shell(const std::string& command, const std::filesystem::path& dir) {
  const std::filesystem::path out = dir / "stdout.txt";
  const std::filesystem::path err = dir / "stderr.txt";
  const std::string line =
      command + " >" + shell_quote(out.string()) + " 2>" + shell_quote(err.string());
  const int raw = std::system(line.c_str());
  ShellOutcome o;
  o.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  o.out = slurp(out);
  o.err = slurp(err);
  return o;
}

}  // namespace fulcrum::testing
