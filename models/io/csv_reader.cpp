#include "models/io/csv_reader.hpp"

#include <cstdio>
#include <filesystem>
#include <istream>
#include <string>
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

std::ifstream open_csv_file(const std::string& path, const std::string& what,
                            std::uintmax_t max_bytes) {
  namespace fs = std::filesystem;
  const auto refuse = [&](const std::string& problem) {
    throw InputError(SourceLocation{path, 0, 0}, "", what + " " + problem);
  };
  std::error_code ec;
  const fs::file_status status = fs::status(path, ec);
  if (ec || !fs::exists(status)) refuse("file does not exist or cannot be read");
  if (!fs::is_regular_file(status)) {
    refuse("is not a regular file (a folder, device, FIFO or socket is not read as CSV)");
  }
  const std::uintmax_t size = fs::file_size(path, ec);
  if (ec) refuse("file cannot be read");
  if (size > max_bytes) {
    refuse("file is " + std::to_string(size) + " bytes, more than the limit of " +
           std::to_string(max_bytes));
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) refuse("file cannot be opened");
  return in;
}

std::string printable_excerpt(std::string_view text, std::size_t max_bytes) {
  std::string out;
  for (std::size_t i = 0; i < text.size() && i < max_bytes; ++i) {
    const auto u = static_cast<unsigned char>(text[i]);
    if (u >= 0x20 && u < 0x7f) {
      out += text[i];
    } else {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", u);
      out += buf;
    }
  }
  if (text.size() > max_bytes) out += "...";
  return out;
}

bool CsvReader::read_line(std::string& line) {
  // Like std::getline, but a line is never read past kMaxCsvLineBytes.
  line.clear();
  std::streambuf* buf = in_.rdbuf();
  if (buf == nullptr || !in_.good()) return false;
  bool any = false;
  while (true) {
    const int c = buf->sbumpc();
    if (c == std::char_traits<char>::eof()) {
      in_.setstate(std::ios::eofbit);
      if (!any) return false;
      break;
    }
    any = true;
    if (c == '\n') break;
    if (line.size() == kMaxCsvLineBytes) {
      throw InputError(SourceLocation{source_, lines_read_ + 1, 1}, "",
                       "line longer than " + std::to_string(kMaxCsvLineBytes) + " bytes");
    }
    line.push_back(static_cast<char>(c));
  }
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
