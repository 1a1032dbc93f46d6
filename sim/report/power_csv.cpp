#include "sim/report/power_csv.hpp"

#include <cassert>

#include "sim/report/number_format.hpp"

namespace fulcrum::sim {

PowerCsv::PowerCsv(std::filesystem::path final_path, std::vector<std::string> rails, Time period,
                   Time end)
    : FileObserver(std::move(final_path)),
      rails_(std::move(rails)),
      period_(period),
      end_(end),
      current_w_(rails_.size(), 0.0),
      window_energy_j_(rails_.size(), 0.0) {
  assert(period_ > 0);
  file_.write(header(rails_));
}

std::string PowerCsv::header(const std::vector<std::string>& rails) {
  std::string h = "time_s";
  for (const auto& r : rails) h += "," + r + "_w";
  h += ",module_w";
  for (const auto& r : rails) h += "," + r + "_avg_w";
  h += ",module_avg_w\n";
  return h;
}

void PowerCsv::integrate_to(Time t) {
  if (t <= integrated_to_) return;
  const double seconds = to_seconds(t - integrated_to_);
  for (std::size_t i = 0; i < current_w_.size(); ++i)
    window_energy_j_[i] += current_w_[i] * seconds;
  integrated_to_ = t;
}

void PowerCsv::emit_samples_before(Time limit) {
  double module_w = 0;
  for (double w : current_w_) module_w += w;
  const double period_s = to_seconds(period_);
  const std::size_t row_bytes = (2 * current_w_.size() + 3) * (kMaxNumberChars + 1);
  for (Time t = next_k_ * period_; t < limit && t <= end_; t = ++next_k_ * period_) {
    integrate_to(t);
    char* p = file_.reserve(row_bytes);
    p = put_fixed_decimal(p, t, 9);
    for (double w : current_w_) {
      *p++ = ',';
      p = put_double(p, w);
    }
    *p++ = ',';
    p = put_double(p, module_w);
    // The window (t - period, t]: none ends at 0.
    double module_energy_j = 0;
    for (double& e : window_energy_j_) {
      *p++ = ',';
      if (next_k_ > 0) p = put_double(p, e / period_s);
      module_energy_j += e;
      e = 0;
    }
    *p++ = ',';
    if (next_k_ > 0) p = put_double(p, module_energy_j / period_s);
    *p++ = '\n';
    file_.commit(p);
  }
}

void PowerCsv::on_power(Time at, const std::vector<double>& rail_power_w) {
  assert(rail_power_w.size() == rails_.size());
  // Samples strictly before `at` saw the old power. Before the first report nothing is known;
  // those samples (the runtime reports at time 0, so normally none) take the first reported value.
  if (have_power_) {
    emit_samples_before(at);
    integrate_to(at);
  }
  current_w_ = rail_power_w;
  have_power_ = true;
}

void PowerCsv::on_advance(Time now) {
  // Every change at or before `now` has been reported: samples before it are settled.
  if (have_power_) emit_samples_before(now);
}

void PowerCsv::on_end(Time end) {
  end_ = end;
  ended_ = true;
}

void PowerCsv::write_tail(Time end) {
  if (!ended_) end_ = end;
  emit_samples_before(end_ + 1);  // t_k <= end
}

}  // namespace fulcrum::sim
