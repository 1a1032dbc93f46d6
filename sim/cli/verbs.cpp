#include "sim/cli/verbs.hpp"

#include <algorithm>
#include <array>

namespace fulcrum::sim {

// Each verb lives in its own file, sim/cli/<verb>_verb.cpp, defining cmd_<verb>.
int cmd_run(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
int cmd_devices(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
int cmd_workloads(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
int cmd_calibrate(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
int cmd_profile(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
int cmd_validate(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
int cmd_predict(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
int cmd_optimize(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
int cmd_sweep(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
int cmd_study(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

namespace {

// The verbs, in the order `fulcrum --help` lists them. Adding a verb (optimize, sweep, predict,
// profile, validate, ...) is one new file, sim/cli/<verb>_verb.cpp with its cmd_<verb>, plus its
// declaration above and one row here; dispatch, cli_verbs() and the top-level help follow.
constexpr std::array kVerbs{
    Verb{"run", "SCENARIO", "run a scenario file: summary.json on stdout, files in --out", cmd_run},
    Verb{"devices", "[NAME]", "the device catalog, or one device's frequency tables and presets",
         cmd_devices},
    Verb{"workloads", "", "the DNN workloads (parameters, GFLOPs, kernels) and datasets",
         cmd_workloads},
    Verb{"calibrate", "", "fit the analytic performance model to reference measurements",
         cmd_calibrate},
    Verb{"profile", "", "measure minibatch time and power over modes into a profile CSV",
         cmd_profile},
    Verb{"validate", "SCENARIO", "simulated vs measured run of a scenario, side by side",
         cmd_validate},
    Verb{"predict", "", "fit a time and power predictor to profiled modes and predict others",
         cmd_predict},
    Verb{"optimize", "SCENARIO",
         "choose a power mode and batch size with a search strategy, then run the choice",
         cmd_optimize},
    Verb{"sweep", "SWEEP.yaml", "every strategy on a grid of search configurations, on all cores",
         cmd_sweep},
    Verb{"study", "STUDY.yaml", "full runs over a grid of scenario keys and seeds, into CSV",
         cmd_study},
};

}  // namespace

std::span<const Verb> verbs() { return kVerbs; }

std::optional<Verb> find_verb(std::string_view name) {
  const auto it =
      std::find_if(kVerbs.begin(), kVerbs.end(), [&](const Verb& v) { return v.name == name; });
  if (it == kVerbs.end()) return std::nullopt;
  return *it;
}

}  // namespace fulcrum::sim
