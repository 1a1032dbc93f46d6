#include "sim/app/calibrate.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <system_error>
#include <vector>

#include "models/device/device_catalog.hpp"
#include "models/error.hpp"
#include "models/perf/cross_mode_fit.hpp"
#include "models/perf/cross_mode_model.hpp"
#include "models/perf/profile_csv.hpp"
#include "models/workload/workload_catalog.hpp"
#include "sim/app/available.hpp"
#include "sim/config/calibration_loader.hpp"
#include "sim/config/cross_mode_loader.hpp"
#include "sim/config/workload_file_loader.hpp"
#include "sim/report/atomic_file.hpp"
#include "sim/report/number_format.hpp"
#include "sim/report/output_path.hpp"

namespace fulcrum::sim::app {

namespace {

// Where --out puts the calibration: a .yaml file as given, else <device><suffix>.yaml in the
// folder.
std::filesystem::path output_path(std::filesystem::path path, const std::string& device,
                                  const std::string& suffix) {
  if (path.extension() != ".yaml") path /= device + suffix + ".yaml";
  return path;
}

// --out checked before any work: a .yaml file by check_output_file, a folder by
// check_output_folder and then the file it gets.
// An existing file is replaced only when it is a calibration of the same kind (its first line is
// what calibrate writes first), never a scenario or another file of the user's.
void check_out(const std::filesystem::path& out, const std::string& device,
               const std::string& suffix, const std::vector<std::filesystem::path>& inputs) {
  if (out.extension() != ".yaml") check_output_folder(out, "--out", inputs);
  const std::string_view ours = suffix == "-modes"
                                    ? "# Cross-mode performance/power calibration"
                                    : "# Analytic performance/power model calibration";
  check_output_file(output_path(out, device, suffix), "--out", inputs, ours);
}

std::filesystem::path write_atomically(std::filesystem::path path, const std::string& device,
                                       const std::string& suffix, const std::string& text) {
  path = output_path(path, device, suffix);
  std::error_code ec;
  if (path.has_parent_path()) std::filesystem::create_directories(path.parent_path(), ec);
  AtomicFile file(path);  // a failed write never leaves a half calibration under the real name
  file.write(text);
  file.publish();
  return path;
}

bool same_point(const models::ModeRow& a, const models::ModeRow& b) {
  return a.workload == b.workload && a.phase == b.phase && a.batch_size == b.batch_size &&
         a.mode.cores == b.mode.cores && a.mode.cpu_khz == b.mode.cpu_khz &&
         a.mode.gpu_hz == b.mode.gpu_hz && a.mode.emc_hz == b.mode.emc_hz;
}

// The protocol: `count` random held-out rows per (workload, phase), the new model and the
// MAXN-fitted analytic model side by side.
std::string protocol_table(const models::DeviceSpec& device,
                           const models::CrossModeCalibration& cal,
                           const std::vector<models::ModeRow>& rows, std::uint64_t seed,
                           const std::string& data_dir) {
  const models::WorkloadCatalog& catalog = models::workload_catalog();
  const models::AnalyticModel old(load_calibration(calibration_path(data_dir, device.name)));
  std::set<models::WorkloadKey> keys;
  for (const auto& r : rows) keys.insert({r.workload, r.phase});
  std::string out =
      "Issue protocol (120 random held-out modes per training workload, 100 per inference "
      "workload):\n  workload phase                     old time %  old power %  new time %  new "
      "power %\n";
  for (const auto& key : keys) {
    const std::size_t count = key.second == models::Phase::training ? 120 : 100;
    const auto idx = models::sample_rows(rows, count, seed, [&](const models::ModeRow& r) {
      return r.workload == key.first && r.phase == key.second;
    });
    const auto sample = models::select(rows, idx);
    std::vector<double> ot, op;
    for (const auto& r : sample) {
      const models::Prediction p =
          old.predict({device, r.mode, catalog.get(r.workload), r.phase, r.batch_size});
      ot.push_back((p.time_ms * 1e-3 - r.time_s) / r.time_s * 100);
      op.push_back((p.power.module_w() - r.power_w) / r.power_w * 100);
    }
    const models::ErrorStats o = models::error_stats(ot, op);
    const models::ErrorStats n = models::evaluate_cross_mode(device, cal, sample, catalog).all;
    char line[200];
    std::snprintf(line, sizeof line, "  %-36s %10s %12s %11s %12s\n",
                  (key.first + " " + models::to_string(key.second)).c_str(),
                  fixed(o.time_mape_pct, 1).c_str(), fixed(o.power_mape_pct, 1).c_str(),
                  fixed(n.time_mape_pct, 1).c_str(), fixed(n.power_mape_pct, 1).c_str());
    out += line;
  }
  return out;
}

// The held-out time MAPE of the model beside that of nearest-neighbour interpolators fitted on
// the same rows (models::nearest_neighbour_errors), per workload and region: where
// the interpolators do no better than the model, the residual is scatter no function of the
// mode's settings follows (docs/MODEL.md "What the residuals say is missing").
std::string yardstick_table(const models::DeviceSpec& device, const models::ModeErrors& model,
                            const std::vector<models::ModeRow>& fit,
                            const std::vector<models::ModeRow>& rest) {
  // Nearest row; inverse-distance mean of 4; local planes through 16 and 32.
  std::vector<models::ModeErrors> nn;
  nn.push_back(models::nearest_neighbour_errors(device, fit, rest, 1));
  nn.push_back(models::nearest_neighbour_errors(device, fit, rest, 4));
  nn.push_back(models::nearest_neighbour_errors(device, fit, rest, 16, true));
  nn.push_back(models::nearest_neighbour_errors(device, fit, rest, 32, true));
  std::string out =
      "held-out time MAPE %, the model beside interpolators of the fitted rows of the same "
      "workload, phase and batch (nearest 1; inverse-distance mean of the nearest 4; local "
      "log-linear planes through the nearest 16 and 32):\n"
      "  group                                  rows   model   near 1  idw 4  plane 16  plane 32\n";
  const auto line = [&](const std::string& name, const models::ErrorStats& m,
                        const std::vector<double>& v) {
    char buf[200];
    std::snprintf(buf, sizeof buf, "  %-38s %5zu %7s %8s %6s %9s %9s\n", name.c_str(), m.rows,
                  fixed(m.time_mape_pct, 2).c_str(), fixed(v[0], 2).c_str(), fixed(v[1], 2).c_str(),
                  fixed(v[2], 2).c_str(), fixed(v[3], 2).c_str());
    out += buf;
  };
  const auto groups = [&](const std::vector<models::GroupErrors> models::ModeErrors::*member) {
    for (std::size_t g = 0; g < (model.*member).size(); ++g) {
      std::vector<double> v;
      for (const models::ModeErrors& e : nn) v.push_back((e.*member)[g].stats.time_mape_pct);
      line((model.*member)[g].group, (model.*member)[g].stats, v);
    }
  };
  std::vector<double> all;
  for (const models::ModeErrors& e : nn) all.push_back(e.all.time_mape_pct);
  line("all rows", model.all, all);
  groups(&models::ModeErrors::by_workload);
  groups(&models::ModeErrors::by_region);
  return out;
}

// The held-out errors again without the rows a higher GPU clock made faster than the clock
// ratio allows (flagged over every row, so a sweep split by the holdout is still whole).
std::string consistent_rows_table(const models::DeviceSpec& device,
                                  const std::vector<models::ModeRow>& all,
                                  const std::vector<std::size_t>& rest_idx,
                                  const std::vector<models::ModeRow>& rest,
                                  const models::ModeErrors& errors) {
  const std::vector<bool> flags = models::faster_than_gpu_clock_allows(all);
  std::vector<bool> drop(rest.size());
  for (std::size_t i = 0; i < rest.size(); ++i) drop[i] = flags[rest_idx[i]];
  const std::size_t flagged = static_cast<std::size_t>(std::count(drop.begin(), drop.end(), true));
  return models::to_table(
      models::errors_without(device, rest, errors, drop),
      "held-out MAPE without the " + std::to_string(flagged) + " of " +
          std::to_string(rest.size()) +
          " held-out rows that a higher GPU clock made faster than the clock ratio allows (by "
          "over 20%; docs/MODEL.md, \"Rows their own sweep contradicts\"):");
}

CalibrateReport calibrate_modes(const CalibrateRequest& rq, const models::DeviceSpec& device) {
  const models::WorkloadCatalog& catalog = models::workload_catalog();
  CalibrateReport report;
  report.device = device.name;
  std::ostringstream out;
  // Request errors before the (seconds-long) work.
  if ((rq.fit || rq.fit_sample) && !rq.workload) {
    throw InputError(std::nullopt, "fulcrum calibrate", "--fit and --fit-sample need --workload W");
  }
  if (rq.holdout && !(*rq.holdout > 0 && *rq.holdout < 1)) {
    throw InputError(std::nullopt, "fulcrum calibrate", "--holdout must be in (0, 1)");
  }
  if (rq.phase != "training" && rq.phase != "inference") {
    throw InputError(std::nullopt, "fulcrum calibrate", "--phase must be training or inference");
  }
  if (rq.fit && rq.fit_sample) {
    throw InputError(std::nullopt, "--fit-sample", "give either --fit or --fit-sample, not both");
  }
  if (rq.at && !rq.fit && !rq.fit_sample) {
    throw InputError(std::nullopt, "--at", "only with --fit or --fit-sample");
  }
  if (rq.zero_shot && rq.out && rq.workload) {
    throw InputError(std::nullopt, "--out",
                     "with --zero-shot the calibration records the check of every workload: "
                     "drop --workload to write it");
  }
  const std::uint64_t seed = rq.seed;
  models::CrossModeFitOptions fit_options;
  fit_options.threads = rq.jobs;
  // Every input is read and checked before the (minutes-long) fit: the profile CSVs, --out.
  std::vector<std::filesystem::path> inputs;
  if (rq.fit) inputs.push_back(*rq.fit);
  if (rq.at) inputs.push_back(*rq.at);
  if (rq.out) check_out(*rq.out, device.name, "-modes", inputs);
  // --workload names a catalog workload or a workload file (read and added to the catalog here,
  // as `profile --workloads FILE` does; a bad file is refused with its own location).
  std::optional<std::string> workload;
  if (rq.workload) {
    workload = names_workload_file(*rq.workload)
                   ? add_workload_file(*rq.workload)
                   : std::string(models::canonical_workload_name(*rq.workload));
    try {
      catalog.get(*workload);
    } catch (const InputError& e) {
      throw InputError(std::nullopt, "--workload", e.problem());
    }
  }
  std::optional<models::ProfileTable> fit_table, at_table;
  if (rq.fit) fit_table = models::read_profile_csv(rq.fit->string());
  if (rq.at) at_table = models::read_profile_csv(rq.at->string());
  const std::vector<models::ModeRow> all = read_cross_mode_reference(rq.reference.path, device);
  const models::Phase ph =
      rq.phase == "training" ? models::Phase::training : models::Phase::inference;
  if (rq.fit || rq.fit_sample) {
    const std::string w = *workload;
    std::vector<models::ModeRow> profile;
    std::vector<models::ModeRow> at_rows;
    if (fit_table) profile = models::mode_rows(*fit_table, device, w);
    if (at_table) at_rows = models::mode_rows(*at_table, device, w);
    if (fit_table && profile.empty()) {
      throw InputError(std::nullopt, "--fit",
                       "no rows of workload " + w + " in " + fit_table->source);
    }
    if (at_table && at_rows.empty()) {
      throw InputError(std::nullopt, "--at",
                       "no rows of workload " + w + " in " + at_table->source);
    }
    if (rq.fit_sample) {
      std::size_t available = 0;
      for (const auto& r : all) available += r.workload == w && r.phase == ph ? 1 : 0;
      const std::size_t k = *rq.fit_sample;
      // At least one row to fit and, without --at, one left to report on.
      const std::size_t most = at_table ? available : (available > 0 ? available - 1 : 0);
      if (k < 1 || k > most) {
        throw InputError(std::nullopt, "--fit-sample",
                         "expected 1 to " + std::to_string(most) + " (the reference has " +
                             std::to_string(available) + " " + rq.phase + " rows of " + w +
                             "), got " + std::to_string(k));
      }
    }
    // Each phase the profile holds is its own workload-phase: its rows fit its parameters (a
    // profile from `fulcrum profile` has both phases unless --phases chose one); --fit-sample
    // draws rows of --phase.
    std::vector<models::Phase> phases;
    for (const models::Phase p : {models::Phase::training, models::Phase::inference}) {
      bool profiled = !fit_table && p == ph;
      for (const auto& r : profile) profiled = profiled || r.phase == p;
      if (profiled) phases.push_back(p);
    }
    const auto fitted_phase = [&](models::Phase p) {
      return std::find(phases.begin(), phases.end(), p) != phases.end();
    };
    if (at_table && std::none_of(at_rows.begin(), at_rows.end(),
                                 [&](const models::ModeRow& r) { return fitted_phase(r.phase); })) {
      throw InputError(
          std::nullopt, "--at",
          "no rows of workload " + w + " in a phase that --fit fits, in " + at_table->source);
    }
    // The device's coefficients from every reference row of other workloads: W is new to it.
    std::vector<models::ModeRow> device_rows;
    for (const auto& r : all) {
      if (r.workload != w) device_rows.push_back(r);
    }
    const models::CrossModeFit device_fit =
        models::fit_cross_mode(device, device_rows, catalog, fit_options);
    if (!fit_table) {
      profile = models::select(
          all, models::sample_rows(all, *rq.fit_sample, seed, [&](const models::ModeRow& r) {
            return r.workload == w && r.phase == ph;
          }));
    }
    if (profile.empty()) {
      throw InputError(std::nullopt, "fulcrum calibrate", "no profiled rows of workload " + w);
    }
    models::CrossModeCalibration cal = device_fit.calibration;
    // The graph coefficients from the same rows: W's zero-shot parameters are where its fit
    // starts and what its prior holds it near (few-shot, docs/MODEL.md), and a workload nobody
    // profiled gets its parameters from them in the calibration written.
    cal.graph = models::fit_graph_coefficients(device, cal, device_rows, catalog);
    for (const models::Phase p : phases) {
      const models::WorkloadKey key{w, p};
      std::vector<models::ModeRow> rows;
      for (const auto& r : profile) {
        if (r.phase == p) rows.push_back(r);
      }
      cal.workloads.erase(key);
      const models::CrossModeWorkload start =
          models::zero_shot_parameters(device, cal, catalog.get(w), p, catalog);
      cal.workloads[key] = models::fit_workload(device, cal.device, key, rows, catalog, {}, start);
    }
    std::vector<models::ModeRow> rest;
    if (at_table) {
      for (const auto& r : at_rows) {
        if (fitted_phase(r.phase)) rest.push_back(r);
      }
    } else {
      for (const auto& r : all) {
        if (r.workload != w || !fitted_phase(r.phase)) continue;
        bool profiled = false;
        for (const auto& p : profile) profiled = profiled || same_point(p, r);
        if (!profiled) rest.push_back(r);
      }
    }
    if (rest.empty()) {
      throw InputError(std::nullopt, "--fit",
                       "no reference rows of " + w +
                           " are left to report on (pass --at CSV with rows to report on)");
    }
    const models::ModeErrors errors = models::evaluate_cross_mode(device, cal, rest, catalog);
    std::string phase_names;
    for (const models::Phase p : phases) {
      phase_names += std::string(phase_names.empty() ? "" : " and ") + models::to_string(p);
    }
    out << "new workload " << w << " " << phase_names << ": device fitted on " << device_rows.size()
        << " rows of other workloads, workload fitted on " << profile.size()
        << (profile.size() == 1 ? " profiled row\n" : " profiled rows\n");
    out << models::to_table(errors, "MAPE on " + std::to_string(rest.size()) + " other rows:");
    report.kind = "new-workload";
    report.fitted_rows = profile.size();
    report.evaluated_rows = rest.size();
    report.time_mape_pct = errors.all.time_mape_pct;
    report.power_mape_pct = errors.all.power_mape_pct;
    report.text = out.str();
    if (rq.out) {
      report.written = write_atomically(
          *rq.out, device.name, "-modes",
          cross_mode_calibration_text(cal, device_rows, "fulcrum calibrate --modes --fit"));
    }
    return report;
  }
  std::optional<models::ZeroShotCheck> check;  // with --zero-shot and --out
  if (rq.zero_shot) {
    const double share = *rq.zero_shot;
    if (!(share > 0 && share <= 1)) {
      throw InputError(std::nullopt, "fulcrum calibrate", "--zero-shot must be in (0, 1]");
    }
    const std::string only = workload.value_or(std::string());
    out << "zero-shot, leave one workload out (device fitted on " << fixed(share * 100, 0)
        << "% of the modes of the other workloads, seed " << seed << ")\n";
    models::ZeroShotOptions options;
    options.device_modes = share;
    options.seed = seed;
    if (!only.empty()) options.only = {only};
    options.few_shot_k = {10, 20, 50};
    options.draws = 10;
    options.own_fit = true;
    options.threads = rq.jobs;
    const auto started = std::chrono::steady_clock::now();
    if (rq.progress) {
      options.progress = [&](const std::string& left_out, std::size_t done, std::size_t total) {
        const double s =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
        rq.progress("zero-shot: " + left_out + " left out and predicted (" + std::to_string(done) +
                    " of " + std::to_string(total) + " workloads, " + fixed(s, 0) + " s)");
      };
    }
    const std::vector<models::ZeroShotResult> results =
        models::zero_shot_leave_one_out(device, all, catalog, options);
    for (const auto& r : results) {
      out << models::to_table(r.errors, r.key.first + " " + models::to_string(r.key.second) +
                                            " from its layer graph alone:");
      out << "  few-shot (k profiled rows refine the zero-shot parameters, held near them at a "
             "cross-validated weight; median of 10 draws):";
      for (const auto& p : r.few_shot) {
        out << "  k=" << p.k << " " << fixed(p.time_mape_pct, 2) << "% / "
            << fixed(p.power_mape_pct, 2) << "%";
      }
      out << "\n";
      if (r.own_fit) {
        out << "  own fit (these five parameters fitted on all these rows, the device as above: "
               "about the best zero-shot could do): "
            << fixed(r.own_fit->time_mape_pct, 2) << "% / " << fixed(r.own_fit->power_mape_pct, 2)
            << "%\n";
      }
    }
    if (!rq.out) {
      report.kind = "zero-shot";
      report.text = out.str();
      return report;
    }
    // With --out: the calibration fitted on every row, as without --zero-shot, records the check.
    check = models::zero_shot_check_of(results, options);
    if (rq.progress) rq.progress("zero-shot check done; fitting the device on every row");
  }
  if (rq.holdout && !check) {
    const double holdout = *rq.holdout;
    const auto [fit_idx, rest_idx] = models::split_modes(all, holdout, seed);
    const auto fit_rows = models::select(all, fit_idx);
    const auto rest = models::select(all, rest_idx);
    const models::CrossModeFit fit = models::fit_cross_mode(device, fit_rows, catalog, fit_options);
    const models::ModeErrors errors =
        models::evaluate_cross_mode(device, fit.calibration, rest, catalog);
    out << "fitted on " << fit_rows.size() << " rows (" << fixed((1 - holdout) * 100, 0)
        << "% of the modes, seed " << seed << "), " << fit.iterations << " iterations\n";
    out << models::to_table(errors, "held-out MAPE on " + std::to_string(rest.size()) + " rows:");
    out << yardstick_table(device, errors, fit_rows, rest);
    out << consistent_rows_table(device, all, rest_idx, rest, errors);
    out << protocol_table(device, fit.calibration, rest, seed, rq.data_dir);
    report.kind = "holdout";
    report.fitted_rows = fit_rows.size();
    report.evaluated_rows = rest.size();
    report.iterations = fit.iterations;
    report.time_mape_pct = errors.all.time_mape_pct;
    report.power_mape_pct = errors.all.power_mape_pct;
    report.text = out.str();
    return report;
  }
  models::CrossModeFit fit = models::fit_cross_mode(device, all, catalog, fit_options);
  fit.calibration.graph = models::fit_graph_coefficients(device, fit.calibration, all, catalog);
  fit.calibration.zero_shot_check = check;
  const models::ModeErrors errors =
      models::evaluate_cross_mode(device, fit.calibration, all, catalog);
  if (!rq.quiet) {
    out << "fitted on all " << all.size() << " rows, " << fit.iterations
        << " iterations (in-sample errors; --holdout gives held-out ones)\n";
    out << models::to_table(errors, "in-sample MAPE:");
  }
  report.kind = "modes";
  report.fitted_rows = all.size();
  report.evaluated_rows = all.size();
  report.in_sample = true;
  report.iterations = fit.iterations;
  report.time_mape_pct = errors.all.time_mape_pct;
  report.power_mape_pct = errors.all.power_mape_pct;
  report.text = out.str();
  if (rq.out) {
    // The command that regenerates the file, with the check's protocol where it records one.
    std::ostringstream command;
    command << "fulcrum calibrate --modes";
    if (check) command << " --zero-shot " << check->device_modes << " --seed " << check->seed;
    command << " --reference $FULCRUM_REFERENCE_DIR --out models/data/calibration/" << device.name
            << "-modes.yaml";
    report.written =
        write_atomically(*rq.out, device.name, "-modes",
                         cross_mode_calibration_text(fit.calibration, all, command.str()));
  }
  return report;
}

}  // namespace

CalibrateReport calibrate(const CalibrateRequest& rq) {
  if (std::error_code ec; !std::filesystem::is_directory(rq.reference.path, ec)) {
    throw InputError(std::nullopt, "fulcrum calibrate",
                     "reference folder '" + rq.reference.path + "' not found (" +
                         rq.reference.chosen_by +
                         "); pass --reference DIR naming the folder with the reference "
                         "measurements");
  }
  const models::DeviceCatalog catalog = devices_from(rq.data_dir);
  const models::DeviceSpec& device = catalog.get(rq.device);
  if (rq.modes) return calibrate_modes(rq, device);
  if (rq.out) check_out(*rq.out, device.name, "", {});
  const CalibrationReport fitted = calibrate_from_reference(rq.reference.path, device);
  CalibrateReport report;
  report.kind = "reference";
  report.device = device.name;
  report.fitted_rows =
      static_cast<std::size_t>(fitted.result.time_anchors + fitted.result.power_anchors);
  report.evaluated_rows = report.fitted_rows;
  report.in_sample = true;
  report.time_mape_pct = fitted.result.time_mape_pct;
  report.power_mape_pct = fitted.result.power_mape_pct;
  if (!rq.quiet) report.text = fitted.table;
  if (rq.out) report.written = write_atomically(*rq.out, device.name, "", fitted.yaml);
  return report;
}

}  // namespace fulcrum::sim::app
