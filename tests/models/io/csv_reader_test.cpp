#include "models/io/csv_reader.hpp"

#include <catch2/catch.hpp>
#include <sstream>
#include <string>
#include <vector>

using fulcrum::SourceLocation;
using fulcrum::models::CsvCell;
using fulcrum::models::CsvReader;
using fulcrum::models::CsvRow;

namespace {

std::vector<std::string> texts(const CsvRow& row) {
  std::vector<std::string> out;
  for (const CsvCell& c : row.cells) out.push_back(c.text);
  return out;
}

std::vector<int> columns(const CsvRow& row) {
  std::vector<int> out;
  for (const CsvCell& c : row.cells) out.push_back(c.column);
  return out;
}

}  // namespace

TEST_CASE("the first line that is not blank or a comment is the header") {
  std::istringstream in("# a comment\n\n   \n\t# indented comment\nx,y\n1,2\n");
  CsvReader csv(in, "a.csv");
  REQUIRE(csv.header());
  CHECK(csv.header()->line == 5);
  CHECK(csv.header()->text == "x,y");
  CHECK(texts(*csv.header()) == std::vector<std::string>{"x", "y"});
  CsvRow row;
  REQUIRE(csv.next(row));
  CHECK(row.line == 6);
  CHECK(texts(row) == std::vector<std::string>{"1", "2"});
  CHECK_FALSE(csv.next(row));
  CHECK(csv.lines_read() == 6);
}

TEST_CASE("blank and comment lines between rows are skipped and counted") {
  std::istringstream in("x\n1\n\n# two\n  \n3");
  CsvReader csv(in, "a.csv");
  CsvRow row;
  REQUIRE(csv.next(row));
  CHECK(row.line == 2);
  REQUIRE(csv.next(row));
  CHECK(row.line == 6);
  CHECK(row.text == "3");
  CHECK_FALSE(csv.next(row));
  CHECK(csv.lines_read() == 6);
}

TEST_CASE("cells are trimmed of spaces and tabs and keep the column where their text starts") {
  std::istringstream in("a, b ,\tc\n");
  CsvReader csv(in, "a.csv");
  REQUIRE(csv.header());
  // "a, b ,\tc": a at byte 1, b at byte 4, c at byte 8 (after the tab at byte 7).
  CHECK(texts(*csv.header()) == std::vector<std::string>{"a", "b", "c"});
  CHECK(columns(*csv.header()) == std::vector<int>{1, 4, 8});
  for (const CsvCell& c : csv.header()->cells) CHECK(c.line == 1);
}

TEST_CASE("empty cells are kept, including one after a trailing comma") {
  std::istringstream in("a,b,c\n,x,\n");
  CsvReader csv(in, "a.csv");
  CsvRow row;
  REQUIRE(csv.next(row));
  CHECK(texts(row) == std::vector<std::string>{"", "x", ""});
  // ",x,": the empty first cell starts at byte 1, the last one just after the comma at byte 3.
  CHECK(columns(row) == std::vector<int>{1, 2, 4});
}

TEST_CASE("commas always split: there is no quoting") {
  std::istringstream in("a,b\n\"1,2\"\n");
  CsvReader csv(in, "a.csv");
  CsvRow row;
  REQUIRE(csv.next(row));
  CHECK(texts(row) == std::vector<std::string>{"\"1", "2\""});
}

TEST_CASE("a UTF-8 byte-order mark at the start is dropped and columns count after it") {
  std::istringstream in(
      "\xEF\xBB\xBF"
      "x,y\r\n1,2\r\n");
  CsvReader csv(in, "a.csv");
  REQUIRE(csv.header());
  CHECK(csv.header()->text == "x,y");
  CHECK(columns(*csv.header()) == std::vector<int>{1, 3});
  CsvRow row;
  REQUIRE(csv.next(row));
  CHECK(row.text == "1,2");
  CHECK(texts(row) == std::vector<std::string>{"1", "2"});
}

TEST_CASE("a byte-order mark before a comment line is dropped too, and only at the start") {
  std::istringstream in(
      "\xEF\xBB\xBF"
      "# made by a spreadsheet\nx\n\xEF\xBB\xBF"
      "1\n");
  CsvReader csv(in, "a.csv");
  REQUIRE(csv.header());
  CHECK(csv.header()->line == 2);
  CsvRow row;
  REQUIRE(csv.next(row));
  CHECK(row.cells.at(0).text ==
        "\xEF\xBB\xBF"
        "1");
}

TEST_CASE("a CR is dropped only at the end of a line") {
  std::istringstream in("x,y\r\n1\r2,3\r\n");
  CsvReader csv(in, "a.csv");
  CsvRow row;
  REQUIRE(csv.next(row));
  CHECK(texts(row) == std::vector<std::string>{"1\r2", "3"});
}

TEST_CASE("columns are found by name, the first one when a name repeats") {
  std::istringstream in("model, phase ,power_w,phase\n");
  CsvReader csv(in, "a.csv");
  CHECK(csv.column("model") == std::optional<std::size_t>(0));
  CHECK(csv.column("phase") == std::optional<std::size_t>(1));
  CHECK(csv.column("power_w") == std::optional<std::size_t>(2));
  CHECK_FALSE(csv.column("time_ms").has_value());
  CHECK_FALSE(csv.column("").has_value());
}

TEST_CASE("a stream without a header has no header, no columns and no rows") {
  for (const std::string text : {"", "\n\n", "# only\n  # comments\n", "\xEF\xBB\xBF"}) {
    std::istringstream in(text);
    CsvReader csv(in, "a.csv");
    CHECK_FALSE(csv.header().has_value());
    CHECK_FALSE(csv.column("x").has_value());
    CsvRow row;
    CHECK_FALSE(csv.next(row));
  }
}

TEST_CASE("a reused row takes the next row's cells, however many") {
  std::istringstream in("h\na,b,c\nd\ne,f\n");
  CsvReader csv(in, "a.csv");
  CsvRow row;
  REQUIRE(csv.next(row));
  CHECK(texts(row) == std::vector<std::string>{"a", "b", "c"});
  REQUIRE(csv.next(row));
  CHECK(texts(row) == std::vector<std::string>{"d"});
  REQUIRE(csv.next(row));
  CHECK(texts(row) == std::vector<std::string>{"e", "f"});
  CHECK(row.cells[1].line == 4);
}

TEST_CASE("locations name the source, the line and the cell's column") {
  std::istringstream in("# c\nx,y\n1,  2\n");
  CsvReader csv(in, "dir/p.csv");
  CsvRow row;
  REQUIRE(csv.next(row));
  const SourceLocation cell = csv.where(row.cells[1]);
  CHECK(cell.file == "dir/p.csv");
  CHECK(cell.line == 3);
  CHECK(cell.column == 5);
  const SourceLocation whole = csv.where(row);
  CHECK(whole.line == 3);
  CHECK(whole.column == 1);
  CHECK(csv.source() == "dir/p.csv");
}
