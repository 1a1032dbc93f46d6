// `fulcrum workloads --import`: an ONNX model written as a workload file that reads back as the
// catalog's graph of the same architecture, and each class of bad input refused with one line,
// exit 2 and nothing written. The bad models are made here from a committed export by editing
// bytes in place (same lengths, so the protobuf stays well formed). Skips without ONNX support.

#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <string>

#include "models/onnx/onnx_import.hpp"
#include "models/workload/architectures.hpp"
#include "models/workload/graph_workload.hpp"
#include "sim/config/workload_file_loader.hpp"
#include "tests/run_shell.hpp"
#include "tests/temp_dir.hpp"

namespace fs = std::filesystem;
namespace fm = fulcrum::models;
using fulcrum::testing::slurp;
using fulcrum::testing::TempDir;

namespace {

using Outcome = fulcrum::testing::ShellOutcome;

// `env`: "NAME=VALUE ..." set for the command.
Outcome fulcrum_in(const TempDir& dir, const std::string& args, const std::string& env = "") {
  return fulcrum::testing::run_shell("cd '" + dir.path().string() + "' && " + env + " '" +
                                         std::string(FULCRUM_BINARY) + "' " + args,
                                     dir.path());
}

std::string resnet18_bytes() {
  return slurp(std::string(FULCRUM_DATA_DIR) + "/onnx/resnet18.onnx");
}

bool skip_without_onnx() {
  if (fm::onnx_import_available()) return false;
  std::cout << FULCRUM_SKIP_MARKER << " this build has no ONNX import (libonnx-dev)" << std::endl;
  return true;
}

// Replaces every occurrence of `from` by `to` (same length).
std::string replace_all(std::string s, const std::string& from, const std::string& to) {
  REQUIRE(from.size() == to.size());
  for (auto at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size()))
    s.replace(at, from.size(), to);
  return s;
}

// Only the command's own files: nothing written, no temporary left behind.
void check_nothing_written(const TempDir& dir) {
  for (const auto& e : fs::directory_iterator(dir.path())) {
    const std::string name = e.path().filename().string();
    CHECK((name == "stdout.txt" || name == "stderr.txt" || name.ends_with(".onnx") ||
           name == "mine.yaml"));
  }
}

}  // namespace

TEST_CASE("an imported ONNX model is a workload file that costs what the built-in graph does",
          "[cli][onnx]") {
  if (skip_without_onnx()) return;
  TempDir dir;
  const std::string model = std::string(FULCRUM_DATA_DIR) + "/onnx/resnet18.onnx";
  const Outcome o =
      fulcrum_in(dir, "workloads --import '" + model + "' --name resnet18-onnx --out r18.yaml");
  INFO(o.err);
  REQUIRE(o.status == 0);
  CHECK(o.err.empty());
  // ResNet-18's figures as torchvision publishes them: 11,689,512 parameters, 1.81 GMACs.
  CHECK(o.out ==
        "wrote r18.yaml: workload 'resnet18-onnx', 70 layers, 11.69 M parameters, 1.814 GMACs "
        "per sample (input 'input')\n");
  const fulcrum::sim::WorkloadFile f = fulcrum::sim::load_workload_file((dir.path() / "r18.yaml"));
  CHECK(f.workload.name() == "resnet18-onnx");
  CHECK(f.workload.parameters() == 11'689'512);
  const fm::GraphWorkload builtin = fm::architectures::resnet18();
  for (const auto phase : {fm::Phase::inference, fm::Phase::training}) {
    INFO(fm::to_string(phase));
    const fm::PhaseCost a = f.workload.cost(phase, 16);
    const fm::PhaseCost b = builtin.cost(phase, 16);
    CHECK(a.flops == Approx(b.flops).epsilon(0.01));
    CHECK(a.bytes == Approx(b.bytes).epsilon(0.01));
    CHECK(a.kernels == b.kernels);
  }
  // A scenario names the file as its workload, for training and for an inference stream.
  dir.write("s.yaml",
            "version: 1\nname: imported\nduration_s: 30\n"
            "device: {model: orin-agx-64gb, power_mode: MAXN}\n"
            "training: {workload: r18.yaml, dataset: gld23k, batch_size: 16}\n"
            "inference:\n"
            "  - {name: r, workload: r18.yaml, batch_size: 8, arrivals: {process: fixed, "
            "rate_per_s: 20}}\n");
  const Outcome run = fulcrum_in(dir, "run s.yaml --out out -q");
  INFO(run.err);
  CHECK(run.status == 0);
  CHECK(slurp(dir.path() / "out" / "summary.json").find("\"throughput_per_s\"") !=
        std::string::npos);
  // Run again, it replaces its own earlier output; never a file of the user's.
  CHECK(fulcrum_in(dir, "workloads --import '" + model + "' --name r --out r18.yaml").status == 0);
  dir.write("mine.yaml", "name: not an import\n");
  const Outcome mine =
      fulcrum_in(dir, "workloads --import '" + model + "' --name r --out mine.yaml");
  CHECK(mine.status == 2);
  CHECK(mine.err.rfind("--out: mine.yaml exists", 0) == 0);
  CHECK(slurp(dir.path() / "mine.yaml") == "name: not an import\n");
}

