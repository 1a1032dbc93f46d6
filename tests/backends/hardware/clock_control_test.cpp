// JetsonClockControl against a fake Orin AGX sysfs tree: discovery and reading, the order of the
// writes (cores, max-then-min when raising, min-then-max when lowering, EMC), the dry run that
// writes nothing, verified writes, restore at the end of a scope and after an exception, and
// restore at the next start after a process died holding changed clocks.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "backends/hardware/jetson_clock_control.hpp"
#include "models/error.hpp"
#include "tests/backends/hardware/fake_sysfs.hpp"
#include "tests/input_error.hpp"

using namespace fulcrum;
using namespace fulcrum::backends;
using fulcrum::testing::dump_tree;
using fulcrum::testing::TempDir;
using fulcrum::testing::write_orin_clocks;

namespace {

// 4 cores at 1.1 GHz, GPU 624.75 MHz, EMC 2133 MHz: every clock below the maximum.
models::PowerMode low_mode() {
  return {.cores = 4, .cpu_khz = 1113600, .gpu_hz = 624750000, .emc_hz = 2133000000};
}

// The tree's clocks without the snapshot file (kept beside the tree, in its own folder).
struct Rig {
  TempDir sysfs;
  TempDir state;
  Rig() { write_orin_clocks(sysfs); }
  JetsonClockOptions options(bool allow) const {
    return {.sysfs_root = sysfs.path(),
            .allow_changes = allow,
            .snapshot_file = state.path() / "snapshot.txt"};
  }
  std::string at(const std::string& relative) const { return (sysfs.path() / relative).string(); }
};

}  // namespace

TEST_CASE("the clocks are read back and the GPU devfreq node is discovered") {
  Rig rig;
  JetsonClockControl clocks(rig.options(false));
  const ClockReading r = clocks.read();
  CHECK(r.gpu_devfreq == "17000000.ga10b");
  CHECK(r.online_cores == 12);
  REQUIRE(r.clusters.size() == 3);
  CHECK(r.clusters[1].name == "policy4");
  CHECK(r.clusters[1].cpus == std::vector<int>{4, 5, 6, 7});
  CHECK(r.cpu_khz == 2201600);
  CHECK(r.gpu_hz == 1300500000);
  CHECK(r.emc_hz == 3199000000);
  CHECK(r.emc_locked == true);
  REQUIRE(r.mode().has_value());
  CHECK(r.mode()->gpu_hz == 1300500000);
  CHECK(has_jetson_clocks(rig.sysfs.path()));
  CHECK_FALSE(has_jetson_clocks(rig.state.path()));
  CHECK(clocks.name().find("dry run") != std::string::npos);
}

TEST_CASE(
    "lowering writes cores up, min before max, EMC, then cores down, skipping offline clusters") {
  Rig rig;
  JetsonClockControl clocks(rig.options(false));
  const std::string cpu = "sys/devices/system/cpu/";
  const std::string gpu = "sys/class/devfreq/17000000.ga10b/";
  const std::string emc = "sys/kernel/debug/bpmp/debug/clk/emc/";
  std::vector<ClockWrite> expected = {
      {rig.at(cpu + "cpu1/online"), "1"},
      {rig.at(cpu + "cpu2/online"), "1"},
      {rig.at(cpu + "cpu3/online"), "1"},
      {rig.at(cpu + "cpufreq/policy0/scaling_min_freq"), "1113600"},
      {rig.at(cpu + "cpufreq/policy0/scaling_max_freq"), "1113600"},
      {rig.at(gpu + "min_freq"), "624750000"},
      {rig.at(gpu + "max_freq"), "624750000"},
      {rig.at(emc + "mrq_rate_locked"), "1"},
      {rig.at(emc + "rate"), "2133000000"},
  };
  for (int i = 4; i < 12; ++i) {
    expected.push_back({rig.at(cpu + "cpu" + std::to_string(i) + "/online"), "0"});
  }
  CHECK(clocks.plan(low_mode()) == expected);
}

