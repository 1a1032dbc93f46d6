#include "backends/hardware/sysfs_file.hpp"

#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <sstream>

#include "models/error.hpp"

namespace fulcrum::backends {

std::optional<std::string> read_sysfs(const std::filesystem::path& file) {
  std::ifstream in(file);
  if (!in) return std::nullopt;
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) return std::nullopt;
  std::string s = text.str();
  const auto first = s.find_first_not_of(" \t\r\n");
  if (first == std::string::npos) return std::string();
  const auto last = s.find_last_not_of(" \t\r\n");
  return s.substr(first, last - first + 1);
}

std::optional<double> read_sysfs_number(const std::filesystem::path& file) {
  const std::optional<std::string> text = read_sysfs(file);
  if (!text || text->empty()) return std::nullopt;
  char* end = nullptr;
  const double v = std::strtod(text->c_str(), &end);
  if (end == text->c_str() || *end != '\0' || !std::isfinite(v)) return std::nullopt;
  return v;
}

double require_sysfs_number(const std::filesystem::path& file) {
  const std::optional<double> v = read_sysfs_number(file);
  if (!v) throw Error(file.string() + ": cannot read a number");
  return *v;
}

void write_sysfs(const std::filesystem::path& file, const std::string& value) {
  errno = 0;
  std::ofstream out(file, std::ios::out | std::ios::trunc);
  if (out) out << value << '\n';
  if (out) out.flush();
  if (!out) {
    const int e = errno;
    throw Error(file.string() + ": cannot write \"" + value + "\"" +
                (e != 0 ? std::string(": ") + std::strerror(e) : std::string()));
  }
}

}  // namespace fulcrum::backends
