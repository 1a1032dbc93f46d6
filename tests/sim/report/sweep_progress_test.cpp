#include "sim/report/sweep_progress.hpp"

#include <algorithm>
#include <catch2/catch.hpp>
#include <chrono>
#include <sstream>
#include <string>

namespace fulcrum::sim {

TEST_CASE("the sweep's progress line is rewritten on a terminal and rate-limited elsewhere",
          "[sweep]") {
  using namespace std::chrono_literals;
  auto now = std::chrono::steady_clock::time_point{};
  auto clock = [&] { return now; };
  std::ostringstream log;
  SweepProgress off_terminal(log, false, "s", clock);
  // 50 updates a second for a minute: one line per 5 s at most.
  for (int i = 1; i <= 3000; ++i) {
    now += 20ms;
    off_terminal.update(static_cast<std::size_t>(i), 3000);
  }
  off_terminal.finish();
  CHECK(off_terminal.lines_drawn() == 12);
  CHECK(log.str().find('\r') == std::string::npos);
  CHECK(log.str().find("sweep s: 250/3000 configurations (8%), 0:05 elapsed") != std::string::npos);

  now = {};
  std::ostringstream tty;
  SweepProgress terminal(tty, true, "s", clock);
  for (int i = 1; i <= 100; ++i) {
    now += 20ms;
    terminal.update(static_cast<std::size_t>(i), 100);
  }
  terminal.finish();
  CHECK(terminal.lines_drawn() == 10);  // every 200 ms over 2 s
  const std::string drawn = tty.str();
  CHECK(drawn.front() == '\r');
  CHECK(drawn.back() == '\n');
  CHECK(std::count(drawn.begin(), drawn.end(), '\n') == 1);
}

}  // namespace fulcrum::sim