TEST_CASE("a bad ONNX model is refused with one line, exit 2 and nothing written", "[cli][onnx]") {
  if (skip_without_onnx()) return;
  TempDir dir;
  const std::string whole = resnet18_bytes();
  REQUIRE(whole.size() > 1000);
  // The input's dimension 2 (224: field 1, varint E0 01) made the symbol "H" (field 2, one byte).
  const std::string batch = std::string("\x12\x05") + "batch";
  const std::string dim224("\x0a\x03\x08\xe0\x01", 5);
  const auto at = whole.find(dim224, whole.find(batch));
  REQUIRE(at != std::string::npos);
  std::string dynamic = whole;
  dynamic.replace(at, dim224.size(), std::string("\x0a\x03\x12\x01H", 5));
  dir.write("dynamic.onnx", dynamic);
  dir.write("unsupported.onnx", replace_all(whole, "GlobalAveragePool", "GlobalMedianPool1"));
  dir.write("truncated.onnx", whole.substr(0, whole.size() / 2));
  // ONNX does not constrain names; a layer name must be printable to be written.
  dir.write("control.onnx", replace_all(whole, "/fc/Gemm", std::string("/fc/G\x01mm")));
  dir.write("text.onnx", "version: 1\nname: tiny\n");

  const std::pair<std::string, std::string> cases[] = {
      {"unsupported.onnx",
       "unsupported.onnx: node '/avgpool/GlobalMedianPool1' (GlobalMedianPool1): unsupported op "
       "type 'GlobalMedianPool1' (docs/WORKLOADS.md lists the ops the importer maps)\n"},
      {"dynamic.onnx",
       "dynamic.onnx: input 'input': dimension 2 ('H') is dynamic; give the shape with "
       "--input-shape input=1x3xNx224\n"},
      {"control.onnx",
       "control.onnx: node '/fc/G\\x01mm': its name contains a control character (U+0001 at "
       "byte 6); names, paths and other text must be printable\n"},
      {"truncated.onnx",
       "truncated.onnx: not an ONNX model, or a truncated one (the protobuf does not parse)\n"},
      {"text.onnx",
       "text.onnx: not an ONNX model, or a truncated one (the protobuf does not parse)\n"},
  };
  for (const auto& [file, message] : cases) {
    INFO(file);
    const Outcome o = fulcrum_in(dir, "workloads --import " + file + " --name m --out m.yaml");
    CHECK(o.status == 2);
    CHECK(o.err == message);
    CHECK(o.out.empty());
    check_nothing_written(dir);
  }
  // With the dimension given, the same model imports as ResNet-18.
  const Outcome given = fulcrum_in(
      dir, "workloads --import dynamic.onnx --input-shape input=1x3x224x224 --name m --out m.yaml");
  INFO(given.err);
  CHECK(given.status == 0);
  CHECK(given.out.find("11.69 M parameters, 1.814 GMACs") != std::string::npos);

  // Bad options: one line, exit 2.
  for (const std::string args :
       {"workloads --import dynamic.onnx --out x.yaml", "workloads --import dynamic.onnx --name m",
        "workloads --name m", "workloads --import dynamic.onnx --name m --out x.txt",
        "workloads --import dynamic.onnx --name 'a b' --out x.yaml",
        "workloads --import dynamic.onnx --name resnet18 --out x.yaml",
        "workloads --import dynamic.onnx --name m --out x.yaml --json",
        "workloads --import dynamic.onnx --input-shape 3xAx4 --name m --out x.yaml"}) {
    INFO(args);
    const Outcome o = fulcrum_in(dir, args);
    CHECK(o.status == 2);
    CHECK(std::count(o.err.begin(), o.err.end(), '\n') == 1);
    CHECK_FALSE(fs::exists(dir.path() / "x.yaml"));
  }
}

TEST_CASE("the fulcrum executable links no ONNX library, the importer is a plugin it opens",
          "[cli][onnx]") {
  TempDir dir;
  if (std::system("command -v readelf >/dev/null 2>&1") == 0) {
    const Outcome r = fulcrum_in(dir, "", "readelf -d");  // readelf -d 'fulcrum'
    REQUIRE(r.status == 0);
    CHECK(r.out.find("(NEEDED)") != std::string::npos);
    for (const char* lib : {"libonnx", "libprotobuf"}) {
      INFO(lib);
      CHECK(r.out.find(lib) == std::string::npos);
    }
  }
  if (skip_without_onnx()) return;
  const std::string model = std::string(FULCRUM_DATA_DIR) + "/onnx/vgg11.onnx";
  const Outcome o = fulcrum_in(dir, "workloads --import '" + model + "' --name v --out v.yaml",
                               "FULCRUM_ONNX_PLUGIN=/nonexistent/libfulcrum_onnx.so");
  CHECK(o.status == 2);
  CHECK(o.err ==
        "--import: cannot load the ONNX importer /nonexistent/libfulcrum_onnx.so: cannot open "
        "shared object file: No such file or directory (FULCRUM_ONNX_PLUGIN may name the plugin "
        "file)\n");
  CHECK_FALSE(fs::exists(dir.path() / "v.yaml"));
}
