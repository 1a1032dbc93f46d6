#include "sim/config/scenario_loader.hpp"

#include <catch2/catch.hpp>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <regex>
#include <string>
#include <tuple>
#include <vector>

#include "models/device/power_mode_resolver.hpp"
#include "sim/config/device_catalog_loader.hpp"
#include "sim/config/overrides.hpp"
#include "tests/input_error.hpp"
#include "tests/temp_dir.hpp"

namespace fs = std::filesystem;
using namespace fulcrum;
using namespace fulcrum::sim;
using fulcrum::testing::error_of;
using fulcrum::testing::TempDir;

namespace {

const char* kFull = R"(version: 1
name: full-example
seed: 7
duration_s: 600
device: {model: orin-agx-64gb, power_mode: MAXN}
gpu_sharing: managed
training:
  workload: mobilenetv3-large
  dataset: gld23k
  batch_size: 16
  dataloader: {workers: 4, prefetch_factor: 2, storage: nvme-ssd}
inference:
  - workload: resnet50
    batch_size: 16
    arrivals: {process: fixed, rate_per_s: 100}
budgets: {latency_ms: 250, latency_percentile: 99, power_w: 30}
search: {strategy: gmd, batch_sizes: [1, 4, 8, 16, 32, 64, 128, 256], modes: powertrain-4368}
outputs: {requests: true, minibatches: true, power: true, trace: true}
)";

const char* kMinimal = R"(version: 1
training: {workload: resnet18, dataset: cifar10}
)";

LoadedScenario parse(const std::string& text, const std::vector<std::string>& overrides = {}) {
  return parse_scenario(text, "s.yaml", overrides);
}

std::string replace(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  REQUIRE(at != std::string::npos);
  return text.replace(at, from.size(), to);
}

models::DeviceCatalog devices() {
  return load_device_catalog(std::string(FULCRUM_DATA_DIR) + "/devices");
}

}  // namespace

TEST_CASE("the design's example scenario parses into the typed structs", "[loader]") {
  const Scenario s = parse(kFull).scenario;
  CHECK(s.version == 1);
  CHECK(s.name == "full-example");
  CHECK(s.seed == 7);
  CHECK(s.duration_s == 600);
  CHECK(s.device.model == "orin-agx-64gb");
  REQUIRE(s.device.preset);
  CHECK(*s.device.preset == "MAXN");
  CHECK_FALSE(s.device.custom);
  CHECK(s.gpu_sharing.policy == SharingPolicy::managed);
  REQUIRE(s.training);
  CHECK(s.training->workload == "mobilenetv3-large");
  CHECK(s.training->dataset == "gld23k");
  CHECK(s.training->batch_size == 16);
  CHECK(s.training->dataloader.workers == 4);
  CHECK(s.training->dataloader.storage == "nvme-ssd");
  REQUIRE(s.inference.size() == 1);
  CHECK(s.inference[0].workload == "resnet50");
  CHECK(s.inference[0].name == "resnet50-0");
  CHECK(s.inference[0].batch_size == 16);
  REQUIRE(std::holds_alternative<FixedArrivals>(s.inference[0].arrivals));
  CHECK(std::get<FixedArrivals>(s.inference[0].arrivals).rate_per_s == 100);
  REQUIRE(s.budgets.latency_ms);
  CHECK(*s.budgets.latency_ms == 250);
  CHECK(s.budgets.latency_percentile == 99);
  REQUIRE(s.budgets.power_w);
  CHECK(*s.budgets.power_w == 30);
  REQUIRE(s.search);
  CHECK(s.search->batch_sizes.size() == 8);
  CHECK(s.outputs.trace);
}

TEST_CASE("a minimal scenario gets the documented defaults", "[loader]") {
  const Scenario s = parse(kMinimal).scenario;
  CHECK(s.name == "s");  // the file's stem
  CHECK(s.seed == 1);
  CHECK(s.duration_s == 60);
  CHECK(s.device.model == "orin-agx-64gb");
  CHECK_FALSE(s.device.preset);
  CHECK_FALSE(s.device.custom);
  CHECK(s.gpu_sharing.policy == SharingPolicy::managed);
  CHECK(s.gpu_sharing.variant == ManagedVariant::windowed);
  CHECK(s.gpu_sharing.risk == 1e-3);
  CHECK(s.gpu_sharing.timeslice_us == 1024);
  CHECK(s.gpu_sharing.context_switch_us == 25);
  REQUIRE(s.training);
  CHECK(s.training->batch_size == 16);
  CHECK_FALSE(s.training->epochs);
  CHECK(s.inference.empty());
  CHECK_FALSE(s.budgets.latency_ms);
  CHECK_FALSE(s.budgets.power_w);
  CHECK(s.budgets.power_kind == PowerBudgetKind::average);
  CHECK_FALSE(s.search);
  CHECK(s.outputs.requests);
  CHECK(s.outputs.power_sample_s == 1.0);
}

TEST_CASE("errors are one line naming file, line, column and key path", "[loader]") {
  const std::regex located(R"(^s\.yaml:\d+:\d+: [a-z_\[\]0-9.]+: .+$)");
  const std::vector<std::pair<std::string, std::string>> cases = {
      {replace(kFull, "duration_s: 600", "duration_s: -5"), "duration_s"},
      {replace(kFull, "duration_s: 600", "duration_s: 0"), "duration_s"},
      {replace(kFull, "duration_s: 600", "duration_s: .nan"), "duration_s"},
      {replace(kFull, "duration_s: 600", "duration_s: .inf"), "duration_s"},
      {replace(kFull, "duration_s: 600", "duration_s: ten"), "duration_s"},
      {replace(kFull, "rate_per_s: 100", "rate_per_s: 0"), "inference[0].arrivals.rate_per_s"},
      {replace(kFull, "rate_per_s: 100", "rate_per_s: -100"), "inference[0].arrivals.rate_per_s"},
      {replace(kFull, "rate_per_s: 100", "rate_per_s: nan"), "inference[0].arrivals.rate_per_s"},
      {replace(kFull, "    batch_size: 16", "    batch_size: 0"), "inference[0].batch_size"},
      {replace(kFull, "    batch_size: 16", "    batch_size: 1.5"), "inference[0].batch_size"},
      {replace(kFull, "  batch_size: 16\n  dataloader", "  batch_size: [16]\n  dataloader"),
       "training.batch_size"},
      {replace(kFull, "latency_percentile: 99", "latency_percentile: 90"),
       "budgets.latency_percentile"},
      {replace(kFull, "power_w: 30", "power_w: 0"), "budgets.power_w"},
      {replace(kFull, "version: 1", "version: 2"), "version"},
      {replace(kFull, "gpu_sharing: managed", "gpu_sharing: mps"), "gpu_sharing"},
      {replace(kFull, "process: fixed", "process: bursty"), "inference[0].arrivals.process"},
      {replace(kFull, "workload: resnet50", "workload: \"\""), "inference[0].workload"},
      {replace(kFull, "strategy: gmd", "strategy: magic"), "search.strategy"},
      {replace(kFull, "trace: true", "trace: maybe"), "outputs.trace"},
      {replace(kFull, "name: full-example", "name: ../../etc"), "name"},
  };
  for (const auto& [text, key] : cases) {
    const InputError e = error_of([&] { parse(text); });
    INFO(e.what());
    CHECK(std::regex_match(std::string(e.what()), located));
    CHECK(e.key_path() == key);
    REQUIRE(e.where());
    CHECK(e.where()->line > 0);
  }
}

