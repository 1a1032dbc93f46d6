#include "sim/config/device_catalog_loader.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <filesystem>
#include <limits>
#include <sstream>
#include <string_view>
#include <utility>

#include "models/device/power_mode.hpp"
#include "models/device/power_mode_resolver.hpp"
#include "models/device/rail_values.hpp"
#include "models/error.hpp"

namespace fulcrum::sim {

namespace {

using models::DeviceSpec;
using models::ModeGrid;
using models::Preset;

std::string number_text(const YamlNode& node) { return node.raw().Scalar(); }

std::string watts_text(double w) {
  std::ostringstream out;
  out << w;
  return out.str();
}

// A frequency table: non-empty, positive, strictly ascending.
std::vector<double> read_table(const YamlNode& node) {
  node.expect_sequence();
  if (node.size() == 0) node.fail("must not be empty");
  std::vector<double> out;
  out.reserve(node.size());
  for (std::size_t i = 0; i < node.size(); ++i) {
    const YamlNode item = node.at(i);
    const double v = item.as_positive_double();
    if (!out.empty() && !(v > out.back())) {
      item.fail("not ascending: " + number_text(item) + " after " + number_text(node.at(i - 1)));
    }
    out.push_back(v);
  }
  return out;
}

std::vector<std::string> read_names(const YamlNode& node, bool allow_empty) {
  node.expect_sequence();
  if (!allow_empty && node.size() == 0) node.fail("must not be empty");
  std::vector<std::string> out;
  for (std::size_t i = 0; i < node.size(); ++i) {
    const YamlNode item = node.at(i);
    std::string s = item.as_string();
    if (s.empty()) item.fail("must not be empty");
    if (std::find(out.begin(), out.end(), s) != out.end()) item.fail("duplicate '" + s + "'");
    out.push_back(std::move(s));
  }
  return out;
}

int read_int_in(const YamlNode& node, long long lo, long long hi) {
  const long long v = node.as_int();
  if (v < lo || v > hi) {
    node.fail("must be in " + std::to_string(lo) + ".." + std::to_string(hi) + ", got " +
              std::to_string(v));
  }
  return static_cast<int>(v);
}

std::string table_range(const std::vector<double>& table, double to_mhz) {
  return models::format_mhz(table.front() * to_mhz) + ".." +
         models::format_mhz(table.back() * to_mhz) + " MHz";
}

bool contains(const std::vector<double>& table, double value) {
  return std::any_of(table.begin(), table.end(),
                     [&](double t) { return std::abs(t - value) <= 1e-9 * t; });
}

std::string names_of(const std::vector<Preset>& presets) {
  std::string out;
  for (const Preset& p : presets) out += (out.empty() ? "" : ", ") + p.name;
  return out;
}

// A cap: positive, and not below the table (it would leave no frequency to run at).
std::optional<double> read_cap(const YamlNode& preset, std::string_view key,
                               const std::vector<double>& table, double to_mhz) {
  const auto node = preset.optional(key);
  if (!node) return std::nullopt;
  const double v = node->as_double();
  if (!(v > 0))
    node->fail("must be > 0, got " + number_text(*node) + " (omit the key for uncapped)");
  if (!models::floor_to_table(table, v)) {
    node->fail("cap " + models::format_mhz(v * to_mhz) + " MHz is below the table (" +
               table_range(table, to_mhz) + ")");
  }
  return v;
}

Preset read_preset(const YamlNode& node, const std::string& name, const DeviceSpec& d) {
  node.expect_map();
  node.allow_keys(
      {"id", "cores", "cpu_max_khz", "gpu_max_hz", "emc_max_hz", "tpc_pg_mask", "budget_w"});
  Preset p;
  p.name = name;
  if (auto id = node.optional("id")) p.id = read_int_in(*id, 0, 1000);
  p.cores = read_int_in(node.required("cores"), 1, d.cpu_cores);
  p.cpu_max_khz = read_cap(node, "cpu_max_khz", d.cpu_khz, 1e-3);
  p.gpu_max_hz = read_cap(node, "gpu_max_hz", d.gpu_hz, 1e-6);
  p.emc_max_hz = read_cap(node, "emc_max_hz", d.emc_hz, 1e-6);
  if (auto mask = node.optional("tpc_pg_mask")) {
    const int slots = d.gpu_tpc_slots;
    const long long max_mask = (1LL << slots) - 1;
    const long long v = mask->as_int();
    if (v < 0 || v > max_mask) {
      mask->fail("must be a bit mask over " + std::to_string(slots) + " TPC slots (0.." +
                 std::to_string(max_mask) + "), got " + number_text(*mask));
    }
    p.tpc_pg_mask = static_cast<std::uint32_t>(v);
    if (std::popcount(p.tpc_pg_mask) >= slots) mask->fail("gates every TPC");
  }
  if (auto budget = node.optional("budget_w")) {
    p.budget_w = budget->as_positive_double();
    if (d.module_peak_w && *p.budget_w > *d.module_peak_w) {
      budget->fail("budget " + number_text(*budget) + " W is above the module's maximum power (" +
                   watts_text(*d.module_peak_w) + " W)");
    }
  }
  return p;
}

// An envelope figure: {value: W, source: text}; the source names where the value comes from, or
// says that it is an estimate and why.
double read_sourced_watts(const YamlNode& node, std::string& source) {
  node.expect_map();
  node.allow_keys({"value", "source"});
  const double value = node.required("value").as_positive_double();
  const YamlNode src = node.required("source");
  source = src.as_string();
  if (source.empty()) src.fail("must not be empty");
  return value;
}

std::vector<double> read_grid_axis(const YamlNode& grid, std::string_view key,
                                   const std::vector<double>& table) {
  const YamlNode node = grid.required(key);
  std::vector<double> axis = read_table(node);
  for (std::size_t i = 0; i < axis.size(); ++i) {
    if (!contains(table, axis[i])) {
      node.at(i).fail(number_text(node.at(i)) + " is not a value of the device's " +
                      std::string(key) + " table");
    }
  }
  return axis;
}

ModeGrid read_grid(const YamlNode& node, const std::string& name, const DeviceSpec& d) {
  node.expect_map();
  node.allow_keys({"cores", "cpu_khz", "gpu_hz", "emc_hz"});
  ModeGrid g;
  g.name = name;
  const YamlNode cores = node.required("cores");
  cores.expect_sequence();
  if (cores.size() == 0) cores.fail("must not be empty");
  for (std::size_t i = 0; i < cores.size(); ++i) {
    const int c = read_int_in(cores.at(i), 1, d.cpu_cores);
    if (!g.cores.empty() && c <= g.cores.back()) {
      cores.at(i).fail("not ascending: " + std::to_string(c) + " after " +
                       std::to_string(g.cores.back()));
    }
    g.cores.push_back(c);
  }
  g.cpu_khz = read_grid_axis(node, "cpu_khz", d.cpu_khz);
  g.gpu_hz = read_grid_axis(node, "gpu_hz", d.gpu_hz);
  g.emc_hz = read_grid_axis(node, "emc_hz", d.emc_hz);
  return g;
}

}  // namespace

DeviceSpec parse_device(const YamlNode& root) {
  root.expect_map();
  root.allow_keys({"name", "soc", "source", "note", "cpu", "cpu_khz", "gpu", "gpu_hz",
                   "gpu_hz_jetpack6", "emc_hz", "memory", "power", "presets", "default_preset",
                   "grids"});
  DeviceSpec d;
  d.name = root.required("name").as_string();
  if (d.name.empty()) root.required("name").fail("must not be empty");
  d.soc = root.required("soc").as_string();
  d.source = root.required("source").as_string();
  if (auto note = root.optional("note")) d.note = note->as_string();

  const YamlNode cpu = root.required("cpu");
  cpu.allow_keys({"arch", "cores", "clusters"});
  d.cpu_arch = cpu.required("arch").as_string();
  d.cpu_cores = read_int_in(cpu.required("cores"), 1, 256);
  d.cpu_clusters = read_int_in(cpu.required("clusters"), 1, d.cpu_cores);
  d.cpu_khz = read_table(root.required("cpu_khz"));

  const YamlNode gpu = root.required("gpu");
  gpu.allow_keys(
      {"arch", "sm_version", "tpcs", "tpc_slots", "sms", "cuda_cores", "tensor_cores", "l2_kb"});
  d.gpu_arch = gpu.required("arch").as_string();
  d.sm_version = gpu.required("sm_version").as_positive_int();
  d.gpu_tpcs = read_int_in(gpu.required("tpcs"), 1, 32);
  d.gpu_tpc_slots = d.gpu_tpcs;
  if (auto slots = gpu.optional("tpc_slots")) d.gpu_tpc_slots = read_int_in(*slots, d.gpu_tpcs, 32);
  if (auto sms = gpu.optional("sms")) d.gpu_sms = sms->as_positive_int();
  d.cuda_cores = gpu.required("cuda_cores").as_positive_int();
  d.tensor_cores = read_int_in(gpu.required("tensor_cores"), 0, std::numeric_limits<int>::max());
  if (auto l2 = gpu.optional("l2_kb")) d.gpu_l2_kb = l2->as_positive_double();
  d.gpu_hz = read_table(root.required("gpu_hz"));
  // Kept for readers of the file only; validated so that a typo is not silently shipped.
  if (auto jp6 = root.optional("gpu_hz_jetpack6")) read_table(*jp6);

  d.emc_hz = read_table(root.required("emc_hz"));
  const YamlNode memory = root.required("memory");
  memory.allow_keys({"type", "gb", "bus_bits"});
  d.memory_type = memory.required("type").as_string();
  d.memory_gb = memory.required("gb").as_positive_double();
  d.memory_bus_bits = memory.required("bus_bits").as_positive_int();

  const YamlNode power = root.required("power");
  power.allow_keys({"rails", "sub_rails", "module_peak_w", "idle_w", "budget_source"});
  const YamlNode rails = power.required("rails");
  d.rails = read_names(rails, false);
  if (d.rails.size() > models::RailValues::kCapacity) {
    rails.fail("at most " + std::to_string(models::RailValues::kCapacity) +
               " summed rails are supported, got " + std::to_string(d.rails.size()));
  }
  if (auto sub = power.optional("sub_rails")) {
    d.sub_rails = read_names(*sub, true);
    for (std::size_t i = 0; i < d.sub_rails.size(); ++i) {
      if (std::find(d.rails.begin(), d.rails.end(), d.sub_rails[i]) != d.rails.end()) {
        sub->at(i).fail("'" + d.sub_rails[i] + "' is already in rails");
      }
    }
  }
  if (auto peak = power.optional("module_peak_w")) {
    d.module_peak_w = read_sourced_watts(*peak, d.module_peak_source);
  }
  if (auto idle = power.optional("idle_w")) {
    d.idle_w = read_sourced_watts(*idle, d.idle_source);
    if (d.module_peak_w && !(*d.idle_w < *d.module_peak_w)) {
      idle->required("value").fail("idle power must be below module_peak_w (" +
                                   watts_text(*d.module_peak_w) + " W)");
    }
  }
  if (auto budgets = power.optional("budget_source")) {
    d.budget_source = budgets->as_string();
    if (d.budget_source.empty()) budgets->fail("must not be empty");
  }

  const YamlNode presets = root.required("presets");
  presets.expect_map();
  if (presets.keys().empty()) presets.fail("must list at least one preset");
  for (const std::string& name : presets.keys()) {
    if (d.find_preset(name)) presets.fail("duplicate preset '" + name + "'");
    const YamlNode node = presets.required(name);
    d.presets.push_back(read_preset(node, name, d));
    // The resolver is the authority on what a preset means; it must accept every shipped one.
    try {
      models::resolve_preset(d, name);
    } catch (const InputError& e) {
      throw e.located(node.location(), node.path());
    }
  }
  const bool any_budget = std::any_of(d.presets.begin(), d.presets.end(),
                                      [](const Preset& p) { return p.budget_w.has_value(); });
  if (any_budget && d.budget_source.empty()) {
    power.fail("presets have budget_w but power.budget_source does not say where they come from");
  }
  const YamlNode def = root.required("default_preset");
  d.default_preset = def.as_string();
  if (!d.find_preset(d.default_preset)) {
    def.fail("unknown preset '" + d.default_preset + "' (known: " + names_of(d.presets) + ")");
  }

  if (auto grids = root.optional("grids")) {
    grids->expect_map();
    for (const std::string& name : grids->keys()) {
      if (d.find_grid(name)) grids->fail("duplicate grid '" + name + "'");
      d.grids.push_back(read_grid(grids->required(name), name, d));
    }
  }
  return d;
}

models::DeviceSpec load_device_file(const std::string& path) {
  const YamlDoc doc = YamlDoc::load(path);
  const YamlNode root = doc.root();
  DeviceSpec d = parse_device(root);
  const std::string stem = std::filesystem::path(path).stem().string();
  if (d.name != stem) {
    root.required("name").fail("'" + d.name + "' differs from the file name '" + stem + ".yaml'");
  }
  return d;
}

models::DeviceCatalog load_device_catalog(const std::string& dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) {
    throw InputError(SourceLocation{dir, 0, 0}, "", "not a folder of device files");
  }
  std::vector<std::string> paths;
  for (const fs::directory_entry& entry : fs::directory_iterator(dir)) {
    if (entry.is_regular_file() && entry.path().extension() == ".yaml") {
      paths.push_back(entry.path().string());
    }
  }
  // Directory order is arbitrary; name order makes errors and listings reproducible.
  std::sort(paths.begin(), paths.end());
  if (paths.empty()) throw InputError(SourceLocation{dir, 0, 0}, "", "no *.yaml device files");
  models::DeviceCatalog catalog;
  for (const std::string& path : paths) {
    DeviceSpec d = load_device_file(path);
    try {
      catalog.add(std::move(d));
    } catch (const InputError& e) {
      throw e.located(YamlDoc::load(path).root().required("name").location(), "name");
    }
  }
  return catalog;
}

}  // namespace fulcrum::sim
