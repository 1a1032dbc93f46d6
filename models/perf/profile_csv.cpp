#include "models/perf/profile_csv.hpp"

#include <array>
#include <charconv>
#include <cmath>
#include <fstream>
#include <istream>
#include <map>
#include <sstream>
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
      // A header is echoed in messages, so it must be text: a binary file is refused here.
      if (printable_excerpt(name, name.size()) != name) {
        fail(line_no, cells[i].column, "",
             "column name '" + printable_excerpt(name) + "' is not printable text");
      }
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
           "unknown phase '" + printable_excerpt(phase.text) + "' (expected " +
               layout_->expected_phases + ")");
    }
    const bool idle = row.phase == ProfilePhase::idle;
    if (workload_index_) {
      // Idle rows measure the device, so in a multi-workload file their workload may be empty.
      const CsvCell& c = cells[*workload_index_];
      if (!c.text.empty()) {
        if (printable_excerpt(c.text, c.text.size()) != c.text) {
          fail(line_no, c.column, layout_->workload,
               "'" + printable_excerpt(c.text) + "' is not printable text");
        }
        row.workload = c.text;
      } else if (!idle) {
        fail(line_no, c.column, layout_->workload, "missing value");
      }
    }
    row.cores = int_in(cell(kCores), line_no, key(kCores), kProfileCores);
    row.cpu_khz = number_in(cell(kCpuKhz), line_no, key(kCpuKhz), kProfileCpuKhz);
    row.gpu_hz = number_in(cell(kGpuHz), line_no, key(kGpuHz), kProfileGpuHz);
    row.emc_hz = number_in(cell(kEmcHz), line_no, key(kEmcHz), kProfileEmcHz);
    if (idle) {
      const CsvCell& b = cell(kBatchSize);
      if (b.text != "0") fail(line_no, b.column, "batch_size", "idle rows must have batch_size 0");
      const CsvCell& t = cell(kTimeMs);
      // An idle row has no minibatch to time; an empty cell (or 0) says so.
      if (!t.text.empty() && t.text != "0") {
        fail(line_no, t.column, "time_ms", "idle rows must leave time_ms empty");
      }
    } else {
      row.batch_size = int_in(cell(kBatchSize), line_no, key(kBatchSize), kProfileBatchSize);
      row.time_ms = number_in(cell(kTimeMs), line_no, key(kTimeMs), kProfileTimeMs);
    }
    row.power_w = number_in(cell(kPowerW), line_no, key(kPowerW), kProfilePowerW);
    row.rail_power_w.reserve(rails);
    for (std::size_t i : rail_index_) {
      const CsvCell& c = cells[i];
      if (c.text.empty()) {
        row.rail_power_w.push_back(std::nullopt);
      } else {
        row.rail_power_w.push_back(number_in(c, line_no, header_[i].text, kProfileRailW));
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
      fail(line_no, c.column, key, "expected a number, found '" + printable_excerpt(c.text) + "'");
    }
    if (!std::isfinite(v))
      fail(line_no, c.column, key,
           "expected a finite number, found '" + printable_excerpt(c.text) + "'");
    return v;
  }

  // A number inside the column's physical range (ProfileRange), else one located line.
  double number_in(const CsvCell& c, int line_no, const std::string& key,
                   const ProfileRange& range) const {
    const double v = number(c, line_no, key);
    if (!range.contains(v)) {
      fail(line_no, c.column, key,
           "expected " + range.describe() + ", found '" + printable_excerpt(c.text) + "'");
    }
    return v;
  }

  int int_in(const CsvCell& c, int line_no, const std::string& key,
             const ProfileRange& range) const {
    if (c.text.empty()) fail(line_no, c.column, key, "missing value");
    long long v = 0;
    const char* first = c.text.data();
    const char* last = first + c.text.size();
    auto [ptr, ec] = std::from_chars(first, last, v);
    if (ec != std::errc() || ptr != last || !range.contains(static_cast<double>(v))) {
      fail(line_no, c.column, key,
           "expected an integer in " + range.bounds() + ", found '" + printable_excerpt(c.text) +
               "'");
    }
    return static_cast<int>(v);
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
  std::ifstream in = open_csv_file(path, "profile");
  return parse_profile_csv(in, path);
}

