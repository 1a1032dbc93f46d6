#include "models/perf/profile_csv.hpp"

#include <array>
#include <charconv>
#include <cmath>
#include <fstream>
#include <istream>
#include <map>
#include <tuple>

#include "models/io/csv_reader.hpp"

namespace fulcrum::models {

const char* to_string(ProfilePhase p) {
  switch (p) {
    case ProfilePhase::inference:
      return "inference";
    case ProfilePhase::training:
      return "training";
    case ProfilePhase::idle:
      return "idle";
  }
  return "idle";
}

namespace {

// The values every row needs, in the order of Layout::required.
enum Field : std::size_t { kCores, kCpuKhz, kGpuHz, kEmcHz, kPhase, kBatchSize, kTimeMs, kPowerW };
constexpr std::size_t kFields = 8;

// How a header names the columns: the profile format of models/data/profiles/README.md, or the
// column names of the published measurement files (reference/measurements/*-modes.csv).
struct Layout {
  std::array<const char*, kFields> required;
  const char* workload;                // the optional workload column
  std::array<const char*, 2> ignored;  // accepted, never read
  const char* training;                // phase values
  const char* inference;
  const char* idle;  // nullptr: the layout has no idle rows
  const char* expected_columns;
  const char* expected_phases;
};

constexpr Layout kProfileLayout = {
    {"cores", "cpu_khz", "gpu_hz", "emc_hz", "phase", "batch_size", "time_ms", "power_w"},
    "workload",
    {nullptr, nullptr},
    "training",
    "inference",
    "idle",
    "cores, cpu_khz, gpu_hz, emc_hz, phase, batch_size, time_ms, power_w, optional workload and "
    "<RAIL>_w columns",
    "training, inference or idle"};

constexpr Layout kMeasurementLayout = {
    {"cores", "cpu_freq_khz", "gpu_freq_hz", "mem_freq_hz", "phase", "minibatch_size",
     "minibatch_time_ms", "power_w"},
    "model",
    {"dataset", "in_grid441"},
    "train",
    "infer",
    "idle",
    "model, phase, minibatch_size, cores, cpu_freq_khz, gpu_freq_hz, mem_freq_hz, "
    "minibatch_time_ms, power_w, optional dataset, in_grid441 and <RAIL>_w columns",
    "train, infer or idle"};

// Whether `text` is `name`; a layout without such a column or value has nullptr there.
bool is_name(const char* name, const std::string& text) { return name != nullptr && text == name; }

// Whether a column name belongs to the measurement layout and not to the profile layout.
bool is_measurement_only(const std::string& name) {
  auto listed = [&](const auto& list) {
    for (const char* n : list) {
      if (is_name(n, name)) return true;
    }
    return false;
  };
  const bool measurement = listed(kMeasurementLayout.required) ||
                           listed(kMeasurementLayout.ignored) ||
                           is_name(kMeasurementLayout.workload, name);
  return measurement && !listed(kProfileLayout.required) && !is_name(kProfileLayout.workload, name);
}

constexpr const char* kRailSuffix = "_w";

bool is_rail_column(const std::string& name) {
  const std::size_t n = std::char_traits<char>::length(kRailSuffix);
  return name != "power_w" && name.size() > n && name.compare(name.size() - n, n, kRailSuffix) == 0;
}

// Turns the cells of a profile CSV into typed values; every failure names source, line, column
// and the column's header name.
class Parser {
 public:
  explicit Parser(std::string source) : source_(std::move(source)) {}

