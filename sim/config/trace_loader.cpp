#include "sim/config/trace_loader.hpp"

#include <charconv>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>

#include "models/error.hpp"
#include "models/io/csv_reader.hpp"
#include "sim/config/input_text.hpp"
#include "sim/scenario/scenario_limits.hpp"

namespace fulcrum::sim {

namespace {

constexpr std::string_view kArrivalColumn = "arrival_s";

// Printable excerpt of untrusted text for an error message.
std::string excerpt(std::string_view s) {
  std::string out;
  for (char c : s.substr(0, 40)) {
    const auto u = static_cast<unsigned char>(c);
    out += (u >= 0x20 && u < 0x7f) ? c : '?';
  }
  if (s.size() > 40) out += "...";
  return out;
}

std::optional<double> parse_number(std::string_view s) {
  if (s.empty()) return std::nullopt;
  const char* first = s.data();
  const char* last = s.data() + s.size();
  if (*first == '+') ++first;
  double v = 0;
  auto [ptr, ec] = std::from_chars(first, last, v);
  if (ec != std::errc() || ptr != last) return std::nullopt;
  return v;
}

// Reads the trace's rows as they stream in: a trace can be long, and only its times are kept.
std::vector<double> parse_trace(std::istream& in, const std::string& display_name) {
  auto fail = [&](int line, int column, const std::string& key, const std::string& problem) {
    throw InputError(SourceLocation{display_name, line, column}, key, problem);
  };

  models::CsvReader csv(in, display_name);
  if (!csv.header()) fail(0, 0, "", "empty trace: expected a header with an 'arrival_s' column");
  const models::CsvRow& header = *csv.header();
  std::optional<std::size_t> arrival_index;
  for (std::size_t i = 0; i < header.cells.size(); ++i) {
    if (header.cells[i].text == kArrivalColumn) {
      if (arrival_index)
        fail(header.line, header.cells[i].column, "", "column 'arrival_s' appears twice");
      arrival_index = i;
    }
  }
  if (!arrival_index) {
    fail(header.line, 1, "",
         "the header has no 'arrival_s' column (got '" + excerpt(header.text) + "')");
  }
  const std::size_t header_fields = header.cells.size();
  std::vector<double> arrivals;
  for (models::CsvRow row; csv.next(row);) {
    if (row.cells.size() != header_fields) {
      fail(row.line, 1, "",
           "row has " + std::to_string(row.cells.size()) + " fields, the header has " +
               std::to_string(header_fields));
    }
    const models::CsvCell& f = row.cells[*arrival_index];
    const std::optional<double> v = parse_number(f.text);
    const std::string key(kArrivalColumn);
    if (!v) fail(f.line, f.column, key, "not a number: '" + excerpt(f.text) + "'");
    if (!std::isfinite(*v))
      fail(f.line, f.column, key, "not a finite number: '" + excerpt(f.text) + "'");
    if (*v < 0) fail(f.line, f.column, key, "must be >= 0, got " + excerpt(f.text));
    // Arrivals after the run's end are ignored; past the longest run they would only risk
    // overflowing the nanosecond clock.
    if (*v > limits::kMaxDurationS) {
      fail(f.line, f.column, key, "must be <= 1e7 s (the longest run), got " + excerpt(f.text));
    }
    if (!arrivals.empty() && *v < arrivals.back()) {
      std::ostringstream msg;
      msg << "arrival times must be non-decreasing: " << excerpt(f.text) << " after "
          << arrivals.back();
      fail(f.line, f.column, key, msg.str());
    }
    arrivals.push_back(*v);
  }
  if (arrivals.empty()) fail(0, 0, "", "empty trace: the header is not followed by any arrival");
  return arrivals;
}

}  // namespace

std::vector<double> parse_arrival_trace(std::string_view text, const std::string& display_name) {
  std::istringstream in{std::string(text)};
  return parse_trace(in, printable(display_name, 4096));
}

std::vector<double> load_arrival_trace(const std::string& path) {
  // Only regular files: a device such as /dev/zero would be read until memory runs out.
  std::error_code ec;
  // Errors echo the path: keep them on one line whatever the folder's name.
  const std::string shown = printable(path, 4096);
  if (std::filesystem::exists(path, ec) && !std::filesystem::is_regular_file(path, ec)) {
    throw InputError(SourceLocation{shown, 0, 0}, "", "trace is not a regular file");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(SourceLocation{shown, 0, 0}, "", "cannot open trace file");
  return parse_trace(in, shown);
}

}  // namespace fulcrum::sim
