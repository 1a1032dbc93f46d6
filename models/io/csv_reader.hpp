// CsvReader: the one reader of Fulcrum's comma-separated files (profile tables, reference
// measurements, arrival traces). It streams data rows one at a time and keeps every cell's line
// and column, so that the parser of each format can point at the value it rejects.
//
//   std::ifstream in(path);
//   CsvReader csv(in, path);
//   if (!csv.header()) throw InputError(...);                  // nothing but comments
//   const std::optional<std::size_t> t = csv.column("time_ms");
//   for (CsvRow row; csv.next(row);) use(row.cells[*t].text, csv.where(row.cells[*t]));
//
// The format, as the files document it: a UTF-8 byte-order mark at the start is dropped; lines end
// with LF or CRLF; lines that are blank (spaces and tabs only) or whose first other character is
// `#` are skipped; the first remaining line is the header; every line is split at each comma (no
// quoting, so a cell cannot hold a comma) and each cell is trimmed of spaces and tabs. Lines and
// columns are 1-based; columns count bytes of the line after the byte-order mark. A line longer
// than kMaxCsvLineBytes is refused (InputError at that line), so a file without line breaks is
// never read into memory whole.
#pragma once

#include <cstddef>
#include <cstdint>
#include <fstream>
#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "models/error.hpp"

namespace fulcrum::models {

// Limits on CSV inputs, as for YAML inputs: the longest line, the largest file (the published
// measurement files are about 2 MB).
inline constexpr std::size_t kMaxCsvLineBytes = std::size_t{1} << 16;          // 64 KiB
inline constexpr std::uintmax_t kMaxCsvFileBytes = std::uintmax_t{256} << 20;  // 256 MiB

// Opens a CSV input file for reading. Refuses (InputError "path: problem", `what` naming the
// input, e.g. "profile") a path that does not exist or cannot be read, what is not a regular
// file (a folder, a device such as /dev/zero, a FIFO, which would block) and a file larger than
// `max_bytes`.
std::ifstream open_csv_file(const std::string& path, const std::string& what,
                            std::uintmax_t max_bytes = kMaxCsvFileBytes);

// Untrusted text (a cell, a header) as it may be echoed in a one-line message: printable ASCII
// kept, every other byte written as \xNN, cut after `max_bytes` bytes with "...".
std::string printable_excerpt(std::string_view text, std::size_t max_bytes = 40);

struct CsvCell {
  std::string text;  // trimmed of surrounding spaces and tabs; may be empty
  int line = 0;
  int column = 0;  // where the trimmed text starts (for an empty cell: just after its comma)
};

struct CsvRow {
  int line = 0;
  std::string text;  // the whole line without its line ending
  std::vector<CsvCell> cells;
};

class CsvReader {
 public:
  // Reads up to and including the header line. `source` names the stream in locations.
  CsvReader(std::istream& in, std::string source);

  const std::string& source() const { return source_; }

  // The header row; absent when the stream holds no line that is neither blank nor a comment.
  const std::optional<CsvRow>& header() const { return header_; }

  // Index of the first header cell whose text is `name`; absent without a header or such a cell.
  std::optional<std::size_t> column(std::string_view name) const;

  // Reads the next data row into `row`, reusing its storage; false at the end of the stream.
  bool next(CsvRow& row);

  // Physical lines read so far; all of the stream's lines once next() has returned false.
  int lines_read() const { return lines_read_; }

  // file:line:column of a cell, and file:line:1 of a row, for InputError.
  SourceLocation where(const CsvCell& cell) const;
  SourceLocation where(const CsvRow& row) const;

 private:
  bool read_line(std::string& line);
  bool next_content_line(CsvRow& row);

  std::istream& in_;
  std::string source_;
  std::optional<CsvRow> header_;
  int lines_read_ = 0;
};

}  // namespace fulcrum::models
