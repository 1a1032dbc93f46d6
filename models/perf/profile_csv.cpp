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

constexpr std::array<const char*, 8> kRequired = {"cores", "cpu_khz",    "gpu_hz",  "emc_hz",
                                                  "phase", "batch_size", "time_ms", "power_w"};
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
    for (std::size_t i = 0; i < cells.size(); ++i) {
      const std::string& name = cells[i].text;
      if (name.empty()) fail(line_no, cells[i].column, "", "empty column name in the header");
      for (std::size_t j = 0; j < i; ++j) {
        if (cells[j].text == name)
          fail(line_no, cells[i].column, name, "column appears twice in the header");
      }
      bool known = name == "workload" || is_rail_column(name);
      for (const char* r : kRequired) known = known || name == r;
      if (!known) {
        fail(line_no, cells[i].column, name,
             "unknown column (expected cores, cpu_khz, gpu_hz, emc_hz, phase, batch_size, time_ms, "
             "power_w, optional workload and <RAIL>_w columns)");
      }
      if (is_rail_column(name)) {
        rail_index_.push_back(i);
        table.rail_names.push_back(name.substr(0, name.size() - 2));
      }
      if (name == "workload") workload_index_ = i;
    }
    for (std::size_t r = 0; r < kRequired.size(); ++r) {
      bool found = false;
      for (std::size_t i = 0; i < cells.size(); ++i) {
        if (cells[i].text == kRequired[r]) {
          required_index_[r] = i;
          found = true;
        }
      }
      if (!found) fail(line_no, 1, kRequired[r], "missing required column");
    }
  }

  ProfileRow read_row(const std::vector<CsvCell>& cells, int line_no, std::size_t rails) const {
    if (cells.size() != header_.size()) {
      fail(line_no, 1, "",
           "expected " + std::to_string(header_.size()) + " fields as in the header, found " +
               std::to_string(cells.size()));
    }
    auto cell = [&](std::size_t r) -> const CsvCell& { return cells[required_index_[r]]; };
    ProfileRow row;
    row.where = SourceLocation{source_, line_no, 1};
    const CsvCell& phase = cell(4);
    if (phase.text == "training") {
      row.phase = ProfilePhase::training;
    } else if (phase.text == "inference") {
      row.phase = ProfilePhase::inference;
    } else if (phase.text == "idle") {
      row.phase = ProfilePhase::idle;
    } else {
      fail(line_no, phase.column, "phase",
           "unknown phase '" + phase.text + "' (expected training, inference or idle)");
    }
    const bool idle = row.phase == ProfilePhase::idle;
    if (workload_index_) {
      // Idle rows measure the device, so in a multi-workload file their workload may be empty.
      const CsvCell& c = cells[*workload_index_];
      if (!c.text.empty()) {
        row.workload = c.text;
      } else if (!idle) {
        fail(line_no, c.column, "workload", "missing value");
      }
    }
    row.cores = positive_int(cell(0), line_no, "cores");
    row.cpu_khz = positive_number(cell(1), line_no, "cpu_khz");
    row.gpu_hz = positive_number(cell(2), line_no, "gpu_hz");
    row.emc_hz = positive_number(cell(3), line_no, "emc_hz");
    if (idle) {
      const CsvCell& b = cell(5);
      if (b.text != "0") fail(line_no, b.column, "batch_size", "idle rows must have batch_size 0");
      const CsvCell& t = cell(6);
      // An idle row has no minibatch to time; an empty cell (or 0) says so.
      if (!t.text.empty() && t.text != "0") {
        fail(line_no, t.column, "time_ms", "idle rows must leave time_ms empty");
      }
    } else {
      row.batch_size = positive_int(cell(5), line_no, "batch_size");
      row.time_ms = positive_number(cell(6), line_no, "time_ms");
    }
    row.power_w = positive_number(cell(7), line_no, "power_w");
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
  std::array<std::size_t, kRequired.size()> required_index_{};
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