TEST_CASE("raising writes max before min") {
  Rig rig;
  rig.sysfs.write("sys/class/devfreq/17000000.ga10b/min_freq", "306000000\n");
  rig.sysfs.write("sys/class/devfreq/17000000.ga10b/max_freq", "306000000\n");
  JetsonClockControl clocks(rig.options(false));
  const std::vector<ClockWrite> plan =
      clocks.plan({.cores = 12, .cpu_khz = 2201600, .gpu_hz = 1300500000, .emc_hz = 3199000000});
  const auto index = [&](const std::string& file) {
    for (std::size_t i = 0; i < plan.size(); ++i) {
      if (plan[i].path == rig.at(file)) return static_cast<int>(i);
    }
    return -1;
  };
  CHECK(index("sys/class/devfreq/17000000.ga10b/max_freq") + 1 ==
        index("sys/class/devfreq/17000000.ga10b/min_freq"));
  CHECK(index("sys/devices/system/cpu/cpufreq/policy8/scaling_max_freq") + 1 ==
        index("sys/devices/system/cpu/cpufreq/policy8/scaling_min_freq"));
}

TEST_CASE("without allow_changes set() is a dry run that writes nothing") {
  Rig rig;
  const auto before = dump_tree(rig.sysfs.path());
  JetsonClockControl clocks(rig.options(false));
  const ClockChange c = clocks.set(low_mode());
  CHECK_FALSE(c.written);
  CHECK_FALSE(c.writes.empty());
  CHECK(c.after.gpu_hz == 1300500000);
  clocks.restore();
  CHECK(dump_tree(rig.sysfs.path()) == before);
  CHECK_FALSE(std::filesystem::exists(rig.state.path() / "snapshot.txt"));
}

TEST_CASE("allowed changes are written, read back, and restored byte for byte by the guard") {
  Rig rig;
  const auto before = dump_tree(rig.sysfs.path());
  {
    JetsonClockControl clocks(rig.options(true));
    ClockGuard guard(clocks);
    const ClockChange c = clocks.set(low_mode());
    CHECK(c.written);
    CHECK(c.after.online_cores == 4);
    CHECK(c.after.gpu_max_hz == 624750000);
    CHECK(c.after.emc_hz == 2133000000);
    CHECK(std::filesystem::exists(rig.state.path() / "snapshot.txt"));
    clocks.set({.cores = 8, .cpu_khz = 729600, .gpu_hz = 306000000, .emc_hz = 665600000});
    CHECK(clocks.read().online_cores == 8);
  }
  CHECK(dump_tree(rig.sysfs.path()) == before);
  CHECK_FALSE(std::filesystem::exists(rig.state.path() / "snapshot.txt"));
}

TEST_CASE("an exception after a change restores through the guard") {
  Rig rig;
  const auto before = dump_tree(rig.sysfs.path());
  try {
    JetsonClockControl clocks(rig.options(true));
    ClockGuard guard(clocks);
    clocks.set(low_mode());
    throw std::runtime_error("the workload failed");
  } catch (const std::runtime_error&) {
  }
  CHECK(dump_tree(rig.sysfs.path()) == before);
}

TEST_CASE("a write that fails names the file, and the guard still restores what was written") {
  Rig rig;
  const auto before = dump_tree(rig.sysfs.path());
  const std::filesystem::path emc_rate =
      rig.sysfs.path() / "sys/kernel/debug/bpmp/debug/clk/emc/rate";
  {
    JetsonClockControl clocks(rig.options(true));
    ClockGuard guard(clocks);
    clocks.set(low_mode());  // snapshot taken while the EMC rate is readable
    std::filesystem::remove(emc_rate);
    std::filesystem::create_directory(emc_rate);  // a directory cannot be written
    CHECK_THROWS_WITH(
        clocks.set({.cores = 12, .cpu_khz = 2201600, .gpu_hz = 1300500000, .emc_hz = 3199000000}),
        Catch::Contains("emc/rate: cannot write \"3199000000\""));
    std::filesystem::remove(emc_rate);
    rig.sysfs.write("sys/kernel/debug/bpmp/debug/clk/emc/rate", "2133000000\n");
  }
  CHECK(dump_tree(rig.sysfs.path()) == before);
}

