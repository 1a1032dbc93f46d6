#include "sim/report/validation_report.hpp"

#include <cmath>

#include "sim/report/json_writer.hpp"

namespace fulcrum::sim {

std::optional<double> error_pct(std::optional<double> simulated, std::optional<double> measured) {
  if (!simulated || !measured || *measured == 0) return std::nullopt;
  return (*simulated - *measured) / *measured * 100.0;
}

namespace {

void add(Comparison& c, const std::string& scope, const std::string& metric,
         std::optional<double> simulated, std::optional<double> measured) {
  c.metrics.push_back({scope, metric, simulated, measured, error_pct(simulated, measured)});
}

std::optional<double> latency(const StreamResult* s, double LatencyStats::*field) {
  if (s == nullptr || !s->latency) return std::nullopt;
  return (*s->latency).*field;
}

std::string cell(std::optional<double> v, const char* suffix = "") {
  if (!v) return "-";
  std::string out;
  append_json_number(out, std::round(*v * 100) / 100);
  return out + suffix;
}

}  // namespace

Comparison compare_runs(const RunResult& simulated, const RunResult& measured,
                        const std::optional<DeviceMeterReading>& device_meter) {
  Comparison c;
  c.device_meter = device_meter;
  for (const StreamResult& m : measured.inference) {
    const StreamResult* s = nullptr;
    for (const StreamResult& candidate : simulated.inference) {
      if (candidate.name == m.name) s = &candidate;
    }
    const std::string scope = "stream " + m.name;
    add(c, scope, "mean_latency_ms", latency(s, &LatencyStats::mean_ms),
        latency(&m, &LatencyStats::mean_ms));
    add(c, scope, "p50_latency_ms", latency(s, &LatencyStats::p50_ms),
        latency(&m, &LatencyStats::p50_ms));
    add(c, scope, "p99_latency_ms", latency(s, &LatencyStats::p99_ms),
        latency(&m, &LatencyStats::p99_ms));
    add(c, scope, "max_latency_ms", latency(s, &LatencyStats::max_ms),
        latency(&m, &LatencyStats::max_ms));
    add(c, scope, "throughput_per_s", s ? std::optional<double>(s->throughput_per_s) : std::nullopt,
        m.throughput_per_s);
  }
  if (measured.training || simulated.training) {
    const auto get = [](const RunResult& r, double TrainingResult::*f) -> std::optional<double> {
      if (!r.training) return std::nullopt;
      return (*r.training).*f;
    };
    add(c, "training", "minibatches_per_s", get(simulated, &TrainingResult::minibatches_per_s),
        get(measured, &TrainingResult::minibatches_per_s));
    add(c, "training", "samples_per_s", get(simulated, &TrainingResult::samples_per_s),
        get(measured, &TrainingResult::samples_per_s));
  }
  add(c, "power", "avg_power_w", simulated.power.avg_w, measured.power.avg_w);
  add(c, "power", "energy_j", simulated.power.energy_j, measured.power.energy_j);
  if (device_meter) {
    add(c, "power", "avg_power_w (device meter)", simulated.power.avg_w, device_meter->avg_power_w);
    add(c, "power", "energy_j (device meter)", simulated.power.energy_j, device_meter->energy_j);
  }
  for (const MetricComparison& m : c.metrics) {
    if (!m.error_pct) continue;
    const double e = std::abs(*m.error_pct);
    c.max_abs_error_pct = std::max(c.max_abs_error_pct.value_or(0), e);
    const bool headline =
        m.metric == "p50_latency_ms" || m.metric == "p99_latency_ms" || m.metric == "samples_per_s";
    if (headline) {
      c.max_abs_latency_throughput_error_pct =
          std::max(c.max_abs_latency_throughput_error_pct.value_or(0), e);
    }
  }
  return c;
}

std::string comparison_json(const Comparison& c) {
  JsonWriter w;
  w.begin_object();
  w.key("metrics").begin_array();
  for (const MetricComparison& m : c.metrics) {
    w.begin_object();
    w.key("scope").value(m.scope);
    w.key("metric").value(m.metric);
    w.key("simulated").value(m.simulated);
    w.key("measured").value(m.measured);
    w.key("error_pct").value(m.error_pct);
    w.end_object();
  }
  w.end_array();
  w.key("device_meter");
  if (c.device_meter) {
    w.begin_object();
    w.key("duration_s").value(c.device_meter->duration_s);
    w.key("energy_j").value(c.device_meter->energy_j);
    w.key("avg_power_w").value(c.device_meter->avg_power_w);
    w.end_object();
  } else {
    w.null();
  }
  w.key("max_abs_latency_throughput_error_pct").value(c.max_abs_latency_throughput_error_pct);
  w.key("max_abs_error_pct").value(c.max_abs_error_pct);
  w.end_object();
  return w.take();
}

std::string comparison_markdown(const Comparison& c, const std::string& scenario,
                                const std::string& backend) {
  std::string out = "# Validation of " + scenario + " on backend " + backend + "\n\n";
  out += "Error = (simulated - measured) / measured.\n\n";
  out += "| scope | metric | simulated | measured | error |\n|---|---|---:|---:|---:|\n";
  for (const MetricComparison& m : c.metrics) {
    out += "| " + m.scope + " | " + m.metric + " | " + cell(m.simulated) + " | " +
           cell(m.measured) + " | " + cell(m.error_pct, " %") + " |\n";
  }
  if (c.device_meter) {
    out +=
        "\nRows marked (device meter) compare the simulation with the device's own meter over "
        "the whole measured run (" +
        cell(c.device_meter->duration_s) + " s, " + cell(c.device_meter->energy_j) + " J, " +
        cell(c.device_meter->avg_power_w) +
        " W), idle gaps included: what the device really drew, from the run's clock start "
        "to its end.\n";
  }
  out += "\nLargest |error|: " + cell(c.max_abs_latency_throughput_error_pct, " %") +
         " over p50/p99 latency and training throughput; " + cell(c.max_abs_error_pct, " %") +
         " over all metrics.\n";
  return out;
}

}  // namespace fulcrum::sim
