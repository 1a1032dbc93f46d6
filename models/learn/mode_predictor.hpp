// Minibatch time and power of one workload as a function of the power mode, learnt from measured
// modes: the API a search strategy calls, and the `nn` and `powertrain` predictors of
// `fulcrum predict` (docs/PREDICT.md).
//
//   std::vector<ModeMeasurement> seen = ...;                    // (mode, time_s, power_w) rows
//   MlpModePredictor nn = fit_mode_predictor(seen, {}, seed);   // from scratch
//   MlpModePredictor pt = transfer_mode_predictor(load_mode_predictor(weights), seen, {}, seed);
//   ModeEstimate e = pt.predict(mode);                          // e.time_s, e.power_w
//
// Features are the mode's cores and CPU, GPU and EMC frequencies (MHz), standardised on the
// sample each predictor is fitted to. Time is learnt as log(time) (one network), power as is
// (another); both targets are standardised too. Each network is PowerTrain's (mlp.hpp).
#pragma once

#include <cstdint>
#include <iosfwd>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "models/device/device_spec.hpp"
#include "models/device/power_mode.hpp"
#include "models/learn/mlp.hpp"
#include "models/perf/perf_model.hpp"
#include "models/workload/workload.hpp"

namespace fulcrum::models {

// One profiled mode of one workload.
struct ModeMeasurement {
  PowerMode mode;
  double time_s = 0;  // minibatch time
  double power_w = 0;
};

struct ModeEstimate {
  double time_s = 0;
  double power_w = 0;
};

// A per-workload predictor of time and power from the mode (the interface strategies use).
class ModePredictor {
 public:
  virtual ~ModePredictor() = default;
  virtual std::string name() const = 0;
  virtual ModeEstimate predict(const PowerMode& mode) const = 0;
  // Every mode at once; the default calls predict() per mode.
  virtual std::vector<ModeEstimate> predict_all(std::span<const PowerMode> modes) const;
};

// A PerfModel (the calibrated analytic model, a table) asked at each mode for one workload, phase
// and batch size: the physics prior a strategy can compare with or correct. Holds references.
class PerfModelPredictor : public ModePredictor {
 public:
  PerfModelPredictor(const PerfModel& model, const DeviceSpec& device, const Workload& workload,
                     Phase phase, int batch_size)
      : model_(model), device_(device), workload_(workload), phase_(phase), batch_(batch_size) {}
  std::string name() const override { return model_.name(); }
  ModeEstimate predict(const PowerMode& mode) const override;

 private:
  const PerfModel& model_;
  const DeviceSpec& device_;
  const Workload& workload_;
  Phase phase_;
  int batch_;
};

// The committed PowerTrain reference (resnet18 training, batch 16, Orin AGX), relative to the data
// folder (models/data; sim's default_data_dir()).
inline constexpr const char* kPowertrainReferenceWeights =
    "powertrain/orin-agx-resnet18-train16.weights";

// Inputs of the networks: cores, CPU MHz, GPU MHz, EMC MHz per mode (one row each).
Matrix mode_features(std::span<const PowerMode> modes);

// One learnt target: the network and the standardisation of its inputs and output.
struct TargetNet {
  Mlp net;
  Standardizer x;
  Standardizer y;
  bool log_target = false;  // the network predicts log(value)
};

class MlpModePredictor : public ModePredictor {
 public:
  MlpModePredictor(TargetNet time, TargetNet power)
      : time_(std::move(time)), power_(std::move(power)) {}

  std::string name() const override { return "mlp"; }
  ModeEstimate predict(const PowerMode& mode) const override;
  std::vector<ModeEstimate> predict_all(std::span<const PowerMode> modes) const override;

  const TargetNet& time_net() const { return time_; }
  const TargetNet& power_net() const { return power_; }

 private:
  TargetNet time_;
  TargetNet power_;
};

// PowerTrain's hyper-parameters (reference/measurements/README.md) unless stated.
struct ModeFitOptions {
  TrainOptions train;  // Adam 1e-3, 100 epochs, batch 32, best-validation checkpoint
};

// Trains both networks from scratch on `rows` (at least one). Same rows and seed, same weights.
MlpModePredictor fit_mode_predictor(std::span<const ModeMeasurement> rows,
                                    const ModeFitOptions& options, std::uint64_t seed);

// PowerTrain transfer: copies `reference`, refits the standardisation on `rows`, replaces each
// network's output layer with fresh weights and fine-tunes all layers on `rows`.
MlpModePredictor transfer_mode_predictor(const MlpModePredictor& reference,
                                         std::span<const ModeMeasurement> rows,
                                         const ModeFitOptions& options, std::uint64_t seed);

// The weights file (docs/PREDICT.md): `#` comment lines (how it was produced), then the text form
// of both networks. Floats are written with 9 significant digits, so a read gives the same bits.
void write_mode_predictor(std::ostream& out, const MlpModePredictor& predictor,
                          const std::vector<std::string>& comments);
// Throws InputError "source:line:col: key: problem" for a malformed file.
MlpModePredictor read_mode_predictor(std::istream& in, const std::string& source);
MlpModePredictor load_mode_predictor(const std::string& path);

// Mean absolute percentage error, in percent, of `predicted` against `actual` (same length >= 1).
double mape_percent(std::span<const double> predicted, std::span<const double> actual);

}  // namespace fulcrum::models