TEST_CASE("a process killed with changed clocks is restored by the next start that may write") {
  Rig rig;
  const auto before = dump_tree(rig.sysfs.path());
  const pid_t child = fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    JetsonClockControl clocks(rig.options(true));
    ClockGuard guard(clocks);
    clocks.set(low_mode());
    raise(SIGKILL);  // dies here: no destructor runs
    _exit(0);
  }
  int status = 0;
  REQUIRE(waitpid(child, &status, 0) == child);
  REQUIRE(WIFSIGNALED(status));
  CHECK(WTERMSIG(status) == SIGKILL);
  CHECK(dump_tree(rig.sysfs.path()) != before);
  REQUIRE(std::filesystem::exists(rig.state.path() / "snapshot.txt"));

  {  // without the permission, nothing is written and the user is told
    JetsonClockControl dry(rig.options(false));
    CHECK(dry.unrestored() == rig.state.path() / "snapshot.txt");
    CHECK_FALSE(dry.recovered().has_value());
    CHECK(dry.read().online_cores == 4);
  }
  JetsonClockControl clocks(rig.options(true));
  CHECK(clocks.recovered() == rig.state.path() / "snapshot.txt");
  CHECK(dump_tree(rig.sysfs.path()) == before);
  CHECK_FALSE(std::filesystem::exists(rig.state.path() / "snapshot.txt"));
}

TEST_CASE("an unlocked EMC is restored unlocked, without forcing its old rate") {
  Rig rig;
  rig.sysfs.write("sys/kernel/debug/bpmp/debug/clk/emc/mrq_rate_locked", "0\n");
  {
    JetsonClockControl clocks(rig.options(true));
    ClockGuard guard(clocks);
    clocks.set(low_mode());
    CHECK(clocks.read().emc_locked == true);
  }
  JetsonClockControl clocks(rig.options(false));
  CHECK(clocks.read().emc_locked == false);
}

TEST_CASE("a mode with more cores than the device, a tree without clocks, a bad snapshot") {
  Rig rig;
  JetsonClockControl clocks(rig.options(false));
  const InputError e = fulcrum::testing::error_of([&] {
    clocks.plan({.cores = 13, .cpu_khz = 2201600, .gpu_hz = 1300500000, .emc_hz = 3199000000});
  });
  CHECK(e.problem() == "13 cores asked, the device has 12");
  // Off a Jetson: the user's or the machine's answer, one line and exit 2, not an internal error.
  const InputError off_jetson =
      fulcrum::testing::error_of([&] { JetsonClockControl({.sysfs_root = rig.state.path()}); });
  CHECK(off_jetson.key_path() == "--clocks");
  CHECK_THAT(off_jetson.problem(), Catch::Contains("no cpufreq policy"));
  rig.state.write("snapshot.txt", "no tab here\n");
  CHECK_THROWS_WITH(JetsonClockControl(rig.options(true)), Catch::Contains("snapshot.txt:1"));
}

TEST_CASE("a snapshot survives a save and load round trip") {
  TempDir dir;
  const std::vector<ClockWrite> writes = {{"/sys/a", "1"}, {"/sys/b c", "2201600"}};
  save_clock_snapshot(dir.path() / "s/snap.txt", writes);
  CHECK(load_clock_snapshot(dir.path() / "s/snap.txt") == writes);
}