TEST_CASE("unknown keys are rejected at every level", "[loader]") {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {std::string(kFull) + "colour: blue\n", "colour"},
      {replace(kFull, "storage: nvme-ssd", "storage: nvme-ssd, pin: true"),
       "training.dataloader.pin"},
      {replace(kFull, "rate_per_s: 100}", "rate_per_s: 100, jitter: 1}"),
       "inference[0].arrivals.jitter"},
      {replace(kFull, "power_mode: MAXN", "power_mode: MAXN, fan: max"), "device.fan"},
      {replace(kFull, "power_w: 30", "power_w: 30, energy_j: 1"), "budgets.energy_j"},
      {replace(kFull, "trace: true", "trace: true, pdf: true"), "outputs.pdf"},
      {replace(kFull, "modes: powertrain-4368", "modes: powertrain-4368, budget: 3"),
       "search.budget"},
      {replace(kFull, "    batch_size: 16\n", "    batch_size: 16\n    priority: 1\n"),
       "inference[0].priority"},
  };
  for (const auto& [text, key] : cases) {
    const InputError e = error_of([&] { parse(text); });
    INFO(e.what());
    CHECK(e.key_path() == key);
    CHECK(e.problem().find("unknown key") != std::string::npos);
    REQUIRE(e.where());
    CHECK(e.where()->line > 1);
  }
}

TEST_CASE("a missing version, empty file or malformed YAML is an error with a location",
          "[loader]") {
  CHECK(error_of([] { parse("training: {workload: resnet18, dataset: cifar10}\n"); })
            .problem()
            .find("version") != std::string::npos);
  CHECK_THROWS_AS(parse(""), InputError);
  const InputError e = error_of([] { parse("version: 1\ntraining: {workload: [resnet18\n"); });
  REQUIRE(e.where());
  CHECK(e.where()->file == "s.yaml");
  CHECK(e.where()->line >= 2);
  CHECK(e.problem().find("malformed YAML") != std::string::npos);
}

TEST_CASE("a scenario with neither training nor inference is rejected", "[loader]") {
  CHECK_THROWS_AS(parse("version: 1\nduration_s: 10\n"), InputError);
}

TEST_CASE("gpu_sharing accepts a policy name or a native map with its slice lengths", "[loader]") {
  const Scenario s =
      parse(replace(kFull, "gpu_sharing: managed",
                    "gpu_sharing: {policy: native, timeslice_us: 512, context_switch_us: 10}"))
          .scenario;
  CHECK(s.gpu_sharing.policy == SharingPolicy::native);
  CHECK(s.gpu_sharing.timeslice_us == 512);
  CHECK(s.gpu_sharing.context_switch_us == 10);
  CHECK(parse(replace(kFull, "gpu_sharing: managed", "gpu_sharing: sequential"))
            .scenario.gpu_sharing.policy == SharingPolicy::sequential);
  const InputError e = error_of([&] {
    parse(replace(kFull, "gpu_sharing: managed",
                  "gpu_sharing: {policy: managed, timeslice_us: 512}"));
  });
  CHECK(e.key_path() == "gpu_sharing.timeslice_us");
  CHECK_THROWS_AS(parse(replace(kFull, "gpu_sharing: managed",
                                "gpu_sharing: {policy: native, timeslice_us: 0}")),
                  InputError);
}

TEST_CASE("managed is windowed unless the map names the greedy variant", "[loader]") {
  const auto sharing = [](const std::string& text) {
    return parse(replace(kFull, "gpu_sharing: managed", "gpu_sharing: " + text))
        .scenario.gpu_sharing;
  };
  CHECK(sharing("managed").variant == ManagedVariant::windowed);
  CHECK(sharing("{policy: managed}").variant == ManagedVariant::windowed);
  CHECK(sharing("{policy: managed, variant: greedy}").variant == ManagedVariant::greedy);
  const GpuSharing w = sharing("{policy: managed, variant: windowed, risk: 0.01}");
  CHECK(w.variant == ManagedVariant::windowed);
  CHECK(w.risk == 0.01);
  CHECK(sharing("{policy: managed, risk: 1e-6}").risk == 1e-6);

  const std::regex located(R"(^s\.yaml:\d+:\d+: gpu_sharing\.(variant|risk): .+$)");
  const std::vector<std::tuple<std::string, std::string, std::string>> cases = {
      {"{policy: managed, variant: lazy}", "gpu_sharing.variant",
       "unknown variant 'lazy' (known: windowed, greedy)"},
      {"{policy: managed, variant: [greedy]}", "gpu_sharing.variant", ""},
      {"{policy: native, variant: greedy}", "gpu_sharing.variant",
       "applies only to policy: managed"},
      {"{policy: sequential, variant: windowed}", "gpu_sharing.variant",
       "applies only to policy: managed"},
      {"{policy: managed, variant: greedy, risk: 0.01}", "gpu_sharing.risk",
       "applies only to policy: managed with variant: windowed"},
      {"{policy: native, risk: 0.01}", "gpu_sharing.risk",
       "applies only to policy: managed with variant: windowed"},
      {"{policy: managed, risk: 0}", "gpu_sharing.risk", "must be >= 1e-12"},
      {"{policy: managed, risk: 0.6}", "gpu_sharing.risk", "must be <= 0.5"},
      {"{policy: managed, risk: high}", "gpu_sharing.risk", ""},
  };
  for (const auto& [text, key, problem] : cases) {
    const InputError e = error_of([&] { sharing(text); });
    INFO(text << " -> " << e.what());
    CHECK(std::regex_match(std::string(e.what()), located));
    CHECK(e.key_path() == key);
    CHECK(std::string(e.what()).find(problem) != std::string::npos);
  }
  // From the command line too, blamed on --set.
  const InputError e =
      error_of([&] { parse(kFull, {"gpu_sharing={policy: managed, variant: eager}"}); });
  CHECK(e.key_path() == "gpu_sharing.variant");
  CHECK(std::string(e.what()).rfind("--set: ", 0) == 0);
}

