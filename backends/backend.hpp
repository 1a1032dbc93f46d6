// Backend: executes one WorkItem and reports its Completion. Synchronous by design: work items
// are non-preemptive minibatches and scheduling decisions happen only at their boundaries. The
// runtime asks it for every item it runs; a backend that can answer repeated items from a memo
// (a deterministic model) keeps that memo itself.
//
// Implementations: SimulatedBackend asks a PerfModel; the CUDA backend (backends/cuda/) runs real
// kernels and measures. make_backend() (backend_factory.hpp) is the one place that picks one.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "backends/work_item.hpp"
#include "models/device/device_spec.hpp"
#include "models/perf/perf_model.hpp"

namespace fulcrum::backends {

class MeasuredBackend;  // backends/hardware/measured_backend.hpp

// One layer's share of an executed item, where a backend times layers (cuda, --profile-layers).
struct LayerTime {
  std::string layer;
  double forward_ms = 0;
  double backward_ms = 0;  // training; includes the layer's update
};

// How a backend metered its idle power (idle_power()), where it meters it: a hardware backend
// waits with nothing running until successive meter windows agree (backends/hardware/
// settled_idle.hpp), since a GPU's power decays for seconds after a load.
struct IdleMetering {
  bool settled = false;  // two successive windows agreed within the tolerance
  int windows = 0;       // meter windows taken
  double metered_s = 0;  // their time together
  double power_w = 0;    // the module power taken (the last window's)
  std::string note;      // one line saying how, how long, and whether it settled
};

// Where the real-time sleep of an emulated item ends before the item's time: at the run's end (a
// steady-clock deadline) and once `stop` answers true (an interrupt; asked every kStopPoll while
// an item sleeps, from the sleeping thread, so it must be cheap and thread-safe). Both optional.
struct RealTimeLimit {
  static constexpr std::chrono::milliseconds kStopPoll{2};
  std::optional<std::chrono::steady_clock::time_point> deadline;
  std::function<bool()> stop;
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual const models::DeviceSpec& device() const = 0;

  // Executes `item` (blocking for its real duration when runs_in_real_time()) and reports it. The
  // reference stays valid until the next execute() on this backend (copy it to keep it): the
  // runtime reads it once per item, and a memoising backend then hands out its memo without a
  // copy. Throws InputError for an item it cannot execute (a workload it knows nothing of, a
  // batch size < 1), naming what is wrong; fulcrum::Error for a failure of the device. Calls are
  // independent: one item's result does not depend on what ran before it, beyond measurement
  // noise.
  virtual const Completion& execute(const WorkItem& item) = 0;

  // Per-rail power while nothing runs on the GPU in `mode`.
  virtual models::RailPower idle_power(const models::PowerMode& mode) = 0;
  // How the last idle_power() was metered; nullopt where it is not (a prediction) or not yet.
  virtual std::optional<IdleMetering> idle_metering() const { return std::nullopt; }

  // Whether execute() takes the item's real duration (hardware, or an emulation that sleeps):
  // such a backend must be driven by the engine's wall clock, so that arrivals are released at
  // their real times. False: durations are predictions and virtual time may run ahead freely.
  virtual bool runs_in_real_time() const { return false; }

  // Whether completions are measurements of a real device (hardware), not predictions or an
  // emulation of one (`sim`, also in real time or with noise). Ask this, never the backend's name.
  bool is_measured() const { return measured() != nullptr; }
  // This backend as a measured one, with the hardware-only reports (its meter, the GPU's name);
  // nullptr where it is not measured.
  virtual const MeasuredBackend* measured() const { return nullptr; }

  // Limits the real-time sleeps of an emulated backend, and of every context it opened or will
  // open, until the next call (nullptr lifts the limit): an item whose sleep the limit ends
  // returns at once with Completion::cut_short, so that a wall-clock run ends at its end and
  // stops at an interrupt. A hardware backend cannot cut an item short and ignores it (the
  // default).
  virtual void limit_real_time(std::shared_ptr<const RealTimeLimit> limit) { (void)limit; }

  // A further context on the same device, for executing items at the same time as this backend
  // from another thread: native time-slicing on hardware, where the driver shares the GPU between
  // contexts as it does between processes. Each context's execute() is called from one thread at
  // a time, and the contexts' calls overlap freely. A completion then reports the item's time in
  // its own context, stretched by whatever ran beside it, and the energy measured over that time
  // (a meter of the whole device cannot tell the contexts apart, so a run of concurrent contexts
  // takes the device's power from elsewhere: sim/runtime). nullptr where the backend cannot run
  // contexts concurrently (the default); the returned backend must not outlive this one.
  virtual std::unique_ptr<Backend> open_context() { return nullptr; }

  // The per-layer times of the last executed item, in layer order, where the backend was asked to
  // time layers and can (the cuda backend with layer timing, eager launches); empty otherwise.
  virtual std::vector<LayerTime> last_layer_times() const { return {}; }
};

}  // namespace fulcrum::backends
