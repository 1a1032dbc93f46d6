#include "sim/config/yaml_support.hpp"

#include <yaml-cpp/eventhandler.h>

#include <charconv>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <sstream>

#include "sim/config/input_text.hpp"

namespace fulcrum::sim {

namespace {

std::string child_path(const std::string& parent, std::string_view key) {
  if (parent.empty()) return std::string(key);
  return parent + "." + std::string(key);
}

// A scalar's text as it is echoed in an error: quoted, and printable on one line.
std::string quoted(const std::string& text) {
  std::string out(1, '\'');
  out += printable(text);
  out += '\'';
  return out;
}

// yaml-cpp's plain scalars carry the non-specific tag "?", quoted ones "!".
bool is_plain(const YAML::Node& n) { return n.Tag() == "?"; }

std::string kind_name(const YAML::Node& n) {
  if (!n || n.IsNull()) return "nothing";
  if (n.IsMap()) return "a map";
  if (n.IsSequence()) return "a list";
  if (!is_plain(n)) return "the string " + quoted(n.Scalar());
  return quoted(n.Scalar());
}

// Error locations echo the file name too: a name with a line break must not break the line.
SourceLocation location_of(const std::string& file, const YAML::Mark& m) {
  if (m.line < 0) return SourceLocation{printable(file, 4096), 1, 1};
  return SourceLocation{printable(file, 4096), m.line + 1, m.column + 1};
}

// "tag:yaml.org,2002:str" as written in YAML, "!!str".
std::string tag_as_written(const std::string& tag) {
  const std::string core = "tag:yaml.org,2002:";
  if (tag.rfind(core, 0) == 0) return "!!" + tag.substr(core.size());
  return tag;
}

// Walks the parser's events (no nodes are built, aliases are not expanded, so the cost is linear
// in the text) and throws at the first thing the strict reading refuses.
class StrictnessCheck : public YAML::EventHandler {
 public:
  StrictnessCheck(std::string file, std::string base_path)
      : file_(std::move(file)), base_path_(std::move(base_path)) {}

  void OnDocumentStart(const YAML::Mark& mark) override {
    if (++documents_ > 1) {
      fail(mark, base_path_,
           "a second YAML document starts here (after '---'); a file holds exactly one "
           "document");
    }
  }
  void OnDocumentEnd() override {}

  void OnNull(const YAML::Mark& mark, YAML::anchor_t) override {
    if (in_key_position()) fail(mark, frames_.back().path, "a key must be a name, got nothing");
    next_path();
  }

  void OnAlias(const YAML::Mark& mark, YAML::anchor_t anchor) override {
    if (in_key_position()) fail(mark, frames_.back().path, "a key must be a name, got an alias");
    const std::string path = next_path();
    for (const Frame& f : frames_) {
      if (f.anchor != YAML::NullAnchor && f.anchor == anchor) {
        fail(mark, path, "an alias to a node that contains it (a cycle)");
      }
    }
  }

  void OnScalar(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t,
                const std::string& value) override {
    if (in_key_position()) {
      Frame& map = frames_.back();
      // The key goes into key paths: check its text before anything names it.
      if (auto why = text_problem(value)) fail(mark, map.path, "key " + quoted(value) + " " + *why);
      const std::string path = child_path(map.path, value);
      check_tag(mark, path, tag);
      const auto [it, inserted] = map.keys.emplace(value, mark);
      if (!inserted) {
        fail(mark, path,
             "duplicate key " + quoted(value) + " (first at line " +
                 std::to_string(it->second.line + 1) + ", column " +
                 std::to_string(it->second.column + 1) + "); give each key once");
      }
      map.key = value;
      map.want_key = false;
      return;
    }
    const std::string path = next_path();
    check_tag(mark, path, tag);
    if (auto why = text_problem(value)) fail(mark, path, *why);
  }

  void OnSequenceStart(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t anchor,
                       YAML::EmitterStyle::value) override {
    open(mark, tag, anchor, false, "a list");
  }
  void OnSequenceEnd() override { frames_.pop_back(); }
  void OnMapStart(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t anchor,
                  YAML::EmitterStyle::value) override {
    open(mark, tag, anchor, true, "a map");
  }
  void OnMapEnd() override { frames_.pop_back(); }

 private:
  struct Frame {
    bool is_map = false;
    std::string path;
    YAML::anchor_t anchor = YAML::NullAnchor;
    std::size_t index = 0;  // lists: the next element's index
    bool want_key = true;   // maps: the next node is a key
    std::string key;        // maps: the key of the value that comes next
    std::map<std::string, YAML::Mark> keys;
  };