TEST_CASE("a custom power mode is read in MHz and excludes a preset", "[loader]") {
  const Scenario s = parse(replace(kFull, "power_mode: MAXN",
                                   "cores: 8, cpu_mhz: 1728, gpu_mhz: 612, emc_mhz: 3199"))
                         .scenario;
  REQUIRE(s.device.custom);
  CHECK_FALSE(s.device.preset);
  CHECK(s.device.custom->cores == 8);
  CHECK(s.device.custom->cpu_mhz == 1728);
  CHECK(s.device.custom->gpu_mhz == 612);
  CHECK(s.device.custom->emc_mhz == 3199);
  const InputError e =
      error_of([&] { parse(replace(kFull, "power_mode: MAXN", "power_mode: MAXN, cores: 4")); });
  CHECK(e.key_path() == "device.power_mode");
}

TEST_CASE("a custom power mode's keys left out stay absent", "[loader]") {
  const Scenario s = parse(replace(kFull, "power_mode: MAXN", "gpu_mhz: 612")).scenario;
  REQUIRE(s.device.custom);
  CHECK_FALSE(s.device.custom->cores);
  CHECK_FALSE(s.device.custom->cpu_mhz);
  CHECK(s.device.custom->gpu_mhz == 612);
  CHECK_FALSE(s.device.custom->emc_mhz);
}

TEST_CASE("zero cores or zero MHz in a custom power mode is an error at that key, not the maximum",
          "[loader]") {
  // Line 5 is "device: {model: orin-agx-64gb, <device>}": the value's column counted by hand.
  struct Case {
    std::string device;
    std::string key;
    int column;
    std::string problem;
  };
  const std::string cores_hint = " (omit the key for all of the device's cores)";
  const std::string mhz_hint = " (omit the key for the table's highest frequency)";
  const std::vector<Case> cases = {
      {"cores: 0", "device.cores", 39, "must be >= 1, got 0" + cores_hint},
      {"cpu_mhz: 0", "device.cpu_mhz", 41, "must be > 0, got 0" + mhz_hint},
      {"cores: 8, gpu_mhz: 0.0", "device.gpu_mhz", 51, "must be > 0, got 0.0" + mhz_hint},
      {"emc_mhz: 0", "device.emc_mhz", 41, "must be > 0, got 0" + mhz_hint},
  };
  for (const Case& c : cases) {
    const InputError e = error_of([&] { parse(replace(kFull, "power_mode: MAXN", c.device)); });
    INFO(e.what());
    CHECK(e.key_path() == c.key);
    CHECK(e.problem() == c.problem);
    REQUIRE(e.where());
    CHECK(e.where()->file == "s.yaml");
    CHECK(e.where()->line == 5);
    CHECK(e.where()->column == c.column);
    // The same value given with --set.
    const InputError o =
        error_of([&] { parse(replace(kFull, "power_mode: MAXN", "cores: 8"), {c.key + "=0"}); });
    CHECK(o.key_path() == c.key);
    CHECK(std::string(o.what()).rfind("--set: " + c.key + ": must be", 0) == 0);
    CHECK(std::string(o.what()).find("(omit the key for") != std::string::npos);
  }
}

TEST_CASE("piecewise arrivals need ascending segment starts beginning at 0", "[loader]") {
  const std::string ok =
      replace(kFull, "{process: fixed, rate_per_s: 100}",
              "{process: piecewise, poisson: true, segments: [{start_s: 0, rate_per_s: 50}, "
              "{start_s: 300, rate_per_s: 150}]}");
  const Scenario s = parse(ok).scenario;
  const auto& p = std::get<PiecewiseArrivals>(s.inference[0].arrivals);
  CHECK(p.poisson);
  REQUIRE(p.segments.size() == 2);
  CHECK(p.segments[1].start_s == 300);
  CHECK(p.segments[1].rate_per_s == 150);

  CHECK(error_of([&] { parse(replace(ok, "start_s: 0,", "start_s: 5,")); }).key_path() ==
        "inference[0].arrivals.segments[0].start_s");
  CHECK(error_of([&] { parse(replace(ok, "start_s: 300", "start_s: 0")); }).key_path() ==
        "inference[0].arrivals.segments[1].start_s");
  CHECK(error_of([&] { parse(replace(ok, "rate_per_s: 150", "rate_per_s: -1")); }).key_path() ==
        "inference[0].arrivals.segments[1].rate_per_s");
}

TEST_CASE("poisson arrivals are read with their rate", "[loader]") {
  const Scenario s = parse(replace(kFull, "process: fixed", "process: poisson")).scenario;
  REQUIRE(std::holds_alternative<PoissonArrivals>(s.inference[0].arrivals));
  CHECK(std::get<PoissonArrivals>(s.inference[0].arrivals).rate_per_s == 100);
}

TEST_CASE("trace arrivals are read relative to the scenario file", "[loader]") {
  TempDir dir;
  dir.write("traces/t.csv", "arrival_s,note\n0.0,a\n0.5,b\n0.5,c\n2.25,d\n");
  const std::string path = dir.write("sc.yaml", replace(kFull, "{process: fixed, rate_per_s: 100}",
                                                        "{process: trace, path: traces/t.csv}"));
  const Scenario s = load_scenario(path);
  const auto& t = std::get<TraceArrivals>(s.inference[0].arrivals);
  CHECK(t.arrival_s == std::vector<double>{0.0, 0.5, 0.5, 2.25});
  CHECK(fs::equivalent(t.path, dir.path() / "traces/t.csv"));
  CHECK(s.source_path == path);
  CHECK(s.name == "full-example");

  const std::string missing = dir.write(
      "missing.yaml",
      replace(kFull, "{process: fixed, rate_per_s: 100}", "{process: trace, path: traces/no.csv}"));
  const InputError e = error_of([&] { load_scenario(missing); });
  CHECK(e.key_path() == "inference[0].arrivals.path");
  REQUIRE(e.where());
  CHECK(e.where()->file == missing);
  CHECK(e.where()->line == 15);

  dir.write("traces/bad.csv", "arrival_s\n1\n0.5\n");
  const std::string bad = dir.write("bad.yaml", replace(kFull, "{process: fixed, rate_per_s: 100}",
                                                        "{process: trace, path: traces/bad.csv}"));
  const InputError b = error_of([&] { load_scenario(bad); });
  CHECK(b.key_path() == "arrival_s");
  REQUIRE(b.where());
  CHECK(b.where()->line == 3);
}

