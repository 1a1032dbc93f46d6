#include "sim/runtime/dataloader_pipeline.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <limits>

#include "models/device/power_mode.hpp"
#include "models/error.hpp"
#include "models/perf/analytic_model.hpp"

namespace fulcrum::sim {

namespace {

Time ns_of_ms(double ms) { return static_cast<Time>(std::llround(ms * 1e6)); }

// A host thread's core share as the perf model gets it: to 1e-3 (a run's minibatches then share
// few distinct predictions), never 0.
double quantised_share(double share) {
  return std::clamp(std::round(share * 1e3) / 1e3, 1e-3, 1.0);
}

double ram_gb_of(const RunSetup& setup) {
  if (setup.scenario->device.ram_gb) return *setup.scenario->device.ram_gb;
  return setup.device->memory_gb;
}

std::vector<double> inference_parameters(const RunSetup& setup) {
  std::vector<double> out;
  for (const models::Workload* w : setup.inference_workloads) {
    if (w != nullptr) out.push_back(w->parameters());
  }
  return out;
}

models::PowerMode mode_for_costs(const RunSetup& setup, const models::DataloaderModel& m) {
  models::PowerMode mode = setup.mode;
  if (!(mode.cpu_khz > 0)) mode.cpu_khz = m.ref_cpu_khz;  // a mode without a CPU clock (tests)
  return mode;
}

}  // namespace

DataloaderPipeline::DataloaderPipeline(const RunSetup& setup, const models::PipelineData& data)
    : setup_(setup), data_(data), cache_(0, 0, 1) {
  const TrainingSpec& t = *setup.scenario->training;
  workers_ = t.dataloader.workers;
  in_flight_ = workers_ > 0 ? workers_ * t.dataloader.prefetch_factor : 1;
  cores_ = std::max(1, setup.mode.cores);
  // The OS keeps part of a core busy; what is left is shared (at least a tenth of a core, so that
  // one online core with an OS share of 1 still runs).
  capacity_ = std::max(0.1, static_cast<double>(cores_) - data.dataloader.os_cores);
  if (!(setup.training_dataset_samples >= 1)) {
    throw InputError(std::nullopt, "training.dataset",
                     "the dataloader needs a dataset with at least one sample");
  }
  samples_ = static_cast<std::uint64_t>(setup.training_dataset_samples);
  batch_size_ = static_cast<std::size_t>(std::max(1, t.batch_size));
  per_epoch_ = (samples_ + batch_size_ - 1) / batch_size_;
  bytes_per_sample_ = data.bytes_per_sample;
  if (!(bytes_per_sample_ > 0)) {
    throw InputError(std::nullopt, "training.dataset",
                     "the dataloader needs the dataset's size on storage, which is not known "
                     "for '" +
                         t.dataset + "'");
  }
  const models::SampleFormat& format = data.format;
  format_ = format.name;
  const models::PowerMode mode = mode_for_costs(setup, data.dataloader);
  cpu_mhz_ = mode.cpu_khz / 1e3;
  lost_mhz_ = data.dataloader.oversubscription_mhz;
  preprocess_ms_ = models::preprocess_ms_per_sample(data.dataloader, format, *setup.device, mode);
  batch_ms_ = models::worker_batch_ms(data.dataloader, *setup.device, mode);
  hit_copy_ms_ = bytes_per_sample_ / (data.dataloader.cache_copy_gb_s * 1e9) * 1e3;
  intake_ms_ = models::host_intake_ms(
      data.dataloader, setup.training_workload->input_bytes_per_sample(), *setup.device, mode);
  const double ram_gb = ram_gb_of(setup);
  if (!(ram_gb > 0)) {
    throw InputError(std::nullopt, "device.ram_gb",
                     "the device's RAM is not known: give device.ram_gb");
  }
  cache_estimate_ = models::cache_capacity(
      data.dataloader, ram_gb, setup.training_workload->parameters(), inference_parameters(setup));
  cache_ = models::PageCache(cache_estimate_.capacity_bytes, samples_, bytes_per_sample_);
  core_w_ = models::busy_core_power_w(data.dataloader, *setup.device, mode);
  worker_state_.resize(static_cast<std::size_t>(std::max(1, workers_)));
}

void DataloaderPipeline::attach(Simulator& sim, PowerSink& power, RunObserver* observer,
                                NotifyFn notify) {
  sim_ = &sim;
  power_ = &power;
  observer_ = observer;
  notify_ = std::move(notify);
  source_ = power.add_source("dataloader");
  rail_w_.assign(power.rail_count(), 0.0);
  if (!rail_w_.empty())
    cpu_rail_ = std::min(models::rail_map(*setup_.device).cpu, rail_w_.size() - 1);
}

std::size_t DataloaderPipeline::size_of(std::uint64_t minibatch) const {
  const std::uint64_t in_epoch = minibatch % per_epoch_;
  const std::uint64_t first = in_epoch * batch_size_;
  return static_cast<std::size_t>(std::min<std::uint64_t>(batch_size_, samples_ - first));
}

void DataloaderPipeline::start_epoch(std::uint64_t epoch) {
  epoch_ = epoch;
  order_ = models::epoch_order(setup_.scenario->seed, epoch, static_cast<std::uint32_t>(samples_));
  next_issue_ = epoch * per_epoch_;
  epoch_end_ = next_issue_ + per_epoch_;
  epochs_[epoch] = EpochData{};
  if (workers_ == 0) return;  // the main process fetches on demand
  for (int i = 0; i < in_flight_ && next_issue_ < epoch_end_; ++i) hand_out(next_issue_++);
}

void DataloaderPipeline::hand_out(std::uint64_t minibatch) {
  Batch& b = batches_[minibatch];
  b.index = minibatch;
  const int w = workers_ > 0 ? static_cast<int>((minibatch % per_epoch_) % workers_) : 0;
  worker_state_[static_cast<std::size_t>(w)].queue.push_back(minibatch);
  run_worker(w);
}

void DataloaderPipeline::run_worker(int w) {
  Worker& worker = worker_state_[static_cast<std::size_t>(w)];
  if (worker.busy || worker.queue.empty()) return;
  const std::uint64_t k = worker.queue.front();
  worker.queue.pop_front();
  worker.busy = true;
  Batch& b = batches_.at(k);
  const Time now = sim_->now();
  b.fetch_start = now;
  // Look its files up in the page cache, in the epoch's order; misses are read and cached.
  const std::uint64_t first = (k % per_epoch_) * batch_size_;
  const std::size_t n = size_of(k);
  std::uint64_t hits = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (cache_.access(order_[first + i])) ++hits;
  }
  const std::uint64_t misses = n - hits;
  b.data.cache_hit_samples = hits;
  b.data.storage_samples = misses;
  EpochData& e = epochs_[epoch_of(k)];
  for (EpochData* d : {&e, &total_}) {
    d->cache_hit_samples += hits;
    d->storage_samples += misses;
    d->bytes_from_cache += static_cast<double>(hits) * bytes_per_sample_;
    d->bytes_from_storage += static_cast<double>(misses) * bytes_per_sample_;
  }
  Time files_in = now;
  if (misses > 0) {
    const Time read = static_cast<Time>(std::llround(
        data_.storage.read_time_s(static_cast<double>(misses) * bytes_per_sample_, misses) * 1e9));
    const Time start = std::max(now, storage_free_);
    storage_free_ = start + read;
    storage_busy_ += read;
    files_in = storage_free_;
    if (observer_ != nullptr) {
      observer_->on_pipeline_span(PipelineSpan{PipelineSpan::Track::storage, workers_ > 0 ? w : -1,
                                               "read", k, start, storage_free_, misses});
    }
  }
  const Time fetch_end = files_in + ns_of_ms(static_cast<double>(hits) * hit_copy_ms_);
  b.fetch_end = fetch_end;
  sim_->schedule_at(fetch_end, [this, w, k] { begin_preprocess(w, k); });
}

