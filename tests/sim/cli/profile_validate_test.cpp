// `fulcrum profile` and `fulcrum validate` on the simulated backend: the profile CSV reads back
// into the table model and reproduces the deterministic model it measured; clock control through
// the verbs against a fake Jetson tree (dry run, changes restored, restored on SIGTERM); the
// validation bundle end to end in wall-clock time; the comparison's arithmetic.
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <thread>

#include "models/device/power_mode_resolver.hpp"
#include "models/error.hpp"
#include "models/perf/profile_csv.hpp"
#include "models/perf/table_model.hpp"
#include "models/workload/workload_catalog.hpp"
#include "sim/app/profiling.hpp"
#include "sim/cli/cli.hpp"
#include "sim/cli/verb_support.hpp"
#include "sim/config/data_dirs.hpp"
#include "sim/config/perf_model_loader.hpp"
#include "sim/report/summary.hpp"
#include "sim/report/validation_report.hpp"
#include "tests/backends/hardware/fake_sysfs.hpp"
#include "tests/input_error.hpp"
#include "tests/sim/report/json_check.hpp"
#include "tests/temp_dir.hpp"

using namespace fulcrum;
using namespace fulcrum::sim;
using namespace fulcrum::sim::app;
using fulcrum::testing::dump_tree;
using fulcrum::testing::TempDir;

using fulcrum::sim::testing::parse_json;

namespace {

int cli(const std::vector<std::string>& args, std::string* err_text = nullptr) {
  std::ostringstream out, err;
  const int rc = run_cli(args, out, err);
  if (err_text != nullptr) *err_text = err.str();
  return rc;
}

using fulcrum::testing::slurp;

// The error_pct of the first row of `metric` ("p50_latency_ms") in a comparison.json;
// nullopt when the metric is not there.
std::optional<double> error_pct_of(const std::string& comparison_json, const std::string& metric) {
  const fulcrum::sim::testing::JsonValue c = parse_json(comparison_json);
  for (const auto& row : c.at("metrics").items) {
    if (row.at("metric").text == metric) return row.at("error_pct").number;
  }
  return std::nullopt;
}

}  // namespace

TEST_CASE("profile refuses, before measuring, what its own reader would refuse in the CSV") {
  TempDir dir;
  const std::string csv = (dir.path() / "p.csv").string();
  const auto refusal = [&](std::vector<std::string> extra) -> std::string {
    std::vector<std::string> args{"profile", "--repeats", "1", "--out", csv, "--quiet"};
    args.insert(args.end(), extra.begin(), extra.end());
    try {
      cli(args);
    } catch (const InputError& e) {
      return e.what();
    }
    return "no error";
  };
  CHECK(refusal({"--workloads", "resnet50,lstm,resnet50"}) ==
        "--workloads: 'resnet50' is listed twice");
  CHECK(refusal({"--workloads", "resnet50", "--dataset", "gld,23k"}) ==
        "--dataset: 'gld,23k' holds a comma or a line break, which no CSV cell can");
  CHECK(refusal({"--workloads", "resnet50", "--dataset", "a\nb"}) ==
        "--dataset: 'a\\x0ab' holds a comma or a line break, which no CSV cell can");
  CHECK(refusal({"--workloads", "resnet50", "--batch-sizes", "16,100000"}) ==
        "--batch-sizes: expected batch sizes in 1..65536, found 100000");
  CHECK_FALSE(std::filesystem::exists(csv));
}