TEST_CASE("the performance model is the device's default unless named, or a table over CSVs",
          "[loader]") {
  CHECK(std::holds_alternative<DefaultPerfModel>(parse(kFull).scenario.device.perf_model));
  CHECK(std::holds_alternative<AnalyticPerfModel>(
      parse(kFull, {"device.perf_model=analytic"}).scenario.device.perf_model));

  TempDir dir;
  dir.write("profiles/a.csv", "#\n");
  dir.write("profiles/b.csv", "#\n");
  const std::string one =
      dir.write("one.yaml", replace(kFull, "power_mode: MAXN}",
                                    "power_mode: MAXN, perf_model: {table: profiles/a.csv}}"));
  const Scenario loaded = load_scenario(one);
  const auto& t = std::get<TablePerfModel>(loaded.device.perf_model);
  REQUIRE(t.paths.size() == 1);
  CHECK(fs::equivalent(t.paths[0], dir.path() / "profiles/a.csv"));
  const std::string two = dir.write(
      "two.yaml",
      replace(kFull, "power_mode: MAXN}",
              "power_mode: MAXN, perf_model: {table: [profiles/a.csv, profiles/b.csv]}}"));
  CHECK(std::get<TablePerfModel>(load_scenario(two).device.perf_model).paths.size() == 2);

  const std::string missing =
      dir.write("missing.yaml", replace(kFull, "power_mode: MAXN}",
                                        "power_mode: MAXN, perf_model: {table: [profiles/a.csv, "
                                        "profiles/none.csv]}}"));
  const InputError e = error_of([&] { load_scenario(missing); });
  CHECK(e.key_path() == "device.perf_model.table[1]");
  REQUIRE(e.where());
  CHECK(e.where()->line == 5);
  CHECK_THAT(e.what(), Catch::Contains("cannot open profile CSV"));

  CHECK_THAT(error_of([] { parse(kFull, {"device.perf_model=roofline"}); }).what(),
             Catch::Contains(
                 "unknown perf_model 'roofline' (known: analytic, analytic-modes, {table: PATH})"));
  CHECK_THAT(error_of([] { parse(kFull, {"device.perf_model=table"}); }).what(),
             Catch::Contains("a table model needs its profile CSV"));
}

TEST_CASE("the training data pipeline is chosen by name", "[loader]") {
  // kFull's dataloader block names workers, prefetch and storage: it asks for the dataloader.
  CHECK(parse(kFull).scenario.training->data_pipeline == DataPipelineKind::dataloader);
  CHECK(parse(kMinimal).scenario.training->data_pipeline == DataPipelineKind::none);
  CHECK(parse(kFull, {"training.data_pipeline=none"}).scenario.training->data_pipeline ==
        DataPipelineKind::none);
  CHECK(parse(kFull, {"training.data_pipeline=dataloader"}).scenario.training->data_pipeline ==
        DataPipelineKind::dataloader);
  const InputError e = error_of([] { parse(kFull, {"training.data_pipeline=workers"}); });
  CHECK(e.key_path() == "training.data_pipeline");
  CHECK_THAT(e.what(),
             Catch::Contains("unknown data_pipeline 'workers' (known: none, dataloader)"));
}

TEST_CASE("a dataloader block takes effect, or says in one line that it does not", "[loader]") {
  SECTION("given without data_pipeline, it selects the dataloader, silently") {
    const LoadedScenario l = parse(kFull);
    CHECK(l.scenario.training->data_pipeline == DataPipelineKind::dataloader);
    CHECK(l.scenario.training->dataloader.workers == 4);
    CHECK(l.warnings.empty());
  }
  SECTION("under an explicit data_pipeline: none it is inert, and one warning says where") {
    const LoadedScenario l =
        parse(replace(kFull, "  batch_size: 16\n  dataloader",
                      "  batch_size: 16\n  data_pipeline: none\n  dataloader"));
    CHECK(l.scenario.training->data_pipeline == DataPipelineKind::none);
    // Line 12 of the text, at the value of the block's first key (workers: 4), column 25.
    REQUIRE(l.warnings.size() == 1);
    CHECK(l.warnings[0] ==
          "s.yaml:12:25: training.dataloader.workers: ignored: data_pipeline is none, so the "
          "dataloader block's workers, prefetch_factor and storage change nothing (remove them, "
          "or set data_pipeline: dataloader)");
  }
  SECTION("--set training.data_pipeline=none warns at the block's key in the file") {
    const LoadedScenario l = parse(kFull, {"training.data_pipeline=none"});
    CHECK(l.scenario.training->data_pipeline == DataPipelineKind::none);
    REQUIRE(l.warnings.size() == 1);
    CHECK_THAT(l.warnings[0], Catch::StartsWith("s.yaml:11:25: training.dataloader.workers: "));
  }
  SECTION("dataset_scale alone scales the epoch under either pipeline and selects nothing") {
    const LoadedScenario l =
        parse(replace(kFull, "dataloader: {workers: 4, prefetch_factor: 2, storage: nvme-ssd}",
                      "dataloader: {dataset_scale: 2}"));
    CHECK(l.scenario.training->data_pipeline == DataPipelineKind::none);
    CHECK(l.scenario.training->dataloader.dataset_scale == 2);
    CHECK(l.warnings.empty());
  }
  SECTION("an explicit data_pipeline: dataloader with the block is silent too") {
    const LoadedScenario l = parse(kFull, {"training.data_pipeline=dataloader"});
    CHECK(l.scenario.training->data_pipeline == DataPipelineKind::dataloader);
    CHECK(l.warnings.empty());
  }
}

TEST_CASE("dataset_scale and ram_gb are read and range-checked where they stand", "[loader]") {
  const LoadedScenario l =
      parse(kFull, {"training.dataloader.dataset_scale=4", "device.ram_gb=16"});
  CHECK(l.scenario.training->dataloader.dataset_scale == 4);
  CHECK(l.scenario.device.ram_gb == 16);
  CHECK(parse(kFull).scenario.training->dataloader.dataset_scale == 1);
  CHECK_FALSE(parse(kFull).scenario.device.ram_gb.has_value());
  const InputError scale = error_of([] { parse(kFull, {"training.dataloader.dataset_scale=0"}); });
  CHECK(scale.key_path() == "training.dataloader.dataset_scale");
  CHECK_THAT(scale.what(), Catch::Contains("must be >= 0.001"));
  const InputError ram = error_of([] { parse(kFull, {"device.ram_gb=-2"}); });
  CHECK(ram.key_path() == "device.ram_gb");
  CHECK_THAT(ram.what(), Catch::Contains("must be >= 0.1 GB"));
  const InputError text = error_of([] { parse(kFull, {"device.ram_gb=lots"}); });
  CHECK(text.key_path() == "device.ram_gb");
}