void DataloaderPipeline::begin_preprocess(int w, std::uint64_t minibatch) {
  Batch& b = batches_.at(minibatch);
  b.data.fetch = b.fetch_end - b.fetch_start;
  b.preprocess_start = sim_->now();
  const double work_ns =
      std::round((static_cast<double>(size_of(minibatch)) * preprocess_ms_ + batch_ms_) * 1e6);
  if (observer_ != nullptr) {
    observer_->on_pipeline_span(PipelineSpan{PipelineSpan::Track::worker, workers_ > 0 ? w : -1,
                                             "fetch", minibatch, b.fetch_start, b.fetch_end,
                                             size_of(minibatch)});
  }
  if (work_ns <= 0) {
    batch_done(w, minibatch);
    return;
  }
  cpu_advance();
  jobs_.push_back(CpuJob{w, minibatch, work_ns});
  worker_core_ns_ += work_ns;
  cpu_reschedule();
}

void DataloaderPipeline::batch_done(int w, std::uint64_t minibatch) {
  Batch& b = batches_.at(minibatch);
  const Time now = sim_->now();
  b.data.preprocess = now - b.preprocess_start;
  b.ready = true;
  b.ready_at = now;
  if (observer_ != nullptr) {
    observer_->on_pipeline_span(PipelineSpan{PipelineSpan::Track::worker, workers_ > 0 ? w : -1,
                                             "preprocess", minibatch, b.preprocess_start, now,
                                             size_of(minibatch)});
  }
  worker_state_[static_cast<std::size_t>(w)].busy = false;
  if (waiting_for_ && *waiting_for_ == minibatch) {
    waiting_for_.reset();
    const Time wait = begin_intake(minibatch);
    if (wait > 0) {
      sim_->schedule_after(wait, [this] { notify_(); });
    } else {
      notify_();
    }
  }
  run_worker(w);
}

