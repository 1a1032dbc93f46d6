#include "sim/report/optimize_report.hpp"

#include <sstream>

#include "sim/report/json_writer.hpp"
#include "sim/report/number_format.hpp"

namespace fulcrum::sim {

namespace {

void write_state(JsonWriter& j, const OptimizeState& s) {
  j.begin_object()
      .key("stable")
      .value(s.stable)
      .key("training_minibatches_per_window")
      .value(static_cast<std::int64_t>(s.per_window))
      .key("training_minibatches_per_s")
      .value(s.per_s)
      .key("peak_latency_s")
      .value(s.peak_latency_s)
      .key("power_w")
      .value(s.power_w)
      .key("power_max_of_phases_w")
      .value(s.power_max_of_phases_w)
      .key("power_time_weighted_w")
      .value(s.power_time_weighted_w)
      .key("latency_met")
      .value(s.latency_met)
      .key("power_met")
      .value(s.power_met)
      .end_object();
}

void write_state_or_null(JsonWriter& j, const std::optional<OptimizeState>& s) {
  if (s) {
    write_state(j, *s);
  } else {
    j.null();
  }
}

void write_choice(JsonWriter& j, const OptimizeChoice& c) {
  j.begin_object().key("found").value(c.found);
  if (c.found) {
    j.key("mode").begin_object();
    j.key("cores").value(c.cores);
    j.key("cpu_mhz").value(c.cpu_mhz);
    j.key("gpu_mhz").value(c.gpu_mhz);
    j.key("emc_mhz").value(c.emc_mhz);
    j.end_object();
    j.key("batch_sizes").begin_array();
    for (int b : c.batch_sizes) j.value(b);
    j.end_array();
  }
  j.key("note").value(c.note).end_object();
}

void write_event_driven(JsonWriter& j, const RunResult& run) {
  j.begin_object();
  j.key("training_minibatches_per_s").value(run.training ? run.training->minibatches_per_s : 0.0);
  j.key("streams").begin_array();
  for (const StreamResult& s : run.inference) {
    j.begin_object().key("name").value(s.name).key("batch_size").value(s.batch_size);
    j.key("stable").value(s.stable);
    j.key("p99_latency_s")
        .value(s.latency ? std::optional<double>(s.latency->p99_ms / 1e3) : std::nullopt);
    j.key("max_latency_s")
        .value(s.latency ? std::optional<double>(s.latency->max_ms / 1e3) : std::nullopt);
    j.end_object();
  }
  j.end_array();
  j.key("power_avg_w").value(run.power.avg_w);
  j.key("power_max_window_w").value(run.power.max_window_w);
  j.key("latency_met").value(run.budgets.latency_met);
  j.key("power_met").value(run.budgets.power_met);
  j.end_object();
}

}  // namespace

std::string optimize_json(const OptimizeReport& r) {
  JsonWriter j;
  j.begin_object();
  j.key("scenario").value(r.scenario);
  j.key("seed").value(r.seed);
  j.key("search").begin_object();
  j.key("strategy").value(r.strategy);
  j.key("ground_truth").value(r.ground_truth);
  j.key("grid").value(r.grid);
  j.key("objective").value(r.objective);
  j.key("power_constraint").value(r.power_constraint);
  j.key("idle_power_w").value(r.idle_power_w);
  j.key("max_modes").value(r.max_modes ? std::optional<double>(*r.max_modes) : std::nullopt);
  j.end_object();
  j.key("budgets").begin_object();
  j.key("latency_s").value(r.latency_budget_s);
  j.key("power_w").value(r.power_budget_w);
  j.end_object();
  j.key("choice");
  write_choice(j, r.choice);
  j.key("predicted").begin_object();
  j.key("training_minibatches_per_window").value(static_cast<std::int64_t>(r.predicted_per_window));
  j.key("training_minibatches_per_s").value(r.predicted_per_s);
  j.key("power_w").value(r.predicted_power_w);
  j.end_object();
  j.key("closed_form_actual");
  write_state_or_null(j, r.closed_form_actual);
  j.key("budgets_met").value(r.budgets_met);
  j.key("event_driven");
  if (r.event_driven) {
    write_event_driven(j, *r.event_driven);
  } else {
    j.null();
  }
  if (r.event_driven_error) j.key("event_driven_error").value(*r.event_driven_error);
  if (r.training) {
    j.key("training_possible").value(r.training->possible);
    j.key("training_would_run_with").begin_object();
    j.key("latency_s").value(r.training->latency_budget_s);
    j.key("power_w").value(r.training->power_budget_w);
    j.end_object();
  }
  j.key("profiling").begin_object();
  j.key("modes").value(r.profiling.modes);
  j.key("measurements").value(r.profiling.measurements);
  j.key("seconds").value(r.profiling.seconds);
  j.key("tries").value(r.profiling.tries);
  j.end_object();
  j.key("oracle");
  write_choice(j, r.oracle);
  j.key("oracle_actual");
  write_state_or_null(j, r.oracle_actual);
  j.end_object();
  return j.str();
}

std::string optimize_summary(const OptimizeReport& r) {
  std::ostringstream out;
  out << "optimize " << r.scenario << ": strategy " << r.strategy << " on the " << r.ground_truth
      << " ground truth (" << r.grid << ", " << r.objective << ", " << r.power_constraint
      << " power)\n";
  auto describe = [&](const char* who, const OptimizeChoice& c,
                      const std::optional<OptimizeState>& s, bool met) {
    out << "  " << who << ": ";
    if (!c.found) {
      out << "nothing found (" << c.note << ")\n";
      return;
    }
    std::string batches;
    for (int b : c.batch_sizes) {
      if (!batches.empty()) batches += '+';
      batches += std::to_string(b);
    }
    out << c.mode_label;
    if (!batches.empty()) out << ", batch " << batches;
    if (s) {
      out << ": " << s->per_window << " training minibatches per window, " << fixed(s->per_s, 2)
          << "/s, peak latency " << fixed(s->peak_latency_s, 3) << " s, power "
          << fixed(s->power_w, 1) << " W" << (met ? ", budgets met" : ", budgets MISSED");
    }
    out << "\n";
  };
  describe("choice", r.choice, r.closed_form_actual, r.budgets_met);
  if (r.choice.found) {
    out << "  predicted: " << r.predicted_per_window << " per window, "
        << fixed(r.predicted_per_s, 2) << "/s, power " << fixed(r.predicted_power_w, 1) << " W\n";
  }
  if (r.event_driven) {
    const RunResult& run = *r.event_driven;
    out << "  event-driven: training "
        << fixed(run.training ? run.training->minibatches_per_s : 0, 2) << " minibatches/s";
    for (const StreamResult& s : run.inference) {
      out << ", " << s.name << " p99 " << (s.latency ? fixed(s.latency->p99_ms, 1) : "-")
          << " ms max " << (s.latency ? fixed(s.latency->max_ms, 1) : "-") << " ms";
    }
    out << ", power " << fixed(run.power.avg_w, 1) << " W average\n";
  }
  out << "  profiling: " << r.profiling.modes << " modes, " << r.profiling.measurements
      << " measurements, " << fixed(r.profiling.seconds, 1) << " s\n";
  const bool oracle_met = r.oracle_actual && r.oracle_actual->stable &&
                          r.oracle_actual->latency_met && r.oracle_actual->power_met;
  describe("oracle", r.oracle, r.oracle_actual, oracle_met);
  if (r.training && !r.training->possible) {
    out << "  no mode of the " << r.grid << " grid lets training run within these budgets";
    if (r.training->latency_budget_s || r.training->power_budget_w) {
      out << "; it would with";
      if (r.training->latency_budget_s) {
        out << " a latency budget of " << fixed(*r.training->latency_budget_s, 3)
            << " s (power budget kept)";
      }
      if (r.training->latency_budget_s && r.training->power_budget_w) out << " or";
      if (r.training->power_budget_w) {
        out << " a power budget of " << fixed(*r.training->power_budget_w, 1)
            << " W (latency budget kept)";
      }
    }
    out << "\n";
  } else if (r.training) {
    out << "  the choice trains nothing, though the grid holds configurations that do (see the "
           "oracle)\n";
  }
  if (r.event_driven_error) {
    out << "  event-driven run: failed (" << *r.event_driven_error << ")\n";
  }
  return out.str();
}

}  // namespace fulcrum::sim
