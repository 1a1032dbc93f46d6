#include "sim/report/output_writer.hpp"

#include <system_error>

#include "models/error.hpp"
#include "sim/report/atomic_file.hpp"
#include "sim/report/epochs_csv.hpp"
#include "sim/report/minibatches_csv.hpp"
#include "sim/report/power_csv.hpp"
#include "sim/report/publication_step.hpp"
#include "sim/report/requests_csv.hpp"
#include "sim/report/summary.hpp"
#include "sim/report/trace_json.hpp"

namespace fulcrum::sim {

void CompositeObserver::on_request(const RequestRecord& r) {
  for (RunObserver* o : observers_) o->on_request(r);
}
void CompositeObserver::on_item(const ItemRecord& item) {
  for (RunObserver* o : observers_) o->on_item(item);
}
void CompositeObserver::on_epoch(const EpochRecord& epoch) {
  for (RunObserver* o : observers_) o->on_epoch(epoch);
}
void CompositeObserver::on_pipeline_span(const PipelineSpan& span) {
  for (RunObserver* o : observers_) o->on_pipeline_span(span);
}
void CompositeObserver::on_power(Time at, const std::vector<double>& rail_power_w) {
  for (RunObserver* o : observers_) o->on_power(at, rail_power_w);
}
void CompositeObserver::on_queue_length(int stream, Time at, std::size_t queued) {
  for (RunObserver* o : observers_) o->on_queue_length(stream, at, queued);
}
void CompositeObserver::on_advance(Time now) {
  for (RunObserver* o : observers_) o->on_advance(now);
}
void CompositeObserver::on_end(Time end) {
  for (RunObserver* o : observers_) o->on_end(end);
}

OutputWriter::OutputWriter(std::filesystem::path out_dir, const Scenario& scenario,
                           const std::vector<std::string>& rails)
    : out_dir_(std::move(out_dir)), scenario_(scenario) {
  std::error_code ec;
  std::filesystem::create_directories(out_dir_, ec);
  if (ec) {
    throw InputError("cannot create output directory " + out_dir_.string() + ": " + ec.message());
  }
  const OutputsSpec& o = scenario_.outputs;
  if (o.requests) files_.push_back(std::make_unique<RequestsCsv>(out_dir_ / "requests.csv"));
  if (o.minibatches) {
    files_.push_back(std::make_unique<MinibatchesCsv>(out_dir_ / "minibatches.csv"));
  }
  if (o.epochs && scenario.training) {
    files_.push_back(std::make_unique<EpochsCsv>(out_dir_ / "epochs.csv"));
  }
  if (o.power) {
    const Time period = from_seconds(o.power_sample_s);
    if (period <= 0) throw InputError("outputs.power_sample_s must be at least 1 ns");
    files_.push_back(std::make_unique<PowerCsv>(out_dir_ / "power.csv", rails, period,
                                                from_seconds(scenario.duration_s)));
  }
  if (o.trace) {
    std::vector<std::string> names;
    for (std::size_t i = 0; i < scenario.inference.size(); ++i) {
      const auto& s = scenario.inference[i];
      names.push_back(!s.name.empty() ? s.name : s.workload + "-" + std::to_string(i));
    }
    files_.push_back(std::make_unique<TraceJson>(out_dir_ / "trace.json", rails, std::move(names),
                                                 scenario.training.has_value()));
  }
  // Rows (events) per file are capped at outputs.max_rows while the run goes: requests.csv is
  // refused up front when its arrivals exceed it, but minibatches, epochs and trace events depend
  // on what the model says, so they are counted as written. power.csv has its own bound (at most
  // 1e8 sampling periods per run, checked by the loader).
  for (auto& f : files_) {
    if (f->final_path().filename() != "power.csv") f->limit_rows(o.max_rows);
    fan_out_.add(f.get());
  }
}

OutputWriter::~OutputWriter() {
  if (!done_) abort();
}

void OutputWriter::on_request(const RequestRecord& r) { fan_out_.on_request(r); }
void OutputWriter::on_item(const ItemRecord& item) { fan_out_.on_item(item); }
void OutputWriter::on_epoch(const EpochRecord& epoch) { fan_out_.on_epoch(epoch); }
void OutputWriter::on_pipeline_span(const PipelineSpan& span) { fan_out_.on_pipeline_span(span); }
void OutputWriter::on_power(Time at, const std::vector<double>& rail_power_w) {
  fan_out_.on_power(at, rail_power_w);
}
void OutputWriter::on_queue_length(int stream, Time at, std::size_t queued) {
  fan_out_.on_queue_length(stream, at, queued);
}
void OutputWriter::on_advance(Time now) { fan_out_.on_advance(now); }
void OutputWriter::on_end(Time end) {
  end_ = end;
  fan_out_.on_end(end);
}

void OutputWriter::finish(const RunResult& result) {
  if (done_) throw Error("output writer: finish() after finish() or abort()");
  try {
    const Time end = end_.value_or(from_seconds(result.duration_s));
    for (auto& f : files_) {
      f->close(end);
      publication_step("closed " + f->final_path().filename().string());
    }
    AtomicFile summary(out_dir_ / "summary.json");
    summary.write(summary_json(result, scenario_));
    summary.close();
    publication_step("closed summary.json");
    // Everything is complete on disk; only now do the files take their real names.
    for (auto& f : files_) {
      f->publish();
      publication_step("named " + f->final_path().filename().string());
    }
    summary.publish();
    publication_step("named summary.json");
    done_ = true;
  } catch (...) {
    abort();
    throw;
  }
}

void OutputWriter::abort() noexcept {
  for (auto& f : files_) f->discard();
  done_ = true;
}

std::vector<std::filesystem::path> OutputWriter::outputs() const {
  std::vector<std::filesystem::path> paths;
  for (const auto& f : files_) paths.push_back(f->final_path());
  paths.push_back(out_dir_ / "summary.json");
  return paths;
}

}  // namespace fulcrum::sim
