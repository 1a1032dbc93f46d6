#include "sim/app/optimize.hpp"

#include <memory>
#include <variant>

#include "models/error.hpp"
#include "sim/config/data_dirs.hpp"
#include "sim/config/device_catalog_loader.hpp"
#include "sim/config/scenario_loader.hpp"
#include "sim/report/atomic_file.hpp"
#include "sim/report/folder_lock.hpp"
#include "sim/report/interrupt.hpp"
#include "sim/report/output_path.hpp"
#include "sim/search/evaluation.hpp"
#include "sim/search/ground_truth.hpp"
#include "sim/search/problem_builder.hpp"
#include "sim/search/strategy.hpp"

namespace fulcrum::sim::app {

namespace {

// Whether a steady state lets training run (the objective's measure above 0).
bool trains(const search::Problem& p, const search::SteadyState& s) {
  return p.objective == Objective::per_window && !p.streams.empty() ? s.per_window > 0
                                                                    : s.per_s > 0;
}

OptimizeState state_of(const search::SteadyState& s, const search::Problem& p) {
  return {s.stable,      s.per_window,  s.per_s,       s.peak_latency_s, s.power_w(p.power_kind),
          s.power_max_w, s.power_avg_w, s.latency_met, s.power_met};
}

OptimizeChoice choice_of(const search::Choice& c) {
  OptimizeChoice o;
  o.found = c.found;
  if (c.found) {
    o.cores = c.mode.cores;
    o.cpu_mhz = c.mode.cpu_khz / 1e3;
    o.gpu_mhz = c.mode.gpu_hz / 1e6;
    o.emc_mhz = c.mode.emc_hz / 1e6;
    o.mode_label = c.mode.label();
    o.batch_sizes = c.batch_sizes;
  }
  o.note = c.note;
  return o;
}

// What the closed form does not model, one line each.
std::vector<std::string> warnings_for(const Scenario& sc, GroundTruthKind truth) {
  std::vector<std::string> w;
  if (sc.budgets.latency_ms && sc.budgets.latency_percentile != 100) {
    std::string p = std::to_string(sc.budgets.latency_percentile);
    p = p.substr(0, p.find('.'));
    w.push_back("budgets.latency_percentile " + p +
                " is not what the search judges: its closed form bounds peak latency (100)");
  }
  for (std::size_t i = 0; i < sc.inference.size(); ++i) {
    if (sc.inference[i].max_wait_ms) {
      w.push_back("inference[" + std::to_string(i) +
                  "].max_wait_ms is ignored by the search: its closed form dispatches full "
                  "batches only (the event-driven run honours it)");
    }
  }
  const bool same_model = truth == GroundTruthKind::table
                              ? std::holds_alternative<TablePerfModel>(sc.device.perf_model)
                              : std::holds_alternative<AnalyticPerfModel>(sc.device.perf_model);
  if (!same_model) {
    w.push_back(std::string("device.perf_model differs from the search's ") + to_string(truth) +
                " ground truth: the event-driven run predicts with another model than the search "
                "judged on");
  }
  return w;
}

}  // namespace

std::string default_optimize_folder(const std::string& scenario_name) {
  const std::string prefix = "optimize-";
  const std::string name =
      scenario_name.rfind(prefix, 0) == 0 ? scenario_name.substr(prefix.size()) : scenario_name;
  return "out/optimize-" + name;
}

// As `run` refuses a folder holding anything a run does not write, optimize refuses one holding
// anything but its own optimize.json (and what writing it leaves beside it: NAME.lock,
// NAME.partial).
static void refuse_foreign_files(const std::filesystem::path& folder) {
  std::error_code ec;
  if (!std::filesystem::is_directory(folder, ec)) return;
  for (const auto& entry : std::filesystem::directory_iterator(folder, ec)) {
    const std::string name = entry.path().filename().string();
    if (name == "optimize.json" || name.rfind("optimize.json.", 0) == 0) continue;
    throw InputError(std::nullopt, "--out",
                     "'" + folder.string() + "' holds '" + name +
                         "', which optimize does not write; give a new or empty folder, or one "
                         "holding only an earlier optimize.json");
  }
}

std::filesystem::path publish(const OptimizeResult& result) {
  const std::filesystem::path file = result.folder / "optimize.json";
  std::filesystem::create_directories(result.folder);
  const std::filesystem::path lock_path = file.string() + ".lock";
  std::optional<FolderLock> lock = FolderLock::try_lock(lock_path);
  if (!lock) {
    const std::optional<long> pid = FolderLock::holder_pid(lock_path);
    throw InputError(std::nullopt, "--out",
                     "'" + file.string() + "' is being written by another fulcrum" +
                         (pid ? " (pid " + std::to_string(*pid) + ")" : std::string()) +
                         "; not written");
  }
  try {
    AtomicFile f(file);
    f.write(optimize_json(result.report));
    f.close();
    throw_if_interrupted();
    f.publish();
  } catch (const Interrupted& e) {
    throw Interrupted(e.signal(), "nothing was written to " + result.folder.string());
  }
  return file;
}

OptimizeResult optimize(const OptimizeRequest& request) {
  const std::string& path = request.plan.scenario_path;
  const search::StrategyRegistry& registry =
      request.strategies != nullptr ? *request.strategies : search::strategy_registry();
  const std::vector<std::string> strategy_names = registry.names();
  PlanRequest plan_request = request.plan;
  plan_request.strategy_names = &strategy_names;
  const LoadedScenario loaded =
      load_scenario_with_sources(path, request.plan.overrides, &strategy_names);
  const Scenario& sc = loaded.scenario;
  if (!sc.search) {
    throw InputError(SourceLocation{path, 0, 0}, "search",
                     "missing: `fulcrum optimize` needs a `search:` block (docs/SEARCH.md)");
  }
  const SearchSpec& spec = *sc.search;
  auto located = [&](const std::string& key, const std::string& problem) {
    return InputError(loaded.sources.find(key), key, problem);
  };
  OptimizeResult result;
  result.folder =
      request.out_dir ? *request.out_dir : std::filesystem::path(default_optimize_folder(sc.name));
  check_output_folder(result.folder, "--out", {path});
  refuse_foreign_files(result.folder);
  OptimizeReport& r = result.report;
  r.scenario = sc.name;
  r.seed = request.plan.seed ? *request.plan.seed : spec.seed ? *spec.seed : sc.seed;
  r.warnings = warnings_for(sc, spec.ground_truth);
  std::unique_ptr<search::Strategy> strategy;
  try {
    strategy = registry.make(
        spec.strategy,
        {.max_modes = spec.max_modes, .seed = r.seed, .data_dir = request.plan.data_dir});
  } catch (const InputError& e) {
    throw located("search.strategy", e.problem());
  }

  // The ground truth.
  const models::DeviceCatalog catalog = load_device_catalog(request.plan.data_dir + "/devices");
  const models::DeviceSpec& device = catalog.get(sc.device.model);
  const std::string reference =
      request.reference_dir ? *request.reference_dir : reference_dir_for(path);
  const std::unique_ptr<search::GroundTruth> truth =
      search::make_ground_truth(spec.ground_truth, device,
                                {reference + "/measurements", request.plan.data_dir,
                                 spec.batch_sizes, sc.training ? sc.training->batch_size : 16});

  // The problem.
  if (sc.inference.size() > 2) {
    throw InputError(SourceLocation{path, 0, 0}, "inference",
                     "the search handles one or two inference streams, got " +
                         std::to_string(sc.inference.size()));
  }
  search::ProblemRequest want;
  if (sc.training) want.training = {sc.training->workload, sc.training->batch_size};
  for (std::size_t i = 0; i < sc.inference.size(); ++i) {
    const InferenceStreamSpec& st = sc.inference[i];
    const std::string key = "inference[" + std::to_string(i) + "]";
    const auto* fixed = std::get_if<FixedArrivals>(&st.arrivals);
    if (fixed == nullptr) {
      throw located(key + ".arrivals",
                    "the search's closed form needs fixed arrivals (process: fixed)");
    }
    search::ProblemRequest::Stream s;
    s.workload = st.workload;
    s.arrival_per_s = fixed->rate_per_s;
    if (sc.budgets.latency_ms) s.latency_budget_s = *sc.budgets.latency_ms / 1000.0;
    s.batch_sizes = spec.batch_sizes;
    s.workload_key = key + ".workload";
    s.batch_key = "search.batch_sizes";
    want.streams.push_back(std::move(s));
  }
  want.power_budget_w = sc.budgets.power_w;
  want.power_kind = spec.power_constraint;
  want.objective = spec.objective;
  want.grid = spec.modes;
  search::Problem problem;
  try {
    problem = search::problem_from(want, *truth);
  } catch (const InputError& e) {
    throw located(e.key_path(), e.problem());
  }
  std::optional<search::SearchContext> context;
  try {
    context.emplace(search::make_context(*truth, problem, r.seed));
  } catch (const InputError& e) {
    throw located("search.modes", e.problem());
  }

  // A grid the truth does not cover whole: the real cause of "nothing measured" answers.
  const std::size_t measured = search::Oracle::measured_modes(problem, *context);
  if (measured < context->grid.size()) {
    r.warnings.push_back("search.modes: the " + truth->name() +
                         " ground truth has every value "
                         "of this problem at " +
                         std::to_string(measured) + " of the " +
                         std::to_string(context->grid.size()) + " modes of " + problem.grid +
                         "; profiling the others teaches a strategy nothing (" +
                         truth->default_grid() + " is covered whole)");
  }

  // Search, judge on the truth, and the oracle.
  search::ProfilerOptions popts;
  popts.noise = spec.noise;
  popts.seed = r.seed;
  const search::Choice choice = search::run_strategy(*strategy, problem, *context, popts);
  const search::Outcome outcome = search::Scorer::evaluate(problem, choice, *truth);
  const search::Choice oracle = search::Oracle::solve(problem, *context);
  const search::Outcome oracle_outcome = search::Scorer::evaluate(problem, oracle, *truth);

  r.strategy = choice.strategy;
  r.ground_truth = truth->name();
  r.grid = problem.grid;
  r.objective = to_string(problem.objective);
  r.power_constraint = to_string(problem.power_kind);
  r.idle_power_w = problem.idle_power_w;
  r.max_modes = strategy->max_modes();
  if (sc.budgets.latency_ms) r.latency_budget_s = *sc.budgets.latency_ms / 1e3;
  r.power_budget_w = sc.budgets.power_w;
  r.choice = choice_of(choice);
  r.predicted_per_window = choice.predicted_per_window;
  r.predicted_per_s = choice.predicted_per_s;
  r.predicted_power_w = choice.predicted_power_w;
  if (outcome.measured) r.closed_form_actual = state_of(outcome.actual, problem);
  r.budgets_met = outcome.budgets_met;
  r.profiling = {choice.cost.modes, choice.cost.measurements, choice.cost.seconds, choice.tries};
  r.oracle = choice_of(oracle);
  if (oracle_outcome.measured) r.oracle_actual = state_of(oracle_outcome.actual, problem);
  // An answer that trains nothing: whether any configuration would, and under which budgets.
  if (!problem.training.empty() && (!outcome.measured || !trains(problem, outcome.actual))) {
    const search::TrainingBudgets t = search::Oracle::training_budgets(problem, *context);
    r.training = OptimizeReport::Training{t.trains_now, t.latency_budget_s, t.power_budget_w};
  }

  // The event-driven run in the chosen mode and batch sizes. Whatever happens to it, the
  // search's result above stands.
  if (choice.found) {
    try {
      const RunPlan plan = RunPlan::load(plan_request);
      r.event_driven = plan.with_mode(choice.mode)
                           .with_batch_sizes({.inference = choice.batch_sizes})
                           .simulate(nullptr, [](Time, Time) { throw_if_interrupted(); });
    } catch (const Interrupted& e) {
      result.interrupted_by = e.signal();
    } catch (const std::exception& e) {
      result.run_failure = std::current_exception();
      r.event_driven_error = e.what();
    }
  }
  return result;
}

}  // namespace fulcrum::sim::app