TEST_CASE("profile writes the measurement CSV, which reproduces the model it measured") {
  TempDir dir;
  // A folder that does not exist yet is made, as `run --out` does.
  const std::string csv = (dir.path() / "new" / "p.csv").string();
  REQUIRE(cli({"profile", "--workloads", "resnet50", "--batch-sizes", "1,16", "--modes",
               "MAXN,MODE_30W", "--repeats", "3", "--out", csv, "--quiet"}) == 0);
  const models::ProfileTable table = models::read_profile_csv(csv);
  REQUIRE(table.rows.size() == 8);  // 2 phases x 2 batch sizes x 2 modes
  CHECK(table.rail_names == std::vector<std::string>{"VDD_GPU_SOC", "VDD_CPU_CV", "VIN_SYS_5V0"});
  CHECK(slurp(csv).find("model,dataset,phase,minibatch_size,cores,cpu_freq_khz,gpu_freq_hz,"
                        "mem_freq_hz,minibatch_time_ms,power_w,VDD_GPU_SOC_w") !=
        std::string::npos);
  // The simulated backend is deterministic: the median of its minibatches is its prediction.
  const models::DeviceCatalog devices = devices_from(default_data_dir());
  const models::DeviceSpec& orin = devices.get("orin-agx-64gb");
  const auto analytic = load_perf_model(AnalyticPerfModel{}, default_data_dir(), orin);
  models::TableModel measured;
  measured.add_profiles(table);
  const models::Workload& resnet = models::workload_catalog().get("resnet50");
  for (const char* preset : {"MAXN", "MODE_30W"}) {
    const models::PowerMode mode = models::resolve_preset(orin, preset);
    for (models::Phase phase : {models::Phase::training, models::Phase::inference}) {
      const models::PerfQuery q{orin, mode, resnet, phase, 16};
      const models::Prediction a = analytic->predict(q);
      const models::Prediction t = measured.predict(q);
      CHECK(t.provenance == models::Provenance::measured);
      CHECK(t.time_ms == Approx(a.time_ms).epsilon(1e-6));
      CHECK(t.power.module_w() == Approx(a.power.module_w()).epsilon(1e-6));
    }
  }
}

TEST_CASE("profile refuses bad options with one line naming the option") {
  TempDir dir;
  const std::string out = (dir.path() / "p.csv").string();
  const auto key_of = [&](std::vector<std::string> args) {
    args.insert(args.begin(), "profile");
    args.insert(args.end(), {"--out", out});
    return fulcrum::testing::error_of([&] { cli(args); }).key_path();
  };
  CHECK(key_of({"--workloads", "resnet5"}) == "--workloads");
  CHECK(key_of({"--workloads", "resnet50", "--modes", "MAXN,TURBO"}) == "--modes");
  CHECK(key_of({"--workloads", "resnet50", "--modes", "8/1497.6/fast/2133"}) == "--modes");
  CHECK(key_of({"--workloads", "resnet50", "--batch-sizes", "0"}) == "--batch-sizes");
  CHECK(key_of({"--workloads", "resnet50", "--repeats", "0"}) == "--repeats");
  CHECK(key_of({"--workloads", "resnet50", "--clocks", "x86"}) == "--clocks");
  CHECK_FALSE(std::filesystem::exists(out));
}

TEST_CASE(
    "the backend flags (--cuda-graphs, --profile-layers) parse for run, profile and validate") {
  namespace po = boost::program_options;
  po::options_description options;
  add_backend_flag_options(options);
  const auto flags_of = [&](const std::vector<std::string>& args, const std::string& backend) {
    return backend_flags_from(parse_verb("run", args, options), backend);
  };
  const BackendFlags none = flags_of({}, "cuda");
  CHECK_FALSE(none.cuda_graphs);
  CHECK_FALSE(none.profile_layers);
  CHECK(flags_of({"--cuda-graphs"}, "cuda").cuda_graphs);
  const BackendFlags layers = flags_of({"--profile-layers"}, "cuda");
  CHECK(layers.profile_layers);
  CHECK_FALSE(layers.cuda_graphs);
  CHECK(fulcrum::testing::error_of([&] { flags_of({"--cuda-graphs"}, "sim"); }).key_path() ==
        "--cuda-graphs");
  CHECK(fulcrum::testing::error_of([&] {
          flags_of({"--cuda-graphs", "--profile-layers"}, "cuda");
        }).key_path() == "--profile-layers");
  // Each verb lists them in its help and refuses them (InputError: exit 2) on a backend without
  // them, before writing anything.
  TempDir dir;
  const std::string scenario = "scenarios/quickstart.yaml";
  for (const std::vector<std::string>& verb :
       {std::vector<std::string>{"run", scenario, "--out", (dir.path() / "r").string()},
        std::vector<std::string>{"profile", "--workloads", "resnet50", "--out",
                                 (dir.path() / "p.csv").string()},
        std::vector<std::string>{"validate", scenario, "--out", (dir.path() / "v").string()}}) {
    std::ostringstream help, err;
    run_cli({verb[0], "--help"}, help, err);
    CHECK(help.str().find("--cuda-graphs") != std::string::npos);
    CHECK(help.str().find("--profile-layers") != std::string::npos);
    for (const char* flag : {"--cuda-graphs", "--profile-layers"}) {
      std::vector<std::string> args = verb;
      args.push_back(flag);
      CHECK(fulcrum::testing::error_of([&] { cli(args); }).key_path() == flag);
    }
  }
  CHECK(std::filesystem::is_empty(dir.path()));
}

