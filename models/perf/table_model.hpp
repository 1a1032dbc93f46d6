// TableModel: the `table` PerfModel -- answers from measured profile rows, interpolating between
// profiled power modes and batch sizes, and says whether each answer was measured, interpolated or
// extrapolated. This is how a user with a real device calibrates the simulator.
//
//   TableModel m;
//   m.add_profile("resnet50", read_profile_csv("my-orin-resnet50.csv"));
//   Prediction p = m.predict({device, mode, resnet50, Phase::inference, 16});
//
// Rules (the "table model" section of docs/MODEL.md has the reasoning):
// - Axes, outermost first: batch_size, cores, cpu_khz, gpu_hz, emc_hz. Along each axis the query is
//   matched exactly, bracketed by the two nearest profiled values, or beyond them.
// - Between two profiled modes, time is linear in 1/x (x = cores or a frequency; time ~ a + b/f)
// and
//   power is linear in x. Between two batch sizes both are linear in the batch size. On a full grid
//   this is multilinear interpolation; on a scattered profile it is nested along the axis order.
// - Beyond the profiled modes: the same lines through the two nearest values, bounded so that time
//   never grows with a resource and at most in inverse proportion to it, and power never falls with
//   it and at most in proportion to it; with one value on the axis, the nearest value.
// - Beyond the profiled batch sizes: time on the line through the two nearest (bounded between
//   "constant" and "proportional to batch"; proportional when only one was profiled); power clamps.
// - Rails: rail columns give rail powers; what power_w leaves unexplained goes to the first unknown
//   rail named like *GPU*, else the first unknown rail (the GPU rail carries what a minibatch
//   adds).
// - idle_power: `idle` rows when any profile has them; otherwise the lowest busy power at the
//   nearest profiled mode times Options::idle_share_of_busy.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "models/perf/perf_model.hpp"
#include "models/perf/profile_csv.hpp"

namespace fulcrum::models {

class TableModel : public PerfModel {
 public:
  struct Options {
    // Idle power as a share of the lowest busy power at the nearest mode, used only when no profile
    // has `idle` rows. A rough default, not a measurement (docs/MODEL.md, "Idle power").
    double idle_share_of_busy = 0.5;
  };

  TableModel() = default;
  explicit TableModel(Options options) : options_(options) {}

  // Registers the rows of `table` for the workload: all rows when the table has no workload
  // column, else the rows naming it. Names are matched and kept as catalog names
  // (canonical_workload_name: the measurement files' "mobilenet_v3" is "mobilenetv3-large").
  // `idle` rows (of any workload) join the device baseload. Throws InputError when no row is for
  // the workload, or a row repeats one already registered.
  void add_profile(const std::string& workload_name, const ProfileTable& table);

  // Registers every workload named in the table's workload column (InputError without one).
  void add_profiles(const ProfileTable& table);

  // Catalog names of the workloads with rows, sorted.
  std::vector<std::string> workloads() const;

  std::string name() const override { return "table"; }

  // Throws InputError for a workload or phase without rows, a batch size below 1, or a profile
  // rail column that is not one of the device's rails.
  Prediction predict(const PerfQuery& q) const override;

  RailPower idle_power(const DeviceSpec& device, const PowerMode& mode) const override;

 private:
  static constexpr int kAxes = 5;  // batch_size, cores, cpu_khz, gpu_hz, emc_hz

  struct Point {
    double axis[kAxes] = {};
    double time_ms = 0;  // 0 for idle points
    double power_w = 0;
    std::vector<std::pair<std::string, double>> rails_w;  // the rail cells that were filled
    SourceLocation where;
  };

  // Profiled values along one axis, ascending, each with the sub-table below it; the last axis
  // holds indices into points_.
  struct AxisNode {
    std::vector<double> values;
    std::vector<AxisNode> children;
    std::vector<std::size_t> points;
  };

  struct Estimate {
    double time_ms = 0;
    std::vector<double> rails_w;
    Provenance provenance = Provenance::measured;
  };

  struct Tree {
    AxisNode root;
    std::size_t size = 0;
  };

  // Adds points_[index] to the tree; returns the index of an equal-keyed point already there.
  std::optional<std::size_t> insert(Tree& tree, std::size_t index);
  void add_rows(const std::string& workload_name, const ProfileTable& table);
  Estimate estimate(const AxisNode& node, int axis, const double (&query)[kAxes],
                    const DeviceSpec& device) const;
  std::vector<double> rails_of(const Point& p, const DeviceSpec& device) const;

  Options options_;
  std::vector<Point> points_;
  std::map<std::string, std::map<Phase, Tree>> busy_;  // workload -> phase -> rows
  Tree idle_;
};

}  // namespace fulcrum::models
