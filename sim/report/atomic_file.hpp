// AtomicFile: an output file written under a temporary name beside its final one and renamed into
// place only when the whole run succeeded, so a failed run never leaves a half-written file that
// looks like a result. Output is buffered in large chunks (rows stream to disk; memory stays flat).
//
//   AtomicFile f(out_dir / "requests.csv");   // writes out_dir/requests.csv.partial
//   f.buffer() += "a,b\n"; f.maybe_flush();
//   f.close(); f.publish();                    // now out_dir/requests.csv exists
#pragma once

#include <cstdio>
#include <filesystem>
#include <string>
#include <string_view>

namespace fulcrum::sim {

class AtomicFile {
 public:
  // Opens `final_path` + ".partial" for writing (truncating). Throws fulcrum::InputError when the
  // file cannot be created (the output directory is the user's choice).
  explicit AtomicFile(std::filesystem::path final_path);
  ~AtomicFile();  // discards the temporary unless published
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  // Append here, then call maybe_flush(); the buffer goes to disk once it holds ~1 MiB.
  std::string& buffer() { return buffer_; }
  void maybe_flush() {
    if (buffer_.size() >= kFlushBytes) flush();
  }
  void write(std::string_view s) {
    buffer_.append(s);
    maybe_flush();
  }
  void flush();       // throws fulcrum::Error on a write failure (disk full, ...)

  void close();       // flushes and closes the temporary; throws fulcrum::Error on failure
  void publish();     // renames the closed temporary to its final name; throws fulcrum::Error
  void discard() noexcept;  // closes and removes the temporary (no-op once published)

  const std::filesystem::path& final_path() const { return final_path_; }
  const std::filesystem::path& temp_path() const { return temp_path_; }
  bool is_published() const { return published_; }

  static constexpr std::size_t kFlushBytes = std::size_t{1} << 20;

 private:
  std::filesystem::path final_path_;
  std::filesystem::path temp_path_;
  std::FILE* file_ = nullptr;
  std::string buffer_;
  bool published_ = false;
};

}  // namespace fulcrum::sim
