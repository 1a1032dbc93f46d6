// The one loader of Fulcrum's dlopen() plugins (the cuda backend, the ONNX importer, the MPI
// runner): where a plugin's file is, and opening it up to its entry point. Each caller checks the
// table the entry point returns and words its own one-line error around `error`.
//
//   const std::string path = plugin_path("FULCRUM_ONNX_PLUGIN", "libfulcrum_onnx.so");
//   OpenedPlugin p = open_plugin(path, "fulcrum_onnx_plugin", "not a fulcrum ONNX plugin");
//   if (!p.error.empty()) throw InputError(..., "cannot load " + path + ": " + p.error);
#pragma once

#include <dlfcn.h>

#include <string>

namespace fulcrum::models {

// Where a plugin is: $`env_var` when set and not empty; else beside the executable (a build
// tree); else ../lib/fulcrum/ from the executable's folder (an install); else beside the
// executable, where the error will then name it (`file_name` alone when the executable's path
// cannot be read).
std::string plugin_path(const char* env_var, const char* file_name);

// A plugin opened up to its entry point, or why not. Never unloaded once opened: what it made
// may live until exit.
struct OpenedPlugin {
  void* handle = nullptr;  // null on failure
  void* entry = nullptr;   // the entry point's address; null on failure
  std::string error;       // empty on success; else what went wrong, without the path
};

// Opens `path` with dlopen(`flags`) and looks up `entry_symbol`. Refused before dlopen(): a path
// that exists but is no regular file (a FIFO would block dlopen() forever), and, with
// `must_exist`, a path that does not exist. A library without the entry point is closed again and
// reported as "`not_ours` (no ENTRY)".
OpenedPlugin open_plugin(const std::string& path, const char* entry_symbol,
                         const std::string& not_ours, int flags = RTLD_NOW | RTLD_LOCAL,
                         bool must_exist = false);

}  // namespace fulcrum::models
