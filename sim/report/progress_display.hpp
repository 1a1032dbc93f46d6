// ProgressDisplay: the "how far has it got" line `fulcrum run` draws on stderr during a long run.
// Silent for the first second of wall time (short runs show nothing), then redrawn at most every
// 250 ms; on a terminal one line rewritten in place and cleared at the end, elsewhere one line per
// redraw. The clock is injectable so the rules can be tested without waiting.
//
//   ProgressDisplay display(std::cerr, isatty(2) != 0);
//   run(setup, backend, observer, display.callback());
#pragma once

#include <chrono>
#include <functional>
#include <optional>
#include <ostream>

#include "sim/engine/time.hpp"
#include "sim/runtime/runner.hpp"

namespace fulcrum::sim {

class ProgressDisplay {
 public:
  using WallClock = std::function<std::chrono::steady_clock::time_point()>;

  static constexpr std::chrono::milliseconds kSilentFor{1000};
  static constexpr std::chrono::milliseconds kRedrawEvery{250};

  // `terminal`: `out` is an interactive terminal (redraw in place with '\r').
  ProgressDisplay(std::ostream& out, bool terminal,
                  WallClock clock = &std::chrono::steady_clock::now);
  // A run that stopped early (an error, an interrupt) leaves no half line on a terminal: the line
  // is erased, so the one-line message that follows starts on a clean line.
  ~ProgressDisplay();
  ProgressDisplay(const ProgressDisplay&) = delete;
  ProgressDisplay& operator=(const ProgressDisplay&) = delete;

  // Feed this to run(); `*this` must outlive the run.
  ProgressFn callback();

  // One observation: prints when the rules above allow it. At `reached == end` a terminal line is
  // erased, so the summary that follows starts on a clean line.
  void update(Time reached, Time end);

  int lines_drawn() const { return lines_drawn_; }

 private:
  std::ostream& out_;
  bool terminal_;
  WallClock clock_;
  std::chrono::steady_clock::time_point start_;
  std::optional<std::chrono::steady_clock::time_point> last_draw_;
  int lines_drawn_ = 0;
  bool line_shown_ = false;  // a terminal line is on screen
};

}  // namespace fulcrum::sim
