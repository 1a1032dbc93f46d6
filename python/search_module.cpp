// fulcrum._core.search: `optimize` and `sweep` over the application layer (sim/app/optimize.hpp,
// sweep.hpp), the search's types, and strategies written in Python (docs/PYTHON.md, "A search
// strategy"). A Python strategy is a search::Strategy whose choose() calls the Python object's
// choose(problem, profiler, context) with the GIL taken for the call: it learns about modes only
// through the Profiler it is handed (the same budget and accounting as a built-in strategy), and
// its context carries no ground truth. The sweep runs on every core with the GIL released; the
// Python strategies' calls take turns on it. The project's random streams (models::RngStreams)
// are bound too, so that a Python strategy draws the numbers a C++ one would.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include <cstdint>
#include <exception>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "models/device/mode_space.hpp"
#include "models/device/power_mode.hpp"
#include "models/error.hpp"
#include "models/random/rng_streams.hpp"
#include "models/workload/phase_cost.hpp"
#include "python/module_parts.hpp"
#include "sim/app/optimize.hpp"
#include "sim/app/sweep.hpp"
#include "sim/report/optimize_report.hpp"
#include "sim/report/sweep_report.hpp"
#include "sim/search/pareto.hpp"
#include "sim/search/problem.hpp"
#include "sim/search/profiler.hpp"
#include "sim/search/steady_state.hpp"
#include "sim/search/strategies.hpp"
#include "sim/search/strategy.hpp"
#include "sim/sweep/sweep_runner.hpp"

namespace py = pybind11;

namespace fulcrum::python {

namespace {

using namespace fulcrum::sim;
using search::Choice;
using search::Problem;
using search::Profiler;
using search::SearchContext;
using search::StrategyOptions;

// A strategy written in Python: the object its class made for one problem's options.
class PythonStrategy final : public search::Strategy {
 public:
  // GIL held.
  PythonStrategy(std::string name, py::object object, std::optional<int> max_modes)
      : name_(std::move(name)), object_(std::move(object)), max_modes_(max_modes) {}
  ~PythonStrategy() override {
    const py::gil_scoped_acquire gil;  // made and dropped on the sweep's threads
    object_ = py::object();
  }

  std::string name() const override { return name_; }
  std::optional<int> max_modes() const override { return max_modes_; }

  Choice choose(const Problem& problem, Profiler& profiler, const SearchContext& context) override {
    const py::gil_scoped_acquire gil;
    try {
      const py::object r =
          object_.attr("choose")(py::cast(&problem, py::return_value_policy::reference),
                                 py::cast(&profiler, py::return_value_policy::reference),
                                 py::cast(&context, py::return_value_policy::reference));
      if (!py::isinstance<Choice>(r)) {
        throw Error("strategy '" + name_ + "': choose() returned " +
                    std::string(py::str(py::repr(r))) + ", not a fulcrum.search.Choice");
      }
      Choice choice = r.cast<Choice>();
      if (choice.found && choice.batch_sizes.size() != problem.streams.size()) {
        throw Error("strategy '" + name_ + "': choose() found a choice with " +
                    std::to_string(choice.batch_sizes.size()) + " batch sizes for " +
                    std::to_string(problem.streams.size()) + " inference streams");
      }
      return choice;
    } catch (const py::error_already_set& e) {
      throw Error("strategy '" + name_ + "': " + python_error_line(e));
    }
  }

