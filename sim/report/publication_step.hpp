// Publication steps: the numbered points between claiming a run's output folder and publishing
// its result (lock taken, staging folder made, each file closed and named, run.json written, the
// folder swapped in, the previous result removed). Each is a check point for interrupts and, for
// tests, a place to inject a fault: with FULCRUM_FAULT_AT=K[:ACTION] in the environment, the K-th
// step of the process (from 1) does ACTION instead of carrying on:
//   fail     throws fulcrum::Error, as a failed write would (the default)
//   kill     kills the process with SIGKILL (nothing is cleaned up)
//   SIGINT | SIGTERM | SIGHUP   sends the process that signal
// Steps after the commit point (the result is in place) ignore `fail` and interrupts: nothing
// there can fail a run whose result is already published.
//
//   publication_step("closed requests.csv");            // before the commit point
//   publication_step("published", StepPhase::committed); // after it
#pragma once

#include <string_view>

namespace fulcrum::sim {

enum class StepPhase {
  staging,    // the result is not in place yet: a failure or an interrupt stops the run here
  committed,  // the result is in place: only `kill` (or a signal's default action) stops it
};

// Counts one step (`what` names it in an injected failure's message); throws Interrupted when a
// signal is pending and `phase` is staging; does what FULCRUM_FAULT_AT says at its step. Throws
// fulcrum::InputError when FULCRUM_FAULT_AT is malformed.
void publication_step(std::string_view what, StepPhase phase = StepPhase::staging);

}  // namespace fulcrum::sim
