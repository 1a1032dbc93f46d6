// `fulcrum run` as a function: a request in, the published run out. The verb parses options
// into a RunRequest, calls run_scenario and prints the report; a binding or a service calls it
// the same way.
//
//   RunReport r = run_scenario({.plan = {.scenario_path = "scenarios/quickstart.yaml"}});
//   std::cout << r.run.summary_json;
#pragma once

#include <filesystem>
#include <functional>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "sim/app/run_plan.hpp"

namespace fulcrum::sim::app {

struct RunRequest {
  PlanRequest plan = {};
  std::optional<std::filesystem::path> out_dir = std::nullopt;  // absent: out/<scenario name>
  bool wait = false;  // wait for another run that holds the folder instead of refusing
  std::vector<std::string> command_line = {};  // recorded in run.json
  // Called with each of the plan's warnings (RunPlan::warnings) once it is loaded, before the
  // folder is claimed or anything runs; may be empty.
  std::function<void(const std::string&)> on_warning = {};
  // Makes the GPU-sharing policy instead of the scenario's gpu_sharing (RunPlan::set_policy);
  // empty: the scenario's.
  GpuSharingPolicyFactory policy = {};
};

struct RunReport {
  ScenarioRun run;
  std::filesystem::path out_dir;
};

// Loads the plan, claims the output folder (ResultFolder: bad input, a folder that is not a
// result or one another run holds is one InputError before anything runs), runs, writes the
// outputs (a hardware backend also device.json: what measured the run) and publishes them.
// `notes` (may be null) receives the one-line status messages a person reads: what runs where,
// waits, idle metering. `progress` as in RunPlan::run.
RunReport run_scenario(const RunRequest& request, std::ostream* notes = nullptr,
                       ProgressFn progress = {});

}  // namespace fulcrum::sim::app
