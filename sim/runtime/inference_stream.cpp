#include "sim/runtime/inference_stream.hpp"

#include <algorithm>
#include <boost/math/special_functions/gamma.hpp>
#include <cassert>
#include <cmath>
#include <limits>
#include <utility>

#include "models/error.hpp"
#include "sim/scenario/scenario_limits.hpp"

namespace fulcrum::sim {

namespace {

// The backlog cap (docs/METRICS.md, Stability rule 1): 30 s of arrivals, at least 10,000
// requests, at most 2^22 (4,194,304: 32 MiB of arrival times plus 96 MiB of batches of 1), and
// always room for a full batch on the GPU while the next one fills.
constexpr std::size_t kMinQueueCap = 10'000;                // requests
constexpr double kQueueCapSeconds = 30.0;                   // of arrivals at the nominal rate
constexpr std::size_t kMaxQueueCap = std::size_t{1} << 22;  // requests
constexpr std::size_t kCapBatches = 2;                      // full batches

}  // namespace

InferenceStream::InferenceStream(int index, const InferenceStreamSpec& spec,
                                 const models::Workload& workload, const models::RngStreams& rng,
                                 Time end, Simulator& sim, RunObserver* observer, ReadyFn on_ready)
    : index_(index),
      spec_(spec),
      workload_(workload),
      sim_(sim),
      observer_(observer),
      on_ready_(std::move(on_ready)),
      batch_size_(spec.batch_size >= 1 ? static_cast<std::size_t>(spec.batch_size) : 0),
      arrivals_(spec.arrivals, rng, spec.name, end) {
  const std::string key = "inference[" + std::to_string(index) + "]";
  if (spec.batch_size < 1) throw InputError(std::nullopt, key + ".batch_size", "must be >= 1");
  if (spec.max_wait_ms) {
    // Beyond the longest run, an arrival plus the wait could overflow int64 nanoseconds.
    if (!(*spec.max_wait_ms >= 0 && *spec.max_wait_ms <= limits::kMaxSpanMs)) {
      throw InputError(std::nullopt, key + ".max_wait_ms", "must be in 0..1e10 ms");
    }
    max_wait_ = from_milliseconds(*spec.max_wait_ms);
  }
  const double rate = arrivals_.nominal_rate_per_s();
  const double seconds_of_arrivals =
      std::min(std::ceil(kQueueCapSeconds * rate), static_cast<double>(kMaxQueueCap));
  cap_ = std::max(
      {kMinQueueCap, static_cast<std::size_t>(seconds_of_arrivals), kCapBatches * batch_size_});
  // Room for the latencies the run will likely complete (the recorder caps it at its exact limit).
  const double expected = std::min(rate * to_seconds(end) * 1.01 + 64.0,
                                   static_cast<double>(LatencyRecorder::kExactLimit));
  latencies_ = LatencyRecorder(static_cast<std::size_t>(expected));
}

void InferenceStream::start_arrivals() { schedule_next_arrival(); }

void InferenceStream::schedule_next_arrival() {
  Time t = 0;
  if (arrivals_.next_into(t)) {
    assert(t >= sim_.now());
    next_arrival_ = t;
    sim_.schedule_at(t, [this] { on_arrival(); });
  } else {
    next_arrival_.reset();
  }
}

void InferenceStream::on_arrival() {
  schedule_next_arrival();  // one event per arrival, each scheduling the next
  const Time now = sim_.now();
  ++arrived_;
  if (requests_.size() >= cap_) {
    // Bounded memory: an overloaded stream stops storing arrivals while its backlog is at the cap.
    if (!overflow_at_) overflow_at_ = now;
    ++dropped_;
    full_at_.reset();  // the batch now fills one arrival later
    return;
  }
  requests_.push_back(now);
  ++waiting_;
  if (waiting_ >= batch_size_) {
    dispatch();
    return;
  }
  if (waiting_ == 1 && max_wait_) {
    timer_ = sim_.schedule_at(now + *max_wait_, [this] { on_timer(); });
  }
  if (observer_ != nullptr) observer_->on_queue_length(index_, now, waiting_);
}

void InferenceStream::on_timer() {
  timer_ = EventId{};
  if (waiting_ > 0) dispatch();
}

void InferenceStream::dispatch() {
  assert(waiting_ > 0 && waiting_ <= batch_size_);
  batches_.push_back(Batch{next_batch_id_++, waiting_, sim_.now()});
  waiting_ = 0;
  full_at_.reset();
  if (max_wait_) {
    sim_.cancel(timer_);
    timer_ = EventId{};
  }
  if (observer_ != nullptr) observer_->on_queue_length(index_, sim_.now(), 0);
  on_ready_();
}

Time InferenceStream::next_ready_bound(Time now, double risk) const {
  constexpr Time kNever = std::numeric_limits<Time>::max();
  if (!batches_.empty()) return now;
  assert(waiting_ < batch_size_);
  const std::size_t missing = batch_size_ - waiting_;  // requests until the batch is full
  // The max_wait_ms timer of a batch begun runs from its oldest request, known.
  const std::optional<Time> timer =
      max_wait_ && waiting_ > 0
          ? std::optional<Time>(requests_[requests_.size() - waiting_] + *max_wait_)
          : std::nullopt;
  Time bound = kNever;
  if (arrivals_.is_deterministic()) {
    if (!full_at_) {
      // The arrival that fills the batch: the scheduled one, or the (missing - 1)-th after it.
      Time t = 0;
      full_at_ = next_arrival_ && (missing == 1 || arrivals_.peek(missing - 1, t))
                     ? std::optional<Time>(missing == 1 ? *next_arrival_ : t)
                     : std::nullopt;
    }
    if (*full_at_) bound = **full_at_;
    // A batch not begun starts its timer at the next arrival.
    if (max_wait_ && waiting_ == 0 && next_arrival_) {
      bound = std::min(bound, *next_arrival_ + *max_wait_);
    }
  } else {
    const auto after = [&](double seconds) {
      // now + seconds, saturating: a quantile can lie far past the end of any run.
      const double ns = std::ceil(seconds * 1e9);
      return ns < static_cast<double>(kNever - now) ? now + static_cast<Time>(ns) : kNever;
    };
    bound = after(poisson_quantile_s(missing, risk));
    // A batch not begun starts its timer at the next arrival, an exponential time away.
    if (max_wait_ && waiting_ == 0) {
      bound = std::min(bound, after(poisson_quantile_s(1, risk) + to_seconds(*max_wait_)));
    }
  }
  if (timer) bound = std::min(bound, *timer);
  return std::max(bound, now);
}

double InferenceStream::poisson_quantile_s(std::size_t missing, double risk) const {
  assert(missing >= 1 && missing <= batch_size_);
  if (quantile_s_.empty() || quantile_risk_ != risk) {
    quantile_s_.assign(batch_size_ + 1, -1.0);
    quantile_risk_ = risk;
  }
  double& q = quantile_s_[missing];
  if (q < 0) {
    // The time to `missing` arrivals of a Poisson process at rate r is Gamma(missing, 1/r).
    q = boost::math::gamma_p_inv(static_cast<double>(missing), risk) /
        arrivals_.nominal_rate_per_s();
  }
  return q;
}

void InferenceStream::start(Time now, StartedItem& started) {
  assert(has_ready_work());
  running_ = true;
  start_ = now;
  const Batch& batch = batches_.front();
  started.item.workload = &workload_;
  started.item.phase = models::Phase::inference;
  started.item.batch_size = static_cast<int>(batch.size);
  started.id = batch.id;
  started.fetch_stall = 0;
}

void InferenceStream::finish(Time now, Time standalone) {
  assert(running_ && !batches_.empty());
  const Batch batch = batches_.front();
  if (observer_ == nullptr) {
    // The common benchmark and sweep case: only latencies to record, so read the batch's requests
    // in place and drop them in one step instead of testing the observer per request.
    latencies_.add_n(batch.size, [&](std::size_t j) {
      assert(now - requests_[j] >= now - start_ && "latency covers at least the execution time");
      return now - requests_[j];
    });
    requests_.pop_front(batch.size);
  } else {
    for (std::size_t j = 0; j < batch.size; ++j) {
      const Time arrival = requests_.front();
      assert(now - arrival >= now - start_ && "latency covers at least the execution time");
      latencies_.add(now - arrival);
      observer_->on_request(
          RequestRecord{index_, completed_ + j, batch.id, arrival, batch.dispatch, start_, now});
      requests_.pop_front();
    }
  }
  completed_ += batch.size;
  ++batches_done_;
  if (batch.size == batch_size_) {
    full_batch_time_total_ += standalone;
    ++full_batches_;
  }
  batches_.pop_front();
  running_ = false;
  assert(arrived_ == completed_ + requests_.size() + dropped_ && "requests are conserved");
}

}  // namespace fulcrum::sim
