#include "sim/report/interrupt.hpp"

#include <signal.h>

#include <catch2/catch.hpp>
#include <csignal>
#include <fstream>
#include <string>
#include <thread>

#include "sim/report/atomic_file.hpp"
#include "sim/report/result_folder.hpp"
#include "tests/sim/report/report_fixtures.hpp"

using namespace fulcrum::sim;
using fulcrum::sim::testing::files_in;
using fulcrum::sim::testing::TempDir;

namespace {

volatile std::sig_atomic_t g_custom = 0;
extern "C" void custom_handler(int signal) { g_custom = signal; }

}  // namespace

TEST_CASE("SIGINT, SIGTERM and SIGHUP are recorded, not fatal, and stop the run at a check point") {
  struct Case {
    int signal;
    const char* name;
    int exit_status;  // what a shell reports for a process the signal killed
  };
  for (const Case c :
       {Case{SIGINT, "SIGINT", 130}, Case{SIGTERM, "SIGTERM", 143}, Case{SIGHUP, "SIGHUP", 129}}) {
    INFO(c.name);
    const InterruptHandlers handlers;
    CHECK_FALSE(pending_interrupt());
    CHECK_NOTHROW(throw_if_interrupted());
    std::raise(c.signal);
    CHECK(pending_interrupt() == std::optional<int>(c.signal));
    try {
      throw_if_interrupted();
      FAIL("not interrupted");
    } catch (const Interrupted& e) {
      CHECK(e.signal() == c.signal);
      CHECK(e.exit_status() == c.exit_status);
      CHECK(std::string(e.what()) == std::string("fulcrum: interrupted (") + c.name + ")");
    }
  }
  CHECK_FALSE(pending_interrupt());  // nothing is recorded once the handlers are gone
}

TEST_CASE("a signal handled on another thread is seen by the thread that checks") {
  // In a wall-clock run the handler may run on any thread (a context lane, a meter's sampler):
  // std::raise in a thread delivers the signal to that thread.
  const InterruptHandlers handlers;
  std::thread lane([] { std::raise(SIGTERM); });
  lane.join();
  CHECK(pending_interrupt() == std::optional<int>(SIGTERM));
  CHECK_THROWS_AS(throw_if_interrupted(), Interrupted);
}

TEST_CASE("the handlers that were installed before come back afterwards") {
  struct sigaction custom {};
  custom.sa_handler = custom_handler;
  sigemptyset(&custom.sa_mask);
  struct sigaction before {};
  sigaction(SIGHUP, &custom, &before);
  { const InterruptHandlers handlers; }
  g_custom = 0;
  std::raise(SIGHUP);
  CHECK(g_custom == SIGHUP);
  sigaction(SIGHUP, &before, nullptr);
}

TEST_CASE("a signal the process ignores stays ignored, as under nohup") {
  struct sigaction ignore {};
  ignore.sa_handler = SIG_IGN;
  sigemptyset(&ignore.sa_mask);
  struct sigaction before {};
  sigaction(SIGHUP, &ignore, &before);
  {
    const InterruptHandlers handlers;
    std::raise(SIGHUP);
    CHECK_FALSE(pending_interrupt());
    std::raise(SIGTERM);  // the others are still handled
    CHECK(pending_interrupt() == std::optional<int>(SIGTERM));
  }
  struct sigaction after {};
  sigaction(SIGHUP, &before, &after);
  CHECK(after.sa_handler == SIG_IGN);
}

TEST_CASE("an interrupted message says what the run left") {
  const Interrupted e(SIGINT, "nothing was written to out/quickstart");
  CHECK(std::string(e.what()) ==
        "fulcrum: interrupted (SIGINT); nothing was written to out/quickstart");
  CHECK(signal_name(SIGUSR1) == "signal " + std::to_string(SIGUSR1));
}

TEST_CASE("an output file being written stops at its next MiB once a signal came") {
  TempDir dir;
  const InterruptHandlers handlers;
  {
    AtomicFile f(dir.path() / "big.csv");
    f.write(std::string(1000, 'x'));
    std::raise(SIGTERM);
    const std::string chunk(4096, 'y');
    // 2 MiB of rows: the first flush, at 1 MiB, notices the signal.
    CHECK_THROWS_AS(
        [&] {
          for (int i = 0; i < 512; ++i) f.write(chunk);
        }(),
        Interrupted);
  }
  CHECK(files_in(dir.path()).empty());
}

TEST_CASE(
    "the same signal twice at once, as timeout sends it to the child and its group, is one "
    "request and does not kill the process") {
  const InterruptHandlers handlers;
  std::raise(SIGTERM);
  std::raise(SIGTERM);  // before the fix: the default action, the test process dies here
  CHECK(pending_interrupt() == std::optional<int>(SIGTERM));
  CHECK_THROWS_AS(throw_if_interrupted(), Interrupted);
}

TEST_CASE("a signal during cleanup is recorded without killing the process, so the cleanup ends") {
  const InterruptHandlers handlers;
  std::raise(SIGINT);
  {
    const CleanupScope cleanup;
    std::raise(SIGTERM);  // another signal: outside a cleanup it would kill at once
    std::raise(SIGINT);
  }
  CHECK(pending_interrupt() == std::optional<int>(SIGINT));  // the first one is what stops the run
}

TEST_CASE("a result folder destroyed after an interrupt removes its staging folder and its lock") {
  const TempDir dir;
  const InterruptHandlers handlers;
  {
    ResultFolder folder(dir.path() / "out");
    std::ofstream(folder.staging_dir() / "summary.json") << "{}";
    std::raise(SIGINT);
  }
  CHECK(files_in(dir.path()).empty());
}
