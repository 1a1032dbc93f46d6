// FolderLock: an exclusive flock(2) on a lock file, so that one process at a time writes a given
// output folder. The kernel releases the lock when the process dies, however it dies; the holder
// writes its pid into the file so that a second process can say who holds it. Releasing removes
// the file (while still holding the lock, and a taker checks that the file it locked is still
// the one at the path, so removal never lets two processes hold it). For local filesystems.
//
//   std::optional<FolderLock> lock = FolderLock::try_lock("out/.quickstart.lock");
//   if (!lock) std::cerr << "held by pid " <<
//   FolderLock::holder_pid("out/.quickstart.lock").value_or(0);
#pragma once

#include <filesystem>
#include <optional>

namespace fulcrum::sim {

class FolderLock {
 public:
  // Takes the lock without blocking: absent when another process holds it. Throws
  // fulcrum::InputError when the lock file cannot be created (the folder is the user's choice).
  static std::optional<FolderLock> try_lock(const std::filesystem::path& path);

  // The pid the current holder wrote; absent when none can be read (no holder, or it has not
  // written it yet).
  static std::optional<long> holder_pid(const std::filesystem::path& path);

  FolderLock(FolderLock&& other) noexcept;
  FolderLock& operator=(FolderLock&& other) noexcept;  // releases the lock it held
  FolderLock(const FolderLock&) = delete;
  FolderLock& operator=(const FolderLock&) = delete;
  ~FolderLock();  // removes the lock file and releases the lock

  const std::filesystem::path& path() const { return path_; }

 private:
  FolderLock(std::filesystem::path path, int fd) : path_(std::move(path)), fd_(fd) {}
  void release() noexcept;

  std::filesystem::path path_;
  int fd_ = -1;  // -1: moved from
};

}  // namespace fulcrum::sim
