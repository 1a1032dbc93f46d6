// `fulcrum study STUDY.yaml` as a function: every point of a study's grid
// (sim/config/study_spec.hpp) over its seeds, each a full scenario run, on all cores; one CSV row
// per run with its key figures, and over seeds the mean and a 95% confidence interval of each
// figure (docs/STUDIES.md).
//
//   StudyReport r = run_study({.study_path = "scenarios/studies/sharing.yaml"});
//   // r.out_dir holds study.csv, study_summary.csv and study_latency.csv, published at once
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sim/config/data_dirs.hpp"
#include "sim/config/study_spec.hpp"
#include "sim/report/result_folder.hpp"
#include "sim/report/study_csv.hpp"
#include "sim/runtime/run_result.hpp"

namespace fulcrum::sim::app {

struct StudyRequest {
  std::string study_path = {};
  std::optional<std::filesystem::path> out_dir = std::nullopt;  // absent: out/<study name>
  bool wait = false;  // wait for another run that holds the folder instead of refusing
  unsigned jobs = 0;  // threads; 0 = every core
  std::string data_dir = default_data_dir();
};

// The figures of one run (training rate, per stream p50/p99/max latency and stability, average
// and max-window power, energy, budgets met), in the order study.csv lists them.
std::vector<std::pair<std::string, std::optional<double>>> study_figures(const RunResult& r);

// The axis columns of a study's files: each key of each axis, and its values at every point.
StudyAxes study_axes(const StudySpec& spec);

// Called from any worker thread (never two at once) after each run completes.
using StudyProgress = std::function<void(std::size_t done, std::size_t total)>;

struct StudyReport {
  StudySpec spec;
  std::vector<StudyRow> rows;
  std::filesystem::path out_dir;
  std::vector<std::filesystem::path> outputs;
  double wall_s = 0;
};

// One run of a study without files (the row of run `index`, in run order).
StudyRow run_study_point(const StudySpec& spec, std::size_t index, const std::string& data_dir);

// The parts of run_study() for a runner that spreads a study over processes (sim/mpi/): the
// output folder claimed as run_study() claims it (InputError or Interrupted as there); runs
// [begin, end) in run order on `jobs` threads (0: every core; the first failure in run order is
// rethrown, Interrupted for a signal; `progress` counts of end - begin); and the three files
// written from every run's row and published (report.spec set; fills its rows and outputs).
std::unique_ptr<ResultFolder> claim_study_folder(const StudyRequest& request,
                                                 const StudySpec& spec);
std::vector<StudyRow> run_study_runs(const StudySpec& spec, std::size_t begin, std::size_t end,
                                     unsigned jobs, const std::string& data_dir,
                                     const StudyProgress& progress);
void publish_study(ResultFolder& folder, StudyReport& report, std::vector<StudyRow> rows);

// Reads the study, claims the output folder (ResultFolder: its lock, staging and refusal rules;
// bad input is one InputError before anything runs), runs every point over its seeds on
// `jobs` threads, writes study.csv, study_summary.csv and study_latency.csv and publishes them
// at once. A run's bad input is an InputError located in the study file when one of its
// values caused it (else in the scenario); the first failing run in run order is reported, and
// nothing is published. A signal stops the study between runs (Interrupted).
StudyReport run_study(const StudyRequest& request, StudyProgress progress = {});

}  // namespace fulcrum::sim::app
