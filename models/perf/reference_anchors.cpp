#include "models/perf/reference_anchors.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fstream>
#include <regex>

#include "models/error.hpp"
#include "models/io/csv_reader.hpp"

namespace fulcrum::models {

namespace {

constexpr const char* kInferenceFile = "orin-agx-inference-maxn.csv";
constexpr const char* kTrainingFile = "training-anchors.csv";
// The inference file's header says its rows were measured on this device.
constexpr const char* kInferenceDevice = "orin-agx-64gb";
// Training rows are minibatch 16 unless noted (header of training-anchors.csv).
constexpr int kTrainingBatch = 16;

// A whole reference file in memory: they are small, and a row is looked up by column name.
struct Csv {
  std::string name;
  std::vector<std::string> header;
  std::vector<CsvRow> rows;

  [[noreturn]] void fail(int line, const std::string& problem) const {
    throw InputError(SourceLocation{name, line, 0}, "", problem);
  }
  std::size_t column(const std::string& col) const {
    const auto it = std::find(header.begin(), header.end(), col);
    if (it == header.end()) fail(1, "missing column '" + col + "'");
    return static_cast<std::size_t>(it - header.begin());
  }
  const std::string& field(const CsvRow& r, const std::string& col) const {
    const std::size_t i = column(col);
    if (i >= r.cells.size()) fail(r.line, "row has no '" + col + "' field");
    return r.cells[i].text;
  }
  double number(const CsvRow& r, const std::string& col) const {
    const std::string& s = field(r, col);
    double v = 0;
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || end != s.data() + s.size() || !std::isfinite(v)) {
      fail(r.line, col + ": expected a number, got '" + s + "'");
    }
    return v;
  }
};

Csv read_csv(const std::string& dir, const std::string& file) {
  Csv csv;
  csv.name = file;
  const std::string path = dir + "/" + file;
  std::ifstream in(path);
  if (!in) throw InputError(SourceLocation{path, 0, 0}, "", "cannot open reference file");
  CsvReader reader(in, file);
  if (reader.header()) {
    for (const CsvCell& c : reader.header()->cells) csv.header.push_back(c.text);
  }
  for (CsvRow row; reader.next(row);) csv.rows.push_back(row);
  if (csv.header.empty()) csv.fail(reader.lines_read(), "no header row");
  return csv;
}

double nearest(const std::vector<double>& table, double value) {
  if (table.empty()) return value;
  return *std::min_element(table.begin(), table.end(), [&](double a, double b) {
    return std::abs(a - value) < std::abs(b - value);
  });
}

// "MAXN" or "MAXN with CPU 1497.6 MHz": MAXN with one clock overridden.
PowerMode parse_orin_mode(const Csv& csv, const CsvRow& row, const DeviceSpec& device,
                          const std::string& label) {
  PowerMode mode = maxn_mode(device);
  if (label == "MAXN") return mode;
  static const std::regex with_cpu(R"(MAXN with CPU ([0-9.]+) MHz)");
  std::smatch m;
  if (std::regex_match(label, m, with_cpu)) {
    mode.cpu_khz = nearest(device.cpu_khz, std::stod(m[1]) * 1000.0);
    return mode;
  }
  csv.fail(row.line, "power_mode: cannot read '" + label + "'");
}

// "b->c (GPU 670->900 MHz)", "d->e (CPU 1.2->2.1 GHz)", "a->b (4->8 cores)".
std::optional<Sensitivity> parse_sensitivity(const std::string& label) {
  static const std::regex freq(R"(.*\((GPU|CPU) ([0-9.]+)->([0-9.]+) (MHz|GHz)\))");
  static const std::regex cores(R"(.*\(([0-9]+)->([0-9]+) cores\))");
  std::smatch m;
  Sensitivity s;
  if (std::regex_match(label, m, freq)) {
    const double scale = m[4] == "GHz" ? 1000.0 : 1.0;
    s.knob = m[1] == "GPU" ? Knob::gpu_frequency : Knob::cpu_frequency;
    s.from = std::stod(m[2]) * scale;
    s.to = std::stod(m[3]) * scale;
    return s;
  }
  if (std::regex_match(label, m, cores)) {
    s.knob = Knob::cores;
    s.from = std::stod(m[1]);
    s.to = std::stod(m[2]);
    return s;
  }
  return std::nullopt;
}

std::string where(const Csv& csv, const CsvRow& row) {
  return csv.name + ":" + std::to_string(row.line);
}

}  // namespace

