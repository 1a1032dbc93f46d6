// What an accepted scenario promises (docs/SCENARIOS.md), checked by the scenario and overrides
// fuzz targets: every time and count within its documented range, every name printable and
// short. The ranges are written out here from the documentation, not taken from the loader.
#pragma once

#include <string>
#include <variant>

#include "sim/scenario/scenario.hpp"
#include "tests/fuzz/fuzz_support.hpp"

namespace fulcrum::fuzz {

inline bool in(double v, double lo, double hi) { return v >= lo && v <= hi; }

inline void check_name(const std::string& s, std::size_t max_bytes, const char* what) {
  if (s.empty() || s.size() > max_bytes || !is_one_printable_line(s)) broken(what);
}

inline void check_rate(double r, bool zero_allowed) {
  if (!(in(r, 1e-6, 1e6) || (zero_allowed && r == 0))) broken("an arrival rate out of range");
}

inline void check_scenario_promises(const sim::Scenario& s) {
  check_name(s.name, 128, "the scenario name");
  if (!in(s.duration_s, 1e-9, 1e7)) broken("duration_s out of 1e-9..1e7");
  const sim::GpuSharing& g = s.gpu_sharing;
  if (!in(g.timeslice_us, 0.001, 1e6)) broken("timeslice_us out of 0.001..1e6");
  if (!in(g.context_switch_us, 0, 1e6) || g.context_switch_us > 1000 * g.timeslice_us) {
    broken("context_switch_us out of 0..1e6 or above 1000 x timeslice_us");
  }
  if (!in(g.risk, 1e-12, 0.5)) broken("risk out of 1e-12..0.5");
  check_name(s.device.model, 128, "the device model");
  if (s.device.ram_gb && !in(*s.device.ram_gb, 0.1, 4096)) broken("ram_gb out of 0.1..4096");
  if (s.training) {
    const sim::TrainingSpec& t = *s.training;
    check_name(t.workload, 128, "the training workload");
    check_name(t.dataset, 128, "the dataset");
    check_name(t.dataloader.storage, 128, "the storage");
    if (!in(t.batch_size, 1, 65536)) broken("training batch size out of 1..65536");
    if (t.epochs && !in(*t.epochs, 1, 1e6)) broken("epochs out of 1..1e6");
    if (!in(t.dataloader.workers, 0, 256) || !in(t.dataloader.prefetch_factor, 1, 1024)) {
      broken("dataloader counts out of range");
    }
    if (!in(t.dataloader.dataset_scale, 1e-3, 1e3)) broken("dataset_scale out of 1e-3..1e3");
  }
  if (s.inference.size() > 64) broken("more than 64 inference streams");
  for (const sim::InferenceStreamSpec& st : s.inference) {
    check_name(st.name, 128, "a stream name");
    check_name(st.workload, 128, "a stream workload");
    if (!in(st.batch_size, 1, 65536)) broken("stream batch size out of 1..65536");
    if (st.max_wait_ms && !in(*st.max_wait_ms, 1e-6, 1e10)) broken("max_wait_ms out of range");
    if (const auto* f = std::get_if<sim::FixedArrivals>(&st.arrivals))
      check_rate(f->rate_per_s, false);
    if (const auto* p = std::get_if<sim::PoissonArrivals>(&st.arrivals)) {
      check_rate(p->rate_per_s, false);
    }
    if (const auto* p = std::get_if<sim::PiecewiseArrivals>(&st.arrivals)) {
      if (p->segments.empty() || p->segments.size() > 10000) broken("segment count out of range");
      for (const sim::RateSegment& seg : p->segments) {
        check_rate(seg.rate_per_s, true);
        if (!in(seg.start_s, 0, 1e7)) broken("segment start out of 0..1e7");
      }
    }
    if (const auto* t = std::get_if<sim::TraceArrivals>(&st.arrivals)) {
      for (double a : t->arrival_s) {
        if (!in(a, 0, 1e7)) broken("trace arrival out of 0..1e7");
      }
    }
  }
  const sim::Budgets& b = s.budgets;
  if (b.latency_ms && !in(*b.latency_ms, 1e-6, 1e10)) broken("latency_ms out of range");
  if (!in(b.power_window_s, 1e-9, 1e7) || b.power_window_s < s.duration_s / 1e8) {
    broken("power_window_s out of range or more than 1e8 windows");
  }
  if (!in(s.outputs.power_sample_s, 1e-9, 1e7) || s.outputs.power_sample_s < s.duration_s / 1e8) {
    broken("power_sample_s out of range or more than 1e8 samples");
  }
  if (s.search && (s.search->batch_sizes.empty() || s.search->batch_sizes.size() > 64)) {
    broken("search batch size count out of 1..64");
  }
}

}  // namespace fulcrum::fuzz
