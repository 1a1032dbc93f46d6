// JsonWriter: builds pretty-printed JSON text (2-space indent) with stable, deterministic number
// formatting, so that summaries are byte-identical for the same run. No third-party JSON library.
//
//   JsonWriter w;
//   w.begin_object().key("name").value("quickstart").key("p99_ms").value(233.5).end_object();
//   std::string text = w.take();   // "{\n  \"name\": \"quickstart\",\n  \"p99_ms\": 233.5\n}\n"
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/report/number_format.hpp"

namespace fulcrum::sim {

// Appends `s` as a JSON string literal (quotes included): escapes '"', '\\' and every control
// character below 0x20 (\b \f \n \r \t by name, the rest as \u00XX). Other bytes pass through, so
// UTF-8 stays UTF-8.
void append_json_string(std::string& out, std::string_view s);

// Appends a double with kReportSignificantDigits significant digits, shortest form (trailing zeros
// dropped, "100" rather than "100.0", "1.5e-07" for tiny values); -0 prints as 0. NaN and
// infinities print as `null` (JSON has no spelling for them).
void append_json_number(std::string& out, double v);

// Appends a double as append_json_number does, but writes `nan`/`inf` never: non-finite values
// print as an empty field (for CSV cells).
void append_csv_number(std::string& out, double v);

// Appends an integer nanosecond count divided by 10^decimals as exact decimal text, with trailing
// zeros (and a bare '.') removed: (1'500'000, 6) -> "1.5", (10'000'000, 9) -> "0.01".
// Exact, unlike converting through double: used for every time column (s, ms, us).
void append_fixed_decimal(std::string& out, std::int64_t value, int decimals);

void append_integer(std::string& out, std::int64_t v);
void append_integer(std::string& out, std::uint64_t v);

class JsonWriter {
 public:
  JsonWriter& begin_object();
  JsonWriter& end_object();
  JsonWriter& begin_array();
  JsonWriter& end_array();
  // Inside an object: the next value's key. Must alternate with values.
  JsonWriter& key(std::string_view k);

  JsonWriter& value(std::string_view s);
  JsonWriter& value(const char* s) { return value(std::string_view(s)); }
  JsonWriter& value(const std::string& s) { return value(std::string_view(s)); }
  JsonWriter& value(bool b);
  JsonWriter& value(int v) { return value(static_cast<std::int64_t>(v)); }
  JsonWriter& value(std::int64_t v);
  JsonWriter& value(std::uint64_t v);
  JsonWriter& value(double v);                 // non-finite -> null
  JsonWriter& value(std::optional<bool> b);    // absent -> null
  JsonWriter& value(std::optional<double> v);  // absent -> null
  JsonWriter& null();

  // The document so far, with a final newline once the top-level value is complete.
  const std::string& str() const { return out_; }
  std::string take() { return std::move(out_); }
  bool is_complete() const { return stack_.empty() && wrote_top_level_; }

 private:
  struct Frame {
    bool is_object = false;
    int count = 0;
  };
  void before_value();
  void newline_indent();
  void after_scalar();  // a completed top-level value ends the document with a newline

  std::string out_;
  std::vector<Frame> stack_;
  bool after_key_ = false;
  bool wrote_top_level_ = false;
};

}  // namespace fulcrum::sim
