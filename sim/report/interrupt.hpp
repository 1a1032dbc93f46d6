// Interrupts: SIGINT, SIGTERM and SIGHUP ask a run to stop instead of killing it on the spot, so
// that it can remove what it staged and leave its output folder as it was. The handler only
// records the signal (async-signal-safe); the run looks at it at cheap check points (each of the
// simulation's progress steps, each MiB an output file writes, each publication step) and throws
// Interrupted there, which main turns into one line and exit status 128 + signal.
//
//   InterruptHandlers handlers;   // for the scope of a run; restores the previous handlers
//   ...
//   throw_if_interrupted();       // at a check point: throws Interrupted once a signal came
#pragma once

#include <optional>
#include <string>

#include "models/error.hpp"

namespace fulcrum::sim {

// A run stopped by a signal. what() is the one line main prints, e.g.
// "fulcrum: interrupted (SIGINT); nothing was written to out/quickstart".
class Interrupted : public Error {
 public:
  // `outcome`: what the run left behind, appended after "; " (empty: nothing appended).
  explicit Interrupted(int signal, const std::string& outcome = "");
  int signal() const { return signal_; }
  int exit_status() const { return 128 + signal_; }  // as a shell reports a death by `signal`

 private:
  int signal_;
};

// Installs the handlers of SIGINT, SIGTERM and SIGHUP for its lifetime (one instance at a time)
// and forgets any signal recorded before. A signal the process was started ignoring (nohup's
// SIGHUP, a background job's SIGINT) stays ignored. A second signal while the first is being
// handled kills the process at once, as the signal would have without these handlers -- except
// the same signal again within kRepeatWindow of the first (one request delivered twice, as
// `timeout` signals the child and then its group) and any signal while a CleanupScope is alive
// (removing what the run staged is short and must not be cut off half-way).
class InterruptHandlers {
 public:
  InterruptHandlers();
  ~InterruptHandlers();  // restores the handlers that were installed before
  InterruptHandlers(const InterruptHandlers&) = delete;
  InterruptHandlers& operator=(const InterruptHandlers&) = delete;
};

// While one is alive, a further signal is recorded but never kills the process: what a stopped
// run removes (its staging folder, its lock) is removed in full. Only for short work that never
// waits (removing files).
class CleanupScope {
 public:
  CleanupScope();
  ~CleanupScope();
  CleanupScope(const CleanupScope&) = delete;
  CleanupScope& operator=(const CleanupScope&) = delete;
};

// How soon after the first the same signal counts as the same request (see InterruptHandlers).
inline constexpr long kRepeatWindowMs = 1000;

// The signal received since the handlers were installed; absent when none came (or none are
// installed). Reads one flag: cheap enough for any loop that is not per event.
std::optional<int> pending_interrupt();

// Throws Interrupted(signal) when pending_interrupt() has one.
void throw_if_interrupted();

// "SIGINT", "SIGTERM", "SIGHUP", else "signal N".
std::string signal_name(int signal);

}  // namespace fulcrum::sim
