// `fulcrum sweep` stopped by a signal, as a whole process: one line, exit 128 + signal, and
// neither its staged `.partial`, nor a CSV, nor its lock left behind.
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
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
#include "tests/temp_dir.hpp"

extern char** environ;

namespace {

namespace fs = std::filesystem;

std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// Runs FULCRUM_BINARY with `args`, stderr into `err`; returns its pid.
pid_t spawn(const std::vector<std::string>& args, const fs::path& err) {
  std::vector<std::string> argv_s{FULCRUM_BINARY};
  argv_s.insert(argv_s.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : argv_s) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 2, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  // Default dispositions and no blocked signals, whatever this test was started with.
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  sigset_t signals;
  sigemptyset(&signals);
  posix_spawnattr_setsigmask(&attributes, &signals);
  for (int s : {SIGINT, SIGTERM, SIGHUP}) sigaddset(&signals, s);
  posix_spawnattr_setsigdefault(&attributes, &signals);
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  pid_t pid = -1;
  const int rc = posix_spawn(&pid, argv[0], &actions, &attributes, argv.data(), environ);
  posix_spawnattr_destroy(&attributes);
  posix_spawn_file_actions_destroy(&actions);
  REQUIRE(rc == 0);
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