  ProfileTable parse(std::istream& in) {
    ProfileTable table;
    table.source = source_;
    CsvReader csv(in, source_);
    if (!csv.header()) fail(1, 1, "", "empty profile: no header line");
    read_header(csv.header()->cells, csv.header()->line, table);
    std::map<std::tuple<std::string, int, double, double, double, int, int>, int> seen;
    for (CsvRow line; csv.next(line);) {
      ProfileRow row = read_row(line.cells, line.line, table.rail_names.size());
      auto key = std::make_tuple(row.workload.value_or(""), row.cores, row.cpu_khz, row.gpu_hz,
                                 row.emc_hz, static_cast<int>(row.phase), row.batch_size);
      auto [it, inserted] = seen.emplace(key, line.line);
      if (!inserted) {
        fail(line.line, 1, "row",
             "duplicate of the row on line " + std::to_string(it->second) +
                 " (same workload, mode, phase and batch_size)");
      }
      table.rows.push_back(std::move(row));
    }
    if (table.rows.empty())
      fail(csv.lines_read() + 1, 1, "", "empty profile: no data rows after the header");
    return table;
  }

 private:
  [[noreturn]] void fail(int line, int column, const std::string& key,
                         const std::string& problem) const {
    throw InputError(SourceLocation{source_, line, column}, key, problem);
  }

  void read_header(const std::vector<CsvCell>& cells, int line_no, ProfileTable& table) {
    header_ = cells;
    // A header that uses any name of the measurement files is read in their layout.
    const CsvCell* recognised_by = nullptr;
    for (const CsvCell& c : cells) {
      if (!recognised_by && is_measurement_only(c.text)) recognised_by = &c;
    }
    layout_ = recognised_by ? &kMeasurementLayout : &kProfileLayout;
    for (std::size_t i = 0; i < cells.size(); ++i) {
      const std::string& name = cells[i].text;
      if (name.empty()) fail(line_no, cells[i].column, "", "empty column name in the header");
      for (std::size_t j = 0; j < i; ++j) {
        if (cells[j].text == name)
          fail(line_no, cells[i].column, name, "column appears twice in the header");
      }
      bool known = is_name(layout_->workload, name) || is_rail_column(name);
      for (const char* r : layout_->required) known = known || is_name(r, name);
      for (const char* r : layout_->ignored) known = known || is_name(r, name);
      if (!known) {
        std::string problem = std::string("unknown column (expected ") + layout_->expected_columns;
        if (recognised_by) {
          problem += "; the header is in the measurement layout, recognised by '" +
                     recognised_by->text + "'";
        }
        fail(line_no, cells[i].column, name, problem + ")");
      }
      if (is_rail_column(name)) {
        rail_index_.push_back(i);
        table.rail_names.push_back(name.substr(0, name.size() - 2));
      }
      if (is_name(layout_->workload, name)) workload_index_ = i;
    }
    for (std::size_t r = 0; r < kFields; ++r) {
      bool found = false;
      for (std::size_t i = 0; i < cells.size(); ++i) {
        if (is_name(layout_->required[r], cells[i].text)) {
          required_index_[r] = i;
          found = true;
        }
      }
      if (!found) fail(line_no, 1, layout_->required[r], "missing required column");
    }
  }

