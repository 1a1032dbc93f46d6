// `fulcrum optimize SCENARIO`: runs the scenario's search strategy (its `search:` block) on the
// ground truth it names, then runs the scenario in the chosen mode and batch sizes through the
// event-driven runtime; prints and writes optimize.json with the choice, its predicted,
// closed-form and event-driven figures, the budgets, the profiling cost and the oracle's choice
// (docs/SEARCH.md, "fulcrum optimize").
#include <boost/program_options.hpp>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <variant>
#include <vector>

#include "models/error.hpp"
#include "models/workload/workload_catalog.hpp"
#include "sim/cli/profiling.hpp"
#include "sim/cli/scenario_run.hpp"
#include "sim/cli/verb_support.hpp"
#include "sim/config/data_dirs.hpp"
#include "sim/config/perf_model_loader.hpp"
#include "sim/config/scenario_loader.hpp"
#include "sim/report/interrupt.hpp"
#include "sim/report/json_writer.hpp"
#include "sim/search/evaluation.hpp"
#include "sim/search/ground_truth.hpp"
#include "sim/search/problem_builder.hpp"
#include "sim/search/strategy.hpp"

namespace fulcrum::sim {

namespace po = boost::program_options;

namespace {

std::string mhz_text(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.10g", v);
  return buf;
}

// Whether a steady state lets training run (the objective's measure above 0).
bool trains(const search::Problem& p, const search::SteadyState& s) {
  return p.objective == search::Objective::per_window && !p.streams.empty() ? s.per_window > 0
                                                                            : s.per_s > 0;
}

void write_state(JsonWriter& j, const search::SteadyState& s, const search::Problem& p) {
  j.begin_object()
      .key("stable")
      .value(s.stable)
      .key("training_minibatches_per_window")
      .value(static_cast<std::int64_t>(s.per_window))
      .key("training_minibatches_per_s")
      .value(s.per_s)
      .key("peak_latency_s")
      .value(s.peak_latency_s)
      .key("power_w")
      .value(s.power_w(p.power_kind))
      .key("power_max_of_phases_w")
      .value(s.power_max_w)
      .key("power_time_weighted_w")
      .value(s.power_avg_w)
      .key("latency_met")
      .value(s.latency_met)
      .key("power_met")
      .value(s.power_met)
      .end_object();
}

void write_choice(JsonWriter& j, const search::Choice& c) {
  j.begin_object().key("found").value(c.found);
  if (c.found) {
    j.key("mode").begin_object();
    j.key("cores").value(c.mode.cores);
    j.key("cpu_mhz").value(c.mode.cpu_khz / 1e3);
    j.key("gpu_mhz").value(c.mode.gpu_hz / 1e6);
    j.key("emc_mhz").value(c.mode.emc_hz / 1e6);
    j.end_object();
    j.key("batch_sizes").begin_array();
    for (int b : c.batch_sizes) j.value(b);
    j.end_array();
  }
  j.key("note").value(c.note).end_object();
}

}  // namespace

int cmd_optimize(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  po::options_description options("Options");
  options.add_options()("help,h", "this help")(
      "out,o", po::value<std::string>(), "folder for optimize.json (default: out/optimize-NAME)")(
      "set", po::value<std::vector<std::string>>()->composing(),
      "override a scenario value, key.path=value (repeatable)")(
      "seed", po::value<std::string>(), "replace the scenario's (and the search's) seed")(
      "reference", po::value<std::string>(),
      "reference folder holding measurements/ (default: $FULCRUM_REFERENCE_DIR or the build's)");
  const auto [vm, operands] = parse_verb("optimize", args, options, "scenario");
  if (vm.count("help")) {
    out << verb_usage(
        "optimize SCENARIO [--out DIR]",
        "Chooses the power mode and inference batch sizes of a scenario with the strategy of its\n"
        "`search:` block, profiling its ground truth (the measured Orin AGX tables or the\n"
        "analytic model) through the Profiler only; then runs the scenario in that choice with\n"
        "the event-driven runtime. Prints and writes optimize.json: the choice, its predicted,\n"
        "closed-form and event-driven throughput, latency and power, the budgets met, the\n"
        "profiling cost, and the oracle's choice and throughput. Schema: docs/SEARCH.md.",
        options);
    return 0;
  }
  const std::string path = only_operand(operands, "optimize", "expected one SCENARIO");
  RunOptions run_options;
  if (vm.count("set")) run_options.overrides = vm["set"].as<std::vector<std::string>>();
  if (vm.count("seed")) run_options.seed = parse_seed(vm["seed"].as<std::string>());
  const LoadedScenario loaded = load_scenario_with_sources(path, run_options.overrides);
  const Scenario& sc = loaded.scenario;
  if (!sc.search) {
    throw InputError(SourceLocation{path, 0, 0}, "search",
                     "missing: `fulcrum optimize` needs a `search:` block (docs/SEARCH.md)");
  }
  const SearchSpec& spec = *sc.search;
  auto located = [&](const std::string& key, const std::string& problem) {
    return InputError(loaded.sources.find(key), key, problem);
  };
  const std::uint64_t seed = run_options.seed ? *run_options.seed
                             : spec.seed      ? *spec.seed
                                              : sc.seed;

  // The folder, checked before any work: out/optimize-NAME (NAME without a leading "optimize-").
  const std::string short_name = sc.name.rfind("optimize-", 0) == 0 ? sc.name.substr(9) : sc.name;
  const std::filesystem::path dir = vm.count("out")
                                        ? std::filesystem::path(vm["out"].as<std::string>())
                                        : std::filesystem::path("out") / ("optimize-" + short_name);
  {
    std::error_code ec;
    if (std::filesystem::exists(dir, ec) && !std::filesystem::is_directory(dir, ec)) {
      throw InputError(std::nullopt, "--out",
                       "'" + dir.string() +
                           "' exists and is not a folder (optimize writes "
                           "optimize.json into a folder)");
    }
  }

  // Said once, before the search: what the closed form does not model.
  if (sc.budgets.latency_ms && sc.budgets.latency_percentile != 100) {
    err << "optimize: warning: budgets.latency_percentile " << sc.budgets.latency_percentile
        << " is not what the search judges: its closed form bounds peak latency (100)\n";
  }
  for (std::size_t i = 0; i < sc.inference.size(); ++i) {
    if (sc.inference[i].max_wait_ms) {
      err << "optimize: warning: inference[" << i
          << "].max_wait_ms is ignored by the search: its closed form dispatches full batches "
             "only (the event-driven run honours it)\n";
    }
  }

  // The ground truth.
  const models::DeviceCatalog catalog = devices_from(run_options.data_dir);
  const models::DeviceSpec& device = catalog.get(sc.device.model);
  const std::string reference =
      vm.count("reference") ? vm["reference"].as<std::string>() : reference_dir_for(path);
  search::TruthSources sources{reference + "/measurements", run_options.data_dir, spec.batch_sizes,
                               sc.training ? sc.training->batch_size : 16};
  const std::unique_ptr<search::GroundTruth> truth =
      search::make_ground_truth(spec.ground_truth, device, sources);
  {
    const bool table_model = std::holds_alternative<TablePerfModel>(sc.device.perf_model);
    const bool analytic_model = std::holds_alternative<AnalyticPerfModel>(sc.device.perf_model);
    if ((spec.ground_truth == GroundTruthKind::table && !table_model) ||
        (spec.ground_truth == GroundTruthKind::analytic && !analytic_model)) {
      err << "optimize: warning: device.perf_model differs from the search's " << truth->name()
          << " ground truth: the event-driven run predicts with another model than the search "
             "judged on\n";
    }
  }

  // The problem.
  if (sc.inference.size() > 2) {
    throw InputError(SourceLocation{path, 0, 0}, "inference",
                     "the search handles one or two inference streams, got " +
                         std::to_string(sc.inference.size()));
  }
  search::ProblemRequest request;
  if (sc.training) request.training = {sc.training->workload, sc.training->batch_size};
  for (std::size_t i = 0; i < sc.inference.size(); ++i) {
    const InferenceStreamSpec& st = sc.inference[i];
    const std::string key = "inference[" + std::to_string(i) + "]";
    const auto* fixed = std::get_if<FixedArrivals>(&st.arrivals);
    if (fixed == nullptr) {
      throw InputError(SourceLocation{path, 0, 0}, key + ".arrivals",
                       "the search's closed form needs fixed arrivals (process: fixed)");
    }
    search::ProblemRequest::Stream s;
    s.workload = st.workload;
    s.arrival_per_s = fixed->rate_per_s;
    if (sc.budgets.latency_ms) s.latency_budget_s = *sc.budgets.latency_ms / 1000.0;
    s.batch_sizes = spec.batch_sizes;
    s.workload_key = key + ".workload";
    s.batch_key = "search.batch_sizes";
    request.streams.push_back(std::move(s));
  }
  request.power_budget_w = sc.budgets.power_w;
  request.power_kind = spec.power_constraint;
  request.objective = spec.objective;
  request.grid = spec.modes;
  search::Problem problem;
  try {
    problem = search::problem_from(request, *truth);
  } catch (const InputError& e) {
    throw located(e.key_path(), e.problem());
  }
  std::optional<search::SearchContext> context;
  try {
    context.emplace(search::make_context(*truth, problem, seed));
  } catch (const InputError& e) {
    throw located("search.modes", e.problem());
  }
  std::unique_ptr<search::Strategy> strategy;
  try {
    strategy = search::strategy_registry().make(spec.strategy,
                                                {.max_modes = spec.max_modes, .seed = seed});
  } catch (const InputError& e) {
    throw located("search.strategy", e.problem());
  }

  // Search, judge on the truth, and the oracle.
  search::ProfilerOptions popts;
  popts.noise = spec.noise;
  popts.seed = seed;
  const search::Choice choice = search::run_strategy(*strategy, problem, *context, popts);
  const search::Outcome outcome = search::Scorer::evaluate(problem, choice, *truth);
  const search::Choice oracle = search::Oracle::solve(problem, *context);
  const search::Outcome oracle_outcome = search::Scorer::evaluate(problem, oracle, *truth);
  // An answer that trains nothing: whether any configuration would, and under which budgets.
  std::optional<search::TrainingBudgets> training_budgets;
  if (!problem.training.empty() && (!outcome.measured || !trains(problem, outcome.actual))) {
    training_budgets = search::Oracle::training_budgets(problem, *context);
  }

  // The event-driven run in the chosen mode. Its failure is reported after the search's result,
  // which is printed and written whatever happens to the run.
  std::optional<RunResult> run;
  std::exception_ptr run_failure;
  std::string run_error;
  if (choice.found) try {
      RunOptions o = run_options;
      o.seed = run_options.seed;
      o.overrides.push_back("device.cores=" + std::to_string(choice.mode.cores));
      o.overrides.push_back("device.cpu_mhz=" + mhz_text(choice.mode.cpu_khz / 1e3));
      o.overrides.push_back("device.gpu_mhz=" + mhz_text(choice.mode.gpu_hz / 1e6));
      o.overrides.push_back("device.emc_mhz=" + mhz_text(choice.mode.emc_hz / 1e6));
      for (std::size_t i = 0; i < choice.batch_sizes.size(); ++i) {
        o.overrides.push_back("inference[" + std::to_string(i) +
                              "].batch_size=" + std::to_string(choice.batch_sizes[i]));
      }
      PreparedRun prepared = prepare_run(path, o);
      run = simulate(prepared);
    } catch (const Interrupted&) {
      throw;
    } catch (const std::exception& e) {
      run_failure = std::current_exception();
      run_error = e.what();
    }

  // optimize.json
  JsonWriter j;
  j.begin_object();
  j.key("scenario").value(sc.name);
  j.key("seed").value(seed);
  j.key("search").begin_object();
  j.key("strategy").value(choice.strategy);
  j.key("ground_truth").value(truth->name());
  j.key("grid").value(problem.grid);
  j.key("objective").value(search::to_string(problem.objective));
  j.key("power_constraint").value(search::to_string(problem.power_kind));
  j.key("idle_power_w").value(problem.idle_power_w);
  j.key("max_modes")
      .value(strategy->max_modes() ? std::optional<double>(*strategy->max_modes()) : std::nullopt);
  j.end_object();
  j.key("budgets").begin_object();
  j.key("latency_s")
      .value(sc.budgets.latency_ms ? std::optional<double>(*sc.budgets.latency_ms / 1e3)
                                   : std::nullopt);
  j.key("power_w").value(sc.budgets.power_w);
  j.end_object();
  j.key("choice");
  write_choice(j, choice);
  j.key("predicted").begin_object();
  j.key("training_minibatches_per_window")
      .value(static_cast<std::int64_t>(choice.predicted_per_window));
  j.key("training_minibatches_per_s").value(choice.predicted_per_s);
  j.key("power_w").value(choice.predicted_power_w);
  j.end_object();
  j.key("closed_form_actual");
  if (outcome.measured) {
    write_state(j, outcome.actual, problem);
  } else {
    j.null();
  }
  j.key("budgets_met").value(outcome.budgets_met);
  j.key("event_driven");
  if (run) {
    j.begin_object();
    j.key("training_minibatches_per_s")
        .value(run->training ? run->training->minibatches_per_s : 0.0);
    j.key("streams").begin_array();
    for (const StreamResult& s : run->inference) {
      j.begin_object().key("name").value(s.name).key("batch_size").value(s.batch_size);
      j.key("stable").value(s.stable);
      j.key("p99_latency_s")
          .value(s.latency ? std::optional<double>(s.latency->p99_ms / 1e3) : std::nullopt);
      j.key("max_latency_s")
          .value(s.latency ? std::optional<double>(s.latency->max_ms / 1e3) : std::nullopt);
      j.end_object();
    }
    j.end_array();
    j.key("power_avg_w").value(run->power.avg_w);
    j.key("power_max_window_w").value(run->power.max_window_w);
    j.key("latency_met").value(run->budgets.latency_met);
    j.key("power_met").value(run->budgets.power_met);
    j.end_object();
  } else {
    j.null();
  }
  if (run_failure) j.key("event_driven_error").value(run_error);
  if (training_budgets) {
    j.key("training_possible").value(training_budgets->trains_now);
    j.key("training_would_run_with").begin_object();
    j.key("latency_s").value(training_budgets->latency_budget_s);
    j.key("power_w").value(training_budgets->power_budget_w);
    j.end_object();
  }
  j.key("profiling").begin_object();
  j.key("modes").value(choice.cost.modes);
  j.key("measurements").value(choice.cost.measurements);
  j.key("seconds").value(choice.cost.seconds);
  j.key("tries").value(choice.tries);
  j.end_object();
  j.key("oracle");
  write_choice(j, oracle);
  j.key("oracle_actual");
  if (oracle_outcome.measured) {
    write_state(j, oracle_outcome.actual, problem);
  } else {
    j.null();
  }
  j.end_object();
  std::filesystem::create_directories(dir);
  write_file_atomically(dir / "optimize.json", j.str());

  // The human summary.
  out << "optimize " << sc.name << ": strategy " << choice.strategy << " on the " << truth->name()
      << " ground truth (" << problem.grid << ", " << search::to_string(problem.objective) << ", "
      << search::to_string(problem.power_kind) << " power)\n";
  auto describe = [&](const char* who, const search::Choice& c, const search::Outcome& o) {
    out << "  " << who << ": ";
    if (!c.found) {
      out << "nothing found (" << c.note << ")\n";
      return;
    }
    std::string batches;
    for (int b : c.batch_sizes) {
      if (!batches.empty()) batches += '+';
      batches += std::to_string(b);
    }
    out << c.mode.label();
    if (!batches.empty()) out << ", batch " << batches;
    if (o.measured) {
      out << ": " << o.actual.per_window << " training minibatches per window, "
          << fixed(o.actual.per_s, 2) << "/s, peak latency " << fixed(o.actual.peak_latency_s, 3)
          << " s, power " << fixed(o.actual.power_w(problem.power_kind), 1) << " W"
          << (o.budgets_met ? ", budgets met" : ", budgets MISSED");
    }
    out << "\n";
  };
  describe("choice", choice, outcome);
  if (choice.found) {
    out << "  predicted: " << choice.predicted_per_window << " per window, "
        << fixed(choice.predicted_per_s, 2) << "/s, power " << fixed(choice.predicted_power_w, 1)
        << " W\n";
  }
  if (run) {
    out << "  event-driven: training "
        << fixed(run->training ? run->training->minibatches_per_s : 0, 2) << " minibatches/s";
    for (const StreamResult& s : run->inference) {
      out << ", " << s.name << " p99 " << (s.latency ? fixed(s.latency->p99_ms, 1) : "-")
          << " ms max " << (s.latency ? fixed(s.latency->max_ms, 1) : "-") << " ms";
    }
    out << ", power " << fixed(run->power.avg_w, 1) << " W average\n";
  }
  out << "  profiling: " << choice.cost.modes << " modes, " << choice.cost.measurements
      << " measurements, " << fixed(choice.cost.seconds, 1) << " s\n";
  describe("oracle", oracle, oracle_outcome);
  if (training_budgets && !training_budgets->trains_now) {
    out << "  no mode of the " << problem.grid << " grid lets training run within these budgets";
    if (training_budgets->latency_budget_s || training_budgets->power_budget_w) {
      out << "; it would with";
      if (training_budgets->latency_budget_s) {
        out << " a latency budget of " << fixed(*training_budgets->latency_budget_s, 3)
            << " s (power budget kept)";
      }
      if (training_budgets->latency_budget_s && training_budgets->power_budget_w) out << " or";
      if (training_budgets->power_budget_w) {
        out << " a power budget of " << fixed(*training_budgets->power_budget_w, 1)
            << " W (latency budget kept)";
      }
    }
    out << "\n";
  } else if (training_budgets) {
    out << "  the choice trains nothing, though the grid holds configurations that do (see the "
           "oracle)\n";
  }
  out << "wrote " << (dir / "optimize.json").string() << "\n";
  if (run_failure) {
    out << "  the event-driven run in that choice failed (below); the search's result stands\n";
    std::rethrow_exception(run_failure);
  }
  return 0;
}

}  // namespace fulcrum::sim
