// Reference anchors: published measurements (time and module power of a minibatch at a known
// power mode) read from the reference CSVs, the data the analytic model is fitted to and checked
// against. Plain CSV reading; rows that name another device are skipped.
//
//   ReferenceData ref = load_reference_data("path/to/reference", orin_spec);  //
//   FULCRUM_REFERENCE_DIR CalibrationResult fit = fit_analytic(orin_spec, ref.anchors, lookup);
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "models/device/device_spec.hpp"
#include "models/device/power_mode.hpp"
#include "models/workload/phase_cost.hpp"

namespace fulcrum::models {

// One measured minibatch: the time and/or module power of (workload, phase, batch) at a mode.
struct Anchor {
  std::string workload;  // catalog name, e.g. "resnet50"
  Phase phase = Phase::inference;
  int batch_size = 1;
  PowerMode mode;
  std::string mode_label;                     // as published: "MAXN", "MAXN with CPU 1497.6 MHz"
  std::optional<double> time_ms;              // measured minibatch time
  std::optional<double> power_w;              // measured module power while it runs
  std::optional<std::string> power_excluded;  // why power_w is left out of the fit
  std::string source;                         // "orin-agx-inference-maxn.csv:7"
};

// A published relative change of training compute time between two modes of one device, where
// one knob moved: the checks the fitted model must reproduce in sign and rough magnitude.
enum class Knob { gpu_frequency, cpu_frequency, cores };

struct Sensitivity {
  std::string device;  // "xavier-agx-32gb"
  std::string workload;
  Knob knob = Knob::gpu_frequency;
  double from = 0;  // MHz for frequencies, count for cores
  double to = 0;
  double change_pct = 0;  // (t_to - t_from) / t_from x 100
  std::string source;
};

struct ReferenceData {
  std::vector<Anchor> anchors;             // for the device asked for
  std::vector<Sensitivity> sensitivities;  // gpu_compute_change_pct rows, any device
  std::vector<std::string> sources;        // file names read
};

// The device's MAXN mode: MAXN preset's cores and TPC mask when present, all table maxima.
PowerMode maxn_mode(const DeviceSpec& device);

// Reads orin-agx-inference-maxn.csv (forward pass at MAXN; belongs to orin-agx-64gb) and
// training-anchors.csv (training compute time, minibatch 16, and module power) from
// reference_dir. The resnet50 batch-32 inference power, which the file itself flags as an
// outlier (18.4 W between 53.5 W and 55.4 W), is kept but marked power_excluded.
// Throws InputError with file:line on malformed rows.
ReferenceData load_reference_data(const std::string& reference_dir, const DeviceSpec& device);

}  // namespace fulcrum::models
