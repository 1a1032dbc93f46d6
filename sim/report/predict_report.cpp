#include "sim/report/predict_report.hpp"

#include <string>

#include "sim/report/json_writer.hpp"
#include "sim/report/number_format.hpp"

namespace fulcrum::sim {

namespace {

std::string signed_fixed(double v, int digits) {
  std::string text = fixed(v, digits);
  if (v >= 0) text.insert(text.begin(), '+');
  return text;
}

}  // namespace

std::string predict_text(const PredictReport& r) {
  std::string s;
  std::size_t held_out = 0;
  for (const PredictRow& row : r.rows) held_out += row.held_out ? 1 : 0;
  s += "predictor " + r.predictor + ", workload " + r.workload + " (" + r.phase + ", batch size " +
       std::to_string(r.batch_size) + "), seed " + std::to_string(r.seed) + "\n";
  s += "fit: " + std::to_string(r.fit_rows) + " of " + std::to_string(r.fit_available) +
       " rows of " + r.fit_source + (r.predictor == "analytic" ? " (not used by analytic)" : "") +
       "\n";
  s += "at: " + std::to_string(r.rows.size()) + " rows of " + r.at_source + ", " +
       std::to_string(held_out) + " held out (mode not fitted)\n";
  if (!r.errors) {
    s += "MAPE: no held-out rows\n";
  } else {
    s += "time MAPE " + fixed(r.errors->time_mape_pct, 2) + " %, power MAPE " +
         fixed(r.errors->power_mape_pct, 2) + " % (held-out rows)\n";
    s += "time bias " + signed_fixed(r.errors->time_bias_pct, 2) + " %, power bias " +
         signed_fixed(r.errors->power_bias_pct, 2) +
         " % (held-out rows; > 0: the predictor over-estimates)\n";
  }
  return s;
}

std::string predict_json(const PredictReport& r) {
  JsonWriter j;
  j.begin_object();
  j.key("predictor").value(r.predictor);
  j.key("workload").value(r.workload);
  j.key("phase").value(r.phase);
  j.key("batch_size").value(r.batch_size);
  j.key("seed").value(r.seed);
  j.key("fit").begin_object();
  j.key("source").value(r.fit_source);
  j.key("rows").value(static_cast<std::uint64_t>(r.fit_rows));
  j.key("available").value(static_cast<std::uint64_t>(r.fit_available));
  j.end_object();
  j.key("at").value(r.at_source);
  j.key("held_out");
  if (r.errors) {
    j.begin_object();
    j.key("time_mape_pct").value(r.errors->time_mape_pct);
    j.key("power_mape_pct").value(r.errors->power_mape_pct);
    j.key("time_bias_pct").value(r.errors->time_bias_pct);
    j.key("power_bias_pct").value(r.errors->power_bias_pct);
    j.end_object();
  } else {
    j.null();
  }
  j.key("rows").begin_array();
  for (const PredictRow& row : r.rows) {
    j.begin_object();
    j.key("cores").value(row.cores);
    j.key("cpu_khz").value(row.cpu_khz);
    j.key("gpu_hz").value(row.gpu_hz);
    j.key("emc_hz").value(row.emc_hz);
    j.key("phase").value(row.phase);
    j.key("batch_size").value(row.batch_size);
    j.key("held_out").value(row.held_out);
    j.key("time_ms").begin_object();
    j.key("predicted").value(row.predicted_time_ms);
    j.key("measured").value(row.measured_time_ms);
    j.key("residual").value(row.predicted_time_ms - row.measured_time_ms);
    j.end_object();
    j.key("power_w").begin_object();
    j.key("predicted").value(row.predicted_power_w);
    j.key("measured").value(row.measured_power_w);
    j.key("residual").value(row.predicted_power_w - row.measured_power_w);
    j.end_object();
    j.end_object();
  }
  j.end_array();
  j.key("written").begin_array();
  for (const std::string& path : r.written) j.value(path);
  j.end_array();
  j.end_object();
  return j.take();
}

}  // namespace fulcrum::sim
