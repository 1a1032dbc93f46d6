#include "sim/report/json_writer.hpp"

#include <cassert>

namespace fulcrum::sim {

void append_json_string(std::string& out, std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  out.push_back('"');
  for (char c : s) {
    const auto u = static_cast<unsigned char>(c);
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\b':
        out += "\\b";
        break;
      case '\f':
        out += "\\f";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
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

void append_json_number(std::string& out, double v) {
  char buf[kMaxNumberChars];
  char* end = put_double(buf, v);
  if (end == buf) {
    out += "null";
  } else {
    out.append(buf, end);
  }
}

void append_csv_number(std::string& out, double v) {
  char buf[kMaxNumberChars];
  out.append(buf, put_double(buf, v));
}

void append_integer(std::string& out, std::int64_t v) {
  char buf[kMaxNumberChars];
  out.append(buf, put_integer(buf, v));
}

void append_integer(std::string& out, std::uint64_t v) {
  char buf[kMaxNumberChars];
  out.append(buf, put_integer(buf, v));
}

void append_fixed_decimal(std::string& out, std::int64_t value, int decimals) {
  char buf[kMaxNumberChars];
  out.append(buf, put_fixed_decimal(buf, value, decimals));
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
