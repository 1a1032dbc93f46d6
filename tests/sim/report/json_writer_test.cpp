#include "sim/report/json_writer.hpp"

#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <string>

#include "tests/sim/report/json_check.hpp"

using fulcrum::sim::append_fixed_decimal;
using fulcrum::sim::append_json_number;
using fulcrum::sim::append_json_string;
using fulcrum::sim::JsonWriter;
using fulcrum::sim::testing::parse_json;

namespace {

std::string json_string(std::string_view s) {
  std::string out;
  append_json_string(out, s);
  return out;
}

std::string number(double v) {
  std::string out;
  append_json_number(out, v);
  return out;
}

std::string fixed(std::int64_t v, int decimals) {
  std::string out;
  append_fixed_decimal(out, v, decimals);
  return out;
}

}  // namespace

TEST_CASE("strings escape quotes, backslashes and control characters") {
  CHECK(json_string("plain") == "\"plain\"");
  CHECK(json_string("say \"hi\"") == "\"say \\\"hi\\\"\"");
  CHECK(json_string("C:\\dir") == "\"C:\\\\dir\"");
  CHECK(json_string("a\nb\tc\r\b\f") == "\"a\\nb\\tc\\r\\b\\f\"");
  CHECK(json_string(std::string("\x01\x1f", 2)) == "\"\\u0001\\u001f\"");
  CHECK(json_string(std::string("nul\0x", 5)) == "\"nul\\u0000x\"");
  CHECK(json_string("caf\xc3\xa9") == "\"caf\xc3\xa9\"");  // UTF-8 passes through
}

TEST_CASE("escaped strings round-trip through a strict parser") {
  const std::string nasty = "q\"b\\s/\n\t\x02 end";
  CHECK(parse_json(json_string(nasty)).text == nasty);
}

TEST_CASE("doubles print in their shortest readable form") {
  CHECK(number(0) == "0");
  CHECK(number(-0.0) == "0");
  CHECK(number(100) == "100");
  CHECK(number(2201.6) == "2201.6");
  CHECK(number(0.1 + 0.2) == "0.3");  // 12 significant digits hide the noise
  CHECK(number(1e-3 * 233123456) == "233123.456");
  CHECK(number(1.0 / 3.0) == "0.333333333333");
  CHECK(number(-42.5) == "-42.5");
  CHECK(number(1.5e-7) == "1.5e-07");
  CHECK(number(6.02e23) == "6.02e+23");
}

TEST_CASE("non-finite doubles become null, never nan or inf") {
  CHECK(number(std::numeric_limits<double>::quiet_NaN()) == "null");
  CHECK(number(std::numeric_limits<double>::infinity()) == "null");
  CHECK(number(-std::numeric_limits<double>::infinity()) == "null");
}

TEST_CASE("every formatted number is valid JSON and reads back within 12 digits") {
  for (double v : {0.0, 1.0, -1.0, 3.14159265358979, 1e-300, 1e300, 123456789012345.0, 5e-324}) {
    const auto parsed = parse_json(number(v));
    REQUIRE(parsed.kind == fulcrum::sim::testing::JsonValue::Kind::number);
    CHECK(parsed.number == Approx(v).epsilon(1e-11));
  }
}

TEST_CASE("nanosecond counts print as exact decimals") {
  CHECK(fixed(0, 9) == "0");
  CHECK(fixed(10'000'000, 9) == "0.01");
  CHECK(fixed(1'500'000, 6) == "1.5");
  CHECK(fixed(600'000'000'000, 9) == "600");
  CHECK(fixed(1, 9) == "0.000000001");
  CHECK(fixed(123'456'789'012, 9) == "123.456789012");
  CHECK(fixed(-2'500, 3) == "-2.5");
  CHECK(fixed(-1, 3) == "-0.001");
  CHECK(fixed(42, 0) == "42");
  CHECK(fixed(std::numeric_limits<std::int64_t>::min(), 9) == "-9223372036.854775808");
}

TEST_CASE("the writer pretty-prints nested documents with two-space indents") {
  JsonWriter w;
  w.begin_object();
  w.key("name").value("quickstart");
  w.key("seed").value(std::uint64_t{7});
  w.key("p99_ms").value(233.5);
  w.key("stable").value(true);
  w.key("met").value(std::optional<bool>());
  w.key("list").begin_array().value(1).value(2).end_array();
  w.key("empty_object").begin_object().end_object();
  w.key("empty_list").begin_array().end_array();
  w.end_object();
  REQUIRE(w.is_complete());
  CHECK(w.str() ==
        "{\n"
        "  \"name\": \"quickstart\",\n"
        "  \"seed\": 7,\n"
        "  \"p99_ms\": 233.5,\n"
        "  \"stable\": true,\n"
        "  \"met\": null,\n"
        "  \"list\": [\n"
        "    1,\n"
        "    2\n"
        "  ],\n"
        "  \"empty_object\": {},\n"
        "  \"empty_list\": []\n"
        "}\n");
  const auto doc = parse_json(w.str());
  CHECK(doc.at("list").items.size() == 2);
  CHECK(doc.at("met").kind == fulcrum::sim::testing::JsonValue::Kind::null);
}

TEST_CASE("a NaN written through the writer still yields valid JSON") {
  JsonWriter w;
  w.begin_array().value(std::nan("")).value(1.25).end_array();
  const auto doc = parse_json(w.str());
  CHECK(doc.items[0].kind == fulcrum::sim::testing::JsonValue::Kind::null);
  CHECK(doc.items[1].number == 1.25);
}

TEST_CASE("keys are escaped like strings") {
  JsonWriter w;
  w.begin_object().key("a\"b").value(1).end_object();
  CHECK(parse_json(w.str()).has("a\"b"));
}