 private:
  std::string name_;
  py::object object_;
  std::optional<int> max_modes_;
};

// The registry a sweep or optimize makes its strategies from: the built-ins and, per Python
// strategy, (name, class, summary, default budget). GIL held. The classes are held by plain
// pointers: the caller's list keeps them alive for the sweep, and the registry is then copied and
// called on threads without the GIL.
using PythonStrategies =
    std::vector<std::tuple<std::string, py::object, std::string, std::optional<int>>>;

search::StrategyRegistry registry_with(const PythonStrategies& strategies) {
  search::StrategyRegistry registry = search::strategy_registry();
  for (const auto& [name, cls, summary, budget] : strategies) {
    PyObject* raw = cls.ptr();
    registry.add(
        {name, summary, budget,
         [raw, name = name](const StrategyOptions& o) -> std::unique_ptr<search::Strategy> {
           const py::gil_scoped_acquire gil;
           try {
             py::object object = py::reinterpret_borrow<py::object>(raw)(o);
             return std::make_unique<PythonStrategy>(name, std::move(object), o.max_modes);
           } catch (const py::error_already_set& e) {
             throw Error("strategy '" + name + "': " + python_error_line(e));
           }
         }});
  }
  return registry;
}

py::dict sweep_py(const std::string& sweep_file, const std::filesystem::path& out, unsigned threads,
                  std::size_t shard, std::size_t shards,
                  const std::optional<std::string>& reference_dir, const std::string& data_dir,
                  const PythonStrategies& strategies, Progress* progress) {
  const search::StrategyRegistry registry = registry_with(strategies);
  app::SweepRequest request;
  request.sweep_file = sweep_file;
  request.out = out;
  request.threads = threads;
  request.shard = shard;
  request.shards = shards;
  request.reference_dir = reference_dir;
  if (!data_dir.empty()) request.data_dir = data_dir;
  request.strategies = &registry;
  if (progress != nullptr) {
    progress->fraction = 0;
    progress->finished = false;
    request.progress = [progress](const std::string&, std::size_t done, std::size_t total) {
      progress->fraction = total > 0 ? static_cast<double>(done) / static_cast<double>(total) : 1;
    };
  }
  std::optional<app::SweepReport> report;
  {
    const py::gil_scoped_release released;
    try {
      report.emplace(app::sweep(request));
    } catch (...) {
      if (progress != nullptr) progress->finished = true;
      throw;
    }
    if (progress != nullptr) progress->finished = true;
  }
  py::dict d;
  d["csv"] = report->csv;
  d["json"] = sweep_json(report->summary, report->csv, report->shard, report->shards);
  d["text"] = sweep::format_summary(report->summary);
  return d;
}

// `fulcrum optimize` as a function: optimize.json's document and the summary the CLI prints;
// with `publish`, optimize.json written into `out` as the CLI writes it. The event-driven run's
// failure is raised after publishing, as the CLI does.
py::dict optimize_py(const std::string& scenario_path, const std::vector<std::string>& overrides,
                     std::optional<std::uint64_t> seed, const std::filesystem::path& out,
                     bool publish, const std::optional<std::string>& reference_dir,
                     const std::string& data_dir, const PythonStrategies& strategies) {
  const search::StrategyRegistry registry = registry_with(strategies);
  app::OptimizeRequest request;
  request.strategies = &registry;
  request.plan.scenario_path = scenario_path;
  request.plan.overrides = overrides;
  request.plan.seed = seed;
  if (!data_dir.empty()) request.plan.data_dir = data_dir;
  request.reference_dir = reference_dir;
  request.out_dir = out;
  std::optional<app::OptimizeResult> result;
  std::optional<std::filesystem::path> file;
  {
    const py::gil_scoped_release released;
    result.emplace(app::optimize(request));
    if (publish) file = app::publish(*result);
  }
  if (result->run_failure) std::rethrow_exception(result->run_failure);
  py::dict d;
  d["json"] = optimize_json(result->report);
  d["text"] = optimize_summary(result->report);
  d["warnings"] = result->report.warnings;
  d["file"] = file ? py::object(py::cast(*file)) : py::none();
  return d;
}

template <typename T>
std::vector<T> list_of(const py::iterable& items) {
  std::vector<T> out;
  for (const py::handle h : items) out.push_back(h.cast<T>());
  return out;
}

void bind_random(py::module_& m) {
  py::class_<models::Rng>(m, "Rng",
                          "A seeded generator (xoshiro256**), as the project's C++ draws: the "
                          "same (seed, name) stream gives the same numbers in Python and C++.")
      .def(py::init<std::uint64_t>(), py::arg("seed"))
      .def("next", &models::Rng::next, "64 uniformly distributed bits.")
      .def("uniform", &models::Rng::uniform, "Uniform in [0, 1).")
      .def(
          "exponential",
          [](models::Rng& r, double rate) {
            if (!(rate > 0)) throw py::value_error("exponential: rate must be > 0");
            return r.exponential(rate);
          },
          py::arg("rate"), "Exponential with mean 1/rate.")
      .def(
          "uniform_below",
          [](models::Rng& r, std::uint64_t bound) {
            if (bound == 0) throw py::value_error("uniform_below: bound must be > 0");
            return r.uniform_below(bound);
          },
          py::arg("bound"), "Uniform integer in [0, bound), without modulo bias.");
  py::class_<models::RngStreams>(m, "RngStreams",
                                 "Seeded, named, independent random streams "
                                 "(models/random/rng_streams.hpp).")
      .def(py::init<std::uint64_t>(), py::arg("seed"))
      .def("stream", &models::RngStreams::stream, py::arg("name"),
           "A fresh generator for `name`: the same (seed, name) always gives the same sequence.")
      .def_property_readonly("seed", &models::RngStreams::seed);
}

void bind_types(py::module_& s) {
  py::enum_<models::Phase>(s, "Phase")
      .value("training", models::Phase::training)
      .value("inference", models::Phase::inference);
  py::enum_<search::Objective>(s, "Objective")
      .value("per_window", search::Objective::per_window)
      .value("per_second", search::Objective::per_second);
  py::enum_<search::PowerConstraint>(s, "PowerConstraint")
      .value("max_of_phases", search::PowerConstraint::max_of_phases)
      .value("time_weighted", search::PowerConstraint::time_weighted);

  py::class_<models::PowerMode>(s, "PowerMode", "A power mode: cores, CPU, GPU and EMC clocks.")
      .def(py::init([](int cores, double cpu_khz, double gpu_hz, double emc_hz, int gpu_tpcs) {
             return models::PowerMode{cores, cpu_khz, gpu_hz, emc_hz, gpu_tpcs};
           }),
           py::arg("cores") = 0, py::arg("cpu_khz") = 0, py::arg("gpu_hz") = 0,
           py::arg("emc_hz") = 0, py::arg("gpu_tpcs") = 0)
      .def_readonly("cores", &models::PowerMode::cores)
      .def_readonly("cpu_khz", &models::PowerMode::cpu_khz)
      .def_readonly("gpu_hz", &models::PowerMode::gpu_hz)
      .def_readonly("emc_hz", &models::PowerMode::emc_hz)
      .def_readonly("gpu_tpcs", &models::PowerMode::gpu_tpcs)
      .def("label", &models::PowerMode::label)
      .def("__eq__", [](const models::PowerMode& a, const models::PowerMode& b) { return a == b; })
      .def("__lt__", [](const models::PowerMode& a, const models::PowerMode& b) { return a < b; })
      .def("__hash__",
           [](const models::PowerMode& m) {
             return py::hash(py::make_tuple(m.cores, m.cpu_khz, m.gpu_hz, m.emc_hz, m.gpu_tpcs));
           })
      .def("__repr__", [](const models::PowerMode& m) { return "<PowerMode " + m.label() + ">"; });

  py::class_<models::ModeSpace>(s, "ModeSpace", "The grid of modes a strategy searches.")
      .def("__len__", &models::ModeSpace::size)
      .def("size", &models::ModeSpace::size)
      .def("at",
           [](const models::ModeSpace& g, std::size_t i) {
             if (i >= g.size()) throw py::index_error("mode index out of range");
             return g.at(i);
           })
      .def("__getitem__",
           [](const models::ModeSpace& g, std::size_t i) {
             if (i >= g.size()) throw py::index_error("mode index out of range");
             return g.at(i);
           })
      .def("index_of", &models::ModeSpace::index_of)
      .def_property_readonly("cores", &models::ModeSpace::cores)
      .def_property_readonly("cpu_khz", &models::ModeSpace::cpu_khz)
      .def_property_readonly("gpu_hz", &models::ModeSpace::gpu_hz)
      .def_property_readonly("emc_hz", &models::ModeSpace::emc_hz);

  py::class_<search::MeasuredPoint>(s, "MeasuredPoint")
      .def_readonly("time_ms", &search::MeasuredPoint::time_ms)
      .def_readonly("power_w", &search::MeasuredPoint::power_w);
  py::class_<search::Profile>(s, "Profile")
      .def_property_readonly(
          "status",
          [](const search::Profile& p) {
            switch (p.status) {
              case search::ProfileStatus::ok:
                return "ok";
              case search::ProfileStatus::over_budget:
                return "over_budget";
              case search::ProfileStatus::no_data:
                break;
            }
            return "no_data";
          },
          "'ok', 'no_data' (the truth has no value there) or 'over_budget' (a new mode beyond "
          "the budget: refused, nothing charged)")
      .def("ok", &search::Profile::ok)
      .def_readonly("value", &search::Profile::value);
  py::class_<search::ProfilingCost>(s, "ProfilingCost")
      .def_readonly("modes", &search::ProfilingCost::modes)
      .def_readonly("measurements", &search::ProfilingCost::measurements)
      .def_readonly("seconds", &search::ProfilingCost::seconds)
      .def_readonly("refused", &search::ProfilingCost::refused);
  py::class_<Profiler>(s, "Profiler",
                       "The only way a strategy learns about a mode: measures, charges the cost "
                       "and enforces the budget (sim/search/profiler.hpp). Valid during "
                       "choose() only.")
      .def("profile", &Profiler::profile, py::arg("workload"), py::arg("phase"),
           py::arg("batch_size"), py::arg("mode"))
      .def("profiled", &Profiler::profiled, py::arg("mode"))
      .def("can_profile", &Profiler::can_profile, py::arg("mode"))
      .def("can_profile_new_mode", &Profiler::can_profile_new_mode)
      .def_property_readonly("modes", &Profiler::modes)
      .def_property_readonly("cost", &Profiler::cost)
      .def_property_readonly("max_modes", &Profiler::max_modes);

  py::class_<search::SearchStream>(s, "SearchStream")
      .def_readonly("workload", &search::SearchStream::workload)
      .def_readonly("arrival_per_s", &search::SearchStream::arrival_per_s)
      .def_readonly("latency_budget_s", &search::SearchStream::latency_budget_s)
      .def_readonly("batch_sizes", &search::SearchStream::batch_sizes)
      .def("latency_bound_s", &search::SearchStream::latency_bound_s);
  py::class_<Problem>(s, "Problem", "What a strategy is asked (sim/search/problem.hpp).")
      .def_readonly("training", &Problem::training)
      .def_readonly("training_batch", &Problem::training_batch)
      .def_readonly("streams", &Problem::streams)
      .def_readonly("power_budget_w", &Problem::power_budget_w)
      .def_readonly("power_kind", &Problem::power_kind)
      .def_readonly("objective", &Problem::objective)
      .def_readonly("idle_power_w", &Problem::idle_power_w)
      .def_readonly("grid", &Problem::grid);
  // The context without its ground truth: a Python strategy reads the truth only through the
  // Profiler.
  py::class_<SearchContext>(s, "SearchContext",
                            "What a strategy may know besides the problem: the device's name, "
                            "the grid, each stream's candidate batch sizes, a seed.")
      .def_property_readonly("device", [](const SearchContext& c) { return c.device.name; })
      .def_property_readonly(
          "grid", [](const SearchContext& c) -> const models::ModeSpace& { return c.grid; },
          py::return_value_policy::reference_internal)
      .def_readonly("stream_batches", &SearchContext::stream_batches)
      .def_readonly("seed", &SearchContext::seed)
      .def_readonly("data_dir", &SearchContext::data_dir);
  py::class_<StrategyOptions>(s, "StrategyOptions")
      .def(py::init([](std::optional<int> max_modes, std::optional<int> k, std::uint64_t seed) {
             StrategyOptions o;
             o.max_modes = max_modes;
             o.k = k;
             o.seed = seed;
             return o;
           }),
           py::arg("max_modes") = py::none(), py::arg("k") = py::none(), py::arg("seed") = 0)
      .def_readonly("max_modes", &StrategyOptions::max_modes)
      .def_readonly("k", &StrategyOptions::k)
      .def_readonly("seed", &StrategyOptions::seed)
      .def_readonly("data_dir", &StrategyOptions::data_dir);

  py::class_<search::SteadyState>(s, "SteadyState", "A closed-form steady state, as measured.")
      .def_readonly("stable", &search::SteadyState::stable)
      .def_readonly("window_s", &search::SteadyState::window_s)
      .def_readonly("per_window", &search::SteadyState::per_window)
      .def_readonly("per_s", &search::SteadyState::per_s)
      .def_readonly("peak_latency_s", &search::SteadyState::peak_latency_s)
      .def_readonly("power_max_w", &search::SteadyState::power_max_w)
      .def_readonly("power_avg_w", &search::SteadyState::power_avg_w)
      .def_readonly("latency_met", &search::SteadyState::latency_met)
      .def_readonly("power_met", &search::SteadyState::power_met)
      .def("feasible", &search::SteadyState::feasible)
      .def("power_w", &search::SteadyState::power_w, py::arg("kind"));
  py::class_<search::Measured>(s, "Measured", "A candidate a strategy has measured.")
      .def(py::init([](const models::PowerMode& mode, std::vector<int> batches,
                       const search::SteadyState& state) {
             return search::Measured{mode, std::move(batches), state};
           }),
           py::arg("mode"), py::arg("batches"), py::arg("state"))
      .def_readonly("mode", &search::Measured::mode)
      .def_readonly("batches", &search::Measured::batches)
      .def_readonly("state", &search::Measured::state);
  py::class_<Choice>(s, "Choice", "A strategy's answer (sim/search/problem.hpp).")
      .def(py::init([](bool found, const models::PowerMode& mode, std::vector<int> batch_sizes,
                       long predicted_per_window, double predicted_per_s, double predicted_power_w,
                       int tries, std::string note) {
             Choice c;
             c.found = found;
             c.mode = mode;
             c.batch_sizes = std::move(batch_sizes);
             c.predicted_per_window = predicted_per_window;
             c.predicted_per_s = predicted_per_s;
             c.predicted_power_w = predicted_power_w;
             c.tries = tries;
             c.note = std::move(note);
             return c;
           }),
           py::arg("found") = false, py::arg("mode") = models::PowerMode{},
           py::arg("batch_sizes") = std::vector<int>{}, py::arg("predicted_per_window") = 0,
           py::arg("predicted_per_s") = 0.0, py::arg("predicted_power_w") = 0.0,
           py::arg("tries") = 0, py::arg("note") = "")
      .def_readwrite("found", &Choice::found)
      .def_readwrite("mode", &Choice::mode)
      .def_readwrite("batch_sizes", &Choice::batch_sizes)
      .def_readwrite("predicted_per_window", &Choice::predicted_per_window)
      .def_readwrite("predicted_per_s", &Choice::predicted_per_s)
      .def_readwrite("predicted_power_w", &Choice::predicted_power_w)
      .def_readwrite("tries", &Choice::tries)
      .def_readwrite("note", &Choice::note)
      .def_readonly("cost", &Choice::cost);

  // The building blocks the built-in strategies share (sim/search/strategies.hpp, pareto.hpp).
  s.def("profile_state", &search::profile_state, py::arg("problem"), py::arg("profiler"),
        py::arg("mode"), py::arg("batches"),
        "Profiles what the problem needs at `mode` (training, each stream at its batch size); "
        "the measured SteadyState, or None when a measurement was refused or has no data.");
  s.def(
      "best_feasible",
      [](const Problem& p, const py::iterable& seen) {
        return search::best_feasible(p, list_of<search::Measured>(seen));
      },
      py::arg("problem"), py::arg("seen"),
      "The best feasible Measured for the problem's objective, or None.");
  s.def("choice_from", &search::choice_from, py::arg("best"), py::arg("tries"),
        py::arg("note") = "", py::arg("kind") = search::PowerConstraint::max_of_phases,
        "A Choice from a measured candidate (or 'not found' with `note`).");
  s.def("batch_combinations", &search::batch_combinations, py::arg("context"),
        "Every combination of the streams' candidate batch sizes.");
  s.def("grid_max", &search::grid_max, py::arg("grid"), "The grid's MAXN.");
  s.def(
      "pareto_front",
      [](const std::vector<std::pair<double, double>>& points) {
        std::vector<search::TimePower> tp;
        for (const auto& [t, p] : points) tp.push_back({t, p});
        return search::pareto_front(tp);
      },
      py::arg("points"),
      "Indices of the (time, power) points on the Pareto front, power ascending.");
  s.def(
      "fastest_within",
      [](const std::vector<std::pair<double, double>>& points,
         const std::vector<std::size_t>& candidates, double budget) {
        std::vector<search::TimePower> tp;
        for (const auto& [t, p] : points) tp.push_back({t, p});
        for (std::size_t i : candidates) {
          if (i >= tp.size()) throw py::index_error("candidate index out of range");
        }
        return search::fastest_within(tp, candidates, budget);
      },
      py::arg("points"), py::arg("candidates"), py::arg("power_budget"),
      "Among the candidates, the fastest whose power <= budget (index), or None.");
  s.def("builtin_strategies", [] {
    py::list out;
    const search::StrategyRegistry& r = search::strategy_registry();
    for (const std::string& name : r.names()) {
      const search::StrategyInfo* info = r.find(name);
      out.append(py::make_tuple(name, info->summary, info->default_budget));
    }
    return out;
  });
}

}  // namespace

void bind_search(py::module_& m) {
  bind_random(m);
  py::module_ s = m.def_submodule("search", "Search strategies, optimize and sweep");
  bind_types(s);
  s.def("sweep", &sweep_py, py::arg("sweep_file"), py::arg("out"), py::arg("threads"),
        py::arg("shard"), py::arg("shards"), py::arg("reference_dir"), py::arg("data_dir"),
        py::arg("strategies"), py::arg("progress"));
  s.def("optimize", &optimize_py, py::arg("scenario_path"), py::arg("overrides"), py::arg("seed"),
        py::arg("out"), py::arg("publish"), py::arg("reference_dir"), py::arg("data_dir"),
        py::arg("strategies"));
}

}  // namespace fulcrum::python
