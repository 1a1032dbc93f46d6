// Every verb's outputs and options, end to end through the command line: an output that is a
// device, a folder, a FIFO, one of the command's inputs or someone else's file is refused with
// one line before any work; options a verb would ignore are refused; --json is JSON.
#include <sys/stat.h>
#include <sys/wait.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "models/error.hpp"
#include "sim/cli/cli.hpp"
#include "tests/input_error.hpp"
#include "tests/reference_data.hpp"
#include "tests/sim/report/json_check.hpp"
#include "tests/temp_dir.hpp"

using namespace fulcrum;
using fulcrum::sim::testing::parse_json;
using fulcrum::testing::error_of;
using fulcrum::testing::TempDir;

namespace {

// The one line a verb refuses its arguments with.
std::string refusal(const std::vector<std::string>& args) {
  const InputError e = error_of([&] {
    std::ostringstream out, err;
    sim::run_cli(args, out, err);
  });
  return e.what();
}

std::string stdout_of(const std::vector<std::string>& args) {
  std::ostringstream out, err;
  REQUIRE(sim::run_cli(args, out, err) == 0);
  return out.str();
}

using fulcrum::testing::slurp;

}  // namespace

TEST_CASE("profile refuses an output that is a device, a FIFO or a file it did not write") {
  TempDir dir;
  CHECK(refusal({"profile", "--workloads", "resnet18", "--out", "/dev/null"}) ==
        "--out: /dev/null is a device; name a regular file");
  const std::filesystem::path fifo = dir.path() / "fifo";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  CHECK(refusal({"profile", "--workloads", "resnet18", "--out", fifo.string()}) ==
        "--out: " + fifo.string() + " is a FIFO; name a regular file");
  const std::string scenario = dir.write("x.yaml", "version: 1\nname: x\n");
  CHECK(refusal({"profile", "--workloads", "resnet18", "--out", scenario}) ==
        "--out: " + scenario +
            " exists and is not an earlier output of this command (it does not start with "
            "'# fulcrum profile'); choose a new file or remove it");
  CHECK(slurp(scenario) == "version: 1\nname: x\n");
  // Its own earlier profile it replaces.
  const std::string out = (dir.path() / "p.csv").string();
  stdout_of({"profile", "--workloads", "resnet18", "--out", out, "-q"});
  stdout_of({"profile", "--workloads", "resnet18", "--out", out, "-q"});
}

TEST_CASE("profile refuses what its own reader would refuse, before measuring") {
  CHECK(refusal({"profile", "--workloads", "resnet18,resnet18"}) ==
        "--workloads: 'resnet18' is listed twice");
  CHECK(refusal({"profile", "--workloads", "resnet18", "--dataset", "a,b"}) ==
        "--dataset: 'a,b' holds a comma or a line break, which no CSV cell can");
  CHECK(refusal({"profile", "--workloads", "resnet18", "--batch-sizes", "100000"}) ==
        "--batch-sizes: expected batch sizes in 1..65536, found 100000");
}

TEST_CASE("calibrate refuses --modes options without --modes, and --out before fitting") {
  CHECK(refusal({"calibrate", "--fit", "x.csv"}) == "--fit: only with --modes");
  CHECK(refusal({"calibrate", "--holdout", "0.2"}) == "--holdout: only with --modes");
  CHECK(refusal({"calibrate", "--phase", "inference"}) == "--phase: only with --modes");
  CHECK(refusal({"calibrate", "--jobs", "2"}) == "--jobs: only with --modes");
  // A negative count is refused, not read as a huge unsigned one (study's --jobs alike).
  CHECK(refusal({"calibrate", "--modes", "--zero-shot", "1", "--jobs", "-1"}) ==
        "--jobs: expected a thread count from 0 (every core) to 1024, got '-1'");
  CHECK(refusal({"study", "x.yaml", "--jobs", "-1"}) ==
        "--jobs: expected a thread count from 0 (every core) to 1024, got '-1'");
  const auto reference = fulcrum::testing::reference_path("training-anchors.csv");
  if (!reference) return;  // skipped
  const std::string dir = std::filesystem::path(*reference).parent_path().string();
  CHECK(refusal({"calibrate", "--reference", dir, "--out", "/dev/null"}) ==
        "--out: /dev/null is not a folder; name a folder (absent, empty or an earlier result)");
}

TEST_CASE("calibrate --modes --fit-sample beyond the reference rows is refused before fitting") {
  const auto modes = fulcrum::testing::reference_path("measurements/orin-agx-training-modes.csv");
  if (!modes) return;  // skipped
  const std::string dir = std::filesystem::path(*modes).parent_path().parent_path().string();
  CHECK(refusal({"calibrate", "--reference", dir, "--modes", "--workload", "resnet18",
                 "--fit-sample", "100000"})
            .rfind("--fit-sample: expected 1 to ", 0) == 0);
  CHECK(refusal({"calibrate", "--reference", dir, "--modes", "--workload", "resnet18", "--fit",
                 "no-such.csv"})
            .find("no-such.csv") != std::string::npos);
}