// ---- sharing of the online cores, host threads first ----

std::size_t DataloaderPipeline::host_threads() const {
  // With workers = 0 the training process's own thread pre-processes: a host thread too.
  return (launch_active_ || intake_active_ ? 1 : 0) + static_cast<std::size_t>(inference_threads_) +
         (workers_ == 0 ? jobs_.size() : 0);
}

// Host threads first: they share the cores equally among themselves (at most one each); the
// workers share what they leave (at most one each, never 0: kWorkerFloor).
double DataloaderPipeline::host_rate_with(std::size_t extra) const {
  const std::size_t n = host_threads() + extra;
  if (n == 0) return 1.0;
  return std::min(1.0, capacity_ / static_cast<double>(n));
}

double DataloaderPipeline::host_rate() const { return host_rate_with(0); }

double DataloaderPipeline::worker_core_share() const {
  if (jobs_.empty()) return 1.0;
  if (workers_ == 0) return host_rate();  // the training process pre-processes itself
  const double left = capacity_ - static_cast<double>(host_threads()) * host_rate();
  return std::clamp(left / static_cast<double>(jobs_.size()), kWorkerFloor, 1.0);
}

// More runnable threads than online cores: the workers pre-process at the clock oversubscribed
// cores keep.
double DataloaderPipeline::clock_share() const {
  if (workers_ == 0 || !(lost_mhz_ > 0) || !(cpu_mhz_ > 0)) return 1.0;
  const double threads = static_cast<double>(host_threads() + jobs_.size());
  return models::oversubscribed_clock(cpu_mhz_, lost_mhz_, threads, static_cast<double>(cores_)) /
         cpu_mhz_;
}

double DataloaderPipeline::worker_rate() const { return worker_core_share() * clock_share(); }

void DataloaderPipeline::cpu_advance() {
  const Time now = sim_->now();
  const double done = static_cast<double>(now - cpu_last_) * worker_rate();
  if (done > 0) {
    for (CpuJob& j : jobs_) j.remaining_ns -= done;
  }
  if (launch_active_) launch_rate_ns_ += static_cast<double>(now - cpu_last_) * host_rate();
  // (intake_active_ needs no integral: its wait was fixed when it began.)
  cpu_last_ = now;
}

void DataloaderPipeline::cpu_reschedule() {
  if (cpu_event_) {
    sim_->cancel(*cpu_event_);
    cpu_event_.reset();
  }
  set_worker_power();
  if (jobs_.empty()) return;
  double least = std::numeric_limits<double>::infinity();
  for (const CpuJob& j : jobs_) least = std::min(least, j.remaining_ns);
  const Time delay = std::max<Time>(0, static_cast<Time>(std::ceil(least / worker_rate() - 1e-6)));
  cpu_event_ = sim_->schedule_after(delay, [this] {
    cpu_event_.reset();
    cpu_complete();
  });
}

void DataloaderPipeline::cpu_complete() {
  cpu_advance();
  std::vector<CpuJob> finished;
  for (auto it = jobs_.begin(); it != jobs_.end();) {
    if (it->remaining_ns <= 1e-3) {
      finished.push_back(*it);
      it = jobs_.erase(it);
    } else {
      ++it;
    }
  }
  cpu_reschedule();
  for (const CpuJob& j : finished) batch_done(j.worker, j.batch);
}

void DataloaderPipeline::set_worker_power() {
  if (power_ == nullptr || rail_w_.empty()) return;
  const double busy_cores = static_cast<double>(jobs_.size()) * worker_core_share();
  const double w = busy_cores * core_w_;
  if (rail_w_[cpu_rail_] == w) return;
  rail_w_[cpu_rail_] = w;
  power_->set_power(source_, rail_w_);
}

// ---- what the training job sees ----

std::optional<Time> DataloaderPipeline::ready_at(std::uint64_t minibatch, Time /*wanted*/) {
  assert(sim_ != nullptr && "attach() comes before the run");
  const std::uint64_t epoch = epoch_of(minibatch);
  if (!epoch_ || *epoch_ != epoch) start_epoch(epoch);
  if (workers_ == 0) hand_out(minibatch);  // the main process works on it now
  const auto it = batches_.find(minibatch);
  if (it != batches_.end() && it->second.ready) {
    const Time now = sim_->now();
    const Time wait = begin_intake(minibatch);
    return wait > 0 ? now + wait : it->second.ready_at;
  }
  waiting_for_ = minibatch;
  return std::nullopt;
}