TEST_CASE("the per-layer times of a profile are a CSV beside it, a row per layer") {
  backends::ProfileMeasurement timed;
  timed.workload = "resnet50";
  timed.phase = models::Phase::training;
  timed.batch_size = 16;
  timed.mode.gpu_hz = 1.98e9;
  timed.layer_times = {{"conv1", 1.5, 2.25}, {"fc", 0.125, 0.5}};
  backends::ProfileMeasurement untimed = timed;
  untimed.layer_times.clear();
  CHECK(layer_times_csv_text({timed, untimed}) ==
        "model,phase,minibatch_size,gpu_freq_hz,layer,forward_ms,backward_ms\n"
        "resnet50,train,16,1980000000,conv1,1.5,2.25\n"
        "resnet50,train,16,1980000000,fc,0.125,0.5\n");
  CHECK(layer_times_path("out/h100.csv") == std::filesystem::path("out/h100-layers.csv"));
  CHECK(layer_times_path("profile") == std::filesystem::path("profile-layers"));
}

TEST_CASE("parse_modes takes presets, custom modes snapped to the tables, and grids") {
  const models::DeviceCatalog devices = devices_from(default_data_dir());
  const models::DeviceSpec& orin = devices.get("orin-agx-64gb");
  const auto modes = parse_modes("MAXN, 8/1497.6/828.75/2133, MAXN", orin);
  REQUIRE(modes.size() == 2);
  CHECK(modes[1].cores == 8);
  CHECK(modes[1].gpu_hz == 828750000);
  CHECK(modes[1].emc_hz == 2133000000);
  if (!orin.grids.empty()) {
    CHECK(parse_modes("grid:" + orin.grids.front().name, orin).size() == orin.grids.front().size());
  }
}

TEST_CASE("profile with Jetson clocks: a dry run writes no clock, an allowed run restores them") {
  TempDir sysfs, state;
  fulcrum::testing::write_orin_clocks(sysfs);
  const auto before = dump_tree(sysfs.path());
  const std::string snapshot = (state.path() / "snap.txt").string();
  const std::vector<std::string> base = {"profile",
                                         "--workloads",
                                         "resnet50",
                                         "--phases",
                                         "inference",
                                         "--modes",
                                         "MODE_30W,MAXN",
                                         "--repeats",
                                         "1",
                                         "--clocks",
                                         "jetson",
                                         "--sysfs-root",
                                         sysfs.path().string(),
                                         "--clock-snapshot",
                                         snapshot,
                                         "--out",
                                         (state.path() / "p.csv").string(),
                                         "--quiet"};
  REQUIRE(cli(base) == 0);
  CHECK(dump_tree(sysfs.path()) == before);
  std::vector<std::string> allowed = base;
  allowed.push_back("--allow-clock-changes");
  REQUIRE(cli(allowed) == 0);
  CHECK(dump_tree(sysfs.path()) == before);
  CHECK_FALSE(std::filesystem::exists(snapshot));
  CHECK(models::read_profile_csv((state.path() / "p.csv").string()).rows.size() == 2);
}

TEST_CASE("SIGTERM during a profile that changed clocks restores them and writes nothing",
          "[wall]") {
  TempDir sysfs, state;
  fulcrum::testing::write_orin_clocks(sysfs);
  const auto before = dump_tree(sysfs.path());
  const std::string snapshot = (state.path() / "snap.txt").string();
  const std::string out = (state.path() / "p.csv").string();
  const pid_t child = fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    const int null = ::open("/dev/null", O_WRONLY);
    dup2(null, 1);
    dup2(null, 2);
    // Each minibatch takes its real time (clock wall), 10000 of them: far longer than the test.
    execl(FULCRUM_BINARY, FULCRUM_BINARY, "profile", "--workloads", "resnet50", "--phases",
          "inference", "--modes", "MODE_30W", "--repeats", "10000", "--clock", "wall", "--clocks",
          "jetson", "--allow-clock-changes", "--sysfs-root", sysfs.path().c_str(),
          "--clock-snapshot", snapshot.c_str(), "--out", out.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  // The snapshot file appears just before the first clock write.
  for (int i = 0; i < 400 && !std::filesystem::exists(snapshot); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(25));
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  CHECK(dump_tree(sysfs.path()) != before);  // MODE_30W is set
  ::kill(child, SIGTERM);
  int status = 0;
  REQUIRE(waitpid(child, &status, 0) == child);
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 128 + SIGTERM);
  CHECK(dump_tree(sysfs.path()) == before);
  CHECK_FALSE(std::filesystem::exists(snapshot));
  CHECK_FALSE(std::filesystem::exists(out));
}

