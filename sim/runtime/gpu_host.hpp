// GpuHost: what a GPU-sharing policy sees of a run -- the contexts and their ready work, the
// simulator, and the levers to start and finish work items and to declare the GPU's state.
// Implemented by the runtime; a policy never reaches past it.
#pragma once

#include <span>
#include <vector>

#include "sim/engine/simulator.hpp"
#include "sim/engine/time.hpp"

namespace fulcrum::sim {

// Standalone cost of one work item: its execution time alone on the GPU and per-rail power
// while it runs (the backend's Completion, energy / duration). Cached per (context, batch size).
struct ItemCost {
  Time duration = 0;
  std::vector<double> rail_power_w;
  std::vector<double> rail_energy_j;
};

class GpuHost {
 public:
  static constexpr int kTrainingContext = 0;  // contexts 1 + i are inference streams i

  virtual ~GpuHost() = default;

  virtual Simulator& simulator() = 0;
  Time now() { return simulator().now(); }

  // 1 + number of inference streams (context 0 exists even without a training job; it then
  // never has work).
  virtual int context_count() const = 0;

  // Whether `context` has an item that could start now: an inference context's oldest dispatched
  // batch, or the training job's next minibatch once its data is ready. False while the context
  // already has an item running (each context runs its items one at a time, in order).
  virtual bool has_ready_work(int context) const = 0;

  // Precondition: has_ready_work(context). For inference, the arrival of the oldest request in
  // the batch that would start; for training, when its data became ready.
  virtual Time ready_since(int context) const = 0;

  // A training job exists and has not finished its epochs (it runs until the end otherwise).
  virtual bool is_training_active() const = 0;

  // Takes the ready item of `context` and marks it running from now(). Precondition:
  // has_ready_work(context). The reference stays valid for the whole run.
  virtual const ItemCost& begin_item(int context) = 0;

  // The running item of `context` completed at now(). Never calls back into the policy: new
  // work that this makes ready (the next training minibatch, the next batch of the stream) is
  // visible through has_ready_work() at once, and work that becomes ready later is announced
  // through GpuSharingPolicy::on_work_ready from an event of its own.
  virtual void finish_item(int context) = 0;

  // Per-rail power of the idle GPU in the run's power mode.
  virtual const std::vector<double>& idle_power_w() const = 0;

  // Declares the GPU's state from now() on, until the next call: share[c] is the fraction of
  // time context c executes (sum <= 1; all zero = idle), rail_power_w the power drawn. Energy and
  // busy times are integrated exactly between calls.
  virtual void set_gpu_state(std::span<const double> share,
                             std::span<const double> rail_power_w) = 0;
};

}  // namespace fulcrum::sim
