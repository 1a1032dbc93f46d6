#include "sim/report/summary.hpp"

#include <algorithm>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "sim/report/json_writer.hpp"

namespace fulcrum::sim {

namespace {

const char* to_string(PowerBudgetKind k) {
  return k == PowerBudgetKind::average ? "average" : "max_window";
}

// Without a completed request there is no latency to report: null, not a 0 ms that reads as a
// perfect result.
void write_latency(JsonWriter& w, const std::optional<LatencyStats>& latency) {
  w.key("latency_ms").begin_object();
  const LatencyStats l = latency.value_or(LatencyStats{});
  const std::pair<const char*, double> fields[] = {{"mean", l.mean_ms},
                                                   {"p50", l.p50_ms},
                                                   {"p95", l.p95_ms},
                                                   {"p99", l.p99_ms},
                                                   {"max", l.max_ms}};
  for (const auto& [name, value] : fields) {
    w.key(name);
    if (latency) {
      w.value(value);
    } else {
      w.null();
    }
  }
  w.end_object();
}

// How many of a context's items had measured, interpolated, extrapolated or modelled figures.
void write_provenance(JsonWriter& w, const ProvenanceCounts& p) {
  w.key("provenance").begin_object();
  w.key("measured").value(p.measured);
  w.key("interpolated").value(p.interpolated);
  w.key("extrapolated").value(p.extrapolated);
  w.key("modelled").value(p.modelled);
  w.end_object();
}

// A fixed-size digest however many epochs ran (each one is a row of epochs.csv); null members
// when none completed, as for latencies.
void write_epoch_times(JsonWriter& w, const std::optional<EpochTimeStats>& epochs) {
  w.key("epoch_time_s").begin_object();
  const EpochTimeStats e = epochs.value_or(EpochTimeStats{});
  const std::pair<const char*, double> fields[] = {{"first", e.first_s},
                                                   {"last", e.last_s},
                                                   {"mean", e.mean_s},
                                                   {"min", e.min_s},
                                                   {"max", e.max_s}};
  for (const auto& [name, value] : fields) {
    w.key(name);
    if (epochs) {
      w.value(value);
    } else {
      w.null();
    }
  }
  w.end_object();
}

void write_dataloader(JsonWriter& w, const std::optional<DataloaderResult>& dataloader) {
  w.key("dataloader");
  if (!dataloader) {
    w.null();
    return;
  }
  const DataloaderResult& d = *dataloader;
  w.begin_object();
  w.key("workers").value(d.workers);
  w.key("prefetch_factor").value(d.prefetch_factor);
  w.key("storage").value(d.storage);
  w.key("dataset_scale").value(d.dataset_scale);
  w.key("dataset_samples").value(d.dataset_samples);
  w.key("dataset_bytes").value(d.dataset_bytes);
  w.key("sample_format").value(d.sample_format);
  w.key("preprocess_ms_per_sample").value(d.preprocess_ms_per_sample);
  w.key("cores").value(d.cores);
  w.key("os_cores").value(d.os_cores);
  w.key("ram_gb").value(d.ram_gb);
  w.key("os_gb").value(d.os_gb);
  w.key("processes_gb").value(d.processes_gb);
  w.key("gpu_gb").value(d.gpu_gb);
  w.key("page_cache_capacity_bytes").value(d.page_cache_capacity_bytes);
  w.key("cache_hit_samples").value(d.cache_hit_samples);
  w.key("storage_samples").value(d.storage_samples);
  w.key("bytes_from_cache").value(d.bytes_from_cache);
  w.key("bytes_from_storage").value(d.bytes_from_storage);
  w.key("storage_busy_s").value(d.storage_busy_s);
  w.key("worker_core_s").value(d.worker_core_s);
  w.key("training_host_share").value(d.training_host_share);
  w.end_object();
}

void write_training(JsonWriter& w, const std::optional<TrainingResult>& training) {
  w.key("training");
  if (!training) {
    w.null();
    return;
  }
  const TrainingResult& t = *training;
  w.begin_object();
  w.key("workload").value(t.workload);
  w.key("dataset").value(t.dataset);
  w.key("batch_size").value(t.batch_size);
  w.key("minibatches").value(t.minibatches);
  w.key("samples").value(t.samples);
  w.key("minibatches_per_s").value(t.minibatches_per_s);
  w.key("samples_per_s").value(t.samples_per_s);
  w.key("fetch_stall_s").value(t.fetch_stall_s);
  w.key("epochs_completed").value(t.epochs_completed);
  w.key("finished_s").value(t.finished_s);
  w.key("minibatches_per_s_while_training").value(t.minibatches_per_s_while_training);
  w.key("samples_per_s_while_training").value(t.samples_per_s_while_training);
  write_epoch_times(w, t.epoch_time_s);
  w.key("gpu_busy_s").value(t.gpu_busy_s);
  write_provenance(w, t.provenance);
  w.key("epochs").begin_array();
  for (const EpochSummary& e : t.epochs) {
    w.begin_object();
    w.key("epoch").value(e.epoch);
    w.key("time_s").value(e.time_s);
    w.key("fetch_stall_s").value(e.fetch_stall_s);
    w.key("cache_hit_ratio");
    if (e.cache_hit_ratio) {
      w.value(*e.cache_hit_ratio);
    } else {
      w.null();
    }
    w.end_object();
  }
  w.end_array();
  write_dataloader(w, t.dataloader);
  w.end_object();
}

void write_stream(JsonWriter& w, const StreamResult& s) {
  w.begin_object();
  w.key("name").value(s.name);
  w.key("workload").value(s.workload);
  w.key("batch_size").value(s.batch_size);
  w.key("arrived").value(s.arrived);
  w.key("completed").value(s.completed);
  w.key("queued").value(s.queued);
  w.key("dropped").value(s.dropped);
  w.key("batches").value(s.batches);
  w.key("throughput_per_s").value(s.throughput_per_s);
  write_latency(w, s.latency);
  w.key("stable").value(s.stable);
  if (!s.stable) w.key("unstable_reason").value(s.unstable_reason);
  w.key("gpu_busy_s").value(s.gpu_busy_s);
  write_provenance(w, s.provenance);
  w.end_object();
}

void write_power(JsonWriter& w, const PowerResult& p) {
  w.key("power").begin_object();
  w.key("avg_w").value(p.avg_w);
  w.key("max_window_w").value(p.max_window_w);
  w.key("window_s").value(p.window_s);
  w.key("energy_j").value(p.energy_j);
  w.key("rails").begin_object();
  for (std::size_t r = 0; r < p.rails.size(); ++r) {
    w.key(p.rails[r]).begin_object();
    w.key("avg_w").value(r < p.rail_avg_w.size() ? p.rail_avg_w[r] : 0.0);
    w.key("energy_j").value(r < p.rail_energy_j.size() ? p.rail_energy_j[r] : 0.0);
    w.end_object();
  }
  w.end_object();
  w.end_object();
}

void write_budgets(JsonWriter& w, const BudgetResult& b, const Budgets& limits) {
  w.key("budgets").begin_object();
  w.key("latency_ms").value(limits.latency_ms);
  w.key("latency_percentile").value(limits.latency_percentile);
  w.key("power_w").value(limits.power_w);
  w.key("power_kind").value(to_string(limits.power_kind));
  w.key("latency_met").value(b.latency_met);
  w.key("power_met").value(b.power_met);
  w.end_object();
}

}  // namespace

std::string power_mode_label(const models::PowerMode& mode) { return mode.label(); }

std::string summary_json(const RunResult& result, const Scenario& scenario) {
  JsonWriter w;
  w.begin_object();
  w.key("scenario").value(result.scenario.empty() ? scenario.name : result.scenario);
  w.key("seed").value(result.seed);
  w.key("duration_s").value(result.duration_s);
  w.key("device").value(result.device);
  w.key("power_mode").begin_object();
  w.key("label").value(power_mode_label(result.mode));
  w.key("cores").value(result.mode.cores);
  w.key("cpu_mhz").value(result.mode.cpu_khz / 1e3);
  w.key("gpu_mhz").value(result.mode.gpu_hz / 1e6);
  w.key("emc_mhz").value(result.mode.emc_hz / 1e6);
  w.key("gpu_tpcs").value(result.mode.gpu_tpcs);
  w.end_object();
  w.key("gpu_sharing").value(result.gpu_sharing);
  w.key("gpu_sharing_variant");
  if (result.gpu_sharing_variant.empty()) {
    w.null();
  } else {
    w.value(result.gpu_sharing_variant);
  }
  w.key("perf_model").value(result.perf_model);
  write_training(w, result.training);
  w.key("inference").begin_array();
  for (const StreamResult& s : result.inference) write_stream(w, s);
  w.end_array();
  write_power(w, result.power);
  w.key("energy_j").value(result.power.energy_j);
  w.key("gpu").begin_object();
  w.key("utilization").value(result.gpu_utilization);
  w.end_object();
  write_budgets(w, result.budgets, scenario.budgets);
  w.end_object();
  return w.take();
}

namespace {

// printf into a std::string; only for the few lines of the terminal table.
template <class... Args>
void appendf(std::string& out, const char* format, Args... args) {
  char buf[512];
  const int n = std::snprintf(buf, sizeof buf, format, args...);
  if (n > 0) out.append(buf, static_cast<std::size_t>(n) < sizeof buf ? n : sizeof buf - 1);
}

// Four significant digits, but never an exponent: 181.3, 0.5, 26430 (a long wait reads as such).
std::string plain_number(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, v < 1e4 && v > -1e4 ? "%.4g" : "%.0f", v);
  return buf;
}

const char* met(const std::optional<bool>& b) {
  if (!b) return "no budget";
  return *b ? "met" : "MISSED";
}

// What an extrapolated figure means under each performance model (docs/METRICS.md, Provenance).
const char* extrapolated_because(const std::string& perf_model) {
  if (perf_model == "analytic-modes") {
    return "zero-shot: no fitted parameters on this device, from the layer graph; docs/MODEL.md";
  }
  if (perf_model == "table") return "beyond the profiled modes or batch sizes";
  if (perf_model == "analytic") return "the device has no calibration of its own";
  return "see docs/METRICS.md, Provenance";
}

// One line naming the performance model and, where some items' figures were not measured or
// modelled on fitted parameters, how many of each context's were extrapolated or interpolated;
// where every item's were measured, that.
std::string model_line(const RunResult& r) {
  std::string parts;
  bool extrapolated = false;
  const auto count = [](std::string& to, std::uint64_t n, std::uint64_t all, const char* items,
                        const char* what) {
    if (n == 0) return;
    to.append(to.back() == ':' ? " " : ", ");
    to.append(std::to_string(n)).append(" of ").append(std::to_string(all));
    to.append(" ").append(items).append(" ").append(what);
  };
  const auto add = [&](const std::string& who, const ProvenanceCounts& p, const char* items) {
    if (p.extrapolated == 0 && p.interpolated == 0) return;
    const std::uint64_t all = p.measured + p.interpolated + p.extrapolated + p.modelled;
    std::string part(who);
    part.append(":");
    count(part, p.extrapolated, all, items, "extrapolated");
    count(part, p.interpolated, all, items, "interpolated");
    if (!parts.empty()) parts.append("; ");
    parts.append(part);
    extrapolated = extrapolated || p.extrapolated > 0;
  };
  std::uint64_t items = 0, measured = 0;
  const auto tally = [&](const ProvenanceCounts& p) {
    items += p.measured + p.interpolated + p.extrapolated + p.modelled;
    measured += p.measured;
  };
  if (r.training) {
    add(r.training->workload + " training", r.training->provenance, "minibatches");
    tally(r.training->provenance);
  }
  for (const StreamResult& s : r.inference) {
    add(s.name + " inference", s.provenance, "batches");
    tally(s.provenance);
  }
  std::string out("  model      ");
  out.append(r.perf_model);
  // On a device (or a table at its profiled points) the model only decides; the figures are
  // measured.
  if (items > 0 && measured == items) out.append("; every item's figures measured");
  if (!parts.empty()) out.append("; ").append(parts);
  if (extrapolated) {
    out.append(" (").append(extrapolated_because(r.perf_model));
    // How such figures did where measurements exist, for the phases extrapolated here.
    const auto check = [&](bool in_phase, const std::string& clause) {
      if (in_phase && !clause.empty()) out.append("; ").append(clause);
    };
    check(r.training && r.training->provenance.extrapolated > 0, r.extrapolation_check_training);
    check(std::any_of(r.inference.begin(), r.inference.end(),
                      [](const StreamResult& s) { return s.provenance.extrapolated > 0; }),
          r.extrapolation_check_inference);
    // The measured workload each extrapolated one is most like, once per clause.
    std::vector<std::string> nearest;
    const auto like = [&](const std::string& clause) {
      if (clause.empty() || std::find(nearest.begin(), nearest.end(), clause) != nearest.end()) {
        return;
      }
      nearest.push_back(clause);
      out.append("; ").append(clause);
    };
    if (r.training) like(r.training->extrapolation_nearest);
    for (const StreamResult& s : r.inference) like(s.extrapolation_nearest);
    out.append(")");
  }
  out.append("\n");
  return out;
}

}  // namespace

