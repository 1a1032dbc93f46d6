#include "sim/config/yaml_support.hpp"

#include <charconv>
#include <cmath>
#include <fstream>
#include <limits>
#include <sstream>

namespace fulcrum::sim {

namespace {

std::string child_path(const std::string& parent, std::string_view key) {
  if (parent.empty()) return std::string(key);
  return parent + "." + std::string(key);
}

std::string kind_name(const YAML::Node& n) {
  if (!n || n.IsNull()) return "nothing";
  if (n.IsMap()) return "a map";
  if (n.IsSequence()) return "a list";
  return "'" + n.Scalar() + "'";
}

}  // namespace

YamlNode::YamlNode(const YAML::Node& node, std::shared_ptr<const std::string> file,
                   std::string path)
    : node_(node), file_(std::move(file)), path_(std::move(path)) {}

SourceLocation YamlNode::location() const {
  SourceLocation loc{*file_, 0, 0};
  if (node_) {
    const YAML::Mark m = node_.Mark();
    if (m.line >= 0) {
      loc.line = m.line + 1;
      loc.column = m.column + 1;
    }
  }
  return loc;
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
          .fail(std::string("unknown key '")
                    .append(key)
                    .append("' (allowed: ")
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

double YamlNode::as_double() const {
  if (!node_.IsScalar()) fail("expected a number, got " + kind_name(node_));
  const std::string& s = node_.Scalar();
  double v = 0;
  const char* first = s.data();
  const char* last = s.data() + s.size();
  if (first != last && *first == '+') ++first;
  auto [ptr, ec] = std::from_chars(first, last, v);
  if (ec != std::errc() || ptr != last || s.empty()) fail("expected a number, got '" + s + "'");
  if (!std::isfinite(v)) fail("expected a finite number, got '" + s + "'");
  return v;
}

long long YamlNode::as_int() const {
  if (!node_.IsScalar()) fail("expected an integer, got " + kind_name(node_));
  const std::string& s = node_.Scalar();
  long long v = 0;
  const char* first = s.data();
  const char* last = s.data() + s.size();
  if (first != last && *first == '+') ++first;
  auto [ptr, ec] = std::from_chars(first, last, v);
  if (ec != std::errc() || ptr != last || s.empty()) fail("expected an integer, got '" + s + "'");
  return v;
}

bool YamlNode::as_bool() const {
  if (!node_.IsScalar()) fail("expected true or false, got " + kind_name(node_));
  const std::string& s = node_.Scalar();
  if (s == "true" || s == "True" || s == "yes") return true;
  if (s == "false" || s == "False" || s == "no") return false;
  fail("expected true or false, got '" + s + "'");
}

double YamlNode::as_positive_double() const {
  const double v = as_double();
  if (!(v > 0)) fail("must be > 0, got " + node_.Scalar());
  return v;
}

double YamlNode::as_nonnegative_double() const {
  const double v = as_double();
  if (!(v >= 0)) fail("must be >= 0, got " + node_.Scalar());
  return v;
}

int YamlNode::as_positive_int() const {
  const long long v = as_int();
  if (v < 1 || v > std::numeric_limits<int>::max())
    fail("must be an integer >= 1, got " + node_.Scalar());
  return static_cast<int>(v);
}

YamlDoc::YamlDoc(const YAML::Node& root, std::string file)
    : root_(root), file_(std::make_shared<const std::string>(std::move(file))) {}

YamlDoc YamlDoc::load(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(SourceLocation{path, 0, 0}, "", "cannot open file");
  std::ostringstream text;
  text << in.rdbuf();
  return parse(text.str(), path);
}

YamlDoc YamlDoc::parse(const std::string& text, const std::string& display_name) {
  try {
    return YamlDoc(YAML::Load(text), display_name);
  } catch (const YAML::Exception& e) {
    throw InputError(SourceLocation{display_name, e.mark.line + 1, e.mark.column + 1}, "",
                     "malformed YAML: " + e.msg);
  }
}

YamlNode YamlDoc::root() const { return YamlNode(root_, file_, ""); }

}  // namespace fulcrum::sim
