#include "models/onnx/onnx_import.hpp"

#include <dlfcn.h>

#include <charconv>
#include <cstdlib>
#include <fstream>
#include <mutex>
#include <sstream>
#include <system_error>

#include "models/error.hpp"
#include "models/io/plugin_file.hpp"
#include "models/onnx/plugin_api.hpp"

namespace fulcrum::models {

namespace fs = std::filesystem;

InputShape parse_input_shape(std::string_view text) {
  const auto bad = [&](const std::string& why) {
    return InputError(
        std::nullopt, "--input-shape",
        "'" + std::string(text) + "': " + why + " (expected NAME=1x3x224x224 or 3x224x224)");
  };
  InputShape shape;
  std::string_view dims = text;
  if (const auto eq = text.find('='); eq != std::string_view::npos) {
    if (eq == 0) throw bad("empty input name");
    shape.name = std::string(text.substr(0, eq));
    dims = text.substr(eq + 1);
  }
  if (dims.empty()) throw bad("no dimensions");
  std::size_t begin = 0;
  while (true) {
    const auto end = std::min(dims.find('x', begin), dims.size());
    const std::string_view part = dims.substr(begin, end - begin);
    std::int64_t value = 0;
    const auto [ptr, ec] = std::from_chars(part.data(), part.data() + part.size(), value);
    if (part.empty() || ec != std::errc{} || ptr != part.data() + part.size() || value <= 0)
      throw bad("'" + std::string(part) + "' is not a positive integer dimension");
    shape.dims.push_back(value);
    if (end == dims.size()) break;
    begin = end + 1;
  }
  return shape;
}

OnnxImport import_onnx(const fs::path& file, const std::vector<InputShape>& shapes) {
  const std::string source = file.string();
  std::error_code ec;
  const auto status = fs::status(file, ec);
  if (ec || !fs::exists(status)) throw InputError(SourceLocation{source}, "", "no such file");
  if (!fs::is_regular_file(status))
    throw InputError(SourceLocation{source}, "", "not a regular file");
  // Protocol buffers stop at 2 GiB; a weightless graph is a few hundred kB.
  constexpr std::uintmax_t kMaxBytes = std::uintmax_t{2} << 30;
  const auto size = fs::file_size(file, ec);
  if (ec) throw InputError(SourceLocation{source}, "", "cannot read: " + ec.message());
  if (size >= kMaxBytes)
    throw InputError(SourceLocation{source}, "", "larger than 2 GiB, the limit of an ONNX file");
  std::ifstream in(file, std::ios::binary);
  std::ostringstream bytes;
  bytes << in.rdbuf();
  if (!in && !in.eof()) throw InputError(SourceLocation{source}, "", "cannot read the file");
  return import_onnx_bytes(bytes.view(), source, shapes);
}

#ifndef FULCRUM_ONNX_PLUGIN_FILE

bool onnx_import_available() { return false; }

OnnxImport import_onnx_bytes(std::string_view /*bytes*/, const std::string& /*source*/,
                             const std::vector<InputShape>& /*shapes*/) {
  throw InputError(std::nullopt, "--import",
                   "this build has no ONNX import (install libonnx-dev and libprotobuf-dev, then "
                   "configure and build again)");
}

#else

bool onnx_import_available() { return true; }

namespace {

// The plugin's file name (CMake: the MODULE library fulcrum_onnx).
constexpr const char* kPluginFile = FULCRUM_ONNX_PLUGIN_FILE;

[[noreturn]] void plugin_failure(const std::string& path, const std::string& why) {
  throw InputError(std::nullopt, "--import",
                   "cannot load the ONNX importer " + path + ": " + why +
                       " (FULCRUM_ONNX_PLUGIN may name the plugin file)");
}

// Loaded once per process, on the first import, and never unloaded; a failure is thrown again by
// every later call.
const OnnxPluginApi& plugin() {
  static std::mutex mutex;
  static const OnnxPluginApi* api = nullptr;
  const std::lock_guard lock(mutex);
  if (api != nullptr) return *api;
  const std::string path = plugin_path("FULCRUM_ONNX_PLUGIN", kPluginFile);
  const OpenedPlugin opened = open_plugin(path, kOnnxPluginEntry, "not a fulcrum ONNX plugin");
  if (!opened.error.empty()) plugin_failure(path, opened.error);
  using Entry = const OnnxPluginApi* (*)();
  const OnnxPluginApi* table = reinterpret_cast<Entry>(opened.entry)();
  if (table == nullptr || table->abi != kOnnxPluginAbi || table->layout != onnx_plugin_layout() ||
      table->import == nullptr) {
    dlclose(opened.handle);
    plugin_failure(path, "built by another build of fulcrum (its interface differs); rebuild it");
  }
  api = table;
  return *api;
}

}  // namespace

OnnxImport import_onnx_bytes(std::string_view bytes, const std::string& source,
                             const std::vector<InputShape>& shapes) {
  OnnxImportOutcome outcome = plugin().import(bytes, source, shapes);
  if (outcome.model) return std::move(*outcome.model);
  if (outcome.input_error) throw InputError(outcome.where, outcome.key_path, outcome.problem);
  throw Error(outcome.problem);
}

#endif

}  // namespace fulcrum::models
