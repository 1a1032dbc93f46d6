#include "sim/report/sweep_progress.hpp"

#include <cstdio>
#include <utility>

namespace fulcrum::sim {

namespace {

std::string clock_text(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%d:%02d", static_cast<int>(s) / 60, static_cast<int>(s) % 60);
  return buf;
}

}  // namespace

SweepProgress::SweepProgress(std::ostream& out, bool terminal, std::string name, WallClock clock)
    : out_(out),
      terminal_(terminal),
      name_(std::move(name)),
      clock_(std::move(clock)),
      start_(clock_()) {}

void SweepProgress::update(std::size_t done, std::size_t total) {
  const auto now = clock_();
  const auto every = terminal_ ? kTerminalEvery : kLogEvery;
  const bool last = done >= total;
  const bool due = last_draw_ ? now - *last_draw_ >= every : now - start_ >= every;
  if (!due && !(last && terminal_ && line_open_)) return;
  last_draw_ = now;
  const double s = std::chrono::duration<double>(now - start_).count();
  const double left =
      done > 0 ? s * static_cast<double>(total - done) / static_cast<double>(done) : 0;
  out_ << (terminal_ ? "\r" : "") << "sweep " << name_ << ": " << done << "/" << total
       << " configurations (" << (total ? 100 * done / total : 100) << "%), " << clock_text(s)
       << " elapsed, about " << clock_text(left) << " left" << (terminal_ ? "   " : "\n")
       << std::flush;
  line_open_ = terminal_;
  ++lines_drawn_;
}

std::function<void(std::size_t, std::size_t)> SweepProgress::callback() {
  return [this](std::size_t done, std::size_t total) { update(done, total); };
}

void SweepProgress::finish() {
  if (line_open_) out_ << "\n" << std::flush;
  line_open_ = false;
}

}  // namespace fulcrum::sim
