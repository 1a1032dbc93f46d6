// GpuHost: what a GPU-sharing policy sees of a run -- the contexts and their ready work, the
// simulator, and the levers to start and finish work items and to declare the GPU's state.
// Implemented by the runtime; a policy never reaches past it.
#pragma once

#include <functional>
#include <optional>
#include <span>

#include "models/device/rail_values.hpp"
#include "sim/engine/simulator.hpp"
#include "sim/engine/time.hpp"

namespace fulcrum::sim {

// What a context runs: the training job's minibatches or an inference stream's batches.
enum class ContextKind { training, inference };

// The item running in a context, as the backend executed it: its time alone on the GPU, and the
// power it adds per rail over the idle GPU while it runs alone (energy / duration - idle power).
struct ItemCost {
  Time duration = 0;
  models::RailValues rail_active_w;
};

class GpuHost {
 public:
  virtual ~GpuHost() = default;

  virtual Simulator& simulator() = 0;
  Time now() { return simulator().now(); }

  // Contexts are numbered 0 .. context_count() - 1: the training job first when the run has one,
  // then the inference streams in scenario order.
  virtual int context_count() const = 0;
  virtual ContextKind kind(int context) const = 0;
  // The training job's context, if the run has one.
  virtual std::optional<int> training_context() const = 0;

  // Whether `context` has an item that could start now: an inference context's oldest dispatched
  // batch, or the training job's next minibatch once its data is ready. False while the context
  // already has an item running (each context runs its items one at a time, in order).
  virtual bool has_ready_work(int context) const = 0;

  // Precondition: has_ready_work(context). For inference, the arrival of the oldest request in
  // the batch that would start; for training, when its data became ready.
  virtual Time ready_since(int context) const = 0;

  // The inference context whose ready batch holds the oldest request (ties: the lower context),
  // or nullopt when no inference context has ready work: the "oldest first across streams" rule.
  virtual std::optional<int> oldest_ready_inference() const = 0;

  // A training job exists and has not finished its epochs (it runs until the end otherwise).
  virtual bool is_training_active() const = 0;

  // Takes the ready item of `context`, executes it on the backend and marks it running from
  // now(). Precondition: has_ready_work(context). The reference stays valid until
  // finish_item(context).
  virtual const ItemCost& begin_item(int context) = 0;

  // Whether every context has a device context of its own that executes beside the others (a
  // real-time backend under native sharing): items are then handed over with submit_item() and
  // run at the same time, instead of begin_item().
  virtual bool executes_concurrently() const { return false; }

  // Concurrent hosts only. Takes the ready item of `context`, hands it to the context's own
  // device context and marks it running from now(); `done` runs as an event at the real time the
  // device reports the item complete (call finish_item(context) from it). The returned cost
  // (valid until finish_item) is the item's predicted time alone and the active power predicted
  // for it until then; from `done` on, its duration is the measured time in its context.
  // Precondition: has_ready_work(context).
  virtual const ItemCost& submit_item(int context, std::function<void()> done);

  // The running item of `context` completed at now(). Never calls back into the policy: new
  // work that this makes ready (the next training minibatch, the next batch of the stream) is
  // visible through has_ready_work() at once, and work that becomes ready later is announced
  // through GpuSharingPolicy::on_work_ready from an event of its own.
  virtual void finish_item(int context) = 0;

  // The predicted standalone time of the context's next item -- a training minibatch, or a full
  // batch of an inference stream -- from the run's performance model (what the simulated backend
  // runs, before any noise it adds). Constant for the run: the mode and batch sizes are.
  virtual Time predicted_duration(int context) = 0;

  // Inference contexts: the earliest time, from now() on, at which the stream can next have a
  // batch ready (InferenceStream::next_ready_bound, at the scenario's gpu_sharing.risk).
  virtual Time next_ready_bound(int context) const = 0;

  // Rails of the device (the size of every power vector).
  virtual std::size_t rail_count() const = 0;

  // Declares the GPU's state from now() on, until the next call: share[c] is the fraction of
  // time context c executes (sum <= 1; all zero = idle), rail_active_w the power the GPU's work
  // adds per rail over the idle device (zeros when idle). Energy and busy times are integrated
  // exactly between calls.
  virtual void set_gpu_state(std::span<const double> share,
                             std::span<const double> rail_active_w) = 0;
};

}  // namespace fulcrum::sim
