#include "sim/config/input_text.hpp"

#include <cstdint>
#include <cstdio>

namespace fulcrum::sim {

namespace {

// One UTF-8 sequence at s[i]: its code point and length, or length 0 when it is not valid UTF-8
// (a stray continuation byte, a truncated or overlong sequence, a surrogate, beyond U+10FFFF).
struct Decoded {
  std::uint32_t code_point = 0;
  std::size_t length = 0;
};

Decoded decode(std::string_view s, std::size_t i) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char b0 = byte(i);
  if (b0 < 0x80) return {b0, 1};
  std::size_t length = 0;
  std::uint32_t cp = 0;
  std::uint32_t min = 0;
  if ((b0 & 0xE0) == 0xC0) {
    length = 2;
    cp = b0 & 0x1Fu;
    min = 0x80;
  } else if ((b0 & 0xF0) == 0xE0) {
    length = 3;
    cp = b0 & 0x0Fu;
    min = 0x800;
  } else if ((b0 & 0xF8) == 0xF0) {
    length = 4;
    cp = b0 & 0x07u;
    min = 0x10000;
  } else {
    return {};
  }
  if (i + length > s.size()) return {};
  for (std::size_t k = 1; k < length; ++k) {
    const unsigned char b = byte(i + k);
    if ((b & 0xC0) != 0x80) return {};
    cp = (cp << 6) | (b & 0x3Fu);
  }
  if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return {};
  return {cp, length};
}

bool is_control(std::uint32_t cp) { return cp < 0x20 || (cp >= 0x7F && cp <= 0x9F); }

std::string hex_byte(unsigned char b) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "\\x%02x", b);
  return buf;
}

std::string code_point_name(std::uint32_t cp) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "U+%04X", static_cast<unsigned>(cp));
  return buf;
}

std::string not_utf8(unsigned char b) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "0x%02x", b);
  return "is not valid UTF-8 (byte " + std::string(buf);
}

std::string control(std::uint32_t cp) {
  return "contains a control character (" + code_point_name(cp);
}

}  // namespace

std::optional<std::string> text_problem(std::string_view s) {
  for (std::size_t i = 0; i < s.size();) {
    const Decoded d = decode(s, i);
    if (d.length == 0) {
      return not_utf8(static_cast<unsigned char>(s[i])) + " at byte " + std::to_string(i + 1) + ")";
    }
    if (is_control(d.code_point)) {
      return control(d.code_point) + " at byte " + std::to_string(i + 1) +
             "); names, paths and other text must be printable";
    }
    i += d.length;
  }
  return std::nullopt;
}

std::optional<TextFlaw> find_text_flaw(std::string_view text) {
  TextFlaw at;
  for (std::size_t i = 0; i < text.size();) {
    const Decoded d = decode(text, i);
    if (d.length == 0) {
      at.problem = "the text " + not_utf8(static_cast<unsigned char>(text[i])) + ")";
      return at;
    }
    if (is_control(d.code_point) && d.code_point != '\t' && d.code_point != '\n' &&
        d.code_point != '\r') {
      at.problem = "the text " + control(d.code_point) + "); YAML text must be printable";
      return at;
    }
    if (d.code_point == '\n') {
      ++at.line;
      at.column = 1;
    } else {
      ++at.column;
    }
    i += d.length;
  }
  return std::nullopt;
}

std::string printable(std::string_view s, std::size_t max_bytes) {
  std::string out;
  for (std::size_t i = 0; i < s.size();) {
    if (out.size() >= max_bytes) {
      out += "...";
      break;
    }
    const Decoded d = decode(s, i);
    if (d.length == 0) {
      out += hex_byte(static_cast<unsigned char>(s[i]));
      ++i;
      continue;
    }
    if (d.code_point == '\n') {
      out += "\\n";
    } else if (d.code_point == '\t') {
      out += "\\t";
    } else if (d.code_point == '\r') {
      out += "\\r";
    } else if (d.code_point < 0x20 || d.code_point == 0x7F) {
      out += hex_byte(static_cast<unsigned char>(d.code_point));
    } else if (is_control(d.code_point)) {
      char buf[16];
      std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(d.code_point));
      out += buf;
    } else {
      out.append(s.substr(i, d.length));
    }
    i += d.length;
  }
  return out;
}

}  // namespace fulcrum::sim
