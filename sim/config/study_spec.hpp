// Study files (`fulcrum study STUDY.yaml`, docs/STUDIES.md): a base scenario, fixed overrides, a
// grid over any scenario keys (the --set paths), optional zipped axes and seeds. Read here, the
// one home of YAML; sim/app/study.hpp runs them.
//
//   version: 1
//   name: sharing
//   scenario: ../quickstart.yaml          # relative to the study file
//   set: {duration_s: 60}                 # applied to every run
//   grid:                                 # every combination, the first axis slowest
//     gpu_sharing: [managed, native, sequential]
//     inference[0].arrivals.rate_per_s: [50, 100]
//   zip:                                  # one axis whose keys vary together
//     training.batch_size: [8, 16]
//     inference[0].batch_size: [8, 16]
//   seeds: [1, 2, 3]                      # or {from: 1, count: 3}; absent: the scenario's seed
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "models/error.hpp"

namespace fulcrum::sim {

// One key an axis sets, with its values as YAML text ("100", "{policy: managed, variant: greedy}").
struct StudyKey {
  std::string key_path;  // canonical, as --set takes it
  std::vector<std::string> values;
  std::vector<std::string> labels;  // each value as the study's tables show it (no YAML quotes)
  std::vector<SourceLocation> value_locations;  // where each value is in the study file
};

// An axis of the grid: one key, or several zipped keys with as many values each.
struct StudyAxis {
  std::vector<StudyKey> keys;
  std::size_t size() const { return keys.front().values.size(); }
  std::string label() const;  // the key paths, joined by '+'
};

struct StudySpec {
  std::string source;  // the study file
  std::string name;
  std::string scenario_path;  // resolved against the study file's folder
  SourceLocation scenario_location;
  std::vector<std::string> fixed;  // "key.path=value", applied first to every run
  std::vector<SourceLocation> fixed_locations;
  std::vector<StudyAxis> axes;       // grid axes in file order, then the zipped axis (if any)
  std::vector<std::uint64_t> seeds;  // empty: the scenario's own seed, one run per point
  // Points of the grid (product of the axes' sizes) and runs (points x seeds).
  std::size_t points() const;
  std::size_t runs() const { return points() * (seeds.empty() ? 1 : seeds.size()); }
  // The value index on each axis of point `point` (the first axis slowest).
  std::vector<std::size_t> coordinates(std::size_t point) const;
  // The overrides of one point: fixed ones, then each axis's values.
  std::vector<std::string> overrides(std::size_t point) const;
};

// The most runs a study file may ask for.
inline constexpr std::size_t kMaxStudyRuns = 1'000'000;

// Reads and checks a study file; errors are InputError located in it (file:line:col: key: ...).
StudySpec load_study_spec(const std::string& path);
StudySpec parse_study_spec(const std::string& text, const std::string& display_name,
                           const std::string& base_dir = ".");

}  // namespace fulcrum::sim
