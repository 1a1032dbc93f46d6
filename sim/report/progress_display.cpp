#include "sim/report/progress_display.hpp"

#include <cstdio>
#include <utility>

namespace fulcrum::sim {

ProgressDisplay::ProgressDisplay(std::ostream& out, bool terminal, WallClock clock)
    : out_(out), terminal_(terminal), clock_(std::move(clock)), start_(clock_()) {}

ProgressDisplay::~ProgressDisplay() {
  if (line_shown_) out_ << "\r\033[K" << std::flush;
}

ProgressFn ProgressDisplay::callback() {
  return [this](Time reached, Time end) { update(reached, end); };
}

void ProgressDisplay::update(Time reached, Time end) {
  if (reached >= end) {
    // Erase the in-place line; a log keeps its last line as the record of the run's progress.
    if (line_shown_) out_ << "\r\033[K" << std::flush;
    line_shown_ = false;
    return;
  }
  const auto now = clock_();
  if (now - start_ < kSilentFor) return;
  if (last_draw_ && now - *last_draw_ < kRedrawEvery) return;
  last_draw_ = now;
  const double elapsed_s = std::chrono::duration<double>(now - start_).count();
  const double done = end > 0 ? static_cast<double>(reached) / static_cast<double>(end) : 1.0;
  char line[160];
  std::snprintf(line, sizeof line, "fulcrum: %.0f of %.0f s simulated (%.0f%%), %.0f s elapsed",
                to_seconds(reached), to_seconds(end), done * 100.0, elapsed_s);
  if (terminal_) {
    out_ << '\r' << line << "\033[K" << std::flush;
    line_shown_ = true;
  } else {
    out_ << line << '\n' << std::flush;
  }
  ++lines_drawn_;
}

}  // namespace fulcrum::sim
