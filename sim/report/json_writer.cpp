#include "sim/report/json_writer.hpp"

#include <cassert>
#include <charconv>
#include <cmath>
#include <system_error>

namespace fulcrum::sim {

void append_json_string(std::string& out, std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  out.push_back('"');
  for (char c : s) {
    const auto u = static_cast<unsigned char>(c);
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (u < 0x20) {
          out += "\\u00";
          out.push_back(kHex[u >> 4]);
          out.push_back(kHex[u & 0xF]);
        } else {
          out.push_back(c);
        }
    }
  }
  out.push_back('"');
}

namespace {

// Writes a finite double with kReportSignificantDigits digits, shortest form; false if non-finite.
bool append_finite(std::string& out, double v) {
  if (!std::isfinite(v)) return false;
  if (v == 0) v = 0;  // folds -0 into 0
  char buf[64];
  auto [end, ec] =
      std::to_chars(buf, buf + sizeof buf, v, std::chars_format::general, kReportSignificantDigits);
  assert(ec == std::errc());
  out.append(buf, end);
  return true;
}

}  // namespace

void append_json_number(std::string& out, double v) {
  if (!append_finite(out, v)) out += "null";
}

void append_csv_number(std::string& out, double v) { append_finite(out, v); }

void append_integer(std::string& out, std::int64_t v) {
  char buf[24];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  assert(ec == std::errc());
  out.append(buf, end);
}

void append_integer(std::string& out, std::uint64_t v) {
  char buf[24];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  assert(ec == std::errc());
  out.append(buf, end);
}

void append_fixed_decimal(std::string& out, std::int64_t value, int decimals) {
  assert(decimals >= 0 && decimals <= 18);
  std::uint64_t scale = 1;
  for (int i = 0; i < decimals; ++i) scale *= 10;
  // Magnitude as unsigned so that INT64_MIN is representable.
  const bool negative = value < 0;
  const std::uint64_t mag = negative ? ~static_cast<std::uint64_t>(value) + 1
                                     : static_cast<std::uint64_t>(value);
  const std::uint64_t whole = mag / scale;
  std::uint64_t frac = mag % scale;
  if (negative && mag != 0) out.push_back('-');
  append_integer(out, whole);
  if (frac == 0) return;
  int digits = decimals;
  while (frac % 10 == 0) {  // drop trailing zeros
    frac /= 10;
    --digits;
  }
  char buf[20];
  for (int i = digits - 1; i >= 0; --i) {
    buf[i] = static_cast<char>('0' + frac % 10);
    frac /= 10;
  }
  out.push_back('.');
  out.append(buf, static_cast<std::size_t>(digits));
}

void JsonWriter::newline_indent() {
  out_.push_back('\n');
  out_.append(2 * stack_.size(), ' ');
}

void JsonWriter::before_value() {
  if (after_key_) {  // the key already placed us
    after_key_ = false;
    return;
  }
  if (stack_.empty()) {
    assert(!wrote_top_level_ && "one top-level value per document");
    return;
  }
  Frame& f = stack_.back();
  assert(!f.is_object && "values inside an object need a key first");
  if (f.count++ > 0) out_.push_back(',');
  newline_indent();
}

void JsonWriter::after_scalar() {
  if (stack_.empty()) {
    wrote_top_level_ = true;
    out_.push_back('\n');
  }
}

JsonWriter& JsonWriter::key(std::string_view k) {
  assert(!stack_.empty() && stack_.back().is_object && !after_key_);
  Frame& f = stack_.back();
  if (f.count++ > 0) out_.push_back(',');
  newline_indent();
  append_json_string(out_, k);
  out_ += ": ";
  after_key_ = true;
  return *this;
}

JsonWriter& JsonWriter::begin_object() {
  before_value();
  out_.push_back('{');
  stack_.push_back({true, 0});
  return *this;
}

JsonWriter& JsonWriter::begin_array() {
  before_value();
  out_.push_back('[');
  stack_.push_back({false, 0});
  return *this;
}

JsonWriter& JsonWriter::end_object() {
  assert(!stack_.empty() && stack_.back().is_object && !after_key_);
  const bool empty = stack_.back().count == 0;
  stack_.pop_back();
  if (!empty) newline_indent();
  out_.push_back('}');
  after_scalar();
  return *this;
}

JsonWriter& JsonWriter::end_array() {
  assert(!stack_.empty() && !stack_.back().is_object);
  const bool empty = stack_.back().count == 0;
  stack_.pop_back();
  if (!empty) newline_indent();
  out_.push_back(']');
  after_scalar();
  return *this;
}

JsonWriter& JsonWriter::value(std::string_view s) {
  before_value();
  append_json_string(out_, s);
  after_scalar();
  return *this;
}

JsonWriter& JsonWriter::value(bool b) {
  before_value();
  out_ += b ? "true" : "false";
  after_scalar();
  return *this;
}

JsonWriter& JsonWriter::value(std::int64_t v) {
  before_value();
  append_integer(out_, v);
  after_scalar();
  return *this;
}

JsonWriter& JsonWriter::value(std::uint64_t v) {
  before_value();
  append_integer(out_, v);
  after_scalar();
  return *this;
}

JsonWriter& JsonWriter::value(double v) {
  before_value();
  append_json_number(out_, v);
  after_scalar();
  return *this;
}

JsonWriter& JsonWriter::value(std::optional<bool> b) { return b ? value(*b) : null(); }

JsonWriter& JsonWriter::value(std::optional<double> v) { return v ? value(*v) : null(); }

JsonWriter& JsonWriter::null() {
  before_value();
  out_ += "null";
  after_scalar();
  return *this;
}

}  // namespace fulcrum::sim