  ProfileRow read_row(const std::vector<CsvCell>& cells, int line_no, std::size_t rails) const {
    if (cells.size() != header_.size()) {
      fail(line_no, 1, "",
           "expected " + std::to_string(header_.size()) + " fields as in the header, found " +
               std::to_string(cells.size()));
    }
    auto cell = [&](Field f) -> const CsvCell& { return cells[required_index_[f]]; };
    auto key = [&](Field f) -> std::string { return layout_->required[f]; };
    ProfileRow row;
    row.where = SourceLocation{source_, line_no, 1};
    const CsvCell& phase = cell(kPhase);
    if (is_name(layout_->training, phase.text)) {
      row.phase = ProfilePhase::training;
    } else if (is_name(layout_->inference, phase.text)) {
      row.phase = ProfilePhase::inference;
    } else if (is_name(layout_->idle, phase.text)) {
      row.phase = ProfilePhase::idle;
    } else {
      fail(line_no, phase.column, key(kPhase),
           "unknown phase '" + phase.text + "' (expected " + layout_->expected_phases + ")");
    }
    const bool idle = row.phase == ProfilePhase::idle;
    if (workload_index_) {
      // Idle rows measure the device, so in a multi-workload file their workload may be empty.
      const CsvCell& c = cells[*workload_index_];
      if (!c.text.empty()) {
        row.workload = c.text;
      } else if (!idle) {
        fail(line_no, c.column, layout_->workload, "missing value");
      }
    }
    row.cores = positive_int(cell(kCores), line_no, key(kCores));
    row.cpu_khz = positive_number(cell(kCpuKhz), line_no, key(kCpuKhz));
    row.gpu_hz = positive_number(cell(kGpuHz), line_no, key(kGpuHz));
    row.emc_hz = positive_number(cell(kEmcHz), line_no, key(kEmcHz));
    if (idle) {
      const CsvCell& b = cell(kBatchSize);
      if (b.text != "0") fail(line_no, b.column, "batch_size", "idle rows must have batch_size 0");
      const CsvCell& t = cell(kTimeMs);
      // An idle row has no minibatch to time; an empty cell (or 0) says so.
      if (!t.text.empty() && t.text != "0") {
        fail(line_no, t.column, "time_ms", "idle rows must leave time_ms empty");
      }
    } else {
      row.batch_size = positive_int(cell(kBatchSize), line_no, key(kBatchSize));
      row.time_ms = positive_number(cell(kTimeMs), line_no, key(kTimeMs));
    }
    row.power_w = positive_number(cell(kPowerW), line_no, key(kPowerW));
    row.rail_power_w.reserve(rails);
    for (std::size_t i : rail_index_) {
      const CsvCell& c = cells[i];
      if (c.text.empty()) {
        row.rail_power_w.push_back(std::nullopt);
      } else {
        row.rail_power_w.push_back(non_negative_number(c, line_no, header_[i].text));
      }
    }
    return row;
  }

  double number(const CsvCell& c, int line_no, const std::string& key) const {
    if (c.text.empty()) fail(line_no, c.column, key, "missing value");
    double v = 0;
    const char* first = c.text.data();
    const char* last = first + c.text.size();
    auto [ptr, ec] = std::from_chars(first, last, v);
    if (ec != std::errc() || ptr != last) {
      fail(line_no, c.column, key, "expected a number, found '" + c.text + "'");
    }
    if (!std::isfinite(v))
      fail(line_no, c.column, key, "expected a finite number, found '" + c.text + "'");
    return v;
  }

  double positive_number(const CsvCell& c, int line_no, const std::string& key) const {
    double v = number(c, line_no, key);
    if (!(v > 0))
      fail(line_no, c.column, key, "expected a positive number, found '" + c.text + "'");
    return v;
  }

  double non_negative_number(const CsvCell& c, int line_no, const std::string& key) const {
    double v = number(c, line_no, key);
    if (v < 0)
      fail(line_no, c.column, key, "expected a non-negative number, found '" + c.text + "'");
    return v;
  }

  int positive_int(const CsvCell& c, int line_no, const std::string& key) const {
    if (c.text.empty()) fail(line_no, c.column, key, "missing value");
    int v = 0;
    const char* first = c.text.data();
    const char* last = first + c.text.size();
    auto [ptr, ec] = std::from_chars(first, last, v);
    if (ec != std::errc() || ptr != last || v <= 0) {
      fail(line_no, c.column, key, "expected a positive integer, found '" + c.text + "'");
    }
    return v;
  }

  std::string source_;
  std::vector<CsvCell> header_;
  const Layout* layout_ = &kProfileLayout;
  std::array<std::size_t, kFields> required_index_{};
  std::vector<std::size_t> rail_index_;
  std::optional<std::size_t> workload_index_;
};

}  // namespace

ProfileTable parse_profile_csv(std::istream& in, const std::string& source) {
  return Parser(source).parse(in);
}

ProfileTable read_profile_csv(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw InputError(SourceLocation{path, 0, 0}, "", "cannot open profile file");
  return parse_profile_csv(in, path);
}

}  // namespace fulcrum::models
