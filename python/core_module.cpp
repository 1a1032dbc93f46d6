// fulcrum._core: the Python binding of the application layer (sim/app). The package
// python/fulcrum wraps it; docs/PYTHON.md is the user's guide. The engine runs with the GIL
// released, so runs in several Python threads proceed at once. This file binds runs, studies,
// predict and the catalogs; search_module.cpp and policy_module.cpp the rest (module_parts.hpp).
#include <pybind11/functional.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include <atomic>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "models/device/device_catalog.hpp"
#include "models/error.hpp"
#include "models/workload/dataset_catalog.hpp"
#include "models/workload/workload_catalog.hpp"
#include "python/module_parts.hpp"
#include "sim/app/catalogs.hpp"
#include "sim/app/predict.hpp"
#include "sim/app/scenario_run.hpp"
#include "sim/app/study.hpp"
#include "sim/config/data_dirs.hpp"
#include "sim/report/interrupt.hpp"

namespace py = pybind11;
using namespace fulcrum;
using namespace fulcrum::sim;
using fulcrum::python::Progress;

namespace fulcrum::python {

std::string python_error_line(const py::error_already_set& e) {
  std::string type = "Exception";
  std::string message;
  try {
    type = py::str(e.type().attr("__name__"));
    message = py::str(e.value());
  } catch (const py::error_already_set&) {
    message = "(an exception that cannot be printed)";
  }
  for (char& c : message) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  return message.empty() ? type : type + ": " + message;
}

}  // namespace fulcrum::python

namespace {

py::object g_input_error;

// The exception fulcrum.InputError, with the one-line message and where it points.
void raise_input_error(const InputError& e) {
  py::object err = g_input_error(e.what());
  const auto& where = e.where();
  err.attr("file") = where && !where->file.empty() ? py::object(py::str(where->file)) : py::none();
  err.attr("line") = where && where->line > 0 ? py::object(py::int_(where->line)) : py::none();
  err.attr("column") =
      where && where->column > 0 ? py::object(py::int_(where->column)) : py::none();
  err.attr("key_path") = e.key_path();
  err.attr("problem") = e.problem();
  PyErr_SetObject(g_input_error.ptr(), err.ptr());
}

py::dict run_py(const std::string& scenario_path, const std::vector<std::string>& overrides,
                std::optional<std::uint64_t> seed, const std::string& backend,
                const std::optional<std::filesystem::path>& out, const std::string& data_dir,
                Progress* progress, const py::object& policy) {
  app::RunRequest request;
  request.plan.scenario_path = scenario_path;
  request.plan.overrides = overrides;
  request.plan.seed = seed;
  request.plan.backend.name = backend;
  if (!data_dir.empty()) request.plan.data_dir = data_dir;
  request.out_dir = out;
  request.command_line = {"fulcrum.run", scenario_path};
  if (!policy.is_none()) {
    request.policy = python::python_policy_factory(policy);
    // run.json records which policy ran (the summary records the scenario's gpu_sharing).
    request.command_line.push_back(
        "policy=" + std::string(py::str(policy.get_type().attr("__module__"))) + "." +
        std::string(py::str(policy.get_type().attr("__qualname__"))));
  }
  ProgressFn on_progress;
  if (progress != nullptr) {
    progress->fraction = 0;
    progress->finished = false;
    on_progress = [progress](Time reached, Time end) {
      progress->fraction = end > 0 ? static_cast<double>(reached) / static_cast<double>(end) : 1.0;
    };
  }
  std::optional<app::RunReport> report;
  {
    const py::gil_scoped_release released;
    try {
      report.emplace(app::run_scenario(request, nullptr, on_progress));
    } catch (...) {
      if (progress != nullptr) progress->finished = true;
      throw;
    }
    if (progress != nullptr) {
      progress->fraction = 1;
      progress->finished = true;
    }
  }
  py::dict d;
  d["summary_json"] = report->run.summary_json;
  d["out_dir"] = report->out_dir;
  std::vector<std::filesystem::path> files = report->run.outputs;
  d["files"] = files;
  d["wall_s"] = report->run.wall_s;
  return d;
}

py::dict study_py(const std::string& study_path, const std::optional<std::filesystem::path>& out,
                  unsigned jobs, const std::string& data_dir, Progress* progress) {
  app::StudyRequest request;
  request.study_path = study_path;
  request.out_dir = out;
  request.jobs = jobs;
  if (!data_dir.empty()) request.data_dir = data_dir;
  app::StudyProgress on_progress;
  if (progress != nullptr) {
    progress->fraction = 0;
    progress->finished = false;
    on_progress = [progress](std::size_t done, std::size_t total) {
      progress->fraction = static_cast<double>(done) / static_cast<double>(total);
    };
  }
  std::optional<app::StudyReport> report;
  {
    const py::gil_scoped_release released;
    try {
      report.emplace(app::run_study(request, on_progress));
    } catch (...) {
      if (progress != nullptr) progress->finished = true;
      throw;
    }
    if (progress != nullptr) progress->finished = true;
  }
  py::dict d;
  d["out_dir"] = report->out_dir;
  d["files"] = report->outputs;
  d["runs"] = report->rows.size();
  d["points"] = report->spec.points();
  d["wall_s"] = report->wall_s;
  return d;
}

// `fulcrum predict` as a function: the report as predict_json's document (the CLI's --json).
std::string predict_py(const std::string& predictor, const std::filesystem::path& fit,
                       const std::filesystem::path& at,
                       const std::optional<std::filesystem::path>& out,
                       const std::optional<std::string>& workload,
                       const std::optional<std::string>& phase, std::optional<int> batch_size,
                       std::optional<int> sample, std::uint64_t seed, const std::string& device,
                       const std::string& data_dir) {
  app::PredictRequest request;
  request.predictor = predictor;
  request.fit_csv = fit;
  request.at_csv = at;
  request.out_csv = out;
  request.workload = workload;
  request.phase = phase;
  request.batch_size = batch_size;
  request.sample = sample;
  request.seed = seed;
  request.device = device;
  if (!data_dir.empty()) request.data_dir = data_dir;
  const py::gil_scoped_release released;
  return predict_json(app::predict(request));
}

// The catalog through the application layer (sim::app::devices), one row per device with the
// perf model a scenario naming none gets on it, why, the workloads its cross-mode calibration was
// fitted to and that calibration's zero-shot and few-shot checks (empty without one).
py::list devices(const std::string& data_dir) {
  const std::string dir = data_dir.empty() ? default_data_dir() : data_dir;
  py::list out;
  for (const models::DeviceSpec& listed : app::devices({std::nullopt, dir}).devices) {
    const DevicesReport one = app::devices({listed.name, dir});
    const models::DeviceSpec& d = one.devices.front();
    py::list presets;
    for (const models::Preset& p : d.presets) presets.append(p.name);
    py::dict row;
    row["name"] = d.name;
    row["soc"] = d.soc;
    row["cpu_cores"] = d.cpu_cores;
    row["gpu_arch"] = d.gpu_arch;
    row["gpu_sms"] = d.gpu_sms;
    row["cuda_cores"] = d.cuda_cores;
    row["memory_gb"] = d.memory_gb;
    row["presets"] = presets;
    row["default_perf_model"] = one.default_model;
    row["default_perf_model_reason"] = one.default_model_reason;
    row["fitted_workloads"] = one.fitted_workloads;
    row["zero_shot_check"] = one.zero_shot_check;
    row["few_shot_check"] = one.few_shot_check;
    out.append(row);
  }
  return out;
}

py::list workloads() {
  const models::WorkloadCatalog& catalog = models::workload_catalog();
  py::list out;
  for (const std::string& name : catalog.names()) {
    const models::Workload& w = catalog.get(name);
    py::dict row;
    row["name"] = name;
    row["task"] = w.task();
    row["parameters"] = w.parameters();
    row["forward_gflop_per_sample"] = w.forward_flops_per_sample() / 1e9;
    row["training_gflop_per_sample"] = w.cost(models::Phase::training, 1).flops / 1e9;
    out.append(row);
  }
  return out;
}

}  // namespace

