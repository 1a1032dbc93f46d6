#include "sim/report/progress_display.hpp"

#include <catch2/catch.hpp>
#include <chrono>
#include <sstream>
#include <string>

using namespace fulcrum::sim;
using std::chrono::milliseconds;

namespace {

// A wall clock the test moves by hand.
struct ManualClock {
  std::chrono::steady_clock::time_point now{};
  ProgressDisplay::WallClock fn() {
    return [this] { return now; };
  }
};

}  // namespace

TEST_CASE("a run that ends within its first wall second shows no progress") {
  ManualClock clock;
  std::ostringstream err;
  ProgressDisplay display(err, true, clock.fn());
  for (int i = 1; i < 1000; ++i) {
    clock.now += milliseconds(1);
    display.update(i * kSecond, 1000 * kSecond);
  }
  display.update(1000 * kSecond, 1000 * kSecond);
  CHECK(display.lines_drawn() == 0);
  CHECK(err.str().empty());
}

TEST_CASE("progress is redrawn at most every 250 ms of wall time once a second has passed") {
  ManualClock clock;
  std::ostringstream err;
  ProgressDisplay display(err, false, clock.fn());
  // 3 s of wall time in 10 ms steps: silent for 1 s, then one line per 250 ms.
  for (int i = 1; i <= 300; ++i) {
    clock.now += milliseconds(10);
    display.update(i * kSecond, 1000 * kSecond);
  }
  CHECK(display.lines_drawn() == 9);  // at 1.0, 1.25, ..., 3.0 s
  const std::string text = err.str();
  CHECK(text.find("fulcrum: 100 of 1000 s simulated (10%)") == 0);
  CHECK(text.find('\r') == std::string::npos);  // not a terminal: plain lines
}

TEST_CASE("on a terminal the progress line is rewritten in place and erased at the end") {
  ManualClock clock;
  std::ostringstream err;
  ProgressDisplay display(err, true, clock.fn());
  clock.now += milliseconds(1500);
  display.update(360 * kSecond, 3600 * kSecond);
  clock.now += milliseconds(300);
  display.update(720 * kSecond, 3600 * kSecond);
  display.update(3600 * kSecond, 3600 * kSecond);
  const std::string text = err.str();
  CHECK(display.lines_drawn() == 2);
  CHECK(text.find('\n') == std::string::npos);
  CHECK(text.find("\rfulcrum: 720 of 3600 s simulated (20%)") != std::string::npos);
  CHECK(text.substr(text.size() - 4) == "\r\033[K");
}

TEST_CASE("a terminal progress line of a run stopped early is erased, so a message starts clean") {
  ManualClock clock;
  std::ostringstream err;
  {
    ProgressDisplay display(err, true, clock.fn());
    clock.now += milliseconds(1500);
    display.update(360 * kSecond, 3600 * kSecond);
    // No update at the end: the run stopped (an error, an interrupt).
  }
  const std::string text = err.str();
  CHECK(text == "\rfulcrum: 360 of 3600 s simulated (10%), 2 s elapsed\033[K\r\033[K");
  std::ostringstream log;
  {
    ProgressDisplay display(log, false, clock.fn());
    clock.now += milliseconds(1500);
    display.update(360 * kSecond, 3600 * kSecond);
  }
  CHECK(log.str() == "fulcrum: 360 of 3600 s simulated (10%), 2 s elapsed\n");  // a log keeps it
}
