#include "sim/app/scenario_run.hpp"

#include <chrono>
#include <memory>
#include <sstream>
#include <utility>

#include "backends/hardware/power_meter.hpp"
#include "backends/hardware/settled_idle.hpp"
#include "sim/app/profiling.hpp"
#include "sim/app/run_meter.hpp"
#include "sim/report/number_format.hpp"
#include "sim/report/result_folder.hpp"
#include "sim/report/summary.hpp"

namespace fulcrum::sim::app {

RunReport run_scenario(const RunRequest& request, std::ostream* notes, ProgressFn progress) {
  RunPlan plan = RunPlan::load(request.plan);
  if (request.policy) plan.set_policy(request.policy);
  if (request.on_warning) {
    for (const std::string& w : plan.warnings()) request.on_warning(w);
  }
  const std::filesystem::path out_dir =
      request.out_dir ? *request.out_dir : std::filesystem::path("out") / plan.scenario().name;
  ResultFolder::Options folder_options;
  folder_options.wait = request.wait;
  if (notes != nullptr) {
    folder_options.on_wait = [notes, &out_dir](std::optional<long> holder) {
      *notes << "fulcrum: waiting for another run"
             << (holder ? " (pid " + std::to_string(*holder) + ")" : std::string()) << " to finish "
             << out_dir.string() << "\n"
             << std::flush;
    };
  }
  ResultFolder folder(out_dir, std::move(folder_options));
  if (notes != nullptr) {
    *notes << "fulcrum: running " << plan.scenario().name << " (" << plan.scenario().duration_s
           << (plan.backend().runs_in_real_time() ? " s in real time" : " s simulated") << ") on "
           << plan.device().name << " at " << power_mode_label(plan.mode()) << "\n";
  }
  // A hardware run also writes device.json: what measured it (GPU, driver, clocks read back, the
  // power meter and its interval) and the meter over the whole run.
  const bool hardware = plan.backend().is_measured();
  const models::DeviceSpec& device = plan.device();
  std::unique_ptr<backends::ClockControl> clocks;
  std::optional<RunMeter> run_meter;
  RunPlan::ExtraOutputs extra;
  if (hardware) {
    std::ostringstream discard;
    clocks = make_clock_control(ClockOptions{}, true, notes ? *notes : discard);  // reads only
    if (notes != nullptr) {
      const auto most = std::chrono::duration<double>(backends::IdleSettleOptions{}.max_settle);
      *notes << "fulcrum: metering the device's idle power first (until it settles, at most "
             << fixed(most.count(), 0) << " s)\n";
    }
    // The baseload, metered before the run's own meter starts (the backend keeps it).
    (void)plan.backend().idle_power(plan.mode());
    run_meter.emplace(plan, backends::PowerMeterOptions{.summed_rails = device.rails}, notes);
    extra = [&](const std::filesystem::path& staging) {
      write_file_atomically(staging / "device.json",
                            device_json(device, request.plan.backend.name, true, clocks.get(),
                                        ClockOptions{}, 0, run_meter->reading()));
      return std::vector<std::string>{"device.json"};
    };
  }
  ScenarioRun run = std::move(plan).run(folder, request.command_line, std::move(progress), extra);
  return RunReport{std::move(run), out_dir};
}

}  // namespace fulcrum::sim::app
