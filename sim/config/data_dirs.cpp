#include "sim/config/data_dirs.hpp"

#include <cstdlib>
#include <filesystem>
#include <string_view>

namespace fulcrum::sim {

namespace {

const char* env(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr && *value != '\0' ? value : nullptr;
}

}  // namespace

std::string default_data_dir() {
  if (const char* dir = env("FULCRUM_DATA_DIR")) return dir;
  return FULCRUM_DATA_DIR;
}

DataDir default_reference_dir() {
  if (const char* dir = env("FULCRUM_REFERENCE_DIR")) {
    return {dir, "from $FULCRUM_REFERENCE_DIR"};
  }
  return {build_reference_dir(), "the build's default, -DFULCRUM_REFERENCE_DIR"};
}

std::string build_reference_dir() { return FULCRUM_REFERENCE_DIR; }

std::string expand_reference_dir(const std::string& path) {
  const std::string_view variable = kReferenceDirVariable;
  if (path.compare(0, variable.size(), variable) != 0) return path;
  return default_reference_dir().path + path.substr(variable.size());
}

std::string reference_dir_for(const std::string& input_file) {
  const std::filesystem::path dir = default_reference_dir().path;
  if (dir.is_absolute()) return dir.string();
  return (std::filesystem::path(input_file).parent_path() / dir).lexically_normal().string();
}

}  // namespace fulcrum::sim
