// `fulcrum validate` as a function: profile what a scenario runs on a backend, simulate the
// scenario with that profile, run it for real in wall-clock time, and compare the two in a
// bundle folder published whole (ResultFolder with the bundle layout).
//
//   ValidateReport r = validate({.plan = {.scenario_path = "scenarios/quickstart.yaml",
//                                         .backend = {.name = "sim", .real_time = true}}},
//                               std::cerr);
#pragma once

#include <filesystem>
#include <optional>
#include <ostream>
#include <string>

#include "sim/app/profiling.hpp"
#include "sim/app/run_plan.hpp"
#include "sim/report/validation_report.hpp"

namespace fulcrum::sim::app {

struct ValidateRequest {
  // The scenario, and in `backend` the measured run's backend (its flags; it runs in real time).
  PlanRequest plan = {};
  std::optional<std::filesystem::path> out_dir = std::nullopt;  // absent: out/validate-<name>
  double noise = 0.03;  // sim backend only: log-normal noise of the measured run's minibatches
  int repeats = 10;     // profile: median of N minibatches
  int discard = 1;      // profile: minibatches discarded first
  SettleOptions settle = {};
  ClockOptions clocks = {};
  bool quiet = false;             // no status lines on `notes`
  std::string command_line = {};  // recorded in inputs/command.txt
};

struct ValidateReport {
  Comparison comparison;
  std::string scenario;  // its name
  std::string backend;   // the measured run's
  std::filesystem::path out_dir;
};

// Checks the scenario and the bundle folder before anything runs (InputError); status lines go to
// `notes`; `progress` follows the measured run. An interrupt throws Interrupted naming the bundle,
// which stays as it was.
ValidateReport validate(const ValidateRequest& request, std::ostream& notes,
                        ProgressFn progress = {});

}  // namespace fulcrum::sim::app