TEST_CASE("a missing scenario file is an input error naming the file", "[loader]") {
  const InputError e = error_of([] { load_scenario("/nonexistent/fulcrum/none.yaml"); });
  REQUIRE(e.where());
  CHECK(e.where()->file == "/nonexistent/fulcrum/none.yaml");
}

TEST_CASE("overrides given with --set are applied before reading and validated like file values",
          "[loader][overrides]") {
  const Scenario s = parse(kFull, {"inference[0].batch_size=32", "device.power_mode=MODE_30W",
                                   "gpu_sharing=native", "seed=11", "budgets.power_w=25.5"})
                         .scenario;
  CHECK(s.inference[0].batch_size == 32);
  CHECK(*s.device.preset == "MODE_30W");
  CHECK(s.gpu_sharing.policy == SharingPolicy::native);
  CHECK(s.seed == 11);
  CHECK(*s.budgets.power_w == 25.5);

  const Scenario m = parse(kFull, {"gpu_sharing={policy: native, timeslice_us: 2048}"}).scenario;
  CHECK(m.gpu_sharing.timeslice_us == 2048);

  const Scenario two =
      parse(kFull,
            {"inference[1]={workload: resnet18, arrivals: {process: poisson, rate_per_s: 5}}"})
          .scenario;
  REQUIRE(two.inference.size() == 2);
  CHECK(two.inference[1].workload == "resnet18");
  CHECK(two.inference[1].name == "resnet18-1");
}

TEST_CASE("a bad --set path or value is an error naming --set and the key", "[loader][overrides]") {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"inference[0].batch_size=0", "inference[0].batch_size"},
      {"inference[0].batch_size=big", "inference[0].batch_size"},
      {"duration_s=-1", "duration_s"},
      {"colour=blue", "colour"},
      {"training.dataloader.pin=true", "training.dataloader.pin"},
      {"inference[5].batch_size=2", "inference[5]"},
      {"version.x=1", "version.x"},
      {"inference.x=1", "inference.x"},
      {"gpu_sharing=mps", "gpu_sharing"},
      {"budgets.power_w={", "budgets.power_w"},
  };
  for (const auto& [set, key] : cases) {
    const InputError e = error_of([&] { parse(kFull, {set}); });
    INFO(set << " -> " << e.what());
    REQUIRE(e.where());
    CHECK(e.where()->file == "--set");
    CHECK(e.key_path() == key);
    CHECK(std::string(e.what()).rfind("--set: " + key + ": ", 0) == 0);
  }
  for (const std::string bad : {"noequals", "=3", "a..b=1", "a[x]=1", "a[1=1", "a.=1", ".a=1"}) {
    INFO(bad);
    const InputError e = error_of([&] { parse(kFull, {bad}); });
    REQUIRE(e.where());
    CHECK(e.where()->file == "--set");
  }
}

// Found by fuzz_overrides: a malformed path was echoed as the key path, stray bytes included.
TEST_CASE("a malformed --set path with bytes that are not text is reported on one line",
          "[loader][overrides]") {
  const InputError e = error_of([] { parse(kFull, {"device.po\x84wer].65536_size=8"}); });
  INFO(e.what());
  CHECK(std::string(e.what()) ==
        "--set: device.po\\x84wer].65536_size: malformed key path: unexpected '\\x84'");
}

TEST_CASE("override paths are parsed into a canonical key path", "[overrides]") {
  CHECK(parse_override("inference[0].arrivals.rate_per_s=5").key_path ==
        "inference[0].arrivals.rate_per_s");
  CHECK(parse_override("a=b=c").value == "b=c");
  CHECK(is_overridden("inference[0].arrivals.rate_per_s", {"inference[0]"}));
  CHECK(is_overridden("inference[0]", {"inference[0]"}));
  CHECK_FALSE(is_overridden("inference[01]", {"inference[0]"}));
  CHECK_FALSE(is_overridden("seeds", {"seed"}));
}

TEST_CASE("resolving finds the device, the power mode and the workloads", "[loader][resolve]") {
  const models::DeviceCatalog catalog = devices();
  const ResolvedScenario r = resolve(parse(kFull), catalog);
  REQUIRE(r.device);
  CHECK(r.device->name == "orin-agx-64gb");
  CHECK(r.mode.cores == r.device->cpu_cores);
  CHECK(r.mode.gpu_hz == r.device->gpu_hz.back());
  REQUIRE(r.training_workload);
  CHECK(r.training_workload->name() == "mobilenetv3-large");
  CHECK(r.training_dataset_samples == 23080);
  REQUIRE(r.inference_workloads.size() == 1);
  CHECK(r.inference_workloads[0]->name() == "resnet50");
  const RunSetup setup = r.setup();
  CHECK(setup.scenario == &r.scenario);
  CHECK(setup.device == r.device);
  CHECK(setup.mode == r.mode);

  const ResolvedScenario w = resolve(parse(kFull, {"device.power_mode=MODE_30W"}), catalog);
  CHECK(w.mode.cores == 8);
  CHECK(w.mode < r.mode);

  const ResolvedScenario c =
      resolve(parse(replace(kFull, "power_mode: MAXN",
                            "cores: 8, cpu_mhz: 1728, gpu_mhz: 612, emc_mhz: 3199")),
              catalog);
  CHECK(c.mode.cores == 8);
  CHECK(c.mode.cpu_khz == Approx(1728000));
  CHECK(c.mode.gpu_hz == Approx(612e6).epsilon(0.05));  // snapped to the nearest table value
  CHECK(models::is_valid_mode(*c.device, c.mode));
}

