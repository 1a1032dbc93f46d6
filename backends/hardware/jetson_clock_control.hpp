// JetsonClockControl: the clocks of a Jetson through sysfs and the BPMP debugfs, every path under a
// configurable root so that tests drive a fake tree:
//   <root>/sys/devices/system/cpu/cpuN/online                       cores (cpu0 stays online)
//   <root>/sys/devices/system/cpu/cpufreq/policyN/scaling_{min,max}_freq, scaling_cur_freq,
//                                                related_cpus        one cluster per policy
//   <root>/sys/class/devfreq/<gpu>/{min,max,cur}_freq               the GPU, found at run time
//                                                                    (a node named *gpu*, *ga10b*,
//                                                                    *gv11b*, *gp10b*, or
//                                                                    `gpu_devfreq`)
//   <root>/sys/kernel/debug/bpmp/debug/clk/emc/{rate,mrq_rate_locked} EMC
// It writes only with allow_changes (--allow-clock-changes); otherwise set() is a dry run that
// reads and reports. Before its first write it snapshots every file it may write and persists the
// snapshot to `snapshot_file`; restore() writes it back. A snapshot file left by a run that died
// (SIGKILL, power loss) is restored when the next control with allow_changes is constructed --
// only when every line names one of this device's clock files under the sysfs root with a whole
// number: a snapshot naming any other path is refused with one line and nothing is written.
//
//   JetsonClockControl clocks({.sysfs_root = "/", .allow_changes = true});
//   ClockGuard guard(clocks);
//   clocks.set(mode);   // Error on a value that does not read back
#pragma once

#include <filesystem>
#include <optional>

#include "backends/hardware/clock_control.hpp"

namespace fulcrum::backends {

struct JetsonClockOptions {
  std::filesystem::path sysfs_root = "/";
  bool allow_changes = false;  // --allow-clock-changes: without it nothing is ever written
  // Where the snapshot is persisted before the first write; empty: default_snapshot_file().
  std::filesystem::path snapshot_file = {};
  std::optional<std::string> gpu_devfreq =
      std::nullopt;  // the devfreq node's name, when discovery is not wanted
};

// $XDG_STATE_HOME/fulcrum/clock-snapshot.txt, else ~/.local/state/fulcrum/clock-snapshot.txt,
// else /tmp/fulcrum-clock-snapshot-<uid>.txt.
std::filesystem::path default_snapshot_file();

// Whether `sysfs_root` looks like a Jetson with clocks this control can read (cpufreq and a GPU
// devfreq node).
bool has_jetson_clocks(const std::filesystem::path& sysfs_root);

class JetsonClockControl final : public ClockControl {
 public:
  // Reads the tree (InputError, key "--clocks", when it has no cpufreq or no GPU devfreq node: not
  // a Jetson). With allow_changes and a snapshot file left by a dead run, restores it first
  // (recovered() then says so).
  explicit JetsonClockControl(JetsonClockOptions options);
  ~JetsonClockControl() override = default;

  std::string name() const override;
  bool can_change() const override { return options_.allow_changes; }
  ClockReading read() const override;
  std::vector<ClockWrite> plan(const models::PowerMode& mode) const override;
  ClockChange set(const models::PowerMode& mode) override;
  void restore() override;

  // The snapshot file restored at construction (a previous run died before restoring); absent
  // when there was none.
  const std::optional<std::filesystem::path>& recovered() const { return recovered_; }
  // A snapshot file left by a dead run that this control may not restore (no allow_changes): the
  // verbs tell the user to rerun with --allow-clock-changes.
  const std::optional<std::filesystem::path>& unrestored() const { return unrestored_; }
  const std::filesystem::path& snapshot_file() const { return options_.snapshot_file; }
  bool has_snapshot() const { return !snapshot_.empty(); }

 private:
  std::vector<ClockWrite> take_snapshot() const;
  // Every file this control may write under the sysfs root, as plan() and take_snapshot() name
  // them: the cores' `online`, each policy's scaling_{min,max}_freq, the GPU's {min,max}_freq and
  // the EMC's mrq_rate_locked and rate.
  std::vector<std::string> clock_files() const;
  // InputError, located at `source`:line, for a write to a file outside clock_files() or of a
  // value that is not a whole number; checked before anything is written.
  void require_restorable(const std::vector<ClockWrite>& writes, const std::string& source) const;
  void write_verified(const ClockWrite& w) const;

  JetsonClockOptions options_;
  std::string gpu_node_;              // devfreq directory name
  std::vector<ClockWrite> snapshot_;  // in restore order; empty = nothing written yet
  std::optional<std::filesystem::path> recovered_;
  std::optional<std::filesystem::path> unrestored_;
};

// The snapshot file format: one "path<TAB>value" line per write, in restore order.
void save_clock_snapshot(const std::filesystem::path& file, const std::vector<ClockWrite>& writes);
std::vector<ClockWrite> load_clock_snapshot(const std::filesystem::path& file);

}  // namespace fulcrum::backends
