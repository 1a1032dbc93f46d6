// GroundTruth: the time and power a (workload, phase, batch size) really has at a power mode --
// the measured Orin AGX table (reference/measurements/) or the analytic model for what-if
// devices. Strategies never read it: they learn about modes only through a Profiler. Reading
// takes a TruthKey, a pass-key only the Profiler, the Oracle and the Scorer can make, and every
// read is counted (reads()) so a test can prove that nothing else did.
//
//   TableGroundTruth truth = TableGroundTruth::load(reference_dir + "/measurements", orin);
//   Profiler profiler(truth);   // the strategies' only window on it
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "models/device/device_spec.hpp"
#include "models/device/mode_space.hpp"
#include "models/device/power_mode.hpp"
#include "models/perf/perf_model.hpp"
#include "models/workload/phase_cost.hpp"
#include "sim/scenario/search_vocabulary.hpp"

namespace fulcrum::sim::search {

// One measured (or modelled) minibatch: its time and the module power while it runs.
struct MeasuredPoint {
  double time_ms = 0;
  double power_w = 0;
};

class Profiler;
class Oracle;
class Scorer;

// The pass-key that reading a GroundTruth takes. Only these classes can make one.
class TruthKey {
  TruthKey() = default;
  friend class Profiler;
  friend class Oracle;
  friend class Scorer;
};

class GroundTruth {
 public:
  virtual ~GroundTruth() = default;
  virtual std::string name() const = 0;  // "table" or "analytic"
  // The mode grid this truth covers whole, searched where a problem names none.
  virtual std::string default_grid() const = 0;

  // What exists (not counted as reads): the batch sizes known for (workload, phase), ascending;
  // empty when the workload is unknown in that phase.
  virtual std::vector<int> batch_sizes(std::string_view workload, models::Phase phase) const = 0;
  // The device the truth belongs to.
  virtual const models::DeviceSpec& device() const = 0;
  // The name this truth knows `workload` by in `phase` (the measurement files write
  // "mobilenet_v3" for the catalog's "mobilenetv3-large"); nullopt when it has no data for it.
  virtual std::optional<std::string> name_for(std::string_view workload, models::Phase phase) const;

  // The truth at one mode; nullopt where it has no value (a mode the table did not measure).
  std::optional<MeasuredPoint> at(TruthKey, std::string_view workload, models::Phase phase,
                                  int batch_size, const models::PowerMode& mode) const {
    reads_.fetch_add(1, std::memory_order_relaxed);
    return lookup(workload, phase, batch_size, mode);
  }
  // The truth at every mode of `modes`, in order (one read per mode).
  std::vector<std::optional<MeasuredPoint>> series(
      TruthKey, std::string_view workload, models::Phase phase, int batch_size,
      const std::vector<models::PowerMode>& modes) const;

  // Values read so far, through any key.
  std::uint64_t reads() const { return reads_.load(std::memory_order_relaxed); }

 protected:
  virtual std::optional<MeasuredPoint> lookup(std::string_view workload, models::Phase phase,
                                              int batch_size,
                                              const models::PowerMode& mode) const = 0;

 private:
  mutable std::atomic<std::uint64_t> reads_{0};
};

// The measured Orin AGX tables, read in place: orin-agx-training-modes.csv (phase "train") and
// orin-agx-inference-modes.csv (phase "infer"), indexed on the device's PowerTrain grid
// (powertrain-4368, which holds the 441-mode grid). Malformed rows, modes off that grid and
// duplicates are InputErrors with file:line:col.
class TableGroundTruth : public GroundTruth {
 public:
  // `measurements_dir` holds the two CSVs; `device` must have the powertrain-4368 grid.
  static std::unique_ptr<TableGroundTruth> load(const std::string& measurements_dir,
                                                const models::DeviceSpec& device);

  std::string name() const override { return "table"; }
  // The 441 modes both tables measured.
  std::string default_grid() const override { return "pagoda-441"; }
  std::vector<int> batch_sizes(std::string_view workload, models::Phase phase) const override;
  const models::DeviceSpec& device() const override { return device_; }
  std::optional<std::string> name_for(std::string_view workload,
                                      models::Phase phase) const override;

  // Workloads present in a phase, sorted.
  std::vector<std::string> workloads(models::Phase phase) const;
  // Number of measured rows loaded.
  std::size_t rows() const { return rows_; }

 protected:
  std::optional<MeasuredPoint> lookup(std::string_view workload, models::Phase phase,
                                      int batch_size, const models::PowerMode& mode) const override;

 private:
  struct Series {
    std::vector<MeasuredPoint> points;  // per index of space_; NaN time = not measured
  };
  TableGroundTruth(const models::DeviceSpec& device, models::ModeSpace space);
  void read_file(const std::string& path);
  static std::string key(std::string_view workload, models::Phase phase, int batch_size);

  models::DeviceSpec device_;
  models::ModeSpace space_;
  std::map<std::string, Series, std::less<>> series_;
  std::size_t rows_ = 0;
};

// The analytic (or any) PerfModel as the truth: for what-if devices and workloads the table does
// not hold. Module power = the sum of the rails. Batch sizes: the ones given at construction.
class ModelGroundTruth : public GroundTruth {
 public:
  // `model` must outlive this object. Workloads are looked up in the workload catalog
  // (canonical_workload_name accepts the measurement files' aliases).
  ModelGroundTruth(const models::DeviceSpec& device, const models::PerfModel& model,
                   std::vector<int> inference_batch_sizes = {1, 2, 4, 8, 16, 32, 64, 128},
                   int training_batch = 16);
  // The same, owning its model.
  ModelGroundTruth(const models::DeviceSpec& device, std::unique_ptr<models::PerfModel> model,
                   std::vector<int> inference_batch_sizes = {1, 2, 4, 8, 16, 32, 64, 128},
                   int training_batch = 16);

  std::string name() const override { return "analytic"; }
  std::string default_grid() const override { return "powertrain-4368"; }
  std::vector<int> batch_sizes(std::string_view workload, models::Phase phase) const override;
  const models::DeviceSpec& device() const override { return device_; }

 protected:
  std::optional<MeasuredPoint> lookup(std::string_view workload, models::Phase phase,
                                      int batch_size, const models::PowerMode& mode) const override;

 private:
  models::DeviceSpec device_;
  std::unique_ptr<models::PerfModel> owned_;
  const models::PerfModel& model_;
  std::vector<int> inference_batches_;
  int training_batch_;
};

// Where the ground truths come from: the measurement tables' folder (reference/measurements, for
// GroundTruthKind::table) and the data folder holding the analytic model's calibrations (for
// GroundTruthKind::analytic), with the inference batch sizes the analytic truth offers.
struct TruthSources {
  std::string measurements_dir;
  std::string data_dir;
  std::vector<int> analytic_batch_sizes = {1, 2, 4, 8, 16, 32, 64, 128};
  int analytic_training_batch = 16;
};

// The one ground-truth factory `fulcrum optimize` and `fulcrum sweep` share. InputError when the
// sources are missing or malformed.
std::unique_ptr<GroundTruth> make_ground_truth(GroundTruthKind kind,
                                               const models::DeviceSpec& device,
                                               const TruthSources& sources);

// "train" / "infer", as the measurement files write the phase.
const char* measurement_phase(models::Phase phase);

}  // namespace fulcrum::sim::search