TEST_CASE("validate on the simulated backend writes a complete bundle, with small errors",
          "[wall]") {
  TempDir dir;
  const std::filesystem::path bundle = dir.path() / "bundle";
  REQUIRE(cli({"validate", "scenarios/quickstart.yaml", "--duration-s", "2", "--noise", "0",
               "--repeats", "3", "--out", bundle.string(), "--quiet"}) == 0);
  for (const char* f : {"inputs/scenario.yaml", "inputs/profile.csv", "inputs/command.txt",
                        "simulated/summary.json", "measured/summary.json", "measured/run.json",
                        "device.json", "comparison.json", "comparison.md"}) {
    INFO(f);
    CHECK(std::filesystem::is_regular_file(bundle / f));
  }
  const std::string md = slurp(bundle / "comparison.md");
  CHECK(md.find("| stream resnet50 | p99_latency_ms |") != std::string::npos);
  CHECK(md.find("| training | samples_per_s |") != std::string::npos);
  CHECK(parse_json(slurp(bundle / "simulated/summary.json")).at("perf_model").text == "table");
  CHECK(parse_json(slurp(bundle / "device.json")).at("sm_count").number == 16);
  // Without noise the profile is the model itself at the scenario's points, so the table
  // simulation and the wall-clock run differ only by how late the wall clock ran. Lateness only
  // adds: the simulation is never well above what ran, whatever the load. (How far below it
  // falls depends on the machine's load -- 30-55% with two busy loops on two cores -- so that
  // is no test's bound.)
  const std::optional<double> p50_error =
      error_pct_of(slurp(bundle / "comparison.json"), "p50_latency_ms");
  REQUIRE(p50_error.has_value());
  CHECK(*p50_error < 10);
}

TEST_CASE("validate refuses a folder that is not a bundle and leaves it alone") {
  TempDir dir;
  dir.write("mine/notes.txt", "keep me\n");
  const InputError e = fulcrum::testing::error_of([&] {
    cli({"validate", "scenarios/quickstart.yaml", "--duration-s", "1", "--out",
         (dir.path() / "mine").string(), "--quiet"});
  });
  CHECK(e.key_path() == "--out");
  CHECK(slurp(dir.path() / "mine/notes.txt") == "keep me\n");
}

TEST_CASE("the comparison's errors are in % of the measured value, streams matched by name") {
  CHECK(error_pct(110, 100) == Approx(10));
  CHECK(error_pct(90, 100) == Approx(-10));
  CHECK_FALSE(error_pct(1, 0).has_value());
  CHECK_FALSE(error_pct(std::nullopt, 3).has_value());
  RunResult sim, real;
  StreamResult a;
  a.name = "a";
  a.throughput_per_s = 50;
  a.latency = LatencyStats{10, 12, 14, 16, 20};
  sim.inference.push_back(a);
  a.throughput_per_s = 40;
  a.latency = LatencyStats{8, 10, 14, 20, 25};
  real.inference.push_back(a);
  sim.power.avg_w = 30;
  real.power.avg_w = 40;
  const Comparison c = compare_runs(sim, real);
  REQUIRE(c.metrics.size() == 7);  // 5 for the stream, 2 for power, none for training
  CHECK(c.metrics[1].metric == "p50_latency_ms");
  CHECK(*c.metrics[1].error_pct == Approx(20));   // 12 vs 10
  CHECK(*c.metrics[2].error_pct == Approx(-20));  // p99 16 vs 20
  CHECK(*c.metrics[4].error_pct == Approx(25));   // throughput 50 vs 40
  CHECK(*c.metrics[5].error_pct == Approx(-25));  // power 30 vs 40
  CHECK(*c.max_abs_latency_throughput_error_pct == Approx(20));
  CHECK(*c.max_abs_error_pct == Approx(25));
}

