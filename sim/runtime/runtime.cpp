#include "sim/runtime/runtime.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstdio>
#include <variant>

#include "models/error.hpp"
#include "sim/runtime/latency_stats.hpp"

namespace fulcrum::sim {

namespace {

constexpr std::size_t kMinQueueCap = 10'000;  // requests
constexpr double kQueueCapSeconds = 30.0;     // of arrivals at the nominal rate
constexpr std::size_t kGrowthBatches = 4;     // growth over the second half that is "clearly"
constexpr double kGrowthSeconds = 1.0;  // ... more than noise: max(4 batches, 1 s of arrivals)
constexpr std::size_t kMaxLatencyReserve = 1u << 24;

std::string with_commas(std::uint64_t n) {
  std::string digits = std::to_string(n);
  std::string out;
  const std::size_t lead = digits.size() % 3;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i != 0 && (i + 3 - lead) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

std::string format(const char* fmt, double a, double b = 0, double c = 0, double d = 0) {
  char text[256];
  std::snprintf(text, sizeof text, fmt, a, b, c, d);
  return text;
}

}  // namespace

Runtime::Runtime(const RunSetup& setup, backends::Backend& backend, RunObserver* observer,
                 DataPipeline& pipeline)
    : setup_(setup),
      backend_(backend),
      observer_(observer),
      pipeline_(pipeline),
      end_(0),
      meter_(setup.device != nullptr ? setup.device->rails.size() : 0,
             setup.scenario != nullptr && setup.scenario->budgets.power_window_s > 0
                 ? from_seconds(setup.scenario->budgets.power_window_s)
                 : kSecond) {
  if (setup.scenario == nullptr || setup.device == nullptr) {
    throw Error("run(): the setup needs a scenario and a device");
  }
  const Scenario& sc = *setup.scenario;
  if (!(sc.duration_s > 0) || !std::isfinite(sc.duration_s)) {
    throw InputError(std::nullopt, "duration_s", "must be > 0");
  }
  if (!(sc.budgets.power_window_s > 0) || !std::isfinite(sc.budgets.power_window_s)) {
    throw InputError(std::nullopt, "budgets.power_window_s", "must be > 0");
  }
  const double pct = sc.budgets.latency_percentile;
  if (pct != 50 && pct != 95 && pct != 99 && pct != 100) {
    throw InputError(std::nullopt, "budgets.latency_percentile", "must be one of 50, 95, 99, 100");
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

  if (sc.training) {
    Training t;
    t.spec = &*sc.training;
    t.workload = setup.training_workload;
    if (sc.training->batch_size < 1) {
      throw InputError(std::nullopt, "training.batch_size", "must be >= 1");
    }
    t.batch_size = static_cast<std::size_t>(sc.training->batch_size);
    t.epochs = sc.training->epochs;
    const double samples = setup.training_dataset_samples;
    if (!(samples >= 0) || !std::isfinite(samples)) {
      throw InputError(std::nullopt, "training.dataset", "the dataset size must be >= 0");
    }
    if (samples >= 1) {
      const auto n = static_cast<std::uint64_t>(std::floor(samples));
      t.minibatches_per_epoch = (n + t.batch_size - 1) / t.batch_size;
      t.last_batch_size =
          static_cast<std::size_t>(n - (*t.minibatches_per_epoch - 1) * t.batch_size);
    }
    if (t.epochs) {
      if (*t.epochs < 1) throw InputError(std::nullopt, "training.epochs", "must be >= 1");
      if (!t.minibatches_per_epoch) {
        throw InputError(std::nullopt, "training.epochs", "epochs need a dataset with samples");
      }
    }
    t.costs.resize(t.batch_size + 1);
    training_ = std::move(t);
  }

  models::RngStreams rng(sc.seed);
  streams_.reserve(sc.inference.size());
  for (std::size_t i = 0; i < sc.inference.size(); ++i) {
    const InferenceStreamSpec& spec = sc.inference[i];
    const std::string key = "inference[" + std::to_string(i) + "]";
    if (spec.batch_size < 1) throw InputError(std::nullopt, key + ".batch_size", "must be >= 1");
    if (setup.inference_workloads[i] == nullptr) throw Error("run(): missing inference workload");
    Stream& s = streams_.emplace_back(ArrivalProcess(spec.arrivals, rng, spec.name, end_));
    s.spec = &spec;
    s.workload = setup.inference_workloads[i];
    s.batch_size = static_cast<std::size_t>(spec.batch_size);
    if (spec.max_wait_ms) {
      if (!(*spec.max_wait_ms >= 0) || !std::isfinite(*spec.max_wait_ms)) {
        throw InputError(std::nullopt, key + ".max_wait_ms", "must be >= 0");
      }
      s.max_wait = from_milliseconds(*spec.max_wait_ms);
    }
    const double rate = s.arrivals.nominal_rate_per_s();
    s.cap = std::max(kMinQueueCap, static_cast<std::size_t>(std::ceil(kQueueCapSeconds * rate)));
    s.costs.resize(s.batch_size + 1);
    const double expected =
        std::min(rate * sc.duration_s * 1.01 + 64.0, static_cast<double>(kMaxLatencyReserve));
    s.latencies.reserve(static_cast<std::size_t>(expected));
  }

  const models::RailPower idle = backend_.idle_power(setup.mode);
  if (idle.power_w.size() != rails) {
    throw Error("backend: idle power has " + std::to_string(idle.power_w.size()) +
                " rails, the device has " + std::to_string(rails));
  }
  idle_power_w_ = idle.power_w;
  share_.assign(static_cast<std::size_t>(context_count()), 0.0);
  busy_ns_.assign(static_cast<std::size_t>(context_count()), 0.0);
  policy_ = make_gpu_sharing_policy(sc.gpu_sharing, *this);
}

Runtime::~Runtime() = default;

const ItemCost& Runtime::cost(int context, std::size_t batch_size) {
  std::vector<std::optional<ItemCost>>& costs =
      context == kTrainingContext ? training_->costs
                                  : streams_[static_cast<std::size_t>(context - 1)].costs;
  assert(batch_size >= 1 && batch_size < costs.size());
  std::optional<ItemCost>& slot = costs[batch_size];
  if (slot) return *slot;
  backends::WorkItem item;
  if (context == kTrainingContext) {
    item.workload = training_->workload;
    item.phase = models::Phase::training;
  } else {
    item.workload = streams_[static_cast<std::size_t>(context - 1)].workload;
    item.phase = models::Phase::inference;
  }
  item.batch_size = static_cast<int>(batch_size);
  item.mode = setup_.mode;
  const backends::Completion done = backend_.execute(item);
  const std::size_t rails = idle_power_w_.size();
  if (done.duration.count() < 0 || done.rail_energy_j.size() != rails) {
    throw Error("backend: a completion needs a duration >= 0 and one energy per rail");
  }
  ItemCost c;
  c.duration = static_cast<Time>(done.duration.count());
  c.rail_energy_j = done.rail_energy_j;
  c.rail_power_w.resize(rails);
  for (std::size_t r = 0; r < rails; ++r) {
    // A zero-length item draws nothing measurable; give it idle power so power stays finite.
    c.rail_power_w[r] =
        c.duration > 0 ? done.rail_energy_j[r] / to_seconds(c.duration) : idle_power_w_[r];
  }
  slot = std::move(c);
  return *slot;
}

// ---- inference: arrivals and the batcher ----

void Runtime::schedule_next_arrival(int stream) {
  Stream& s = streams_[static_cast<std::size_t>(stream)];
  Time t = 0;
  if (s.arrivals.next_into(t)) {
    assert(t >= sim_.now());
    sim_.schedule_at(t, [this, stream] { on_arrival(stream); });
  }
}

void Runtime::on_arrival(int stream) {
  schedule_next_arrival(stream);  // one event per arrival, each scheduling the next
  Stream& s = streams_[static_cast<std::size_t>(stream)];
  const Time now = sim_.now();
  ++s.arrived;
  if (s.requests.size() >= s.cap) {
    // Bounded memory: an overloaded stream stops storing arrivals while its backlog is at the cap.
    if (!s.overflow_at) s.overflow_at = now;
    ++s.dropped;
    return;
  }
  s.requests.push_back(now);
  ++s.waiting;
  if (s.waiting >= s.batch_size) {
    dispatch(stream);
    return;
  }
  if (s.waiting == 1 && s.max_wait) {
    s.timer = sim_.schedule_at(now + *s.max_wait, [this, stream] { on_timer(stream); });
  }
  if (observer_ != nullptr) observer_->on_queue_length(stream, now, s.waiting);
}

void Runtime::on_timer(int stream) {
  Stream& s = streams_[static_cast<std::size_t>(stream)];
  s.timer = EventId{};
  if (s.waiting > 0) dispatch(stream);
}

void Runtime::dispatch(int stream) {
  Stream& s = streams_[static_cast<std::size_t>(stream)];
  assert(s.waiting > 0 && s.waiting <= s.batch_size);
  s.batches.push_back(Batch{s.next_batch_id++, s.waiting, sim_.now()});
  s.waiting = 0;
  if (s.max_wait) {
    sim_.cancel(s.timer);
    s.timer = EventId{};
  }
  if (observer_ != nullptr) observer_->on_queue_length(stream, sim_.now(), 0);
  policy_->on_work_ready(stream + 1);
}

// ---- training job ----

std::size_t Runtime::training_batch_size(std::uint64_t minibatch) const {
  const Training& t = *training_;
  if (t.minibatches_per_epoch &&
      minibatch % *t.minibatches_per_epoch == *t.minibatches_per_epoch - 1) {
    return t.last_batch_size;
  }
  return t.batch_size;
}

void Runtime::prepare_training() {
  Training& t = *training_;
  if (t.finished) return;
  const Time now = sim_.now();
  const Time ready = std::max(pipeline_.ready_at(t.next, now), now);
  t.ready_at = ready;
  t.stall = ready - now;
  if (ready == now) {
    t.data_ready = true;
    return;
  }
  t.data_ready = false;
  sim_.schedule_at(ready, [this] {
    training_->data_ready = true;
    policy_->on_work_ready(kTrainingContext);
  });
}

// ---- GpuHost ----

bool Runtime::has_ready_work(int context) const {
  if (context == kTrainingContext) {
    return training_ && !training_->finished && !training_->running && training_->data_ready;
  }
  const Stream& s = streams_[static_cast<std::size_t>(context - 1)];
  return !s.running && !s.batches.empty();
}

Time Runtime::ready_since(int context) const {
  assert(has_ready_work(context));
  if (context == kTrainingContext) return training_->ready_at;
  return streams_[static_cast<std::size_t>(context - 1)].requests.front();
}

bool Runtime::is_training_active() const { return training_ && !training_->finished; }

const ItemCost& Runtime::begin_item(int context) {
  assert(has_ready_work(context));
  const Time now = sim_.now();
  if (context == kTrainingContext) {
    Training& t = *training_;
    t.running = true;
    t.start = now;
    t.running_size = training_batch_size(t.next);
    t.running_stall = t.stall;
    t.stall_total += t.stall;
    t.data_ready = false;
    pipeline_.on_compute_start(t.next, now);
    return cost(context, t.running_size);
  }
  Stream& s = streams_[static_cast<std::size_t>(context - 1)];
  s.running = true;
  s.start = now;
  return cost(context, s.batches.front().size);
}

void Runtime::finish_item(int context) {
  const Time now = sim_.now();
  if (context == kTrainingContext) {
    Training& t = *training_;
    assert(t.running);
    const ItemCost& c = cost(context, t.running_size);
    assert(now - t.start >= c.duration && "an item cannot finish faster than alone on the GPU");
    if (observer_ != nullptr) {
      observer_->on_item(ItemRecord{kTrainingContext, models::Phase::training, t.next,
                                    static_cast<int>(t.running_size), t.start, now, c.duration,
                                    t.running_stall, c.rail_energy_j});
    }
    t.running = false;
    ++t.completed;
    t.samples += static_cast<double>(t.running_size);
    if (t.minibatches_per_epoch && (t.next + 1) % *t.minibatches_per_epoch == 0) {
      t.epoch_time_s.push_back(to_seconds(now - t.epoch_start));
      t.epoch_start = now;
      if (t.epochs && static_cast<int>(t.epoch_time_s.size()) >= *t.epochs) t.finished = true;
    }
    ++t.next;
    prepare_training();
    return;
  }
  Stream& s = streams_[static_cast<std::size_t>(context - 1)];
  assert(s.running && !s.batches.empty());
  const Batch batch = s.batches.front();
  const ItemCost& c = cost(context, batch.size);
  assert(now - s.start >= c.duration && "an item cannot finish faster than alone on the GPU");
  const int stream = context - 1;
  if (observer_ == nullptr) {
    // The common benchmark and sweep case: only latencies to record, so read the batch's requests
    // in place and drop them in one step instead of testing the observer per request.
    for (std::size_t j = 0; j < batch.size; ++j) {
      assert(now - s.requests[j] >= now - s.start && "latency covers at least the execution time");
      s.latencies.push_back(now - s.requests[j]);
    }
    s.requests.pop_front(batch.size);
  } else {
    for (std::size_t j = 0; j < batch.size; ++j) {
      const Time arrival = s.requests.front();
      assert(now - arrival >= now - s.start && "latency covers at least the execution time");
      s.latencies.push_back(now - arrival);
      observer_->on_request(
          RequestRecord{stream, s.completed + j, batch.id, arrival, batch.dispatch, s.start, now});
      s.requests.pop_front();
    }
  }
  if (observer_ != nullptr) {
    observer_->on_item(ItemRecord{context, models::Phase::inference, batch.id,
                                  static_cast<int>(batch.size), s.start, now, c.duration, 0,
                                  c.rail_energy_j});
  }
  s.completed += batch.size;
  ++s.batches_done;
  s.batches.pop_front();
  s.running = false;
  assert(s.arrived == s.completed + s.requests.size() + s.dropped && "requests are conserved");
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

void Runtime::set_gpu_state(std::span<const double> share, std::span<const double> rail_power_w) {
  assert(share.size() == share_.size());
  const Time now = sim_.now();
  integrate_to(now);
  std::copy(share.begin(), share.end(), share_.begin());
  const bool changed = meter_.set(now, rail_power_w);
  if (observer_ != nullptr && (changed || !power_reported_)) {
    observer_->on_power(now, meter_.rail_power_w());
    power_reported_ = true;
  }
}

// ---- the run ----

RunResult Runtime::run() {
  assert(!ran_ && "a Runtime runs once");
  ran_ = true;
  set_gpu_state(share_, idle_power_w_);
  if (training_) {
    prepare_training();
    if (training_->data_ready) {
      sim_.schedule_at(0, [this] { policy_->on_work_ready(kTrainingContext); });
    }
  }
  for (std::size_t i = 0; i < streams_.size(); ++i) schedule_next_arrival(static_cast<int>(i));
  sim_.schedule_at(end_ / 2, [this] {
    for (Stream& s : streams_) s.backlog_mid = s.requests.size();
  });
  if (progress_) {
    // Pausing at step boundaries keeps every event's order (run_until runs all events up to and
    // at the horizon), so the results are the same bytes with or without a progress display.
    const Time step = std::max<Time>(1, end_ / kProgressSteps);
    for (Time reached = step; reached < end_; reached += step) {
      sim_.run_until(reached);
      progress_(reached, end_);
    }
  }
  sim_.run_until(end_);
  if (progress_) progress_(end_, end_);
  integrate_to(end_);
  meter_.finish(end_);
  if (observer_ != nullptr) observer_->on_end(end_);
  return collect();
}

std::string Runtime::instability_reason(int stream, std::size_t backlog_end) {
  Stream& s = streams_[static_cast<std::size_t>(stream)];
  const double rate = s.arrivals.nominal_rate_per_s();
  const double batch_ms = to_milliseconds(cost(stream + 1, s.batch_size).duration);
  const double fill_ms = rate > 0 ? static_cast<double>(s.batch_size) / rate * 1e3 : 0;
  const std::string growth = backlog_end > s.backlog_mid
                                 ? "backlog grew from " + with_commas(s.backlog_mid) + " to " +
                                       with_commas(backlog_end) + " requests"
                                 : "backlog " + with_commas(s.backlog_mid) +
                                       " requests at mid-run, " + with_commas(backlog_end) +
                                       " at the end";
  std::string reason;
  if (rate > 0 && batch_ms >= fill_ms) {
    const std::string fill =
        s.batch_size == 1 ? format("the %.1f ms between arrivals at %.1f/s: ", fill_ms, rate)
                          : format("the %.1f ms in which %.0f requests arrive at %.1f/s: ", fill_ms,
                                   static_cast<double>(s.batch_size), rate);
    reason = "one batch of " + std::to_string(s.batch_size) +
             format(" takes %.1f ms, longer than ", batch_ms) + fill + growth;
  } else if (std::optional<std::string> starved = policy_->starvation_reason(stream + 1)) {
    reason = *starved + ": " + growth;
  } else {
    reason = "a batch of " + std::to_string(s.batch_size) +
             format(" takes %.1f ms alone against %.1f ms to fill, but the GPU shared under ",
                    batch_ms, fill_ms) +
             to_string(setup_.scenario->gpu_sharing.policy) +
             " sharing left too little time: " + growth;
  }
  if (s.overflow_at) {
    reason += "; the backlog hit its cap of " + with_commas(s.cap) +
              format(" requests at %.1f s and ", to_seconds(*s.overflow_at)) +
              with_commas(s.dropped) + " later arrivals were dropped";
  }
  return reason;
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
  r.events_processed = sim_.events_processed();

  if (training_) {
    const Training& t = *training_;
    TrainingResult tr;
    tr.workload = t.workload->name();
    tr.dataset = t.spec->dataset;
    tr.batch_size = static_cast<int>(t.batch_size);
    tr.minibatches = t.completed;
    tr.samples = t.samples;
    tr.minibatches_per_s = static_cast<double>(t.completed) / duration_s;
    tr.samples_per_s = t.samples / duration_s;
    // Stalls of minibatches that started; a stall still in progress at the end is not counted.
    tr.fetch_stall_s = to_seconds(t.stall_total);
    tr.epochs_completed = static_cast<int>(t.epoch_time_s.size());
    tr.epoch_time_s = t.epoch_time_s;
    tr.gpu_busy_s = busy_ns_[kTrainingContext] * 1e-9;
    r.training = std::move(tr);
  }

  bool latency_met = true;
  for (std::size_t i = 0; i < streams_.size(); ++i) {
    Stream& s = streams_[i];
    StreamResult out;
    out.name = s.spec->name;
    out.workload = s.workload->name();
    out.batch_size = static_cast<int>(s.batch_size);
    out.arrived = s.arrived;
    out.completed = s.completed;
    out.queued = s.requests.size();
    out.dropped = s.dropped;
    out.batches = s.batches_done;
    out.throughput_per_s = static_cast<double>(s.completed) / duration_s;
    assert(out.arrived == out.completed + out.queued + out.dropped && "requests are conserved");
    double budget_ms = 0;
    out.latency = summarize_latencies(s.latencies, sc.budgets.latency_percentile, &budget_ms);
    const std::size_t backlog_end = s.requests.size();
    const double rate = s.arrivals.nominal_rate_per_s();
    const double growth_limit =
        std::max(static_cast<double>(kGrowthBatches * s.batch_size), kGrowthSeconds * rate);
    const bool grew = backlog_end > s.backlog_mid &&
                      static_cast<double>(backlog_end - s.backlog_mid) > growth_limit;
    // Under a steady rate a full batch that runs at least as long as it takes to fill can never
    // catch up, however slowly its backlog grows within one run (DESIGN.md section 3).
    const bool steady_rate = std::holds_alternative<FixedArrivals>(s.spec->arrivals) ||
                             std::holds_alternative<PoissonArrivals>(s.spec->arrivals);
    const bool saturated = steady_rate && rate > 0 &&
                           to_seconds(cost(static_cast<int>(i) + 1, s.batch_size).duration) >=
                               static_cast<double>(s.batch_size) / rate;
    if (s.overflow_at || grew || saturated) {
      out.stable = false;
      out.unstable_reason = instability_reason(static_cast<int>(i), backlog_end);
    }
    out.gpu_busy_s = busy_ns_[i + 1] * 1e-9;
    if (!out.stable || (s.completed == 0 && s.arrived > 0) ||
        (sc.budgets.latency_ms && budget_ms > *sc.budgets.latency_ms)) {
      latency_met = false;
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

  r.gpu_utilization = any_busy_ns_ / static_cast<double>(end_);
  if (sc.budgets.latency_ms) r.budgets.latency_met = latency_met;
  if (sc.budgets.power_w) {
    const double measured =
        sc.budgets.power_kind == PowerBudgetKind::average ? p.avg_w : p.max_window_w;
    r.budgets.power_met = measured <= *sc.budgets.power_w;
  }
  return r;
}

}  // namespace fulcrum::sim
