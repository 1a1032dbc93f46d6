#include "models/io/plugin_file.hpp"

#include <cstdlib>
#include <filesystem>
#include <system_error>

namespace fulcrum::models {

namespace fs = std::filesystem;

std::string plugin_path(const char* env_var, const char* file_name) {
  if (const char* p = std::getenv(env_var); p != nullptr && *p != '\0') return p;
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (ec) return file_name;
  const fs::path beside = exe.parent_path() / file_name;
  const fs::path installed = exe.parent_path().parent_path() / "lib" / "fulcrum" / file_name;
  if (!fs::exists(beside, ec) && fs::exists(installed, ec)) return installed.string();
  return beside.string();
}

OpenedPlugin open_plugin(const std::string& path, const char* entry_symbol,
                         const std::string& not_ours, int flags, bool must_exist) {
  OpenedPlugin p;
  std::error_code ec;
  const fs::file_status status = fs::status(path, ec);
  if (!fs::exists(status)) {
    if (must_exist) {
      p.error = "no such file";
      return p;
    }
  } else if (!fs::is_regular_file(status)) {
    p.error = "not a regular file";
    return p;
  }
  void* handle = dlopen(path.c_str(), flags);
  if (handle == nullptr) {
    const char* e = dlerror();
    p.error = e != nullptr ? e : "dlopen failed";
    // dlerror() often starts with the path itself; the caller names it once.
    if (p.error.rfind(path + ": ", 0) == 0) p.error.erase(0, path.size() + 2);
    return p;
  }
  dlerror();
  void* entry = dlsym(handle, entry_symbol);
  if (entry == nullptr) {
    dlclose(handle);
    p.error = not_ours + " (no " + entry_symbol + ")";
    return p;
  }
  p.handle = handle;
  p.entry = entry;
  return p;
}

}  // namespace fulcrum::models