TEST_CASE("unknown names and out-of-range modes are errors located at their key",
          "[loader][resolve]") {
  const models::DeviceCatalog catalog = devices();
  struct Case {
    std::string text;
    std::string key;
    int line;
  };
  const std::vector<Case> cases = {
      {replace(kFull, "model: orin-agx-64gb", "model: orin-agx-128gb"), "device.model", 5},
      {replace(kFull, "power_mode: MAXN", "power_mode: MODE_5W"), "device.power_mode", 5},
      {replace(kFull, "workload: mobilenetv3-large", "workload: alexnet"), "training.workload", 8},
      {replace(kFull, "dataset: gld23k", "dataset: laion"), "training.dataset", 9},
      {replace(kFull, "workload: resnet50", "workload: gpt4"), "inference[0].workload", 13},
      {replace(kFull, "power_mode: MAXN", "cores: 99"), "device.cores", 5},
      {replace(kFull, "power_mode: MAXN", "cpu_mhz: 5000"), "device.cpu_mhz", 5},
      {replace(kFull, "power_mode: MAXN", "cores: 4, gpu_mhz: 99999"), "device.gpu_mhz", 5},
  };
  for (const Case& c : cases) {
    const InputError e = error_of([&] { resolve(parse(c.text), catalog); });
    INFO(e.what());
    CHECK(e.key_path() == c.key);
    REQUIRE(e.where());
    CHECK(e.where()->file == "s.yaml");
    CHECK(e.where()->line == c.line);
    CHECK(e.where()->column > 1);
  }
  const InputError set = error_of([&] { resolve(parse(kFull, {"device.model=tx2"}), catalog); });
  CHECK(std::string(set.what()).rfind("--set: device.model: ", 0) == 0);
}

TEST_CASE("a training dataset of the wrong kind for its workload is an error at training.dataset",
          "[loader][resolve]") {
  const models::DeviceCatalog catalog = devices();
  // Token sequences for an image model, images for a token model.
  const InputError text = error_of(
      [&] { resolve(parse(replace(kFull, "dataset: gld23k", "dataset: wikitext")), catalog); });
  CHECK(text.key_path() == "training.dataset");
  CHECK(text.problem() ==
        "dataset 'wikitext' holds token sequences, but workload 'mobilenetv3-large' reads images "
        "[3, 224, 224]");
  REQUIRE(text.where());
  CHECK(text.where()->line == 9);
  const InputError images = error_of([&] {
    resolve(parse(kFull, {"training.workload=bert-base", "training.dataset=imagenet"}), catalog);
  });
  CHECK(images.key_path() == "training.dataset");
  CHECK(images.problem() ==
        "dataset 'imagenet' holds images, but workload 'bert-base' reads token ids [128]");
  // The kinds that belong together resolve.
  CHECK_NOTHROW(
      resolve(parse(kFull, {"training.workload=bert-base", "training.dataset=squad"}), catalog));
  CHECK_NOTHROW(
      resolve(parse(kFull, {"training.workload=lstm", "training.dataset=wikitext"}), catalog));
  CHECK_NOTHROW(
      resolve(parse(kFull, {"training.workload=resnet18", "training.dataset=cifar10"}), catalog));
}

TEST_CASE("every shipped scenario loads and resolves", "[loader][resolve]") {
  const models::DeviceCatalog catalog = devices();
  int count = 0;
  for (const auto& entry : fs::directory_iterator(std::string(FULCRUM_SOURCE_DIR) + "/scenarios")) {
    if (entry.path().extension() != ".yaml") continue;
    INFO(entry.path().string());
    std::ifstream in(entry.path());
    const std::string text{std::istreambuf_iterator<char>(in), {}};
    std::error_code ec;
    if (text.find("${FULCRUM_REFERENCE_DIR}") != std::string::npos &&
        !fs::is_directory(FULCRUM_REFERENCE_DIR, ec)) {
      WARN("not loaded without the reference folder: " << entry.path().string());
      continue;
    }
    const ResolvedScenario r = load_and_resolve(entry.path().string(), {}, catalog);
    CHECK(r.device != nullptr);
    CHECK(r.inference_workloads.size() == r.scenario.inference.size());
    ++count;
  }
  CHECK(count >= 8);
}

// Deterministic fuzzing: random bytes and mutations of valid files either parse or throw
// InputError; nothing else escapes, nothing crashes or hangs.
TEST_CASE("the scenario parser survives random and mutated input", "[loader][fuzz]") {
  std::mt19937_64 rng(20240611);
  const std::string seeds[] = {
      kFull, kMinimal,
      replace(kFull, "{process: fixed, rate_per_s: 100}",
              "{process: piecewise, segments: [{start_s: 0, rate_per_s: 5}]}")};
  const std::string alphabet = "{}[]:,-&*!|>'\"#%@` \n\t0123456789.eE+abcxyz_\\\x01\xff";
  int parsed = 0;
  int rejected = 0;
  for (int iter = 0; iter < 3000; ++iter) {
    std::string text;
    if (iter % 5 == 0) {
      const std::size_t n = rng() % 200;
      for (std::size_t i = 0; i < n; ++i) text += static_cast<char>(rng() % 256);
    } else {
      text = seeds[rng() % 3];
      const int edits = 1 + static_cast<int>(rng() % 6);
      for (int k = 0; k < edits && !text.empty(); ++k) {
        const std::size_t at = rng() % text.size();
        switch (rng() % 4) {
          case 0:
            text[at] = alphabet[rng() % alphabet.size()];
            break;
          case 1:
            text.erase(at, 1 + rng() % 8);
            break;
          case 2:
            text.insert(at, 1, alphabet[rng() % alphabet.size()]);
            break;
          case 3:
            text.insert(at, text.substr(rng() % text.size(), rng() % 16));
            break;
        }
      }
    }
    try {
      parse(text);
      ++parsed;
    } catch (const InputError&) {
      ++rejected;
    }
  }
  CHECK(parsed + rejected == 3000);
  CHECK(parsed > 0);
  CHECK(rejected > 0);
}

TEST_CASE("overrides with arbitrary text either apply or throw InputError", "[overrides][fuzz]") {
  std::mt19937_64 rng(7);
  const std::string alphabet = "ab_.[]0123=:{}- \n\"'";
  // Anything other than InputError escaping fails the test; both outcomes must occur, or the
  // alphabet no longer exercises the override parser.
  int applied = 0;
  int rejected = 0;
  const std::string valid[] = {"seed=11", "budgets.power_w=25.5", "inference[0].batch_size=32",
                               "gpu_sharing={policy: native, timeslice_us: 2048}"};
  for (int iter = 0; iter < 2000; ++iter) {
    std::string set;
    if (iter % 2 == 0) {
      const std::size_t n = 1 + rng() % 24;
      for (std::size_t i = 0; i < n; ++i) set += alphabet[rng() % alphabet.size()];
    } else {
      // A valid override with one character replaced: often still valid, often not.
      set = valid[rng() % 4];
      set[rng() % set.size()] = alphabet[rng() % alphabet.size()];
    }
    try {
      parse(kFull, {set});
      ++applied;
    } catch (const InputError&) {
      ++rejected;
    }
  }
  CHECK(applied > 0);
  CHECK(rejected > 0);
}