Time DataloaderPipeline::begin_intake(std::uint64_t minibatch) {
  const double intake_ns = static_cast<double>(size_of(minibatch)) * intake_ms_ * 1e6;
  if (!(intake_ns > 0) || launch_active_ || intake_active_) return 0;
  // The host thread joins the host threads at the share it gets now (the workers give way); the
  // perf model's minibatch already holds the intake at a full core, so only the rest is waited.
  const double share = host_rate_with(1);
  const Time wait = static_cast<Time>(std::llround(intake_ns * (1.0 / share - 1.0)));
  if (wait <= 0) return 0;
  cpu_advance();
  intake_active_ = true;
  intake_wait_ += wait;
  cpu_reschedule();
  sim_->schedule_after(wait, [this] {
    cpu_advance();
    intake_active_ = false;
    cpu_reschedule();
  });
  return wait;
}

void DataloaderPipeline::on_compute_start(std::uint64_t /*minibatch*/, Time /*at*/) {
  // The main process took a batch: it hands the next index of the epoch to the workers.
  if (workers_ > 0 && next_issue_ < epoch_end_) hand_out(next_issue_++);
  cpu_advance();
  launch_active_ = true;
  launch_rate_ns_ = 0;
  launch_since_ = sim_->now();
  // The mean share over the previous minibatch (the workers' load then is the best estimate of
  // theirs now); the first minibatch of the run takes the share at its start.
  launch_share_ = quantised_share(last_launch_share_.value_or(host_rate()));
  launch_share_sum_ += launch_share_;
  ++launch_share_count_;
  cpu_reschedule();
}

void DataloaderPipeline::on_compute_end(std::uint64_t /*minibatch*/, Time /*at*/) {
  cpu_advance();
  const Time took = sim_->now() - launch_since_;
  if (took > 0) last_launch_share_ = launch_rate_ns_ / static_cast<double>(took);
  launch_active_ = false;
  cpu_reschedule();
}

void DataloaderPipeline::on_inference_start(Time /*at*/) {
  cpu_advance();
  ++inference_threads_;
  cpu_reschedule();
}

void DataloaderPipeline::on_inference_end(Time /*at*/) {
  cpu_advance();
  assert(inference_threads_ > 0 && "an inference item ends only after it started");
  --inference_threads_;
  cpu_reschedule();
}

double DataloaderPipeline::training_host_share() const { return launch_share_; }

double DataloaderPipeline::inference_host_share() const { return quantised_share(host_rate()); }

MinibatchData DataloaderPipeline::minibatch_data(std::uint64_t minibatch) {
  const auto it = batches_.find(minibatch);
  if (it == batches_.end()) return {};
  const MinibatchData d = it->second.data;
  batches_.erase(it);
  return d;
}

std::optional<EpochData> DataloaderPipeline::epoch_data(std::uint64_t epoch) {
  const auto it = epochs_.find(epoch);
  if (it == epochs_.end()) return EpochData{};
  const EpochData d = it->second;
  epochs_.erase(it);
  return d;
}

std::optional<DataloaderResult> DataloaderPipeline::result(Time /*end*/) const {
  const TrainingSpec& t = *setup_.scenario->training;
  DataloaderResult r;
  r.workers = workers_;
  r.prefetch_factor = t.dataloader.prefetch_factor;
  r.storage = data_.storage.name;
  r.dataset_scale = t.dataloader.dataset_scale;
  r.dataset_samples = samples_;
  r.dataset_bytes = static_cast<double>(samples_) * bytes_per_sample_;
  r.sample_format = format_;
  r.preprocess_ms_per_sample = preprocess_ms_;
  r.cores = cores_;
  r.ram_gb = cache_estimate_.ram_gb;
  r.os_gb = cache_estimate_.os_gb;
  r.processes_gb = cache_estimate_.processes_gb;
  r.gpu_gb = cache_estimate_.gpu_gb;
  r.page_cache_capacity_bytes = cache_estimate_.capacity_bytes;
  r.cache_hit_samples = total_.cache_hit_samples;
  r.storage_samples = total_.storage_samples;
  r.bytes_from_cache = total_.bytes_from_cache;
  r.bytes_from_storage = total_.bytes_from_storage;
  r.storage_busy_s = to_seconds(storage_busy_);
  r.worker_core_s = worker_core_ns_ * 1e-9;
  r.os_cores = data_.dataloader.os_cores;
  if (launch_share_count_ > 0) {
    r.training_host_share = launch_share_sum_ / static_cast<double>(launch_share_count_);
  }
  return r;
}

}  // namespace fulcrum::sim