TEST_CASE("with a whole-run device meter the comparison adds labelled meter rows") {
  RunResult sim, real;
  sim.power.avg_w = 340;
  sim.power.energy_j = 10200;
  real.power.avg_w = 190;
  real.power.energy_j = 5700;
  const Comparison without = compare_runs(sim, real);
  REQUIRE(without.metrics.size() == 2);  // the run's own power and energy only
  CHECK_FALSE(without.device_meter.has_value());
  CHECK(parse_json(comparison_json(without)).at("device_meter").kind ==
        fulcrum::sim::testing::JsonValue::Kind::null);
  CHECK(comparison_markdown(without, "s", "cuda").find("device meter") == std::string::npos);

  const Comparison c = compare_runs(sim, real, DeviceMeterReading{32, 6400, 200});
  REQUIRE(c.metrics.size() == 4);
  // The existing rows stay first and unchanged.
  CHECK(c.metrics[0].metric == "avg_power_w");
  CHECK(*c.metrics[0].measured == Approx(190));
  CHECK(c.metrics[1].metric == "energy_j");
  CHECK(*c.metrics[1].measured == Approx(5700));
  CHECK(c.metrics[2].scope == "power");
  CHECK(c.metrics[2].metric == "avg_power_w (device meter)");
  CHECK(*c.metrics[2].simulated == Approx(340));
  CHECK(*c.metrics[2].measured == Approx(200));
  CHECK(*c.metrics[2].error_pct == Approx(70));  // 340 vs 200
  CHECK(c.metrics[3].metric == "energy_j (device meter)");
  CHECK(*c.metrics[3].simulated == Approx(10200));
  CHECK(*c.metrics[3].measured == Approx(6400));
  CHECK(*c.metrics[3].error_pct == Approx(59.375));             // 10200 vs 6400
  CHECK(*c.max_abs_error_pct == Approx(78.947).epsilon(1e-4));  // the run's own rows, 340 vs 190

  const fulcrum::sim::testing::JsonValue json = parse_json(comparison_json(c));
  REQUIRE(json.at("metrics").items.size() == 4);
  CHECK(json.at("metrics").items[3].at("metric").text == "energy_j (device meter)");
  CHECK(json.at("metrics").items[3].at("measured").number == Approx(6400));
  CHECK(json.path("device_meter.duration_s").number == 32);
  const std::string md = comparison_markdown(c, "quickstart", "cuda");
  CHECK(md.find("| power | avg_power_w | 340 | 190 | 78.95 % |") != std::string::npos);
  CHECK(md.find("| power | avg_power_w (device meter) | 340 | 200 | 70 % |") != std::string::npos);
  CHECK(md.find("| power | energy_j (device meter) | 10200 | 6400 | 59.38 % |") !=
        std::string::npos);
  CHECK(md.find("device's own meter over the whole measured run (32 s, 6400 J, 200 W)") !=
        std::string::npos);
}

TEST_CASE("validate runs native sharing with a device context per workload, time-sliced",
          "[wall]") {
  TempDir dir;
  const std::filesystem::path bundle = dir.path() / "bundle";
  // The emulated device time-slices its contexts with the scenario's own slice and switch cost;
  // without noise the comparison then tests the concurrent wall-clock path against the fluid
  // model of the same slicing.
  REQUIRE(cli({"validate", "scenarios/native.yaml", "--duration-s", "3", "--noise", "0",
               "--repeats", "3", "--out", bundle.string(), "--quiet"}) == 0);
  // The emulated device sleeps at least each slice it is given, so real time can only stretch
  // the measured latencies: the simulation is never well above them. Below them it falls by as
  // much as the machine is loaded (within 10% on an idle machine, 30-55% with two busy loops on
  // two cores), so only the bound that holds under load is tested.
  const std::string json = slurp(bundle / "comparison.json");
  for (const char* metric : {"p50_latency_ms", "p99_latency_ms"}) {
    INFO(metric);
    const std::optional<double> error = error_pct_of(json, metric);
    REQUIRE(error.has_value());
    CHECK(*error < 10);
  }
  CHECK(parse_json(slurp(bundle / "measured/summary.json")).at("gpu_sharing").text == "native");
}

