#include "backends/hardware/jetson_clock_control.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <regex>
#include <sstream>

#include "backends/hardware/sysfs_file.hpp"
#include "models/error.hpp"

namespace fulcrum::backends {

namespace fs = std::filesystem;

namespace {

constexpr const char* kCpuDir = "sys/devices/system/cpu";
constexpr const char* kDevfreqDir = "sys/class/devfreq";
constexpr const char* kEmcDir = "sys/kernel/debug/bpmp/debug/clk/emc";

// The numbered entries `<prefix>N` of a folder, by N.
std::vector<int> numbered_entries(const fs::path& dir, const std::string& prefix) {
  std::vector<int> numbers;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return numbers;
  const std::regex pattern(prefix + "([0-9]+)");
  for (const fs::directory_entry& e : fs::directory_iterator(dir, ec)) {
    std::smatch m;
    const std::string name = e.path().filename().string();
    if (std::regex_match(name, m, pattern)) numbers.push_back(std::stoi(m[1].str()));
  }
  std::sort(numbers.begin(), numbers.end());
  return numbers;
}

// "0-3", "0 1 2 3", "4-7,9": the cpus of a cpulist.
std::vector<int> parse_cpu_list(const std::string& text) {
  std::vector<int> cpus;
  std::string item;
  std::istringstream in(text);
  while (std::getline(in, item, ',')) {
    std::istringstream words(item);
    std::string word;
    while (words >> word) {
      const auto dash = word.find('-');
      try {
        if (dash == std::string::npos) {
          cpus.push_back(std::stoi(word));
        } else {
          for (int c = std::stoi(word.substr(0, dash)); c <= std::stoi(word.substr(dash + 1));
               ++c) {
            cpus.push_back(c);
          }
        }
      } catch (const std::exception&) {
        // a malformed entry names no cpu
      }
    }
  }
  return cpus;
}

std::optional<std::string> find_gpu_devfreq(const fs::path& root) {
  std::error_code ec;
  std::vector<std::string> names;
  for (const fs::directory_entry& e : fs::directory_iterator(root / kDevfreqDir, ec)) {
    names.push_back(e.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  for (const std::string& n : names) {
    for (const char* token : {"gpu", "ga10b", "gv11b", "gp10b", "gm20b"}) {
      if (n.find(token) != std::string::npos) return n;
    }
  }
  return std::nullopt;
}

std::string format_number(double v) {
  std::ostringstream s;
  s.precision(15);
  s << std::llround(v);
  return s.str();
}

// Whether a value read back is the value written: equal text, or numbers within 0.1% (the clock
// drivers round a rate to the source's step).
bool reads_back(const std::string& written, const std::string& read) {
  if (written == read) return true;
  char* end_w = nullptr;
  char* end_r = nullptr;
  const double w = std::strtod(written.c_str(), &end_w);
  const double r = std::strtod(read.c_str(), &end_r);
  if (*end_w != '\0' || *end_r != '\0' || end_w == written.c_str() || end_r == read.c_str()) {
    return false;
  }
  return std::abs(w - r) <= std::max(1.0, 1e-3 * std::abs(w));
}

// The partner of a ".../xxx_min_freq" file (".../xxx_max_freq"); empty for another file.
std::string max_partner(const std::string& path) {
  const auto slash = path.rfind('/');
  const auto pos = path.find("min_freq", slash == std::string::npos ? 0 : slash);
  if (pos == std::string::npos) return {};
  std::string partner = path;
  partner.replace(pos, 3, "max");
  return partner;
}

// Orders every adjacent (min, max) pair of `canonical` against the clocks as they are now: max
// first when the new max is at least the current one (raising), min first otherwise (lowering).
// Each write is then valid on its own: the kernel never sees min > max.
std::vector<ClockWrite> ordered(std::vector<ClockWrite> writes) {
  for (std::size_t i = 0; i + 1 < writes.size(); ++i) {
    const std::string partner = max_partner(writes[i].path);
    if (partner.empty() || writes[i + 1].path != partner) continue;
    const std::optional<double> current_max = read_sysfs_number(partner);
    const double new_max = std::strtod(writes[i + 1].value.c_str(), nullptr);
    if (!current_max || new_max >= *current_max) std::swap(writes[i], writes[i + 1]);
    ++i;
  }
  return writes;
}

}  // namespace

fs::path default_snapshot_file() {
  if (const char* state = std::getenv("XDG_STATE_HOME"); state != nullptr && *state != '\0') {
    return fs::path(state) / "fulcrum/clock-snapshot.txt";
  }
  if (const char* home = std::getenv("HOME"); home != nullptr && *home != '\0') {
    return fs::path(home) / ".local/state/fulcrum/clock-snapshot.txt";
  }
  return fs::path("/tmp") / ("fulcrum-clock-snapshot-" + std::to_string(getuid()) + ".txt");
}

bool has_jetson_clocks(const fs::path& sysfs_root) {
  return !numbered_entries(sysfs_root / kCpuDir / "cpufreq", "policy").empty() &&
         find_gpu_devfreq(sysfs_root).has_value();
}

void save_clock_snapshot(const fs::path& file, const std::vector<ClockWrite>& writes) {
  std::error_code ec;
  if (file.has_parent_path()) fs::create_directories(file.parent_path(), ec);
  const fs::path staged = file.string() + ".partial";
  {
    std::ofstream out(staged, std::ios::trunc);
    for (const ClockWrite& w : writes) out << w.path << '\t' << w.value << '\n';
    out.flush();
    if (!out) throw Error(staged.string() + ": cannot write the clock snapshot");
  }
  fs::rename(staged, file, ec);
  if (ec) throw Error(file.string() + ": cannot write the clock snapshot: " + ec.message());
}

std::vector<ClockWrite> load_clock_snapshot(const fs::path& file) {
  std::ifstream in(file);
  if (!in) throw Error(file.string() + ": cannot read the clock snapshot");
  std::vector<ClockWrite> writes;
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (line.empty()) continue;
    const auto tab = line.find('\t');
    if (tab == std::string::npos || tab == 0 || tab + 1 == line.size()) {
      throw Error(file.string() + ":" + std::to_string(number) +
                  ": not \"path<TAB>value\"; restore the clocks by hand (or reboot) and delete it");
    }
    writes.push_back({line.substr(0, tab), line.substr(tab + 1)});
  }
  return writes;
}

JetsonClockControl::JetsonClockControl(JetsonClockOptions options) : options_(std::move(options)) {
  if (options_.snapshot_file.empty()) options_.snapshot_file = default_snapshot_file();
  const fs::path& root = options_.sysfs_root;
  // Not a Jetson's clock tree: the machine's answer to `--clocks jetson`, not a failure.
  const auto not_jetson = [](const std::string& why) {
    return InputError(std::nullopt, "--clocks",
                      "jetson: clock control: " + why + ": not a Jetson (or --sysfs-root names " +
                          "no Jetson's tree)");
  };
  if (numbered_entries(root / kCpuDir / "cpufreq", "policy").empty()) {
    throw not_jetson("no cpufreq policy under " + (root / kCpuDir / "cpufreq").string());
  }
  if (options_.gpu_devfreq) {
    gpu_node_ = *options_.gpu_devfreq;
    if (!fs::exists(root / kDevfreqDir / gpu_node_)) {
      throw not_jetson("no devfreq node " + (root / kDevfreqDir / gpu_node_).string());
    }
  } else {
    const std::optional<std::string> gpu = find_gpu_devfreq(root);
    if (!gpu) throw not_jetson("no GPU devfreq node under " + (root / kDevfreqDir).string());
    gpu_node_ = *gpu;
  }
  std::error_code ec;
  if (fs::exists(options_.snapshot_file, ec)) {
    if (!options_.allow_changes) {
      unrestored_ = options_.snapshot_file;
    } else {
      // A run that died before restoring: put its snapshot back before anything else, once
      // every line of it is known to name a clock file of this device (nothing else is written).
      const std::vector<ClockWrite> left = load_clock_snapshot(options_.snapshot_file);
      require_restorable(left, options_.snapshot_file.string());
      for (const ClockWrite& w : ordered(left)) write_verified(w);
      fs::remove(options_.snapshot_file, ec);
      recovered_ = options_.snapshot_file;
    }
  }
}

std::string JetsonClockControl::name() const {
  return "jetson sysfs (" + options_.sysfs_root.string() + ", gpu " + gpu_node_ +
         (options_.allow_changes ? ")" : ", dry run)");
}

ClockReading JetsonClockControl::read() const {
  const fs::path cpu = options_.sysfs_root / kCpuDir;
  ClockReading r;
  std::vector<int> online;
  for (int n : numbered_entries(cpu, "cpu")) {
    const fs::path file = cpu / ("cpu" + std::to_string(n)) / "online";
    // cpu0 has no `online` file on most kernels: it cannot be taken offline.
    if (!fs::exists(file) || read_sysfs(file).value_or("") == "1") online.push_back(n);
  }
  r.online_cores = static_cast<int>(online.size());
  for (int p : numbered_entries(cpu / "cpufreq", "policy")) {
    const fs::path dir = cpu / "cpufreq" / ("policy" + std::to_string(p));
    CpuClusterReading c;
    c.name = "policy" + std::to_string(p);
    c.cpus = parse_cpu_list(read_sysfs(dir / "related_cpus").value_or(std::to_string(p)));
    c.min_khz = read_sysfs_number(dir / "scaling_min_freq");
    c.max_khz = read_sysfs_number(dir / "scaling_max_freq");
    c.cur_khz = read_sysfs_number(dir / "scaling_cur_freq");
    const bool has_online = std::any_of(c.cpus.begin(), c.cpus.end(), [&](int x) {
      return std::find(online.begin(), online.end(), x) != online.end();
    });
    if (has_online && !r.cpu_khz) r.cpu_khz = c.cur_khz;
    r.clusters.push_back(std::move(c));
  }
  if (!r.cpu_khz) r.notes.push_back("no online cluster reports scaling_cur_freq");
  const fs::path gpu = options_.sysfs_root / kDevfreqDir / gpu_node_;
  r.gpu_devfreq = gpu_node_;
  r.gpu_min_hz = read_sysfs_number(gpu / "min_freq");
  r.gpu_max_hz = read_sysfs_number(gpu / "max_freq");
  r.gpu_hz = read_sysfs_number(gpu / "cur_freq");
  if (!r.gpu_hz) r.notes.push_back("cannot read " + (gpu / "cur_freq").string());
  const fs::path emc = options_.sysfs_root / kEmcDir;
  r.emc_hz = read_sysfs_number(emc / "rate");
  if (const std::optional<double> locked = read_sysfs_number(emc / "mrq_rate_locked")) {
    r.emc_locked = *locked != 0;
  }
  if (!r.emc_hz) {
    r.notes.push_back("cannot read " + (emc / "rate").string() +
                      " (the BPMP debugfs needs root and a mounted debugfs)");
  }
  return r;
}

std::vector<ClockWrite> JetsonClockControl::plan(const models::PowerMode& mode) const {
  const fs::path cpu = options_.sysfs_root / kCpuDir;
  const std::vector<int> cpus = numbered_entries(cpu, "cpu");
  if (mode.cores < 1 || mode.cores > static_cast<int>(cpus.size())) {
    throw InputError(
        std::nullopt, "mode.cores",
        std::to_string(mode.cores) + " cores asked, the device has " + std::to_string(cpus.size()));
  }
  const auto online_file = [&](int n) { return cpu / ("cpu" + std::to_string(n)) / "online"; };
  std::vector<ClockWrite> writes;
  // Cores first up, frequencies, then cores down: a cluster that stays online never loses its
  // last cpu while its frequency is written, and an onlined cluster gets the new frequency.
  for (int i = 0; i < mode.cores; ++i) {
    if (fs::exists(online_file(cpus[i]))) writes.push_back({online_file(cpus[i]).string(), "1"});
  }
  std::vector<ClockWrite> pairs;
  for (int p : numbered_entries(cpu / "cpufreq", "policy")) {
    const fs::path dir = cpu / "cpufreq" / ("policy" + std::to_string(p));
    const std::vector<int> related =
        parse_cpu_list(read_sysfs(dir / "related_cpus").value_or(std::to_string(p)));
    const bool will_be_online = std::any_of(related.begin(), related.end(), [&](int c) {
      const auto at = std::find(cpus.begin(), cpus.end(), c);
      return at != cpus.end() && at - cpus.begin() < mode.cores;
    });
    if (!will_be_online) continue;
    const std::string khz = format_number(mode.cpu_khz);
    pairs.push_back({(dir / "scaling_min_freq").string(), khz});
    pairs.push_back({(dir / "scaling_max_freq").string(), khz});
  }
  const fs::path gpu = options_.sysfs_root / kDevfreqDir / gpu_node_;
  pairs.push_back({(gpu / "min_freq").string(), format_number(mode.gpu_hz)});
  pairs.push_back({(gpu / "max_freq").string(), format_number(mode.gpu_hz)});
  for (ClockWrite& w : ordered(std::move(pairs))) writes.push_back(std::move(w));
  const fs::path emc = options_.sysfs_root / kEmcDir;
  writes.push_back({(emc / "mrq_rate_locked").string(), "1"});
  writes.push_back({(emc / "rate").string(), format_number(mode.emc_hz)});
  for (std::size_t i = mode.cores; i < cpus.size(); ++i) {
    if (fs::exists(online_file(cpus[i]))) writes.push_back({online_file(cpus[i]).string(), "0"});
  }
  return writes;
}

std::vector<ClockWrite> JetsonClockControl::take_snapshot() const {
  const fs::path cpu = options_.sysfs_root / kCpuDir;
  const auto require = [](const fs::path& file) {
    const std::optional<std::string> v = read_sysfs(file);
    if (!v) throw Error("clock control: cannot read " + file.string() + " for the snapshot");
    return ClockWrite{file.string(), *v};
  };
  // Restore order: cores up, frequencies (as pairs, ordered at restore time), EMC, cores down.
  std::vector<ClockWrite> up, freqs, down;
  for (int n : numbered_entries(cpu, "cpu")) {
    const fs::path file = cpu / ("cpu" + std::to_string(n)) / "online";
    if (!fs::exists(file)) continue;
    ClockWrite w = require(file);
    (w.value == "1" ? up : down).push_back(std::move(w));
  }
  const ClockReading now = read();
  for (const CpuClusterReading& c : now.clusters) {
    if (!c.min_khz || !c.max_khz) continue;  // an inactive policy (all its cpus offline)
    const fs::path dir = cpu / "cpufreq" / c.name;
    freqs.push_back(require(dir / "scaling_min_freq"));
    freqs.push_back(require(dir / "scaling_max_freq"));
  }
  const fs::path gpu = options_.sysfs_root / kDevfreqDir / gpu_node_;
  freqs.push_back(require(gpu / "min_freq"));
  freqs.push_back(require(gpu / "max_freq"));
  const fs::path emc = options_.sysfs_root / kEmcDir;
  // A locked EMC is put back locked at its rate; an unlocked one just unlocked (its rate then
  // follows the governor, so writing the old rate back would not read back).
  const ClockWrite locked = require(emc / "mrq_rate_locked");
  const bool was_locked = locked.value != "0";
  freqs.push_back(locked);
  if (was_locked) freqs.push_back(require(emc / "rate"));
  std::vector<ClockWrite> all = std::move(up);
  all.insert(all.end(), freqs.begin(), freqs.end());
  all.insert(all.end(), down.begin(), down.end());
  return all;
}

void JetsonClockControl::write_verified(const ClockWrite& w) const {
  write_sysfs(w.path, w.value);
  const std::optional<std::string> back = read_sysfs(w.path);
  if (!back || !reads_back(w.value, *back)) {
    throw Error("clock control: wrote \"" + w.value + "\" to " + w.path + " but read back " +
                (back ? "\"" + *back + "\"" : "nothing"));
  }
}

ClockChange JetsonClockControl::set(const models::PowerMode& mode) {
  ClockChange change;
  change.writes = plan(mode);
  if (!options_.allow_changes) {
    change.after = read();
    return change;
  }
  if (snapshot_.empty()) {
    snapshot_ = take_snapshot();
    save_clock_snapshot(options_.snapshot_file, snapshot_);  // before the first write
  }
  for (const ClockWrite& w : change.writes) write_verified(w);
  change.written = true;
  change.after = read();
  return change;
}

std::vector<std::string> JetsonClockControl::clock_files() const {
  const fs::path cpu = options_.sysfs_root / kCpuDir;
  std::vector<std::string> files;
  std::error_code ec;
  for (int n : numbered_entries(cpu, "cpu")) {
    const fs::path file = cpu / ("cpu" + std::to_string(n)) / "online";
    if (fs::exists(file, ec)) files.push_back(file.string());
  }
  for (int p : numbered_entries(cpu / "cpufreq", "policy")) {
    const fs::path dir = cpu / "cpufreq" / ("policy" + std::to_string(p));
    files.push_back((dir / "scaling_min_freq").string());
    files.push_back((dir / "scaling_max_freq").string());
  }
  const fs::path gpu = options_.sysfs_root / kDevfreqDir / gpu_node_;
  files.push_back((gpu / "min_freq").string());
  files.push_back((gpu / "max_freq").string());
  const fs::path emc = options_.sysfs_root / kEmcDir;
  files.push_back((emc / "mrq_rate_locked").string());
  files.push_back((emc / "rate").string());
  return files;
}

void JetsonClockControl::require_restorable(const std::vector<ClockWrite>& writes,
                                            const std::string& source) const {
  const std::vector<std::string> allowed = clock_files();
  static const std::regex number("[0-9]{1,19}");
  for (std::size_t i = 0; i < writes.size(); ++i) {
    const ClockWrite& w = writes[i];
    const std::string where = source + ":" + std::to_string(i + 1);
    if (std::find(allowed.begin(), allowed.end(), w.path) == allowed.end()) {
      throw InputError(where + ": " + w.path + " is not a clock file of this device under " +
                       options_.sysfs_root.string() +
                       "; nothing was restored (restore the clocks by hand, or reboot, and delete "
                       "the snapshot)");
    }
    if (!std::regex_match(w.value, number)) {
      throw InputError(where + ": \"" + w.value + "\" for " + w.path +
                       " is not a clock value (a whole number); nothing was restored (restore "
                       "the clocks by hand, or reboot, and delete the snapshot)");
    }
  }
}

void JetsonClockControl::restore() {
  if (snapshot_.empty()) return;
  require_restorable(snapshot_, "the clock snapshot");
  for (const ClockWrite& w : ordered(snapshot_)) write_verified(w);
  snapshot_.clear();
  std::error_code ec;
  fs::remove(options_.snapshot_file, ec);
}

}  // namespace fulcrum::backends