  [[noreturn]] void fail(const YAML::Mark& mark, const std::string& path,
                         const std::string& problem) const {
    throw InputError(location_of(file_, mark), path, problem);
  }

  bool in_key_position() const {
    return !frames_.empty() && frames_.back().is_map && frames_.back().want_key;
  }

  // The key path of the value node that starts now, advancing its parent.
  std::string next_path() {
    if (frames_.empty()) return base_path_;
    Frame& parent = frames_.back();
    if (parent.is_map) {
      parent.want_key = true;
      return child_path(parent.path, parent.key);
    }
    return parent.path + "[" + std::to_string(parent.index++) + "]";
  }

  void check_tag(const YAML::Mark& mark, const std::string& path, const std::string& tag) const {
    if (tag != "?" && tag != "!") {
      fail(mark, path, "YAML tags are not supported, got " + quoted(tag_as_written(tag)));
    }
  }

  void open(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t anchor, bool is_map,
            const char* kind) {
    if (in_key_position()) {
      fail(mark, frames_.back().path, std::string("a key must be a name, got ") + kind);
    }
    Frame f;
    f.is_map = is_map;
    f.path = next_path();
    f.anchor = anchor;
    check_tag(mark, f.path, tag);
    frames_.push_back(std::move(f));
  }

  std::string file_;
  std::string base_path_;
  int documents_ = 0;
  std::vector<Frame> frames_;
};

// A byte-order mark of UTF-16 or UTF-32: yaml-cpp decodes those, and their scalars are still
// checked one by one.
bool has_wide_bom(std::string_view t) {
  return t.starts_with("\xFE\xFF") || t.starts_with("\xFF\xFE") ||
         t.starts_with(std::string_view("\0\0\xFE\xFF", 4));
}

}  // namespace

YAML::Node load_strict_yaml(const std::string& text, const std::string& display_name,
                            const std::string& base_path) {
  // YAML text is printable Unicode: a NUL or another control character anywhere (comments
  // included) is refused where it is, before yaml-cpp reads it in ways of its own.
  if (!has_wide_bom(text)) {
    if (const std::optional<TextFlaw> flaw = find_text_flaw(text)) {
      throw InputError(SourceLocation{printable(display_name, 4096), flaw->line, flaw->column},
                       base_path, flaw->problem);
    }
  }
  try {
    {
      std::istringstream in(text);
      YAML::Parser parser(in);
      StrictnessCheck check(display_name, base_path);
      while (parser.HandleNextDocument(check)) {
      }
    }
    return YAML::Load(text);
  } catch (const YAML::Exception& e) {
    throw InputError(location_of(display_name, e.mark), base_path,
                     "malformed YAML: " + printable(e.msg));
  }
}

YamlNode::YamlNode(const YAML::Node& node, std::shared_ptr<const std::string> file,
                   std::string path)
    : node_(node), file_(std::move(file)), path_(std::move(path)) {}

// A node without a place in the text (the null root of an empty file) is placed at its start.
SourceLocation YamlNode::location() const {
  return location_of(*file_, node_ ? node_.Mark() : YAML::Mark::null_mark());
}

void YamlNode::fail(const std::string& problem) const {
  throw InputError(location(), path_, problem);
}

void YamlNode::expect_map() const {
  if (!node_.IsMap()) fail("expected a map, got " + kind_name(node_));
}

bool YamlNode::has(std::string_view key) const {
  return node_.IsMap() && node_[std::string(key)].IsDefined();
}

YamlNode YamlNode::required(std::string_view key) const {
  expect_map();
  YAML::Node child = node_[std::string(key)];
  if (!child.IsDefined()) fail("missing required key '" + std::string(key) + "'");
  return YamlNode(child, file_, child_path(path_, key));
}

std::optional<YamlNode> YamlNode::optional(std::string_view key) const {
  expect_map();
  YAML::Node child = node_[std::string(key)];
  if (!child.IsDefined()) return std::nullopt;
  return YamlNode(child, file_, child_path(path_, key));
}

void YamlNode::allow_keys(std::initializer_list<std::string_view> allowed) const {
  expect_map();
  for (const auto& kv : node_) {
    const std::string key = kv.first.Scalar();
    bool ok = false;
    for (auto a : allowed) ok = ok || a == key;
    if (!ok) {
      std::string list;
      for (auto a : allowed) list.append(list.empty() ? "" : ", ").append(a);
      YamlNode(kv.first, file_, child_path(path_, key))
          .fail(std::string("unknown key ")
                    .append(quoted(key))
                    .append(" (allowed: ")
                    .append(list)
                    .append(")"));
    }
  }
}

std::vector<std::string> YamlNode::keys() const {
  expect_map();
  std::vector<std::string> out;
  for (const auto& kv : node_) out.push_back(kv.first.Scalar());
  return out;
}

void YamlNode::expect_sequence() const {
  if (!node_.IsSequence()) fail("expected a list, got " + kind_name(node_));
}

std::size_t YamlNode::size() const {
  expect_sequence();
  return node_.size();
}

YamlNode YamlNode::at(std::size_t index) const {
  expect_sequence();
  return YamlNode(node_[index], file_, path_ + "[" + std::to_string(index) + "]");
}

std::string YamlNode::as_string() const {
  if (!node_.IsScalar()) fail("expected a string, got " + kind_name(node_));
  return node_.Scalar();
}

const std::string& YamlNode::plain_scalar(const char* what) const {
  if (!node_.IsScalar() || !is_plain(node_)) {
    fail(std::string("expected ") + what + ", got " + kind_name(node_) +
         (node_.IsScalar() ? " (write it without quotes)" : ""));
  }
  return node_.Scalar();
}

double YamlNode::as_double() const {
  const std::string& s = plain_scalar("a number");
  double v = 0;
  const char* first = s.data();
  const char* last = s.data() + s.size();
  if (first != last && *first == '+') ++first;
  auto [ptr, ec] = std::from_chars(first, last, v);
  if (ec != std::errc() || ptr != last || s.empty()) fail("expected a number, got " + quoted(s));
  if (!std::isfinite(v)) fail("expected a finite number, got " + quoted(s));
  return v;
}

long long YamlNode::as_int() const {
  const std::string& s = plain_scalar("an integer");
  long long v = 0;
  const char* first = s.data();
  const char* last = s.data() + s.size();
  if (first != last && *first == '+') ++first;
  auto [ptr, ec] = std::from_chars(first, last, v);
  if (ec != std::errc() || ptr != last || s.empty()) fail("expected an integer, got " + quoted(s));
  return v;
}

bool YamlNode::as_bool() const {
  const std::string& s = plain_scalar("true or false");
  if (s == "true" || s == "True" || s == "yes") return true;
  if (s == "false" || s == "False" || s == "no") return false;
  fail("expected true or false, got " + quoted(s));
}

double YamlNode::as_positive_double() const {
  const double v = as_double();
  if (!(v > 0)) fail("must be > 0, got " + printable(node_.Scalar()));
  return v;
}

double YamlNode::as_nonnegative_double() const {
  const double v = as_double();
  if (!(v >= 0)) fail("must be >= 0, got " + printable(node_.Scalar()));
  return v;
}

int YamlNode::as_positive_int() const {
  const long long v = as_int();
  if (v < 1 || v > std::numeric_limits<int>::max())
    fail("must be an integer >= 1, got " + printable(node_.Scalar()));
  return static_cast<int>(v);
}

YamlDoc::YamlDoc(const YAML::Node& root, std::string file)
    : root_(root), file_(std::make_shared<const std::string>(std::move(file))) {}

YamlDoc YamlDoc::load(const std::string& path, std::uintmax_t max_bytes) {
  namespace fs = std::filesystem;
  const std::string shown = printable(path, 4096);
  const auto refuse = [&](const std::string& problem) {
    throw InputError(SourceLocation{shown, 0, 0}, "", problem);
  };
  std::error_code ec;
  const fs::file_status status = fs::status(path, ec);
  if (!fs::exists(status)) refuse("cannot open file: no such file");
  if (fs::is_directory(status)) refuse("is a directory, expected a YAML file");
  if (!fs::is_regular_file(status)) {
    refuse("is not a regular file (a device, FIFO or socket is not read as YAML)");
  }
  const auto too_big = [&](const std::string& size) {
    refuse("is " + size + ", larger than the " + std::to_string(max_bytes) +
           " bytes a YAML file may have");
  };
  const std::uintmax_t size = fs::file_size(path, ec);
  if (!ec && size > max_bytes) too_big(std::to_string(size) + " bytes");
  std::ifstream in(path, std::ios::binary);
  if (!in) refuse("cannot open file");
  // At most one byte past the limit, should the file have grown since it was measured.
  std::string text(static_cast<std::size_t>(max_bytes) + 1, '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<std::size_t>(in.gcount()));
  if (text.size() > max_bytes) too_big("more than that");
  return YamlDoc(load_strict_yaml(text, path), path);
}

YamlDoc YamlDoc::parse(const std::string& text, const std::string& display_name) {
  return YamlDoc(load_strict_yaml(text, display_name), display_name);
}

YamlNode YamlDoc::root() const { return YamlNode(root_, file_, ""); }

}  // namespace fulcrum::sim
