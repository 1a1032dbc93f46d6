#include "models/io/csv_reader.hpp"

#include <istream>
#include <utility>

namespace fulcrum::models {

namespace {

// Spreadsheets often save CSV with a UTF-8 byte-order mark; it is not part of the header.
constexpr std::string_view kUtf8Bom = "\xEF\xBB\xBF";

bool is_blank(char c) { return c == ' ' || c == '\t'; }

bool is_blank_or_comment(std::string_view line) {
  for (char c : line) {
    if (is_blank(c)) continue;
    return c == '#';
  }
  return true;
}

// Splits row.text into row.cells, reusing the cells' strings.
void split(CsvRow& row) {
  const std::string_view line = row.text;
  std::size_t n = 0;
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = line.find(',', start);
    const std::size_t end = comma == std::string_view::npos ? line.size() : comma;
    std::size_t b = start;
    std::size_t e = end;
    while (b < e && is_blank(line[b])) ++b;
    while (e > b && is_blank(line[e - 1])) --e;
    if (n == row.cells.size()) row.cells.emplace_back();
    CsvCell& cell = row.cells[n++];
    cell.text.assign(line.substr(b, e - b));
    cell.line = row.line;
    cell.column = static_cast<int>(b) + 1;
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  row.cells.resize(n);
}

}  // namespace

CsvReader::CsvReader(std::istream& in, std::string source) : in_(in), source_(std::move(source)) {
  CsvRow row;
  if (next_content_line(row)) header_ = std::move(row);
}

bool CsvReader::read_line(std::string& line) {
  if (!std::getline(in_, line)) return false;
  if (++lines_read_ == 1 && std::string_view(line).substr(0, kUtf8Bom.size()) == kUtf8Bom) {
    line.erase(0, kUtf8Bom.size());
  }
  if (!line.empty() && line.back() == '\r') line.pop_back();
  return true;
}

bool CsvReader::next_content_line(CsvRow& row) {
  while (read_line(row.text)) {
    if (is_blank_or_comment(row.text)) continue;
    row.line = lines_read_;
    split(row);
    return true;
  }
  return false;
}

bool CsvReader::next(CsvRow& row) {
  if (!header_) return false;
  return next_content_line(row);
}

std::optional<std::size_t> CsvReader::column(std::string_view name) const {
  if (!header_) return std::nullopt;
  for (std::size_t i = 0; i < header_->cells.size(); ++i) {
    if (header_->cells[i].text == name) return i;
  }
  return std::nullopt;
}

SourceLocation CsvReader::where(const CsvCell& cell) const {
  return SourceLocation{source_, cell.line, cell.column};
}

SourceLocation CsvReader::where(const CsvRow& row) const {
  return SourceLocation{source_, row.line, 1};
}

}  // namespace fulcrum::models
