#include "sim/report/interrupt.hpp"

#include <signal.h>

#include <array>
#include <atomic>
#include <cassert>
#include <csignal>
#include <ctime>

namespace fulcrum::sim {

namespace {

constexpr std::array<int, 3> kSignals{SIGINT, SIGTERM, SIGHUP};

// Written only by the handler (and reset when handlers are installed); 0: no signal. A lock-free
// atomic rather than a volatile sig_atomic_t: the handler may run on any thread (a context lane,
// a power meter's sampler), and only an atomic makes its write visible to the thread that checks.
std::atomic<int> g_signal{0};
static_assert(std::atomic<int>::is_always_lock_free,
              "a signal handler may use only lock-free atomics");
// When the first signal came (CLOCK_MONOTONIC, ns), and how many CleanupScopes are alive.
std::atomic<long long> g_first_ns{0};
std::atomic<int> g_cleanups{0};
static_assert(std::atomic<long long>::is_always_lock_free);
bool g_installed = false;

long long monotonic_ns() {
  struct timespec ts {};
  clock_gettime(CLOCK_MONOTONIC, &ts);  // async-signal-safe
  return static_cast<long long>(ts.tv_sec) * 1'000'000'000LL + ts.tv_nsec;
}
std::array<struct sigaction, kSignals.size()> g_previous{};

extern "C" void record_signal(int signal) {
  if (g_signal != 0) {
    // Cleanup under way: let it finish (it is short); the first signal already stops the run.
    if (g_cleanups > 0) return;
    // The same request delivered twice (timeout: the child, then the group): one request.
    if (signal == g_signal && monotonic_ns() - g_first_ns < kRepeatWindowMs * 1'000'000LL) return;
    // The user asked twice: stop now, as the default action would have. What was staged is then
    // removed by the next run into the same folder.
    ::signal(signal, SIG_DFL);
    ::raise(signal);
    return;
  }
  g_first_ns = monotonic_ns();
  g_signal = signal;
}

}  // namespace

Interrupted::Interrupted(int signal, const std::string& outcome)
    : Error("fulcrum: interrupted (" + signal_name(signal) + ")" +
            (outcome.empty() ? "" : "; " + outcome)),
      signal_(signal) {}

InterruptHandlers::InterruptHandlers() {
  assert(!g_installed && "one InterruptHandlers at a time");
  g_signal = 0;
  struct sigaction action {};
  action.sa_handler = record_signal;
  sigemptyset(&action.sa_mask);
  // Restarting system calls keeps a signal from failing an ordinary write with EINTR; the run
  // notices the signal at its next check point instead.
  action.sa_flags = SA_RESTART;
  for (std::size_t i = 0; i < kSignals.size(); ++i) {
    sigaction(kSignals[i], nullptr, &g_previous[i]);
    // An ignored signal stays ignored: `nohup` ignores SIGHUP, a shell ignores SIGINT for a
    // background job, and neither should stop the run.
    if (g_previous[i].sa_handler != SIG_IGN) sigaction(kSignals[i], &action, nullptr);
  }
  g_installed = true;
}

InterruptHandlers::~InterruptHandlers() {
  for (std::size_t i = 0; i < kSignals.size(); ++i) sigaction(kSignals[i], &g_previous[i], nullptr);
  g_installed = false;
  g_signal = 0;
}

CleanupScope::CleanupScope() { ++g_cleanups; }
CleanupScope::~CleanupScope() { --g_cleanups; }

std::optional<int> pending_interrupt() {
  const int signal = g_signal;
  if (signal == 0) return std::nullopt;
  return signal;
}

void throw_if_interrupted() {
  if (const std::optional<int> signal = pending_interrupt()) throw Interrupted(*signal);
}

std::string signal_name(int signal) {
  switch (signal) {
    case SIGINT:
      return "SIGINT";
    case SIGTERM:
      return "SIGTERM";
    case SIGHUP:
      return "SIGHUP";
    default:
      return "signal " + std::to_string(signal);
  }
}

}  // namespace fulcrum::sim
