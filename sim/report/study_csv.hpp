// The files of a study (`fulcrum study`, docs/STUDIES.md): study.csv (one row per run),
// study_summary.csv (per point over its seeds: the mean and the 95% confidence half-width of
// each figure) and study_latency.csv (each run's latency percentiles, for CDFs).
//
//   StudyAxes axes{.keys = {"gpu_sharing"}, .values = {{"managed"}, {"native"}}};
//   std::string csv = study_runs_csv(axes, rows);   // rows in run order
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "sim/report/result_folder.hpp"

namespace fulcrum::sim {

// What a study's folder holds (ResultFolder): study.csv, study_summary.csv, study_latency.csv
// (and NAME.partial while one is written), and the figures of scripts/study_plots.py
// (study_latency_cdf, study_front as .png, .pdf or .svg).
const ResultLayout& study_layout();

// The axis columns: one per key; values[point][k] is key k's value (as written) at `point`.
struct StudyAxes {
  std::vector<std::string> keys;
  std::vector<std::vector<std::string>> values;
};

// What one run of a study measured: its figures by name (absent: not defined for this run, e.g.
// a stream's latency when none completed) and each stream's latency at study_percentiles().
struct StudyRow {
  std::size_t point = 0;
  std::uint64_t seed = 0;
  std::vector<std::pair<std::string, std::optional<double>>> figures;
  std::vector<std::pair<std::string, std::vector<double>>> latency_ms;
};

// The percentiles study_latency.csv gives for each run and stream: 0 (the minimum), 1, ..., 99,
// 99.9 and 100 (the maximum).
std::vector<double> study_percentiles();

// Latencies (ms, any order) at study_percentiles(), nearest rank over the sorted values: the
// smallest value with at least p% of the values at or below it. Empty for no latencies.
std::vector<double> latency_percentiles(std::vector<double> latencies_ms);

// Two-sided 95% Student t quantile for `dof` degrees of freedom (>= 1).
double t_quantile_975(std::size_t dof);

// The three files from the rows in run order (points ascending, a point's seeds together).
std::string study_runs_csv(const StudyAxes& axes, const std::vector<StudyRow>& rows);
std::string study_summary_csv(const StudyAxes& axes, const std::vector<StudyRow>& rows);
std::string study_latency_csv(const StudyAxes& axes, const std::vector<StudyRow>& rows);

// What `fulcrum study --json` prints: {"study", "out_dir", "runs": [{"run", "point", "seed",
// "axes": {KEY: VALUE as written, ...}, "figures": {NAME: number | null, ...}}, ...]}, the rows of
// study.csv as JSON.
std::string study_json(const std::string& name, const std::string& out_dir, const StudyAxes& axes,
                       const std::vector<StudyRow>& rows);

}  // namespace fulcrum::sim