TEST_CASE("devices --out without --probe is refused rather than ignored") {
  CHECK(refusal({"devices", "--out", "x.yaml"}) == "--out: only with --probe");
}

TEST_CASE("devices and workloads print their catalogs as JSON with --json") {
  const auto devices = parse_json(stdout_of({"devices", "--json"}));
  REQUIRE(devices.at("devices").items.size() >= 3);
  bool orin = false;
  for (const auto& d : devices.at("devices").items) {
    if (d.at("name").text != "orin-agx-64gb") continue;
    orin = true;
    CHECK(d.at("cpu_cores").number == 12);  // Jetson AGX Orin 64GB: 12 Cortex-A78AE cores
    CHECK(d.at("gpu_hz").items.back().number == 1300500000);  // its top GPU clock, 1300.5 MHz
  }
  CHECK(orin);
  const auto one = parse_json(stdout_of({"devices", "orin-agx-64gb", "--json"}));
  CHECK(one.at("devices").items.size() == 1);
  const auto workloads = parse_json(stdout_of({"workloads", "--json"}));
  bool resnet50 = false;
  for (const auto& w : workloads.at("workloads").items) {
    if (w.at("name").text != "resnet50") continue;
    resnet50 = true;
    // ResNet-50: about 25.6 M parameters, about 4.1 GMACs (8.2 GFLOP) per image.
    CHECK(w.at("parameters").number == Approx(25.6e6).epsilon(0.01));
    CHECK(w.at("forward_flops_per_sample").number == Approx(8.2e9).epsilon(0.05));
  }
  CHECK(resnet50);
  CHECK_FALSE(workloads.at("datasets").items.empty());
}

TEST_CASE("a --set that conflicts with the scenario's preset is blamed on the --set") {
  CHECK(refusal({"run", "scenarios/quickstart.yaml", "--set", "device.cores=4"}) ==
        "--set: device.cores: the scenario names the preset power_mode MAXN; give either a "
        "preset or cores/cpu_mhz/gpu_mhz/emc_mhz, not both");
}

TEST_CASE("a binary CSV header reaches the terminal escaped, never raw") {
  TempDir dir;
  const std::string csv = dir.write("bin.csv", std::string("mo\x01"
                                                           "del,\x1b[2J,x\n1,2,3\n"));
  const std::filesystem::path err = dir.path() / "err.txt";
  const std::string command =
      std::string(FULCRUM_BINARY) + " predict --fit " + csv + " --at " + csv + " 2>" + err.string();
  const int status = std::system(command.c_str());
  CHECK(WEXITSTATUS(status) == 2);
  const std::string text = slurp(err);
  REQUIRE_FALSE(text.empty());
  CHECK(text.back() == '\n');
  for (std::size_t i = 0; i + 1 < text.size(); ++i) {
    INFO(i);
    CHECK(static_cast<unsigned char>(text[i]) >= 0x20);  // no control byte but the final newline
  }
  CHECK(text.find("mo\\x01del") != std::string::npos);
}

TEST_CASE("an interrupted validate names its bundle and leaves no lock or staging folder") {
  TempDir dir;
  const std::filesystem::path bundle = dir.path() / "bundle";
  const std::filesystem::path err = dir.path() / "err.txt";
  // A 20 s wall-clock measured run: the signal comes in one of validate's stages, whichever.
  const std::string command = "timeout -s INT 2 " + std::string(FULCRUM_BINARY) +
                              " validate scenarios/quickstart.yaml --duration-s 20 -q --out " +
                              bundle.string() + " 2>" + err.string();
  const int status = std::system(command.c_str());
  CHECK(WEXITSTATUS(status) == 124);  // timeout's status for a command it signalled
  CHECK(slurp(err) ==
        "fulcrum: interrupted (SIGINT); nothing was written to " + bundle.string() + "\n");
  std::vector<std::string> left;
  for (const auto& e : std::filesystem::directory_iterator(dir.path())) {
    left.push_back(e.path().filename().string());
  }
  std::sort(left.begin(), left.end());
  CHECK(left == std::vector<std::string>{"err.txt"});
}

TEST_CASE("calibrate prints what it fitted and wrote as JSON with --json") {
  const std::optional<std::string> reference = fulcrum::testing::reference_path();
  if (!reference) return;  // skipped
  TempDir dir;
  const std::filesystem::path yaml = dir.path() / "orin.yaml";
  const auto report = parse_json(
      stdout_of({"calibrate", "--reference", *reference, "--out", yaml.string(), "--json"}));
  CHECK(report.at("kind").text == "reference");
  CHECK(report.at("device").text == "orin-agx-64gb");
  CHECK(report.at("calibration_yaml").text == yaml.string());
  CHECK(report.at("in_sample").boolean);
  CHECK(std::filesystem::file_size(yaml) > 0);
}