TEST_CASE("on hardware whose clocks cannot change, only the current mode is measured, and why") {
  TempDir sysfs, state;
  fulcrum::testing::write_orin_clocks(sysfs);  // at MAXN
  const models::DeviceCatalog devices = devices_from(default_data_dir());
  const models::DeviceSpec& orin = devices.get("orin-agx-64gb");
  std::ostringstream notes;
  const auto clocks = make_clock_control({.clocks = "auto",
                                          .allow_changes = false,
                                          .sysfs_root = sysfs.path().string(),
                                          .snapshot_file = (state.path() / "s.txt").string()},
                                         true, notes);
  REQUIRE(clocks != nullptr);
  CHECK_FALSE(clocks->can_change());
  const std::vector<models::PowerMode> modes = measurable_modes(
      {models::resolve_preset(orin, "MODE_15W"), models::resolve_preset(orin, "MODE_30W")}, true,
      clocks.get(), orin, notes);
  REQUIRE(modes.size() == 1);
  CHECK(modes[0].cores == 12);
  CHECK(modes[0].gpu_hz == 1300500000);
  const std::string text = notes.str();
  CHECK(text.find("profiling the current mode only") != std::string::npos);
  CHECK(text.find("from the clocks read back") != std::string::npos);
  CHECK(text.find("--allow-clock-changes") != std::string::npos);
  CHECK(text.find("dry run: 4c/1113.6/318.75/2133 MHz would write") != std::string::npos);
  CHECK(text.find("gates TPCs (3 of 8 on)") != std::string::npos);  // MODE_15W, nvpmodel's job
  // The simulated backend takes every mode, whatever the clocks.
  std::ostringstream quiet;
  CHECK(
      measurable_modes({models::resolve_preset(orin, "MODE_15W")}, false, clocks.get(), orin, quiet)
          .size() == 1);
  CHECK(quiet.str().empty());
  // Not a Jetson: read-only clocks, and the device's default mode.
  std::ostringstream other;
  const auto read_only = make_clock_control({.sysfs_root = state.path().string()}, true, other);
  const auto current =
      measurable_modes({models::resolve_preset(orin, "MAXN")}, true, read_only.get(), orin, other);
  CHECK(current == std::vector<models::PowerMode>{models::default_mode(orin)});
  CHECK(other.str().find("the device's default mode") != std::string::npos);
}

TEST_CASE("a profile's idle rows are read back as the table model's baseload") {
  const models::PowerMode mode{12, 2201600, 1300500000, 3199000000, 8};
  backends::ProfileMeasurement m;
  m.workload = "resnet50";
  m.phase = models::Phase::inference;
  m.batch_size = 16;
  m.mode = mode;
  m.time_ms = 60;
  m.power_w = 40;
  m.rail_power_w = {20, 10, 10};
  const std::vector<IdleMeasurement> idle = {{mode, models::RailPower{{9, 4, 5}}}};
  const std::string text =
      profile_csv_text({m}, {"VDD_GPU_SOC", "VDD_CPU_CV", "VIN_SYS_5V0"}, {"test"}, "random", idle);
  CHECK(text.find(",random,idle,0,12,2201600,1300500000,3199000000,,18,9,4,5\n") !=
        std::string::npos);
  std::istringstream in(text);
  const models::ProfileTable table = models::parse_profile_csv(in, "idle.csv");
  REQUIRE(table.rows.size() == 2);
  CHECK(table.rows[1].phase == models::ProfilePhase::idle);
  CHECK(table.rows[1].power_w == Approx(18));
}

namespace {

// A real-time backend whose idle power was metered as scripted (settled or not).
class MeteredIdleBackend final : public backends::Backend {
 public:
  explicit MeteredIdleBackend(backends::IdleMetering metering) : metering_(std::move(metering)) {
    device_.name = "gpu";
    device_.rails = {"GPU"};
  }
  const models::DeviceSpec& device() const override { return device_; }
  const backends::Completion& execute(const backends::WorkItem&) override { return done_; }
  models::RailPower idle_power(const models::PowerMode&) override {
    asked_ = true;
    return {{metering_.power_w}};
  }
  std::optional<backends::IdleMetering> idle_metering() const override {
    if (!asked_) return std::nullopt;
    return metering_;
  }
  bool runs_in_real_time() const override { return true; }

