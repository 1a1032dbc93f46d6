// Runtime: one event-driven run of a scenario. It owns the simulator, the contexts (the training
// job and the inference streams), the GPU-sharing policy and the power meter; the policy starts
// and finishes items through the GpuHost interface, and every item is executed by the backend.
// run() in runner.hpp is the usual way in (it also picks the data pipeline and judges budgets).
//
//   ComputeOnlyPipeline pipeline;
//   Runtime runtime(setup, backend, observer, pipeline);
//   RunResult result = runtime.run();   // once per Runtime
#pragma once

#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "backends/backend.hpp"
#include "sim/engine/clock.hpp"
#include "sim/engine/simulator.hpp"
#include "sim/runtime/context_lane.hpp"
#include "sim/runtime/data_pipeline.hpp"
#include "sim/runtime/gpu_host.hpp"
#include "sim/runtime/gpu_sharing_policy.hpp"
#include "sim/runtime/inference_stream.hpp"
#include "sim/runtime/power_meter.hpp"
#include "sim/runtime/power_sink.hpp"
#include "sim/runtime/run_observer.hpp"
#include "sim/runtime/run_result.hpp"
#include "sim/runtime/runner.hpp"
#include "sim/runtime/training_job.hpp"
#include "sim/runtime/work_context.hpp"

namespace fulcrum::sim {

class Runtime final : public GpuHost, public PowerSink {
 public:
  // Throws InputError for settings the run cannot honour (duration <= 0, a latency percentile
  // other than 50/95/99/100, epochs without a dataset size, native sharing on a real-time backend
  // that cannot open a context per GPU-sharing context, ...). `observer` may be null; the setup,
  // backend, observer and pipeline must outlive the Runtime. A backend that runs_in_real_time() is
  // paced by the wall clock. `policy`, when given, makes the GPU-sharing policy instead of the
  // scenario's gpu_sharing (make_gpu_sharing_policy).
  Runtime(const RunSetup& setup, backends::Backend& backend, RunObserver* observer,
          DataPipeline& pipeline, const GpuSharingPolicyFactory& policy = {});
  ~Runtime() override;

  // Reports progress during run() (see ProgressFn); call before run(). Empty: none.
  void set_progress(ProgressFn progress) { progress_ = std::move(progress); }

  // The result without its budget verdicts (judge_budgets, budgets.hpp).
  RunResult run();

  // GpuHost
  Simulator& simulator() override { return sim_; }
  int context_count() const override { return static_cast<int>(contexts_.size()); }
  ContextKind kind(int context) const override { return slot(context).context->kind(); }
  std::optional<int> training_context() const override;
  bool has_ready_work(int context) const override {
    return slot(context).context->has_ready_work();
  }
  Time ready_since(int context) const override;
  std::optional<int> oldest_ready_inference() const override;
  bool is_training_active() const override { return training_ && training_->is_active(); }
  const ItemCost& begin_item(int context) override;
  bool executes_concurrently() const override { return !lanes_.empty(); }
  const ItemCost& submit_item(int context, std::function<void()> done) override;
  void finish_item(int context) override;
  Time predicted_duration(int context) override;
  Time next_ready_bound(int context) const override;
  std::size_t rail_count() const override { return idle_power_w_.size(); }
  void set_gpu_state(std::span<const double> share, std::span<const double> rail_active_w) override;

  // PowerSink
  PowerSource add_source(std::string name) override;
  void set_power(PowerSource source, std::span<const double> rail_power_w) override;

 private:
  // A context and the item it runs.
  struct Slot {
    WorkContext* context = nullptr;
    int output_id = 0;  // in the outputs: 0 = the training job, 1 + i = inference stream i
    bool running = false;
    Time start = 0;
    StartedItem started;
    backends::Completion done;  // the backend's report of the running item
    ItemCost cost;              // derived from it for the policy
    Time predicted = 0;         // predicted_duration(), once asked (0: not yet)
    ProvenanceCounts provenance_counts;
  };

  int first_stream() const { return training_ ? 1 : 0; }  // context of inference stream 0
  const Slot& slot(int context) const { return contexts_[static_cast<std::size_t>(context)]; }
  Slot& slot(int context) { return contexts_[static_cast<std::size_t>(context)]; }
  void integrate_to(Time t);  // busy times up to t
  // Starts the slot's item in its context; an inference item's host thread joins the pipeline's
  // CPU contention and takes its core share (WorkItem::host_share).
  void start_context(Slot& s, Time now);
  Time predicted_time(const models::Workload& workload, models::Phase phase,
                      std::size_t batch_size) const;
  // The run's predicted time of an item the model predicted `p` for (duration_of_prediction).
  Time duration_of(const models::Prediction& p, const models::Workload& workload) const;
  // Error for a completion without a positive duration or one energy per rail.
  void check_completion(const backends::Completion& done) const;
  RunResult collect();
  // A real-time backend: executes every distinct item of the run once before the clock starts
  // (distinct_items), on the context's own lane in a concurrent run (buffers, algorithm choices
  // and graphs are per device context), so that none is prepared mid-run.
  void warm_up();

  const RunSetup& setup_;
  backends::Backend& backend_;
  RunObserver* observer_;
  ProgressFn progress_;
  Time end_ = 0;
  Simulator sim_;
  std::optional<WallClock> wall_;  // a backend that runs in real time paces the run
  std::unique_ptr<TrainingJob> training_;
  DataPipeline* pipeline_ = nullptr;
  std::vector<std::unique_ptr<InferenceStream>> streams_;
  std::vector<Slot> contexts_;  // the training job first, then the streams
  std::unique_ptr<GpuSharingPolicy> policy_;
  // Native sharing on a real-time backend: one lane (a device context and its thread) per
  // context, in context order; empty otherwise. After sim_: the lanes post into it until they end.
  std::vector<std::unique_ptr<ContextLane>> lanes_;
  std::vector<double> idle_power_w_;
  PowerMeter meter_;
  PowerSource baseload_;         // the idle power of the mode, all run long
  PowerSource gpu_;              // what the GPU's work adds over it
  std::vector<double> share_;    // current share per context
  std::vector<double> busy_ns_;  // per context
  double any_busy_ns_ = 0;
  Time last_state_ = 0;
  bool ran_ = false;
};

}  // namespace fulcrum::sim
