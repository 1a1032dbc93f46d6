// SweepProgress: the "configurations done" line `fulcrum sweep` draws on stderr. On a terminal one
// line rewritten in place with '\r' at most every 200 ms and ended with a newline when the sweep
// ends; elsewhere (a log file, a pipe) one plain line at most every 5 s, so that a long sweep
// writes kilobytes, not megabytes. The clock is injectable so the rules can be tested.
//
//   SweepProgress progress(std::cerr, isatty(2) != 0, spec.name);
//   options.progress = progress.callback();
//   ...
//   progress.finish();
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <optional>
#include <ostream>
#include <string>

namespace fulcrum::sim {

class SweepProgress {
 public:
  using WallClock = std::function<std::chrono::steady_clock::time_point()>;

  static constexpr std::chrono::milliseconds kTerminalEvery{200};
  static constexpr std::chrono::milliseconds kLogEvery{5000};

  SweepProgress(std::ostream& out, bool terminal, std::string name,
                WallClock clock = &std::chrono::steady_clock::now);

  // One observation (configurations done of total): prints when the rules above allow it; the
  // last one (done == total) always prints on a terminal.
  void update(std::size_t done, std::size_t total);
  std::function<void(std::size_t, std::size_t)> callback();
  // Ends a terminal line (so what follows starts on a clean line); nothing elsewhere.
  void finish();

  int lines_drawn() const { return lines_drawn_; }

 private:
  std::ostream& out_;
  bool terminal_;
  std::string name_;
  WallClock clock_;
  std::chrono::steady_clock::time_point start_;
  std::optional<std::chrono::steady_clock::time_point> last_draw_;
  int lines_drawn_ = 0;
  bool line_open_ = false;
};

}  // namespace fulcrum::sim
