#include "sim/config/trace_loader.hpp"

#include <charconv>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>

#include "models/error.hpp"

namespace fulcrum::sim {

namespace {

constexpr std::string_view kArrivalColumn = "arrival_s";

struct Field {
  std::string_view text;  // trimmed
  int column = 1;         // 1-based column of the field's first character
};

bool is_blank(char c) { return c == ' ' || c == '\t'; }

std::vector<Field> split_fields(std::string_view line) {
  std::vector<Field> out;
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = line.find(',', start);
    const std::size_t end = comma == std::string_view::npos ? line.size() : comma;
    std::size_t b = start;
    std::size_t e = end;
    while (b < e && is_blank(line[b])) ++b;
    while (e > b && is_blank(line[e - 1])) --e;
    out.push_back(Field{line.substr(b, e - b), static_cast<int>(b) + 1});
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return out;
}

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

}  // namespace

std::vector<double> parse_arrival_trace(std::string_view text, const std::string& display_name) {
  auto fail = [&](int line, int column, const std::string& key, const std::string& problem) {
    throw InputError(SourceLocation{display_name, line, column}, key, problem);
  };

  std::optional<std::size_t> arrival_index;
  std::size_t header_fields = 0;
  std::vector<double> arrivals;
  int line_no = 0;
  // Spreadsheets often save CSV with a UTF-8 byte-order mark; it is not part of the header.
  constexpr std::string_view kUtf8Bom = "\xEF\xBB\xBF";
  std::size_t pos = text.substr(0, kUtf8Bom.size()) == kUtf8Bom ? kUtf8Bom.size() : 0;
  while (pos < text.size()) {
    const std::size_t nl = text.find('\n', pos);
    std::string_view line =
        text.substr(pos, nl == std::string_view::npos ? text.size() - pos : nl - pos);
    pos = nl == std::string_view::npos ? text.size() : nl + 1;
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    std::size_t first = 0;
    while (first < line.size() && is_blank(line[first])) ++first;
    if (first == line.size() || line[first] == '#') continue;

    const std::vector<Field> fields = split_fields(line);
    if (!arrival_index) {
      for (std::size_t i = 0; i < fields.size(); ++i) {
        if (fields[i].text == kArrivalColumn) {
          if (arrival_index)
            fail(line_no, fields[i].column, "", "column 'arrival_s' appears twice");
          arrival_index = i;
        }
      }
      if (!arrival_index) {
        fail(line_no, 1, "", "the header has no 'arrival_s' column (got '" + excerpt(line) + "')");
      }
      header_fields = fields.size();
      continue;
    }
    if (fields.size() != header_fields) {
      fail(line_no, 1, "",
           "row has " + std::to_string(fields.size()) + " fields, the header has " +
               std::to_string(header_fields));
    }
    const Field& f = fields[*arrival_index];
    const std::optional<double> v = parse_number(f.text);
    const std::string key(kArrivalColumn);
    if (!v) fail(line_no, f.column, key, "not a number: '" + excerpt(f.text) + "'");
    if (!std::isfinite(*v))
      fail(line_no, f.column, key, "not a finite number: '" + excerpt(f.text) + "'");
    if (*v < 0) fail(line_no, f.column, key, "must be >= 0, got " + excerpt(f.text));
    if (!arrivals.empty() && *v < arrivals.back()) {
      std::ostringstream msg;
      msg << "arrival times must be non-decreasing: " << excerpt(f.text) << " after "
          << arrivals.back();
      fail(line_no, f.column, key, msg.str());
    }
    arrivals.push_back(*v);
  }
  if (!arrival_index) fail(0, 0, "", "empty trace: expected a header with an 'arrival_s' column");
  if (arrivals.empty()) fail(0, 0, "", "empty trace: the header is not followed by any arrival");
  return arrivals;
}

std::vector<double> load_arrival_trace(const std::string& path) {
  // Only regular files: a device such as /dev/zero would be read until memory runs out.
  std::error_code ec;
  if (std::filesystem::exists(path, ec) && !std::filesystem::is_regular_file(path, ec)) {
    throw InputError(SourceLocation{path, 0, 0}, "", "trace is not a regular file");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(SourceLocation{path, 0, 0}, "", "cannot open trace file");
  std::ostringstream text;
  text << in.rdbuf();
  return parse_arrival_trace(text.str(), path);
}

}  // namespace fulcrum::sim