TEST_CASE(
    "a restore that fails keeps the snapshot file for the next start, and the guard says so") {
  Rig rig;
  const std::filesystem::path gpu_max =
      rig.sysfs.path() / "sys/class/devfreq/17000000.ga10b/max_freq";
  std::string error;
  {
    JetsonClockControl clocks(rig.options(true));
    ClockGuard guard(clocks, [&error](const std::string& e) { error = e; });
    clocks.set(low_mode());
    std::filesystem::remove(gpu_max);
    std::filesystem::create_directory(gpu_max);  // cannot be written back
  }  // the guard's restore fails: reported, not thrown from the destructor
  CHECK_THAT(error, Catch::Contains("max_freq: cannot write"));
  JetsonClockControl check(rig.options(false));
  CHECK(check.unrestored() == rig.state.path() / "snapshot.txt");
  std::filesystem::remove(gpu_max);
  rig.sysfs.write("sys/class/devfreq/17000000.ga10b/max_freq", "624750000\n");
  JetsonClockControl recover(rig.options(true));  // the next start with permission restores
  CHECK(recover.recovered().has_value());
  CHECK(recover.read().gpu_max_hz == 1300500000);
  CHECK(recover.read().online_cores == 12);
}

TEST_CASE("ClockGuard::finish throws what restore throws; the destructor keeps it") {
  Rig rig;
  const std::filesystem::path rate = rig.sysfs.path() / "sys/kernel/debug/bpmp/debug/clk/emc/rate";
  JetsonClockControl clocks(rig.options(true));
  std::optional<ClockGuard> guard(std::in_place, clocks);
  clocks.set(low_mode());
  std::filesystem::remove(rate);
  std::filesystem::create_directory(rate);
  CHECK_THROWS_WITH(guard->finish(), Catch::Contains("emc/rate: cannot write"));
  std::filesystem::remove(rate);
  rig.sysfs.write("sys/kernel/debug/bpmp/debug/clk/emc/rate", "2133000000\n");
  ClockGuard second(clocks);
  clocks.restore();  // the snapshot is still there after the failure: this puts it back
  CHECK(clocks.read().emc_hz == 3199000000);
  CHECK_FALSE(clocks.has_snapshot());
}

TEST_CASE("a snapshot that names any file but this device's clock files restores nothing") {
  Rig rig;
  rig.state.write("victim.txt", "keep me\n");
  const std::string victim = (rig.state.path() / "victim.txt").string();
  const std::string gpu_max = rig.at("sys/class/devfreq/17000000.ga10b/max_freq");
  const auto before = dump_tree(rig.sysfs.path());
  const std::string snapshot = (rig.state.path() / "snapshot.txt").string();
  struct Case {
    const char* what;
    std::string lines;
    std::string problem;
  };
  const std::vector<Case> cases = {
      {"a file outside the tree", gpu_max + "\t1300500000\n" + victim + "\t0\n",
       snapshot + ":2: " + victim + " is not a clock file of this device under " +
           rig.sysfs.path().string()},
      {"a file of the tree that is not a clock",
       rig.at("sys/devices/system/cpu/cpufreq/policy0/related_cpus") + "\t0\n",
       snapshot + ":1: " + rig.at("sys/devices/system/cpu/cpufreq/policy0/related_cpus") +
           " is not a clock file"},
      {"a clock file reached through ..",
       rig.at("sys/class/devfreq/17000000.ga10b/../17000000.ga10b/max_freq") + "\t1\n",
       snapshot + ":1: "},
      {"a value that is not a whole number", gpu_max + "\t1300500000; reboot\n",
       snapshot + ":1: \"1300500000; reboot\" for " + gpu_max + " is not a clock value"},
  };
  for (const Case& c : cases) {
    INFO(c.what);
    rig.state.write("snapshot.txt", c.lines);
    const InputError e =
        fulcrum::testing::error_of([&] { JetsonClockControl clocks(rig.options(true)); });
    CHECK_THAT(e.what(), Catch::StartsWith(c.problem));
    CHECK_THAT(e.what(), Catch::Contains("nothing was restored"));
    CHECK(std::string(e.what()).find('\n') == std::string::npos);  // one line
    CHECK(dump_tree(rig.sysfs.path()) == before);                  // nothing written
    CHECK(std::filesystem::exists(snapshot));                      // kept for the user
  }
  std::ifstream in(victim);
  std::string text;
  std::getline(in, text);
  CHECK(text == "keep me");
}