std::string ProfileRange::bounds() const {
  std::ostringstream text;
  text << min << ".." << max;
  if (unit[0] != '\0') text << " " << unit;
  return text.str();
}

std::string ProfileRange::describe() const { return "a number in " + bounds(); }

namespace {

void append_number(std::string& out, double v) {
  // 12 significant digits in the shortest form, as the simulator's other outputs; what is not
  // finite never gets here (the row is checked against the column's range first).
  char buf[32];
  auto [end, ec] =
      std::to_chars(buf, buf + sizeof buf, v == 0 ? 0.0 : v, std::chars_format::general, 12);
  out.append(buf, ec == std::errc() ? end : buf);
}

void append_int(std::string& out, long long v) {
  char buf[24];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, ec == std::errc() ? end : buf);
}

}  // namespace

std::optional<std::string> profile_cell_problem(const std::string& text) {
  const auto quoted = [&text](const char* problem) {
    std::string out(1, '\'');
    out += printable_excerpt(text);
    out += "' ";
    out += problem;
    return out;
  };
  if (text.find_first_of(",\r\n") != std::string::npos) {
    return quoted("holds a comma or a line break, which no CSV cell can");
  }
  if (printable_excerpt(text, text.size()) != text) return quoted("is not printable text");
  if (!text.empty() && (text.front() == ' ' || text.back() == ' ' || text.front() == '#')) {
    return quoted(
        "starts or ends with a space, or starts with '#', which the reader would not keep");
  }
  return std::nullopt;
}

std::string profile_csv_text(const ProfileTable& table, const std::string& dataset,
                             const std::vector<std::string>& comments) {
  const auto refuse = [](const std::string& key, const std::string& problem) {
    throw InputError(std::nullopt, key, problem);
  };
  if (auto problem = profile_cell_problem(dataset)) refuse("dataset", *problem);
  std::string out;
  for (const std::string& c : comments) {
    if (c.find_first_of("\r\n") != std::string::npos) refuse("comment", "holds a line break");
    out += "# " + c + "\n";
  }
  const std::size_t rails = table.rail_names.size();
  for (const std::string& r : table.rail_names) {
    if (auto problem = profile_cell_problem(r)) refuse("rail", *problem);
    if (r.empty()) refuse("rail", "empty rail name");
  }
  out +=
      "model,dataset,phase,minibatch_size,cores,cpu_freq_khz,gpu_freq_hz,mem_freq_hz,"
      "minibatch_time_ms,power_w";
  for (const std::string& r : table.rail_names) out += "," + r + "_w";
  out += "\n";
  for (const ProfileRow& r : table.rows) {
    const bool idle = r.phase == ProfilePhase::idle;
    const std::string workload = r.workload.value_or("");
    if (auto problem = profile_cell_problem(workload)) refuse("model", *problem);
    if (r.rail_power_w.size() != rails) {
      refuse("rails", "a row has " + std::to_string(r.rail_power_w.size()) +
                          " rail powers, the table " + std::to_string(rails) + " rails");
    }
    const char* phase = r.phase == ProfilePhase::training    ? "train"
                        : r.phase == ProfilePhase::inference ? "infer"
                                                             : "idle";
    out += workload + "," + dataset + "," + phase + ",";
    append_int(out, idle ? 0 : r.batch_size);
    out += ",";
    append_int(out, r.cores);
    for (double v : {r.cpu_khz, r.gpu_hz, r.emc_hz}) {
      out += ",";
      append_number(out, v);
    }
    out += ",";
    if (!idle && r.time_ms) append_number(out, *r.time_ms);
    out += ",";
    append_number(out, r.power_w);
    for (const std::optional<double>& w : r.rail_power_w) {
      out += ",";
      if (w) append_number(out, *w);
    }
    out += "\n";
  }
  // What the reader refuses is never written: a value outside its column's range or not finite,
  // a measured row without its workload, a duplicate row.
  std::istringstream check(out);
  try {
    parse_profile_csv(check, "profile to write");
  } catch (const InputError& e) {
    throw InputError(
        std::nullopt, "",
        std::string("refusing to write a profile its own reader refuses: ") + e.what());
  }
  return out;
}

}  // namespace fulcrum::models
