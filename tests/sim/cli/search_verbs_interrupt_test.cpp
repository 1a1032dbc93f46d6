// `fulcrum sweep` and `fulcrum optimize` stopped by a signal, as whole processes: one line, exit
// 128 + signal, nothing staged, published or locked left behind; optimize prints what its search
// found before the signal stopped the run of its choice.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "tests/reference_data.hpp"
#include "tests/spawn_process.hpp"
#include "tests/temp_dir.hpp"

namespace {

namespace fs = std::filesystem;

using fulcrum::testing::slurp;

// Runs FULCRUM_BINARY with `args`, stdout into `out` (or nowhere), stderr into `err`; returns its
// pid.
pid_t spawn(const std::vector<std::string>& args, const fs::path& err, const fs::path& out = {}) {
  std::vector<std::string> argv{FULCRUM_BINARY};
  argv.insert(argv.end(), args.begin(), args.end());
  const pid_t pid = fulcrum::testing::spawn_process(argv, err, out);
  REQUIRE(pid > 0);
  return pid;
}

}  // namespace

TEST_CASE("a sweep stopped by SIGINT or SIGTERM says so in one line and leaves nothing",
          "[cli][sweep]") {
  if (!fulcrum::testing::reference_path("measurements")) return;
  fulcrum::testing::TempDir dir;
  // About 200,000 configurations of cheap strategies: minutes of work, stopped in its first
  // chunks.
  const fs::path spec = dir.path() / "big.yaml";
  std::ofstream(spec) << "version: 1\nname: big\n"
                         "workloads: [{training: resnet18, inference: mobilenet_v3}]\n"
                         "arrivals: {fixed: {from: 10, to: 200, step: 1}}\n"
                         "latency_budget_s: {from: 0.1, to: 2, step: 0.1}\n"
                         "power_budget_w: {from: 10, to: 60, step: 1}\n"
                         "strategies: [maxn, presets, binary, oracle]\n";
  const fs::path csv = dir.path() / "big.csv";
  for (const auto& [signal, name, status] :
       {std::tuple{SIGINT, "SIGINT", 130}, std::tuple{SIGTERM, "SIGTERM", 143}}) {
    INFO(name);
    const fs::path err = dir.path() / "err.txt";
    const pid_t pid = spawn({"sweep", spec.string(), "--out", csv.string(), "-j", "1"}, err);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (!fs::exists(csv.string() + ".partial") && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    REQUIRE(fs::exists(csv.string() + ".partial"));
    REQUIRE(::kill(pid, signal) == 0);
    int raw = 0;
    REQUIRE(::waitpid(pid, &raw, 0) == pid);
    REQUIRE(WIFEXITED(raw));
    CHECK(WEXITSTATUS(raw) == status);
    const std::string text = slurp(err);
    const std::string last = "fulcrum: interrupted (" + std::string(name) +
                             "); nothing was written to " + csv.string() + "\n";
    CHECK(text.size() >= last.size());
    CHECK(text.substr(text.size() - std::min(text.size(), last.size())) == last);
    CHECK(text.find('\r') == std::string::npos);  // stderr is a file: no '\r' progress
    CHECK_FALSE(fs::exists(csv));
    CHECK_FALSE(fs::exists(csv.string() + ".partial"));
    CHECK_FALSE(fs::exists(csv.string() + ".lock"));
  }
}

TEST_CASE("an optimize stopped during the run of its choice prints its search and writes nothing",
          "[cli][optimize]") {
  if (!fulcrum::testing::reference_path("measurements")) return;
  fulcrum::testing::TempDir dir;
  const fs::path folder = dir.path() / "o";
  const fs::path out = dir.path() / "out.txt";
  const fs::path err = dir.path() / "err.txt";
  // Days of simulated time in the chosen mode: still running two seconds in.
  const pid_t pid = spawn(
      {"optimize", std::string(FULCRUM_SOURCE_DIR) + "/scenarios/optimize-measured.yaml", "--out",
       folder.string(), "--set", "duration_s=10000000", "--set", "outputs.requests=false"},
      err, out);
  std::this_thread::sleep_for(std::chrono::seconds(2));
  REQUIRE(::kill(pid, SIGINT) == 0);
  int raw = 0;
  REQUIRE(::waitpid(pid, &raw, 0) == pid);
  REQUIRE(WIFEXITED(raw));
  CHECK(WEXITSTATUS(raw) == 130);
  CHECK(slurp(err) ==
        "fulcrum: interrupted (SIGINT); nothing was written to " + folder.string() + "\n");
  const std::string text = slurp(out);
  CHECK_THAT(text, Catch::StartsWith("optimize optimize-measured: strategy prior") &&
                       Catch::Contains("  choice: 8c/729.6/1134.75/3199 MHz, batch 32") &&
                       Catch::Contains("  oracle: "));
  CHECK(text.find("wrote") == std::string::npos);
  CHECK_FALSE(fs::exists(folder / "optimize.json"));
  CHECK_FALSE(fs::exists(folder / "optimize.json.partial"));
  CHECK_FALSE(fs::exists(folder / "optimize.json.lock"));
}
