#include "sim/report/trace_json.hpp"

#include <algorithm>
#include <cassert>
#include <string>

#include "sim/report/json_writer.hpp"

namespace fulcrum::sim {

namespace {

void append_us(std::string& b, Time t) { append_fixed_decimal(b, t, 3); }

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
}

void TraceJson::begin_event() {
  std::string& b = file_.buffer();
  if (!first_event_) b += ",\n";
  first_event_ = false;
}

void TraceJson::metadata(int pid, std::optional<int> tid, const char* what, std::string_view name,
                         int sort_index) {
  begin_event();
  std::string& b = file_.buffer();
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
  b += "}}";
  // Keep tracks in a fixed order (training, streams by index, power) rather than by name.
  begin_event();
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
}

void TraceJson::on_item(const ItemRecord& item) {
  begin_event();
  std::string& b = file_.buffer();
  const bool training = item.phase == models::Phase::training;
  b += "{\"ph\":\"X\",\"pid\":";
  append_integer(b, static_cast<std::int64_t>(kGpuPid));
  b += ",\"tid\":";
  append_integer(b, static_cast<std::int64_t>(item.context));
  b += training ? ",\"cat\":\"training\",\"name\":\"train " : ",\"cat\":\"inference\",\"name\":\"batch ";
  append_integer(b, item.item_id);
  b += "\",\"ts\":";
  append_us(b, item.start);
  b += ",\"dur\":";
  append_us(b, item.end - item.start);
  b += ",\"args\":{\"batch_size\":";
  append_integer(b, static_cast<std::int64_t>(item.batch_size));
  b += ",\"standalone_ms\":";
  append_fixed_decimal(b, item.standalone, 6);
  if (training) {
    b += ",\"fetch_stall_ms\":";
    append_fixed_decimal(b, item.fetch_stall, 6);
  }
  double energy_j = 0;
  for (double e : item.rail_energy_j) energy_j += e;
  b += ",\"energy_j\":";
  append_json_number(b, energy_j);
  b += "}}";
  file_.maybe_flush();
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
  if (r.arrival < b.first_arrival) b.first_arrival = r.arrival;
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
  begin_event();
  std::string& b = file_.buffer();
  b += "{\"ph\":\"X\",\"pid\":";
  append_integer(b, static_cast<std::int64_t>(pid));
  b += ",\"tid\":";
  append_integer(b, static_cast<std::int64_t>(lane));
  b += ",\"cat\":\"batch\",\"name\":\"batch ";
  append_integer(b, batch.batch_id);
  b += "\",\"ts\":";
  append_us(b, batch.dispatch);
  b += ",\"dur\":";
  append_us(b, batch.completion - batch.dispatch);
  b += ",\"args\":{\"requests\":";
  append_integer(b, batch.requests);
  b += ",\"wait_ms\":";
  append_fixed_decimal(b, batch.start - batch.dispatch, 6);
  b += ",\"max_latency_ms\":";
  append_fixed_decimal(b, batch.completion - batch.first_arrival, 6);
  b += "}}";
  file_.maybe_flush();
}

void TraceJson::on_power(Time at, const std::vector<double>& rail_power_w) {
  assert(rail_power_w.size() == rails_.size());
  std::string& b = file_.buffer();
  double module_w = 0;
  for (std::size_t r = 0; r <= rails_.size(); ++r) {
    const bool is_module = r == rails_.size();
    const double w = is_module ? module_w : rail_power_w[r];
    if (!is_module) module_w += w;
    begin_event();
    b += "{\"ph\":\"C\",\"pid\":";
    append_integer(b, static_cast<std::int64_t>(kPowerPid));
    b += ",\"name\":";
    append_json_string(b, is_module ? std::string("module_w") : rails_[r] + "_w");
    b += ",\"ts\":";
    append_us(b, at);
    b += ",\"args\":{\"w\":";
    append_json_number(b, w);
    b += "}}";
  }
  file_.maybe_flush();
}

void TraceJson::on_queue_length(int stream, Time at, std::size_t queued) {
  assert(stream >= 0 && static_cast<std::size_t>(stream) < streams_.size());
  StreamState& s = streams_[static_cast<std::size_t>(stream)];
  if (s.last_queued == queued) return;  // unchanged: the counter already shows it
  s.last_queued = queued;
  begin_event();
  std::string& b = file_.buffer();
  b += "{\"ph\":\"C\",\"pid\":";
  append_integer(b, static_cast<std::int64_t>(kFirstStreamPid + stream));
  b += ",\"name\":\"queued_requests\",\"ts\":";
  append_us(b, at);
  b += ",\"args\":{\"requests\":";
  append_integer(b, static_cast<std::uint64_t>(queued));
  b += "}}";
  file_.maybe_flush();
}

void TraceJson::on_end(Time /*end*/) {
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
