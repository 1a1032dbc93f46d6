#include "sim/report/trace_json.hpp"

#include <algorithm>
#include <cassert>
#include <cstring>
#include <string>

#include "sim/report/json_writer.hpp"
#include "sim/report/number_format.hpp"

namespace fulcrum::sim {

namespace {

template <std::size_t N>
char* put_literal(char* p, const char (&s)[N]) {
  std::memcpy(p, s, N - 1);
  return p + (N - 1);
}

char* put_text(char* p, std::string_view s) {
  std::memcpy(p, s.data(), s.size());
  return p + s.size();
}

char* put_us(char* p, Time t) { return put_fixed_decimal(p, t, 3); }

// The opening of an "X" event up to its category: `,\n{"ph":"X","pid":P,"tid":T`.
char* put_x_open(char* p, std::int64_t pid, std::int64_t tid) {
  p = put_literal(p, ",\n{\"ph\":\"X\",\"pid\":");
  p = put_integer(p, pid);
  p = put_literal(p, ",\"tid\":");
  return put_integer(p, tid);
}

// An "X" event's name's number, its span and the opening of its args:
// `<number>","ts":S,"dur":D,"args":{`.
char* put_x_span(char* p, std::uint64_t number, Time start, Time end) {
  p = put_integer(p, number);
  p = put_literal(p, "\",\"ts\":");
  p = put_us(p, start);
  p = put_literal(p, ",\"dur\":");
  p = put_us(p, end - start);
  return put_literal(p, ",\"args\":{");
}

// Room for an event's fixed text and numbers, beyond any precomputed prefix.
constexpr std::size_t kEventBytes = 256 + 8 * kMaxNumberChars;

// Two counter changes in the same interval of the counters' resolution: only the later is written.
bool same_interval(Time a, Time b) {
  return a / TraceJson::kCounterResolution == b / TraceJson::kCounterResolution;
}

}  // namespace

TraceJson::TraceJson(std::filesystem::path final_path, std::vector<std::string> rails,
                     std::vector<std::string> stream_names, bool has_training)
    : FileObserver(std::move(final_path)),
      rails_(std::move(rails)),
      stream_names_(std::move(stream_names)),
      streams_(stream_names_.size()) {
  file_.write("{\"displayTimeUnit\":\"ms\",\"traceEvents\":[\n");
  metadata(kGpuPid, std::nullopt, "process_name", "GPU", 0);
  if (has_training) metadata(kGpuPid, 0, "thread_name", "training", 0);
  for (std::size_t i = 0; i < stream_names_.size(); ++i) {
    const int context = static_cast<int>(i) + 1;
    metadata(kGpuPid, context, "thread_name", "inference " + stream_names_[i], context);
  }
  metadata(kPowerPid, std::nullopt, "process_name", "Power", 1);
  for (std::size_t i = 0; i < stream_names_.size(); ++i) {
    const int pid = kFirstStreamPid + static_cast<int>(i);
    metadata(pid, std::nullopt, "process_name", "Stream " + stream_names_[i], pid);
  }
  // Counter events differ only in their numbers: build their leading text once.
  auto counter_prefix = [](int pid, const std::string& name) {
    std::string s = ",\n{\"ph\":\"C\",\"pid\":";
    append_integer(s, static_cast<std::int64_t>(pid));
    s += ",\"name\":";
    append_json_string(s, name);
    s += ",\"ts\":";
    return s;
  };
  // One counter event per change with one argument per rail: Perfetto shows a track per rail,
  // chrome://tracing stacks them (the stack's height is the module power).
  power_prefix_ = counter_prefix(kPowerPid, "power_w");
  for (const auto& rail : rails_) {
    std::string key;
    append_json_string(key, rail);
    rail_keys_.push_back(key + ":");
  }
  for (std::size_t i = 0; i < streams_.size(); ++i) {
    streams_[i].queue_prefix =
        counter_prefix(kFirstStreamPid + static_cast<int>(i), "queued_requests");
  }
}

void TraceJson::metadata(int pid, std::optional<int> tid, const char* what, std::string_view name,
                         int sort_index) {
  std::string b;
  if (!first_event_) b += ",\n";
  first_event_ = false;
  b += "{\"ph\":\"M\",\"pid\":";
  append_integer(b, static_cast<std::int64_t>(pid));
  if (tid) {
    b += ",\"tid\":";
    append_integer(b, static_cast<std::int64_t>(*tid));
  }
  b += ",\"name\":\"";
  b += what;
  b += "\",\"args\":{\"name\":";
  append_json_string(b, name);
  b += "}},\n";
  // Keep tracks in a fixed order (training, streams by index, power) rather than by name.
  b += "{\"ph\":\"M\",\"pid\":";
  append_integer(b, static_cast<std::int64_t>(pid));
  if (tid) {
    b += ",\"tid\":";
    append_integer(b, static_cast<std::int64_t>(*tid));
  }
  b += tid ? ",\"name\":\"thread_sort_index\"" : ",\"name\":\"process_sort_index\"";
  b += ",\"args\":{\"sort_index\":";
  append_integer(b, static_cast<std::int64_t>(sort_index));
  b += "}}";
  file_.write(b);
}

void TraceJson::on_pipeline_span(const PipelineSpan& span) {
  assert(!first_event_);
  const int pid = kFirstStreamPid + static_cast<int>(stream_names_.size());
  const bool storage = span.track == PipelineSpan::Track::storage;
  const int tid = storage ? kStorageTid : span.worker + 1;
  if (pipeline_tids_.empty()) metadata(pid, std::nullopt, "process_name", "Data pipeline", pid);
  if (std::find(pipeline_tids_.begin(), pipeline_tids_.end(), tid) == pipeline_tids_.end()) {
    pipeline_tids_.push_back(tid);
    const std::string name = storage    ? std::string("storage")
                             : tid == 0 ? std::string("main process")
                                        : "worker " + std::to_string(span.worker);
    metadata(pid, tid, "thread_name", name, tid);
  }
  char* p = file_.reserve(kEventBytes);
  p = put_x_open(p, pid, tid);
  p = put_literal(p, ",\"cat\":\"pipeline\",\"name\":\"");
  p = put_text(p, span.what);
  p = put_literal(p, " ");
  p = put_x_span(p, span.minibatch, span.start, span.end);
  p = put_literal(p, "\"minibatch\":");
  p = put_integer(p, span.minibatch);
  p = put_literal(p, ",\"samples\":");
  p = put_integer(p, span.samples);
  p = put_literal(p, "}}");
  file_.commit(p);
}

void TraceJson::on_item(const ItemRecord& item) {
  assert(!first_event_);  // the constructor's metadata came first
  const bool training = item.phase == models::Phase::training;
  const double energy_j = item.rail_energy_j.sum();
  char* p = file_.reserve(kEventBytes);
  p = put_x_open(p, kGpuPid, item.context);
  p = training ? put_literal(p, ",\"cat\":\"training\",\"name\":\"train ")
               : put_literal(p, ",\"cat\":\"inference\",\"name\":\"batch ");
  p = put_x_span(p, item.item_id, item.start, item.end);
  p = put_literal(p, "\"batch_size\":");
  p = put_integer(p, static_cast<std::int64_t>(item.batch_size));
  p = put_literal(p, ",\"standalone_ms\":");
  p = put_fixed_decimal(p, item.standalone, 6);
  if (training) {
    p = put_literal(p, ",\"fetch_stall_ms\":");
    p = put_fixed_decimal(p, item.fetch_stall, 6);
  }
  p = put_literal(p, ",\"energy_j\":");
  char* number = p;
  p = put_double(p, energy_j);
  if (p == number) p = put_literal(p, "null");
  p = put_literal(p, ",\"provenance\":\"");
  p = put_text(p, models::to_string(item.provenance));
  p = put_literal(p, "\"}}");
  file_.commit(p);
}

void TraceJson::on_request(const RequestRecord& r) {
  assert(r.stream >= 0 && static_cast<std::size_t>(r.stream) < streams_.size());
  StreamState& s = streams_[static_cast<std::size_t>(r.stream)];
  if (s.open && s.open->batch_id != r.batch_id) {
    emit_batch(r.stream, *s.open);
    s.open.reset();
  }
  if (!s.open) {
    s.open = OpenBatch{r.batch_id, r.dispatch, r.start, r.completion, r.arrival, 0};
  }
  OpenBatch& b = *s.open;
  b.first_arrival = std::min(b.first_arrival, r.arrival);
  ++b.requests;
}

void TraceJson::emit_batch(int stream, const OpenBatch& batch) {
  StreamState& s = streams_[static_cast<std::size_t>(stream)];
  // Slices on one track must nest; a batch dispatched before the previous one of its stream
  // completed goes to the first lane that is free by then.
  std::size_t lane = 0;
  while (lane < s.lane_end.size() && s.lane_end[lane] > batch.dispatch) ++lane;
  const bool new_lane = lane == s.lane_end.size();
  if (new_lane) s.lane_end.push_back(batch.completion);
  s.lane_end[lane] = std::max(s.lane_end[lane], batch.completion);

  const int pid = kFirstStreamPid + stream;
  if (new_lane) {
    std::string lane_name = "batches";
    if (lane > 0) lane_name += " (lane " + std::to_string(lane + 1) + ")";
    metadata(pid, static_cast<int>(lane), "thread_name", lane_name, static_cast<int>(lane));
  }
  char* p = file_.reserve(kEventBytes);
  p = put_x_open(p, pid, static_cast<std::int64_t>(lane));
  p = put_literal(p, ",\"cat\":\"batch\",\"name\":\"batch ");
  p = put_x_span(p, batch.batch_id, batch.dispatch, batch.completion);
  p = put_literal(p, "\"requests\":");
  p = put_integer(p, batch.requests);
  p = put_literal(p, ",\"wait_ms\":");
  p = put_fixed_decimal(p, batch.start - batch.dispatch, 6);
  p = put_literal(p, ",\"max_latency_ms\":");
  p = put_fixed_decimal(p, batch.completion - batch.first_arrival, 6);
  p = put_literal(p, "}}");
  file_.commit(p);
}

void TraceJson::on_power(Time at, const std::vector<double>& rail_power_w) {
  assert(rail_power_w.size() == rails_.size());
  // Of several changes within one millisecond only the last is written (at one instant only the
  // last is real power; the others would be zero-length blips in the viewer).
  if (power_pending_ && !same_interval(power_at_, at)) emit_power();
  power_pending_ = true;
  power_at_ = at;
  power_w_ = rail_power_w;
}

void TraceJson::emit_power() {
  char* p = file_.reserve(power_prefix_.size() + kEventBytes + rails_.size() * kMaxNumberChars);
  p = put_text(p, power_prefix_);
  p = put_us(p, power_at_);
  p = put_literal(p, ",\"args\":{");
  for (std::size_t r = 0; r < rails_.size(); ++r) {
    if (r > 0) *p++ = ',';
    p = put_text(p, rail_keys_[r]);
    char* number = p;
    p = put_double(p, power_w_[r]);
    if (p == number) p = put_literal(p, "null");
  }
  p = put_literal(p, "}}");
  file_.commit(p);
  power_pending_ = false;
}

void TraceJson::on_queue_length(int stream, Time at, std::size_t queued) {
  assert(stream >= 0 && static_cast<std::size_t>(stream) < streams_.size());
  StreamState& s = streams_[static_cast<std::size_t>(stream)];
  if (s.pending_at && !same_interval(*s.pending_at, at)) emit_queue(s);
  s.pending_at = at;
  s.pending_queued = queued;
}

void TraceJson::emit_queue(StreamState& s) {
  assert(s.pending_at);
  const Time at = *s.pending_at;
  s.pending_at.reset();
  if (s.last_queued == s.pending_queued) return;  // unchanged: the counter already shows it
  s.last_queued = s.pending_queued;
  char* p = file_.reserve(s.queue_prefix.size() + kEventBytes);
  p = put_text(p, s.queue_prefix);
  p = put_us(p, at);
  p = put_literal(p, ",\"args\":{\"requests\":");
  p = put_integer(p, static_cast<std::uint64_t>(s.pending_queued));
  p = put_literal(p, "}}");
  file_.commit(p);
}

void TraceJson::on_end(Time /*end*/) {
  if (power_pending_) emit_power();
  for (StreamState& s : streams_) {
    if (s.pending_at) emit_queue(s);
  }
  for (std::size_t i = 0; i < streams_.size(); ++i) {
    if (streams_[i].open) {
      emit_batch(static_cast<int>(i), *streams_[i].open);
      streams_[i].open.reset();
    }
  }
}

void TraceJson::write_tail(Time end) {
  on_end(end);
  file_.write("\n]}\n");
}

}  // namespace fulcrum::sim