 private:
  models::DeviceSpec device_;
  backends::IdleMetering metering_;
  backends::Completion done_;
  bool asked_ = false;
};

}  // namespace

TEST_CASE("a metered idle row says in the profile's comments how it settled, and on stderr") {
  const models::PowerMode mode{12, 2201600, 1300500000, 3199000000, 8};
  MeteredIdleBackend settled({.settled = true,
                              .windows = 5,
                              .metered_s = 2.5,
                              .power_w = 71,
                              .note = "idle metered after settling: 5 windows, 2.5 s; idle 71 W"});
  std::ostringstream notes;
  const std::vector<IdleMeasurement> idle = measure_idle(settled, {mode}, &notes);
  REQUIRE(idle.size() == 1);
  REQUIRE(idle[0].metering.has_value());
  CHECK(idle[0].metering->settled);
  CHECK(idle[0].power.module_w() == Approx(71));
  CHECK(notes.str() == "fulcrum: idle metered after settling: 5 windows, 2.5 s; idle 71 W\n");
  const std::string text = profile_csv_text({}, {"GPU"}, {"test"}, "random", idle);
  CHECK(text.rfind("# test\n# idle at " + power_mode_label(mode) +
                       ": idle metered after settling: 5 windows, 2.5 s; idle 71 W\n"
                       "model,dataset,",
                   0) == 0);
  // The comments do not disturb reading the idle row back.
  std::istringstream in(text);
  const models::ProfileTable table = models::parse_profile_csv(in, "idle.csv");
  REQUIRE(table.rows.size() == 1);
  CHECK(table.rows[0].power_w == Approx(71));

  MeteredIdleBackend unsettled({.settled = false,
                                .windows = 30,
                                .metered_s = 15,
                                .power_w = 150,
                                .note = "idle did not settle within 15.0 s"});
  std::ostringstream warn;
  const std::vector<IdleMeasurement> late = measure_idle(unsettled, {mode}, &warn);
  CHECK_FALSE(late[0].metering->settled);
  CHECK(warn.str() == "fulcrum: warning: idle did not settle within 15.0 s\n");
  CHECK(profile_csv_text({}, {"GPU"}, {}, "random", late)
            .find("# idle at " + power_mode_label(mode) +
                  ": idle did not settle within 15.0 s\n") != std::string::npos);

  // A prediction is not metered: no note, no comment.
  std::ostringstream none;
  const std::vector<IdleMeasurement> plain = {{mode, models::RailPower{{5}}}};
  CHECK(profile_csv_text({}, {"GPU"}, {}, "random", plain).rfind("model,", 0) == 0);
}

TEST_CASE("device.json of a hardware run names the meter, its interval, the clocks and the run") {
  TempDir sysfs;
  fulcrum::testing::write_orin_clocks(sysfs);  // at MAXN
  fulcrum::testing::write_hwmon(
      sysfs, "hwmon1", "ina3221",
      {{"VDD_GPU_SOC", 5000, 2000}, {"VDD_CPU_CV", 5000, 800}, {"VIN_SYS_5V0", 5000, 1200}});
  const models::DeviceCatalog devices = devices_from(default_data_dir());
  const models::DeviceSpec& orin = devices.get("orin-agx-64gb");
  const ClockOptions options{.sysfs_root = sysfs.path().string()};
  std::ostringstream notes;
  const auto clocks = make_clock_control(options, true, notes);
  backends::EnergyReading whole_run;
  whole_run.duration_s = 2;
  whole_run.module_energy_j = 40;
  const fulcrum::sim::testing::JsonValue json =
      parse_json(device_json(orin, "cuda", true, clocks.get(), options, 0, whole_run));
  CHECK(json.at("backend").text == "cuda");
  CHECK(json.at("power_meter").text.rfind("ina3221", 0) == 0);
  CHECK(json.at("sampling_interval_ms").number == 10);
  CHECK(json.path("clocks_read_back.gpu_hz").number == 1300500000);  // read back from the tree
  CHECK(json.path("whole_run_meter.avg_power_w").number == 20);      // 40 J over 2 s
  // Without a measurement of the whole run there is no such figure.
  CHECK(parse_json(device_json(orin, "cuda", true, clocks.get(), options, 0, std::nullopt))
            .at("whole_run_meter")
            .kind == fulcrum::sim::testing::JsonValue::Kind::null);
}