std::string format_summary_text(const RunResult& r) {
  std::string out;
  const std::string sharing = r.gpu_sharing_variant.empty()
                                  ? r.gpu_sharing
                                  : r.gpu_sharing + " (" + r.gpu_sharing_variant + ")";
  appendf(out, "%s: %s, %s, %s, %.6g s simulated, seed %llu\n", r.scenario.c_str(),
          r.device.c_str(), power_mode_label(r.mode).c_str(), sharing.c_str(), r.duration_s,
          static_cast<unsigned long long>(r.seed));
  out += model_line(r);
  if (r.training) {
    const TrainingResult& t = *r.training;
    appendf(out,
            "  training   %-18s bs %-4d %10.4g minibatches/s %10.4g samples/s  fetch stall "
            "%.4g s\n",
            t.workload.c_str(), t.batch_size, t.minibatches_per_s, t.samples_per_s,
            t.fetch_stall_s);
    if (t.finished_s) {
      appendf(out,
              "             %llu epochs done at %.6g s: %.4g minibatches/s %.4g samples/s while "
              "training (the rates above are over the whole run)\n",
              static_cast<unsigned long long>(t.epochs_completed), *t.finished_s,
              t.minibatches_per_s_while_training.value_or(0),
              t.samples_per_s_while_training.value_or(0));
    }
    if (t.dataloader) {
      const DataloaderResult& d = *t.dataloader;
      const double reads = static_cast<double>(d.cache_hit_samples + d.storage_samples);
      appendf(out,
              "  dataloader %d workers x %d, %s, %s %.4g ms/sample, page cache %.4g GB, hit "
              "ratio %.3g, %.4g GB from storage\n",
              d.workers, d.prefetch_factor, d.storage.c_str(), d.sample_format.c_str(),
              d.preprocess_ms_per_sample, d.page_cache_capacity_bytes / 1e9,
              reads > 0 ? static_cast<double>(d.cache_hit_samples) / reads : 0.0,
              d.bytes_from_storage / 1e9);
    }
  }
  for (const StreamResult& s : r.inference) {
    if (s.latency) {
      const LatencyStats& l = *s.latency;
      appendf(out,
              "  inference  %-18s bs %-4d %10.4g req/s  latency p50 %s ms  p95 %s ms  p99 %s ms  "
              "max %s ms\n",
              s.name.c_str(), s.batch_size, s.throughput_per_s, plain_number(l.p50_ms).c_str(),
              plain_number(l.p95_ms).c_str(), plain_number(l.p99_ms).c_str(),
              plain_number(l.max_ms).c_str());
    } else {
      appendf(out,
              "  inference  %-18s bs %-4d %10.4g req/s  latency: none (no request completed)\n",
              s.name.c_str(), s.batch_size, s.throughput_per_s);
    }
    appendf(out, "             %llu arrived, %llu completed, %llu queued, %llu dropped  %s",
            static_cast<unsigned long long>(s.arrived),
            static_cast<unsigned long long>(s.completed), static_cast<unsigned long long>(s.queued),
            static_cast<unsigned long long>(s.dropped), s.stable ? "stable" : "UNSTABLE: ");
    // Appended, not formatted: a reason of any length must not be cut at the format buffer.
    out += s.stable ? "" : s.unstable_reason;
    out += '\n';
  }
  appendf(out, "  power      avg %.4g W  max %.4g s window %.4g W  energy %.1f J\n", r.power.avg_w,
          r.power.window_s, r.power.max_window_w, r.power.energy_j);
  for (std::size_t i = 0; i < r.power.rails.size(); ++i) {
    appendf(out, "             %-14s avg %.4g W  energy %.1f J\n", r.power.rails[i].c_str(),
            i < r.power.rail_avg_w.size() ? r.power.rail_avg_w[i] : 0.0,
            i < r.power.rail_energy_j.size() ? r.power.rail_energy_j[i] : 0.0);
  }
  appendf(out, "  gpu        utilization %.4g %%\n", 100.0 * r.gpu_utilization);
  appendf(out, "  budgets    latency: %s  power: %s\n", met(r.budgets.latency_met),
          met(r.budgets.power_met));
  return out;
}

}  // namespace fulcrum::sim