namespace {

// A number printed so that it reads back as the same double.
std::string exact(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}
std::string just_below(double v) { return exact(std::nextafter(v, -HUGE_VAL)); }
std::string just_above(double v) { return exact(std::nextafter(v, HUGE_VAL)); }

// One documented bound of docs/SCENARIOS.md: the values at its edges are read, the values just
// past them are refused at the key, through --set (the same reader as the file).
struct Bound {
  std::string key;
  std::vector<std::string> base;  // --set lines that make the key apply
  std::string low, high;          // accepted
  std::string below, above;       // refused; empty: that side has no value to test
  std::string below_problem = "must be >= ";
  std::string above_problem = "must be <= ";
};

std::string repeated(const std::string& item, int n, const std::string& sep = ", ") {
  std::string out;
  for (int i = 0; i < n; ++i) out += (i ? sep : "") + item;
  return out;
}

}  // namespace

TEST_CASE("every time and count is read at the edges of its documented range and refused past them",
          "[loader][bounds]") {
  const std::string native0 = "gpu_sharing={policy: native, context_switch_us: 0}";
  const std::string int_range = "must be an integer in ";
  const std::string piecewise =
      "inference[0].arrivals={process: piecewise, segments: [{start_s: 0, rate_per_s: 1}, "
      "{start_s: 5, rate_per_s: 1}]}";
  const std::vector<Bound> bounds = {
      {"duration_s", {}, "1e-9", "1e7", just_below(1e-9), just_above(1e7)},
      {"gpu_sharing.timeslice_us", {native0}, "0.001", "1e6", just_below(0.001), just_above(1e6)},
      {"gpu_sharing.context_switch_us",
       {"gpu_sharing={policy: native, timeslice_us: 1e6}"},
       "0",
       "1e6",
       just_below(0),
       just_above(1e6)},
      // A switch at most 1000 slices long, whether the switch or the slice is given.
      {"gpu_sharing.context_switch_us",
       {"gpu_sharing={policy: native, timeslice_us: 1}"},
       "0",
       "1000",
       "",
       just_above(1000),
       "",
       "context_switch_us must be <= 1000 x timeslice_us"},
      {"gpu_sharing.timeslice_us",
       {"gpu_sharing={policy: native}"},  // the default switch, 25 us
       "0.025",
       "1e6",
       just_below(0.025),
       "",
       "context_switch_us must be <= 1000 x timeslice_us"},
      {"gpu_sharing.risk",
       {"gpu_sharing={policy: managed}"},
       "1e-12",
       "0.5",
       just_below(1e-12),
       just_above(0.5)},
      {"inference[0].max_wait_ms", {}, "1e-6", "1e10", just_below(1e-6), just_above(1e10)},
      {"inference[0].arrivals.rate_per_s", {}, "1e-6", "1e6", just_below(1e-6), just_above(1e6)},
      {"inference[0].arrivals.rate_per_s",
       {"inference[0].arrivals.process=poisson"},
       "1e-6",
       "1e6",
       just_below(1e-6),
       just_above(1e6)},
      {"inference[0].arrivals.segments[1].rate_per_s",
       {piecewise},
       "1e-6",
       "1e6",
       just_below(1e-6),
       just_above(1e6)},
      {"inference[0].arrivals.segments[1].start_s",
       {piecewise},
       "1e-9",
       "1e7",
       "",
       just_above(1e7)},
      {"inference[0].arrivals.segments[0].start_s", {piecewise}, "0", "0", just_below(0), ""},
      {"budgets.latency_ms", {}, "1e-6", "1e10", just_below(1e-6), just_above(1e10)},
      {"budgets.power_window_s",
       {"duration_s=0.01"},
       "1e-9",
       "1e7",
       just_below(1e-9),
       just_above(1e7)},
      {"outputs.power_sample_s",
       {"duration_s=0.01"},
       "1e-9",
       "1e7",
       just_below(1e-9),
       just_above(1e7)},
      // At most 1e8 windows or samples in a run: 6e-6 s for the 600 s of kFull.
      {"budgets.power_window_s",
       {},
       "6e-6",
       "1e7",
       just_below(6e-6),
       "",
       "must be >= 6e-6 s for a 600 s run (at most 1e8 windows in a run)"},
      {"outputs.power_sample_s",
       {},
       "6e-6",
       "1e7",
       just_below(6e-6),
       "",
       "must be >= 6e-6 s for a 600 s run (at most 1e8 samples in a run)"},
      {"version", {}, "1", "1", "0", "2", "unsupported version", "unsupported version"},
      {"seed",
       {},
       "0",
       "18446744073709551615",
       "-1",
       "18446744073709551616",
       int_range + "0..18446744073709551615",
       int_range + "0..18446744073709551615"},
      {"training.batch_size", {}, "1", "65536", "0", "65537", int_range, int_range},
      {"training.epochs", {}, "1", "1000000", "0", "1000001", int_range, int_range},
      {"training.dataloader.workers", {}, "0", "256", "-1", "257", int_range, int_range},
      {"training.dataloader.prefetch_factor", {}, "1", "1024", "0", "1025", int_range, int_range},
      {"inference[0].batch_size", {}, "1", "65536", "0", "65537", int_range, int_range},
      {"search.batch_sizes[0]", {}, "1", "65536", "0", "65537", int_range, int_range},
      {"device.cores",
       {"device={model: orin-agx-64gb}"},
       "1",
       "1024",
       "0",
       "1025",
       "must be >= 1",
       int_range},
      // Lists.
      {"inference",
       {},
       "[" + repeated("{workload: resnet50, arrivals: {process: fixed, rate_per_s: 1}}", 1) + "]",
       "[" + repeated("{workload: resnet50, arrivals: {process: fixed, rate_per_s: 1}}", 64) + "]",
       "",
       "[" + repeated("{workload: resnet50, arrivals: {process: fixed, rate_per_s: 1}}", 65) + "]",
       "",
       "at most 64 inference streams, got 65"},
      {"inference[0].arrivals.segments",
       {piecewise},
       "[{start_s: 0, rate_per_s: 1}]",
       "[{start_s: 0, rate_per_s: 1}, " +
           [] {
             std::string s;
             for (int i = 1; i < 10000; ++i)
               s += (i > 1 ? ", " : "") + std::string("{start_s: ") + std::to_string(i) +
                    ", rate_per_s: 1}";
             return s;
           }() +
           "]",
       "",
       "[{start_s: 0, rate_per_s: 1}, " +
           [] {
             std::string s;
             for (int i = 1; i < 10001; ++i)
               s += (i > 1 ? ", " : "") + std::string("{start_s: ") + std::to_string(i) +
                    ", rate_per_s: 1}";
             return s;
           }() +
           "]",
       "",
       "at most 10000 segments, got 10001"},
      {"search.batch_sizes",
       {},
       "[1]",
       "[" + repeated("8", 64) + "]",
       "",
       "[" + repeated("8", 65) + "]",
       "",
       "at most 64 batch sizes, got 65"},
      // Names, in bytes.
      {"name",
       {},
       "n",
       std::string(128, 'n'),
       "",
       std::string(129, 'n'),
       "",
       "must be at most 128 bytes long, got 129"},
      {"inference[0].name",
       {},
       "n",
       std::string(128, 'n'),
       "",
       std::string(129, 'n'),
       "",
       "must be at most 128 bytes long, got 129"},
      {"training.workload",
       {},
       "resnet18",
       std::string(128, 'w'),
       "",
       std::string(129, 'w'),
       "",
       "must be at most 128 bytes long, got 129"},
  };
  for (const Bound& b : bounds) {
    for (const std::string& ok : {b.low, b.high}) {
      std::vector<std::string> sets = b.base;
      sets.push_back(b.key + "=" + ok);
      // At the extremes requests.csv would pass its default row limit, a rule of its own.
      sets.push_back("outputs.max_rows=1e15");
      INFO(b.key << " = " << ok.substr(0, 80));
      CHECK_NOTHROW(parse(kFull, sets));
    }
    const std::pair<std::string, std::string> past[] = {{b.below, b.below_problem},
                                                        {b.above, b.above_problem}};
    for (const auto& [value, problem] : past) {
      if (value.empty()) continue;
      std::vector<std::string> sets = b.base;
      sets.push_back(b.key + "=" + value);
      INFO(b.key << " = " << value.substr(0, 80));
      const InputError e = error_of([&] { parse(kFull, sets); });
      INFO(e.what());
      CHECK(e.key_path() == b.key);
      CHECK_THAT(e.problem(), Catch::StartsWith(problem));
      REQUIRE(e.where());
      CHECK(e.where()->file == "--set");
    }
  }
}

