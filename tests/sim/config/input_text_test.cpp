#include "sim/config/input_text.hpp"

#include <catch2/catch.hpp>
#include <string>

using namespace fulcrum::sim;

TEST_CASE("printable text passes and the first bad byte or control character is named", "[text]") {
  CHECK_FALSE(text_problem(""));
  CHECK_FALSE(text_problem("resnet50-0"));
  CHECK_FALSE(text_problem("caf\xc3\xa9 \xe2\x86\x92 \xf0\x9f\x98\x80"));  // é → 😀
  CHECK(text_problem("ab\xff") == "is not valid UTF-8 (byte 0xff at byte 3)");
  CHECK(text_problem("\xc3") == "is not valid UTF-8 (byte 0xc3 at byte 1)");          // cut short
  CHECK(text_problem("\xc0\xaf") == "is not valid UTF-8 (byte 0xc0 at byte 1)");      // overlong
  CHECK(text_problem("\xed\xa0\x80") == "is not valid UTF-8 (byte 0xed at byte 1)");  // surrogate
  CHECK(text_problem("\xf4\x90\x80\x80") == "is not valid UTF-8 (byte 0xf4 at byte 1)");
  const std::string why = "; names, paths and other text must be printable";
  CHECK(text_problem(std::string("a\0", 2)) ==
        "contains a control character (U+0000 at byte 2)" + why);
  CHECK(text_problem("a\tb") == "contains a control character (U+0009 at byte 2)" + why);
  CHECK(text_problem("x\x7f") == "contains a control character (U+007F at byte 2)" + why);
  CHECK(text_problem("x\xc2\x85") == "contains a control character (U+0085 at byte 2)" + why);
}

TEST_CASE("a whole file may hold tabs and line breaks, and a flaw is placed by line and column",
          "[text]") {
  CHECK_FALSE(find_text_flaw("a: 1\r\n\tb: caf\xc3\xa9\n"));
  const auto nul = find_text_flaw(std::string("a: 1\nb: \xc3\xa9\0\n", 11));
  REQUIRE(nul);
  CHECK(nul->line == 2);
  CHECK(nul->column == 5);  // characters, not bytes
  CHECK(nul->problem ==
        "the text contains a control character (U+0000); YAML text must be "
        "printable");
  const auto bad = find_text_flaw("x\n\n  \xff");
  REQUIRE(bad);
  CHECK(bad->line == 3);
  CHECK(bad->column == 3);
  CHECK(bad->problem == "the text is not valid UTF-8 (byte 0xff)");
}

TEST_CASE("echoed text is escaped onto one line and cut at a character boundary", "[text]") {
  CHECK(printable("plain caf\xc3\xa9") == "plain caf\xc3\xa9");
  CHECK(printable(std::string("a\nb\tc\rd\0e\x1b", 10)) == "a\\nb\\tc\\rd\\x00e\\x1b");
  CHECK(printable("\xff\xfe ok") == "\\xff\\xfe ok");
  CHECK(printable("x\xc2\x85y\x7f") == "x\\u0085y\\x7f");
  CHECK(printable("abcdef", 3) == "abc...");
  CHECK(printable("ab\xc3\xa9xyz", 3) == "ab\xc3\xa9...");  // never splits é
  CHECK(printable(std::string(500, 'a')).size() == 123);
}
