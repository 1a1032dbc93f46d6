#include "sim/report/folder_lock.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <string>

#include "models/error.hpp"

namespace fulcrum::sim {

std::optional<FolderLock> FolderLock::try_lock(const std::filesystem::path& path) {
  for (;;) {
    const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) {
      throw InputError("cannot create lock file " + path.string() + ": " + std::strerror(errno));
    }
    if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
      const int error = errno;
      ::close(fd);
      if (error == EWOULDBLOCK) return std::nullopt;
      if (error == EINTR) continue;
      throw Error("cannot lock " + path.string() + ": " + std::strerror(error));
    }
    // The previous holder may have removed the file between our open() and our flock(): then we
    // hold a lock nobody else will look at, and must take the file now at the path instead.
    struct stat locked {};
    struct stat current {};
    if (::fstat(fd, &locked) == 0 && ::stat(path.c_str(), &current) == 0 &&
        locked.st_dev == current.st_dev && locked.st_ino == current.st_ino) {
      const std::string pid = std::to_string(::getpid()) + "\n";
      if (::ftruncate(fd, 0) == 0) {
        [[maybe_unused]] const ssize_t n = ::pwrite(fd, pid.data(), pid.size(), 0);
      }
      return FolderLock(path, fd);
    }
    ::close(fd);
  }
}

std::optional<long> FolderLock::holder_pid(const std::filesystem::path& path) {
  std::ifstream in(path);
  long pid = 0;
  if (in >> pid && pid > 0) return pid;
  return std::nullopt;
}

FolderLock::FolderLock(FolderLock&& other) noexcept
    : path_(std::move(other.path_)), fd_(other.fd_) {
  other.fd_ = -1;
}

FolderLock& FolderLock::operator=(FolderLock&& other) noexcept {
  if (this != &other) {
    release();
    path_ = std::move(other.path_);
    fd_ = other.fd_;
    other.fd_ = -1;
  }
  return *this;
}

FolderLock::~FolderLock() { release(); }

void FolderLock::release() noexcept {
  if (fd_ < 0) return;
  ::unlink(path_.c_str());  // still locked: whoever opened it finds it gone and tries again
  ::close(fd_);
  fd_ = -1;
}

}  // namespace fulcrum::sim
