// spawn_process: starts a program (the tests pass FULCRUM_BINARY) without waiting for it, with
// stdout and stderr in files, default signal dispositions and no blocked signals whatever the
// test was started with (a background job ignores SIGINT, nohup SIGHUP), so that the SIGINT,
// SIGTERM or SIGHUP a test sends reaches the child's own handlers.
//
//   const pid_t pid = fulcrum::testing::spawn_process({FULCRUM_BINARY, "sweep", f}, err, out);
#pragma once

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <unistd.h>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

extern char** environ;

namespace fulcrum::testing {

// argv[0] is the program's path. `out` empty: stdout to /dev/null. `env` absent: this process's
// environment. `cwd` empty: this process's folder. Returns the child's pid, or -1 when it could
// not be started.
inline pid_t spawn_process(const std::vector<std::string>& args, const std::filesystem::path& err,
                           const std::filesystem::path& out = {},
                           const std::optional<std::vector<std::string>>& env = std::nullopt,
                           const std::filesystem::path& cwd = {}) {
  std::vector<std::string> argv_s = args;
  std::vector<char*> argv;
  for (auto& a : argv_s) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::vector<std::string> env_s;
  std::vector<char*> envp;
  if (env) {
    env_s = *env;
    for (auto& e : env_s) envp.push_back(e.data());
    envp.push_back(nullptr);
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  if (out.empty()) {
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  } else {
    posix_spawn_file_actions_addopen(&actions, 1, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  }
  posix_spawn_file_actions_addopen(&actions, 2, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (!cwd.empty()) posix_spawn_file_actions_addchdir_np(&actions, cwd.c_str());
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  sigset_t signals;
  sigemptyset(&signals);
  posix_spawnattr_setsigmask(&attributes, &signals);
  for (int s : {SIGINT, SIGTERM, SIGHUP}) sigaddset(&signals, s);
  posix_spawnattr_setsigdefault(&attributes, &signals);
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  pid_t pid = -1;
  const int rc =
      posix_spawn(&pid, argv[0], &actions, &attributes, argv.data(), env ? envp.data() : environ);
  posix_spawnattr_destroy(&attributes);
  posix_spawn_file_actions_destroy(&actions);
  return rc == 0 ? pid : -1;
}

}  // namespace fulcrum::testing