TEST_CASE("a bound is reported at the value's place in the file with the value as written",
          "[loader][bounds]") {
  struct Case {
    std::string from, to, key;
    int line, column;
    std::string problem;
  };
  const std::vector<Case> cases = {
      {"duration_s: 600", "duration_s: 2e7", "duration_s", 4, 13,
       "must be <= 1e7 s (the longest run), got 2e7"},
      {"gpu_sharing: managed", "gpu_sharing: {policy: native, context_switch_us: 2e14}",
       "gpu_sharing.context_switch_us", 6, 50,
       "must be <= 1e6 us (a switch of at most 1 s), got 2e14"},
      {"gpu_sharing: managed", "gpu_sharing: {policy: native, timeslice_us: 1e-300}",
       "gpu_sharing.timeslice_us", 6, 45,
       "must be >= 0.001 us (a slice of at least 1 ns), got 1e-300"},
      {"    batch_size: 16\n", "    batch_size: 16\n    max_wait_ms: 9.3e12\n",
       "inference[0].max_wait_ms", 15, 18, "must be <= 1e10 ms (the longest run), got 9.3e12"},
      {"power_w: 30}", "power_w: 30, power_window_s: 9.3e9}", "budgets.power_window_s", 16, 81,
       "must be <= 1e7 s (the longest run), got 9.3e9"},
      {"trace: true}", "trace: true, power_sample_s: 1e10}", "outputs.power_sample_s", 18, 88,
       "must be <= 1e7 s (the longest run), got 1e10"},
      {"rate_per_s: 100", "rate_per_s: 0", "inference[0].arrivals.rate_per_s", 15, 44,
       "must be >= 1e-6 requests/s (at least one request per 1e6 s), got 0"},
  };
  for (const Case& c : cases) {
    const InputError e = error_of([&] { parse(replace(kFull, c.from, c.to)); });
    INFO(e.what());
    CHECK(e.key_path() == c.key);
    CHECK(e.problem() == c.problem);
    REQUIRE(e.where());
    CHECK(e.where()->line == c.line);
    CHECK(e.where()->column == c.column);
  }
}

TEST_CASE("seed: takes the same values as --seed, written without quotes", "[loader][bounds]") {
  CHECK(parse(kFull, {"seed=18446744073709551615"}).scenario.seed == 18446744073709551615ULL);
  CHECK(parse(kFull, {"seed=+12"}).scenario.seed == 12);
  CHECK(parse(kFull, {"seed=007"}).scenario.seed == 7);
  CHECK(seed_from_text("18446744073709551615") == 18446744073709551615ULL);
  for (const std::string bad :
       {"", "-1", "+-1", "1.5", "1e3", "0x10", " 7", "18446744073709551616"}) {
    INFO(bad);
    CHECK_FALSE(seed_from_text(bad));
  }
  CHECK(bad_seed_problem("x\ny") == "must be an integer in 0..18446744073709551615, got 'x\\ny'");
  CHECK(std::string(error_of([] { parse(kFull, {"seed=\"7\""}); }).what()) ==
        "--set: seed: expected an integer, got the string '7' (write it without quotes)");
}

TEST_CASE("profile tables are at most 64 and paths at most 4096 bytes", "[loader][bounds]") {
  TempDir dir;
  dir.write("p.csv", "#\n");
  const auto with_tables = [&](int n) {
    return "device.perf_model={table: [" + repeated("p.csv", n) + "]}";
  };
  CHECK(std::get<TablePerfModel>(
            parse_scenario(kFull, "s.yaml", {with_tables(64)}, dir.path().string())
                .scenario.device.perf_model)
            .paths.size() == 64);
  const InputError many =
      error_of([&] { parse_scenario(kFull, "s.yaml", {with_tables(65)}, dir.path().string()); });
  CHECK(many.key_path() == "device.perf_model.table");
  CHECK(many.problem() == "at most 64 profile CSVs, got 65");

  // 4096 bytes is read as a path (that does not exist); one more is refused for its length.
  const std::string trace = "inference[0].arrivals={process: trace, path: ";
  const InputError at_limit =
      error_of([&] { parse(kFull, {trace + std::string(4096, 'p') + "}"}); });
  CHECK_THAT(at_limit.problem(), Catch::StartsWith("cannot open trace file"));
  const InputError past = error_of([&] { parse(kFull, {trace + std::string(4097, 'p') + "}"}); });
  CHECK(past.key_path() == "inference[0].arrivals.path");
  CHECK(past.problem() == "must be at most 4096 bytes long, got 4097");
}
