// The verbs devices, workloads and calibrate as app functions: typed reports checked against
// published facts, their JSON parsed, and refusals before any work.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <string>

#include "models/error.hpp"
#include "sim/app/calibrate.hpp"
#include "sim/app/catalogs.hpp"
#include "sim/report/calibrate_report.hpp"
#include "sim/report/catalog_report.hpp"
#include "tests/input_error.hpp"
#include "tests/reference_data.hpp"
#include "tests/sim/report/json_check.hpp"
#include "tests/temp_dir.hpp"

using namespace fulcrum;
using namespace fulcrum::sim;
using fulcrum::sim::testing::JsonParser;
using fulcrum::testing::TempDir;

TEST_CASE("app::devices gives one device by name with its published core counts") {
  const DevicesReport r = app::devices({.name = "orin-agx-64gb"});
  CHECK(r.one);
  REQUIRE(r.devices.size() == 1);
  // Jetson AGX Orin 64GB: 12 Arm Cortex-A78AE cores, a 2048-core Ampere GPU (NVIDIA's data sheet).
  CHECK(r.devices[0].cpu_cores == 12);
  CHECK(r.devices[0].cuda_cores == 2048);
  const auto json = JsonParser(devices_json(r)).parse_document();
  REQUIRE(json.at("devices").items.size() == 1);
  CHECK(json.at("devices").items[0].at("name").text == "orin-agx-64gb");
  CHECK(json.at("devices").items[0].at("cpu_cores").number == 12);
}

TEST_CASE("app::devices gives the whole catalog, and refuses a name it does not have") {
  const DevicesReport all = app::devices({});
  CHECK_FALSE(all.one);
  CHECK(all.devices.size() > 1);
  CHECK(JsonParser(devices_json(all)).parse_document().at("devices").items.size() ==
        all.devices.size());
  CHECK(devices_text(all).find("orin-agx-64gb") != std::string::npos);
  fulcrum::testing::error_of([] { app::devices({.name = "no-such-device"}); });
}

TEST_CASE("app::workloads reports the catalog with published parameter and dataset sizes") {
  const WorkloadsReport r = app::workloads();
  const WorkloadRow* resnet50 = nullptr;
  for (const WorkloadRow& w : r.workloads) {
    if (w.name == "resnet50") resnet50 = &w;
  }
  REQUIRE(resnet50 != nullptr);
  CHECK(resnet50->parameters == Approx(25.557e6).epsilon(0.01));  // He et al. 2016: 25.6 M
  CHECK(resnet50->training_flops_per_sample > 2 * resnet50->forward_flops_per_sample);
  const DatasetRow* imagenet = nullptr;
  for (const DatasetRow& d : r.datasets) {
    if (d.name == "imagenet") imagenet = &d;
  }
  REQUIRE(imagenet != nullptr);
  CHECK(imagenet->samples == 1281167);  // ILSVRC-2012 training images
  const auto json = JsonParser(workloads_json(r)).parse_document();
  CHECK(json.at("workloads").items.size() == r.workloads.size());
  CHECK(json.at("datasets").items.size() == r.datasets.size());
}

TEST_CASE("app::calibrate refuses a missing reference folder and a bad holdout before fitting") {
  TempDir dir;
  const InputError missing = fulcrum::testing::error_of([&] {
    app::calibrate({.reference = {(dir.path() / "none").string(), "from a test"}});
  });
  CHECK(missing.problem().find("not found (from a test)") != std::string::npos);
  const InputError holdout = fulcrum::testing::error_of([&] {
    app::calibrate(
        {.reference = {dir.path().string(), "from a test"}, .modes = true, .holdout = 1.5});
  });
  CHECK(holdout.problem().find("--holdout must be in (0, 1)") != std::string::npos);
  // An output that is a device is refused before the (seconds-long) fit.
  const InputError device = fulcrum::testing::error_of([&] {
    app::calibrate({.reference = {dir.path().string(), "from a test"}, .out = "/dev/null"});
  });
  CHECK(std::string(device.what()).find("--out") != std::string::npos);
}

TEST_CASE("app::calibrate fits the published anchors and writes the calibration it reports") {
  const std::optional<std::string> reference = fulcrum::testing::reference_path();
  if (!reference) return;  // skipped
  TempDir dir;
  const CalibrateReport r =
      app::calibrate({.reference = {*reference, "from a test"}, .out = dir.path(), .quiet = true});
  CHECK(r.kind == "reference");
  CHECK(r.device == "orin-agx-64gb");
  CHECK(r.in_sample);
  CHECK(r.text.empty());  // quiet
  CHECK(r.fitted_rows > 0);
  CHECK(r.time_mape_pct > 0);
  CHECK(r.time_mape_pct < 100);
  REQUIRE(r.written.has_value());
  CHECK(*r.written == dir.path() / "orin-agx-64gb.yaml");
  CHECK(std::filesystem::file_size(*r.written) > 0);
  const auto json = JsonParser(calibrate_json(r)).parse_document();
  CHECK(json.at("kind").text == "reference");
  CHECK(json.at("fitted_rows").number == static_cast<double>(r.fitted_rows));
  CHECK(json.at("calibration_yaml").text == r.written->string());
  CHECK(json.at("iterations").kind == fulcrum::sim::testing::JsonValue::Kind::null);
}

TEST_CASE("app::calibrate replaces only a calibration of its own kind, never a scenario") {
  const std::optional<std::string> reference = fulcrum::testing::reference_path();
  if (!reference) return;  // skipped
  TempDir dir;
  const std::filesystem::path scenario = dir.path() / "poisson.yaml";
  std::ofstream(scenario) << "version: 1\nname: mine\n";
  const InputError e = fulcrum::testing::error_of([&] {
    app::calibrate({.reference = {*reference, "from a test"}, .out = scenario});
  });
  CHECK_THAT(e.what(), Catch::StartsWith("--out: "));
  std::ifstream in(scenario);
  std::string first;
  std::getline(in, first);
  CHECK(first == "version: 1");  // untouched
  // Its own earlier output is replaced.
  const std::filesystem::path own = dir.path() / "mine.yaml";
  app::calibrate({.reference = {*reference, "from a test"}, .out = own, .quiet = true});
  CHECK_NOTHROW(
      app::calibrate({.reference = {*reference, "from a test"}, .out = own, .quiet = true}));
}