PowerMode maxn_mode(const DeviceSpec& device) {
  PowerMode mode;
  mode.cores = device.cpu_cores;
  mode.gpu_tpcs = device.gpu_tpcs;
  for (const Preset& p : device.presets) {
    if (p.name != "MAXN") continue;
    if (p.cores > 0) mode.cores = p.cores;
    for (int i = 0; i < device.gpu_tpcs; ++i) {
      if (p.tpc_pg_mask & (1u << i)) --mode.gpu_tpcs;
    }
  }
  mode.cpu_khz = device.cpu_khz.empty() ? 0 : device.cpu_khz.back();
  mode.gpu_hz = device.gpu_hz.empty() ? 0 : device.gpu_hz.back();
  mode.emc_hz = device.emc_hz.empty() ? 0 : device.emc_hz.back();
  return mode;
}

ReferenceData load_reference_data(const std::string& reference_dir, const DeviceSpec& device) {
  ReferenceData out;
  out.sources = {kInferenceFile, kTrainingFile};

  const Csv inf = read_csv(reference_dir, kInferenceFile);
  if (device.name == kInferenceDevice) {
    for (const CsvRow& row : inf.rows) {
      Anchor a;
      a.workload = inf.field(row, "model");
      a.phase = Phase::inference;
      const double bs = inf.number(row, "batch_size");
      if (bs < 1 || bs != std::floor(bs))
        inf.fail(row.line, "batch_size: expected an integer >= 1");
      a.batch_size = static_cast<int>(bs);
      a.mode = maxn_mode(device);
      a.mode_label = "MAXN";
      a.time_ms = inf.number(row, "time_ms");
      a.power_w = inf.number(row, "power_w");
      if (a.workload == "resnet50" && a.batch_size == 32) {
        a.power_excluded = "flagged as an outlier by the file's header";
      }
      a.source = where(inf, row);
      out.anchors.push_back(std::move(a));
    }
  }

  const Csv tr = read_csv(reference_dir, kTrainingFile);
  for (const CsvRow& row : tr.rows) {
    const std::string& dev = tr.field(row, "device");
    const std::string& quantity = tr.field(row, "quantity");
    const std::string& label = tr.field(row, "power_mode");
    if (quantity == "gpu_compute_change_pct") {
      auto s = parse_sensitivity(label);
      if (!s) tr.fail(row.line, "power_mode: cannot read the change '" + label + "'");
      s->device = dev;
      s->workload = tr.field(row, "workload");
      s->change_pct = tr.number(row, "value");
      s->source = where(tr, row);
      out.sensitivities.push_back(*s);
      continue;
    }
    if (dev != device.name) continue;
    const bool is_time = quantity == "gpu_compute_ms_per_minibatch";
    const bool is_power = quantity == "median_module_power_w";
    if (!is_time && !is_power) continue;  // optimizer step, memory: not modelled here
    Anchor a;
    a.workload = tr.field(row, "workload");
    a.phase = Phase::training;
    a.batch_size = kTrainingBatch;
    a.mode = parse_orin_mode(tr, row, device, label);
    a.mode_label = label;
    (is_time ? a.time_ms : a.power_w) = tr.number(row, "value");
    a.source = where(tr, row);
    out.anchors.push_back(std::move(a));
  }
  return out;
}

}  // namespace fulcrum::models
