// PowerCsv: power.csv, the power time series sampled like jtop. Power is piecewise constant
// (on_power: "from `at` on"); row k is the instantaneous power at t_k = k * period, for k = 0, 1,
// ... while t_k <= the run's end. A change exactly at t_k is seen by that sample (the new value
// wins: power is right-continuous), and of several changes at one time the last one wins.
// Instantaneous samples alias against any periodic load (a batch every 160 ms sampled every 1 s),
// so each row also holds the window average: the energy over the sampling period that ends at
// t_k, (t_k - period, t_k], divided by the period; row 0 ends no window and leaves those cells
// empty. The window averages of rows 1..K cover [0, t_K] exactly: their mean is the true average
// power over it.
// Columns: time_s,<rail>_w...,module_w,<rail>_avg_w...,module_avg_w (module = sum of rails).
// Samples are written as soon as they are settled: at the next change, and as the run advances
// (on_advance), so a long stretch of constant power is written during the run, not at its end.
#pragma once

#include <string>
#include <vector>

#include "sim/report/file_observer.hpp"

namespace fulcrum::sim {

class PowerCsv final : public FileObserver {
 public:
  // `period` > 0; `end` is the sampling horizon unless on_end() reports another.
  PowerCsv(std::filesystem::path final_path, std::vector<std::string> rails, Time period, Time end);

  void on_power(Time at, const std::vector<double>& rail_power_w) override;
  void on_advance(Time now) override;
  void on_end(Time end) override;

  // "time_s,VDD_GPU_SOC_w,...,module_w,VDD_GPU_SOC_avg_w,...,module_avg_w\n"
  static std::string header(const std::vector<std::string>& rails);

 private:
  void write_tail(Time end) override;
  void emit_samples_before(Time limit);  // every pending sample with t_k < limit, current power
  void integrate_to(Time t);             // adds the current power from integrated_to_ to t

  std::vector<std::string> rails_;
  Time period_;
  Time end_;
  bool ended_ = false;
  std::int64_t next_k_ = 0;
  bool have_power_ = false;
  std::vector<double> current_w_;
  Time integrated_to_ = 0;               // window_energy_j_ holds the energy up to here
  std::vector<double> window_energy_j_;  // per rail, since the last sample time
};

}  // namespace fulcrum::sim