PYBIND11_MODULE(_core, m) {
  m.doc() = "Fulcrum's application layer (sim/app); use the fulcrum package, not this module.";
  static py::exception<Error> fulcrum_error(m, "Error", PyExc_RuntimeError);
  g_input_error = py::reinterpret_borrow<py::object>(
      PyErr_NewExceptionWithDoc("fulcrum._core.InputError",
                                "Bad input: the one-line message (file:line:col: key.path: "
                                "problem), with file, line, column, key_path and problem.",
                                PyExc_ValueError, nullptr));
  m.attr("InputError") = g_input_error;
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const InputError& e) {
      raise_input_error(e);
    } catch (const Error& e) {
      fulcrum_error(e.what());
    }
  });

  py::class_<Progress>(m, "Progress",
                       "How far a run or study has got; updated while it runs, without the GIL.")
      .def(py::init<>())
      .def_property_readonly("fraction", [](const Progress& p) { return p.fraction.load(); })
      .def_property_readonly("finished", [](const Progress& p) { return p.finished.load(); });

  m.def("run", &run_py, py::arg("scenario_path"), py::arg("overrides"), py::arg("seed"),
        py::arg("backend"), py::arg("out"), py::arg("data_dir"), py::arg("progress"),
        py::arg("policy") = py::none());
  m.def("study", &study_py, py::arg("study_path"), py::arg("out"), py::arg("jobs"),
        py::arg("data_dir"), py::arg("progress"));
  m.def("predict", &predict_py, py::arg("predictor"), py::arg("fit"), py::arg("at"), py::arg("out"),
        py::arg("workload"), py::arg("phase"), py::arg("batch_size"), py::arg("sample"),
        py::arg("seed"), py::arg("device"), py::arg("data_dir"));
  m.def("devices", &devices, py::arg("data_dir"));
  m.def("workloads", &workloads);
  m.def("default_data_dir", &default_data_dir);
  python::bind_search(m);
  python::bind_policy(m);
}
