// Checks and escapes for text that comes from the user (YAML scalars, file names, --set strings):
// what the outputs and the one-line error messages may contain.
//
//   if (auto why = text_problem(value)) node.fail(*why);   // invalid UTF-8 or a control character
//   "unknown option '" + printable(arg) + "'"               // safe to echo on one line
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace fulcrum::sim {

// Why `s` cannot be a value (names and paths end up in JSON, CSV and on the terminal): the first
// byte that is not part of valid UTF-8, or the first control character (U+0000..U+001F, U+007F,
// U+0080..U+009F; tabs and line breaks included). nullopt when `s` is clean.
std::optional<std::string> text_problem(std::string_view s);

// The first place where a whole text (a file, a --set value) breaks the rule of text_problem,
// tabs and line breaks (\n, \r) allowed: its 1-based line and column (in characters) and the
// problem.
struct TextFlaw {
  int line = 1;
  int column = 1;
  std::string problem;
};
std::optional<TextFlaw> find_text_flaw(std::string_view text);

// `s` as it can be echoed inside a one-line message: control characters and bytes that are not
// UTF-8 are written as \n, \t, \r or \xNN (C1 controls as \u0085); longer than `max_bytes`, it is
// cut at a character boundary and ends with "...".
std::string printable(std::string_view s, std::size_t max_bytes = 120);

}  // namespace fulcrum::sim
