#include "sim/runtime/runtime.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <variant>

#include "backends/simulated_backend.hpp"
#include "models/error.hpp"
#include "sim/runtime/stability.hpp"
#include "sim/scenario/scenario_limits.hpp"

namespace fulcrum::sim {

Runtime::Runtime(const RunSetup& setup, backends::Backend& backend, RunObserver* observer,
                 DataPipeline& pipeline, const GpuSharingPolicyFactory& policy)
    : setup_(setup),
      backend_(backend),
      observer_(observer),
      meter_(setup.device != nullptr ? setup.device->rails.size() : 0,
             setup.scenario != nullptr &&
                     setup.scenario->budgets.power_window_s >= limits::kMinSpanS &&
                     setup.scenario->budgets.power_window_s <= limits::kMaxDurationS
                 ? from_seconds(setup.scenario->budgets.power_window_s)
                 : kSecond) {
  if (setup.scenario == nullptr || setup.device == nullptr || setup.perf_model == nullptr) {
    throw Error("run(): the setup needs a scenario, a device and a performance model");
  }
  const Scenario& sc = *setup.scenario;
  // The loader's ranges (scenario_limits.hpp), checked again for setups built in code: past
  // them the end or a window's end overflows int64 nanoseconds, or the meter counts windows
  // for ever.
  if (!(sc.duration_s >= limits::kMinSpanS && sc.duration_s <= limits::kMaxDurationS)) {
    throw InputError(std::nullopt, "duration_s", "must be in 1e-9..1e7 s");
  }
  if (!(sc.budgets.power_window_s >= limits::kMinSpanS &&
        sc.budgets.power_window_s <= limits::kMaxDurationS &&
        sc.budgets.power_window_s >= sc.duration_s / limits::kMaxPeriodsPerRun)) {
    throw InputError(std::nullopt, "budgets.power_window_s",
                     "must be in 1e-9..1e7 s and at least duration_s / 1e8");
  }
  const double pct = sc.budgets.latency_percentile;
  if (pct != 50 && pct != 95 && pct != 99 && pct != 100) {
    throw InputError(std::nullopt, "budgets.latency_percentile", "must be one of 50, 95, 99, 100");
  }
  if (sc.gpu_sharing.policy == SharingPolicy::managed &&
      sc.gpu_sharing.variant == ManagedVariant::windowed &&
      !(sc.gpu_sharing.risk >= limits::kMinWindowRisk &&
        sc.gpu_sharing.risk <= limits::kMaxWindowRisk)) {
    throw InputError(std::nullopt, "gpu_sharing.risk", "must be in 1e-12..0.5");
  }
  end_ = from_seconds(sc.duration_s);
  if (end_ <= 0) throw InputError(std::nullopt, "duration_s", "must be at least 1 ns");
  const std::size_t rails = setup.device->rails.size();

  if (sc.training.has_value() != (setup.training_workload != nullptr)) {
    throw Error("run(): the training workload must be given exactly when the scenario trains");
  }
  if (setup.inference_workloads.size() != sc.inference.size()) {
    throw Error("run(): one inference workload is needed per inference stream");
  }

  // Contexts in a fixed order, the training job first: policies break ties by this order.
  if (sc.training) {
    training_ = std::make_unique<TrainingJob>(
        *sc.training, *setup.training_workload, setup.training_dataset_samples, pipeline, sim_,
        observer_, [this, c = static_cast<int>(contexts_.size())] { policy_->on_work_ready(c); });
    contexts_.emplace_back().context = training_.get();  // output id 0
  }
  models::RngStreams rng(sc.seed);
  streams_.reserve(sc.inference.size());
  for (std::size_t i = 0; i < sc.inference.size(); ++i) {
    if (setup.inference_workloads[i] == nullptr) throw Error("run(): missing inference workload");
    const int c = static_cast<int>(contexts_.size());
    streams_.push_back(std::make_unique<InferenceStream>(
        static_cast<int>(i), sc.inference[i], *setup.inference_workloads[i], rng, end_, sim_,
        observer_, [this, c] { policy_->on_work_ready(c); }));
    Slot& slot = contexts_.emplace_back();
    slot.context = streams_.back().get();
    slot.output_id = 1 + static_cast<int>(i);
  }

  const models::RailPower idle = backend_.idle_power(setup.mode);
  if (idle.power_w.size() != rails) {
    throw Error("backend: idle power has " + std::to_string(idle.power_w.size()) +
                " rails, the device has " + std::to_string(rails));
  }
  idle_power_w_ = idle.power_w;
  baseload_ = meter_.add_source("baseload");
  gpu_ = meter_.add_source("gpu");
  pipeline.attach(sim_, *this, observer_, [this] { training_->data_arrived(); });
  pipeline_ = &pipeline;
  for (Slot& slot : contexts_) {
    slot.started.item.mode = setup.mode;  // every item of the run is in the run's mode
    slot.cost.rail_active_w = models::RailValues(rails);
  }
  share_.assign(contexts_.size(), 0.0);
  busy_ns_.assign(contexts_.size(), 0.0);
  if (backend_.runs_in_real_time()) {
    wall_.emplace();
    sim_.pace_with(&*wall_);
    if (sc.gpu_sharing.policy == SharingPolicy::native) {
      // Native time-slicing for real: each context executes in a device context of its own, and
      // the device shares itself between them.
      for (std::size_t c = 0; c < contexts_.size(); ++c) {
        std::unique_ptr<backends::Backend> context = backend_.open_context();
        if (!context) {
          throw InputError(std::nullopt, "gpu_sharing",
                           "native time-slicing in real time needs a backend that executes "
                           "several contexts at once, and this one cannot: use managed or "
                           "sequential");
        }
        lanes_.push_back(std::make_unique<ContextLane>(std::move(context), sim_));
      }
    }
  }
  policy_ = policy ? policy(*this) : make_gpu_sharing_policy(sc.gpu_sharing, *this);
  if (!policy_) throw Error("run(): the GPU-sharing policy factory made no policy");
}

Runtime::~Runtime() = default;

std::optional<int> Runtime::training_context() const {
  if (!training_) return std::nullopt;
  return 0;  // the training job is always the first context
}

Time Runtime::ready_since(int context) const {
  assert(has_ready_work(context));
  return slot(context).context->ready_since();
}

std::optional<int> Runtime::oldest_ready_inference() const {
  // The streams directly (the concrete, final type): this runs at every item boundary.
  std::optional<int> best;
  Time best_since = 0;
  const int first = first_stream();
  for (std::size_t i = 0; i < streams_.size(); ++i) {
    const InferenceStream& s = *streams_[i];
    if (!s.has_ready_work()) continue;
    const Time since = s.ready_since();
    if (!best || since < best_since) {
      best = first + static_cast<int>(i);
      best_since = since;
    }
  }
  return best;
}

const ItemCost& Runtime::begin_item(int context) {
  assert(has_ready_work(context));
  Slot& s = slot(context);
  const Time now = sim_.now();
  start_context(s, now);
  const backends::Completion& done = backend_.execute(s.started.item);
  check_completion(done);
  const std::size_t rails = idle_power_w_.size();
  s.running = true;
  s.start = now;
  s.cost.duration = static_cast<Time>(done.duration.count());
  // Cut short at the run's end or at a stop: it finishes, if ever, after the run's end.
  if (done.cut_short) s.cost.duration = std::max(s.cost.duration, end_ - now + 1);
  const double seconds = to_seconds(s.cost.duration);
  for (std::size_t r = 0; r < rails; ++r) {
    s.cost.rail_active_w[r] = done.rail_energy_j[r] / seconds - idle_power_w_[r];
  }
  s.done = done;
  return s.cost;
}

const ItemCost& Runtime::submit_item(int context, std::function<void()> done) {
  assert(executes_concurrently() && has_ready_work(context));
  Slot& s = slot(context);
  const Time now = sim_.now();
  start_context(s, now);
  s.running = true;
  s.start = now;
  // Until the device reports it, the item is what the run's model predicts for it (for
  // `validate`, the profile measured on the device): its time alone and its active power.
  const backends::WorkItem& item = s.started.item;
  const models::Prediction p = setup_.perf_model->predict(
      {*setup_.device, item.mode, *item.workload, item.phase, item.batch_size, item.host_share});
  s.cost.duration = duration_of(p, *item.workload);
  for (std::size_t r = 0; r < idle_power_w_.size(); ++r) {
    s.cost.rail_active_w[r] =
        r < p.power.power_w.size() ? std::max(0.0, p.power.power_w[r] - idle_power_w_[r]) : 0.0;
  }
  lanes_[static_cast<std::size_t>(context)]->submit(
      item, [this, context, done = std::move(done)](const backends::Completion& c) {
        check_completion(c);
        // Cut short at the run's end or at a stop: the item did not finish within the run.
        if (c.cut_short) return;
        Slot& slot = this->slot(context);
        slot.done = c;
        // The time in its context, as measured; never more than the run saw pass (the device's
        // clock and the host's differ by microseconds).
        slot.cost.duration = std::min<Time>(c.duration.count(), sim_.now() - slot.start);
        done();
      });
  return s.cost;
}

void Runtime::start_context(Slot& s, Time now) {
  s.context->start(now, s.started);
  // The item's host thread joins the CPU's contention (the training job tells the pipeline
  // itself, and takes its share from it).
  if (s.context->kind() == ContextKind::inference) {
    pipeline_->on_inference_start(now);
    s.started.item.host_share = pipeline_->inference_host_share();
  }
}

void Runtime::warm_up() {
  if (!backend_.runs_in_real_time()) return;
  // An emulation has nothing to prepare: its items run through (a noisy one still draws its
  // noise, so the run's sequence is the same) without sleeping, under a limit that has passed.
  struct LimitLift {
    backends::Backend* backend = nullptr;
    ~LimitLift() {
      if (backend != nullptr) backend->limit_real_time(nullptr);
    }
  } lift;
  if (!backend_.is_measured()) {
    auto passed = std::make_shared<backends::RealTimeLimit>();
    passed->deadline = std::chrono::steady_clock::time_point::min();
    backend_.limit_real_time(std::move(passed));
    lift.backend = &backend_;
  }
  for (const ContextItem& c : distinct_items(setup_)) {
    backends::Backend& device =
        lanes_.empty() ? backend_ : lanes_[static_cast<std::size_t>(c.context)]->backend();
    (void)device.execute(c.item);
  }
}

void Runtime::finish_item(int context) {
  Slot& s = slot(context);
  assert(s.running);
  const Time now = sim_.now();
  assert(now - s.start >= s.cost.duration && "an item cannot finish faster than alone on the GPU");
  s.context->finish(now, s.cost.duration);
  if (s.context->kind() == ContextKind::inference) pipeline_->on_inference_end(now);
  if (observer_ != nullptr) {
    const backends::WorkItem& item = s.started.item;
    observer_->on_item(ItemRecord{s.output_id, item.phase, s.started.id, item.batch_size, s.start,
                                  now, s.cost.duration, s.started.fetch_stall, s.done.rail_energy_j,
                                  s.done.provenance, s.started.data});
  }
  s.provenance_counts.add(s.done.provenance);
  s.running = false;
}

void Runtime::integrate_to(Time t) {
  assert(t >= last_state_ && "the clock never goes backwards");
  const double dt = static_cast<double>(t - last_state_);
  if (dt > 0) {
    double total = 0;
    for (std::size_t c = 0; c < share_.size(); ++c) {
      busy_ns_[c] += share_[c] * dt;
      total += share_[c];
    }
    if (total > 0) any_busy_ns_ += dt;
  }
  last_state_ = t;
}

void Runtime::set_gpu_state(std::span<const double> share, std::span<const double> rail_active_w) {
  assert(share.size() == share_.size());
  integrate_to(sim_.now());
  std::copy(share.begin(), share.end(), share_.begin());
  set_power(gpu_, rail_active_w);
}

PowerSource Runtime::add_source(std::string name) {
  if (ran_) throw Error("a power source must be added before the run starts");
  return meter_.add_source(std::move(name));
}

void Runtime::set_power(PowerSource source, std::span<const double> rail_power_w) {
  if (rail_power_w.size() != idle_power_w_.size()) {
    throw Error("a power source set " + std::to_string(rail_power_w.size()) +
                " rail powers, the device has " + std::to_string(idle_power_w_.size()));
  }
  const Time now = sim_.now();
  if (meter_.set(source, now, rail_power_w) && observer_ != nullptr) {
    observer_->on_power(now, meter_.rail_power_w());
  }
}

// ---- the run ----

RunResult Runtime::run() {
  assert(!ran_ && "a Runtime runs once");
  ran_ = true;
  warm_up();
  if (setup_.on_clock_start) setup_.on_clock_start();
  // An emulated item's sleep ends at the run's end and when the caller asks the run to stop
  // (Backend::limit_real_time); lifted when the run returns or throws.
  struct LimitLift {
    backends::Backend* backend = nullptr;
    ~LimitLift() {
      if (backend != nullptr) backend->limit_real_time(nullptr);
    }
  } lift;
  if (wall_) {
    wall_->restart();
    auto limit = std::make_shared<backends::RealTimeLimit>();
    limit->deadline = wall_->at(end_);
    limit->stop = setup_.stop_requested;
    backend_.limit_real_time(std::move(limit));
    lift.backend = &backend_;  // the lanes' contexts share their backend's limit
  }
  meter_.set(baseload_, 0, idle_power_w_);
  if (observer_ != nullptr) observer_->on_power(0, meter_.rail_power_w());
  if (training_ && training_->begin()) {
    sim_.schedule_at(0, [this] { policy_->on_work_ready(*training_context()); });
  }
  for (const auto& stream : streams_) stream->start_arrivals();
  sim_.schedule_at(end_ / 2, [this] {
    for (const auto& stream : streams_) stream->mark_mid_run();
  });
  if (progress_ || observer_ != nullptr) {
    // Pausing at step boundaries keeps every event's order (run_until runs all events up to and
    // at the horizon), so the results are the same bytes with or without a progress display.
    // A wall-clock run reports at least every kWallProgressStep of real time as well, so that
    // whoever listens (the CLI's interrupt check) hears from it promptly on a long run.
    Time step = std::max<Time>(1, end_ / kProgressSteps);
    if (wall_) step = std::min(step, kWallProgressStep);
    for (Time reached = step; reached < end_; reached += step) {
      sim_.run_until(reached);
      if (observer_ != nullptr) observer_->on_advance(reached);
      if (progress_) progress_(reached, end_);
    }
  }
  sim_.run_until(end_);
  if (setup_.on_clock_end) setup_.on_clock_end();
  if (progress_) progress_(end_, end_);
  integrate_to(end_);
  meter_.finish(end_);
  if (observer_ != nullptr) observer_->on_end(end_);
  return collect();
}

Time Runtime::predicted_time(const models::Workload& workload, models::Phase phase,
                             std::size_t batch_size) const {
  return duration_of(setup_.perf_model->predict({*setup_.device, setup_.mode, workload, phase,
                                                 static_cast<int>(batch_size)}),
                     workload);
}

Time Runtime::duration_of(const models::Prediction& p, const models::Workload& workload) const {
  return backends::duration_of_prediction(p.time_ms, setup_.perf_model->name(), workload.name())
      .count();
}

void Runtime::check_completion(const backends::Completion& done) const {
  if (done.duration.count() <= 0 || done.rail_energy_j.size() != idle_power_w_.size()) {
    throw Error("backend: a completion needs a duration > 0 and one energy per rail");
  }
}

Time Runtime::predicted_duration(int context) {
  Slot& s = slot(context);
  if (s.predicted == 0) {
    if (s.context->kind() == ContextKind::training) {
      s.predicted =
          predicted_time(training_->workload(), models::Phase::training, training_->batch_size());
    } else {
      const InferenceStream& stream = *streams_[static_cast<std::size_t>(context - first_stream())];
      s.predicted =
          predicted_time(stream.workload(), models::Phase::inference, stream.batch_size());
    }
  }
  return s.predicted;
}

Time Runtime::next_ready_bound(int context) const {
  assert(kind(context) == ContextKind::inference);
  return streams_[static_cast<std::size_t>(context - first_stream())]->next_ready_bound(
      sim_.now(), setup_.scenario->gpu_sharing.risk);
}

RunResult Runtime::collect() {
  const Scenario& sc = *setup_.scenario;
  const double duration_s = to_seconds(end_);
  RunResult r;
  r.scenario = sc.name;
  r.seed = sc.seed;
  r.duration_s = duration_s;
  r.device = setup_.device->name;
  r.mode = setup_.mode;
  r.gpu_sharing = to_string(sc.gpu_sharing.policy);
  if (sc.gpu_sharing.policy == SharingPolicy::managed) {
    r.gpu_sharing_variant = to_string(sc.gpu_sharing.variant);
  }
  r.perf_model = setup_.perf_model->name();
  r.extrapolation_check_training = setup_.perf_model->extrapolation_check(models::Phase::training);
  r.extrapolation_check_inference =
      setup_.perf_model->extrapolation_check(models::Phase::inference);
  r.events_processed = sim_.events_processed();
  if (wall_) r.lateness = sim_.lateness();

  if (training_) {
    const TrainingJob& t = *training_;
    const std::size_t c = static_cast<std::size_t>(*training_context());
    TrainingResult tr;
    tr.workload = t.workload().name();
    tr.dataset = t.spec().dataset;
    tr.batch_size = static_cast<int>(t.batch_size());
    tr.minibatches = t.completed();
    tr.samples = t.samples();
    tr.minibatches_per_s = static_cast<double>(t.completed()) / duration_s;
    tr.samples_per_s = t.samples() / duration_s;
    if (const std::optional<Time> done = t.finished_at(); done && *done > 0) {
      tr.finished_s = to_seconds(*done);
      tr.minibatches_per_s_while_training = static_cast<double>(t.completed()) / *tr.finished_s;
      tr.samples_per_s_while_training = t.samples() / *tr.finished_s;
    }
    tr.fetch_stall_s = to_seconds(t.stall_total());
    tr.epochs_completed = t.epochs_completed();
    tr.epoch_time_s = t.epoch_time_stats();
    tr.gpu_busy_s = busy_ns_[c] * 1e-9;
    tr.provenance = contexts_[c].provenance_counts;
    if (tr.provenance.extrapolated > 0) {
      tr.extrapolation_nearest =
          setup_.perf_model->extrapolation_nearest(t.workload(), models::Phase::training);
    }
    tr.epochs = t.epoch_summaries();
    tr.dataloader = pipeline_->result(end_);
    r.training = std::move(tr);
  }

  const auto first = static_cast<std::size_t>(first_stream());
  for (std::size_t i = 0; i < streams_.size(); ++i) {
    InferenceStream& s = *streams_[i];
    StreamResult out;
    out.name = s.spec().name;
    out.workload = s.workload().name();
    out.batch_size = static_cast<int>(s.batch_size());
    out.arrived = s.arrived();
    out.completed = s.completed();
    out.queued = s.backlog();
    out.dropped = s.dropped();
    out.batches = s.batches_done();
    out.throughput_per_s = static_cast<double>(s.completed()) / duration_s;
    assert(out.arrived == out.completed + out.queued + out.dropped && "requests are conserved");
    out.latency = s.latency_stats();
    StreamBacklog backlog;
    backlog.batch_size = s.batch_size();
    backlog.rate_per_s = s.nominal_rate_per_s();
    backlog.steady_rate = std::holds_alternative<FixedArrivals>(s.spec().arrivals) ||
                          std::holds_alternative<PoissonArrivals>(s.spec().arrivals);
    // Measured when a full batch ran (the backend's own figure), else the model's prediction.
    backlog.full_batch_time = s.mean_full_batch_time();
    if (!backlog.full_batch_time) {
      backlog.full_batch_time = predicted_duration(static_cast<int>(first + i));
    }
    backlog.backlog_mid = s.backlog_mid();
    backlog.backlog_end = s.backlog();
    backlog.cap = s.cap();
    backlog.overflow_at = s.overflow_at();
    backlog.dropped = s.dropped();
    backlog.arrived = s.arrived();
    backlog.batches_dispatched = s.batches_dispatched();
    backlog.dispatches_partial = s.dispatches_partial_batches();
    backlog.duration_s = duration_s;
    if (!is_stable(backlog)) {
      const int context = static_cast<int>(first + i);
      out.stable = false;
      out.unstable_reason = instability_reason(backlog, policy_->starvation_reason(context),
                                               to_string(sc.gpu_sharing.policy));
    }
    out.gpu_busy_s = busy_ns_[first + i] * 1e-9;
    out.provenance = contexts_[first + i].provenance_counts;
    if (out.provenance.extrapolated > 0) {
      out.extrapolation_nearest =
          setup_.perf_model->extrapolation_nearest(s.workload(), models::Phase::inference);
    }
    r.inference.push_back(std::move(out));
  }

  PowerResult& p = r.power;
  p.rails = setup_.device->rails;
  p.rail_energy_j = meter_.rail_energy_j();
  p.rail_avg_w.resize(p.rail_energy_j.size());
  for (std::size_t k = 0; k < p.rail_energy_j.size(); ++k) {
    p.rail_avg_w[k] = p.rail_energy_j[k] / duration_s;
  }
  p.energy_j = meter_.energy_j();
  p.avg_w = p.energy_j / duration_s;
  p.max_window_w = meter_.max_window_w();
  p.window_s = sc.budgets.power_window_s;
  p.sources = meter_.source_names();
  p.source_energy_j = meter_.source_energy_j();

  r.gpu_utilization = any_busy_ns_ / static_cast<double>(end_);
  return r;
}

}  // namespace fulcrum::sim
