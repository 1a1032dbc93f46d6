// AtomicFile: an output file written under a temporary name beside its final one and renamed into
// place only when the whole run succeeded, so a failed run never leaves a half-written file that
// looks like a result. Output is buffered in large chunks (rows stream to disk; memory stays flat).
//
//   AtomicFile f(out_dir / "requests.csv");   // writes out_dir/requests.csv.partial
//   f.write("a,b\n");
//   char* p = f.reserve(64); p = put_integer(p, 42); *p++ = '\n'; f.commit(p);  // hot rows
//   f.close(); f.publish();                    // now out_dir/requests.csv exists
#pragma once

#include <cassert>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <memory>
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

  // Room for at most `max_bytes` (<= kMaxReserveBytes) at the end of the buffer; write there, then
  // commit() the end of what was written. Nothing else may touch the file in between.
  char* reserve(std::size_t max_bytes) {
    assert(max_bytes <= kMaxReserveBytes);
    if (size_ + max_bytes > kCapacityBytes) flush();
    return buffer_.get() + size_;
  }
  void commit(char* end) {
    size_ = static_cast<std::size_t>(end - buffer_.get());
    if (size_ >= kFlushBytes) flush();
    if (++rows_ > max_rows_) row_limit_exceeded();
  }

  // At most `rows` commit()s -- rows of a CSV, events of a trace -- after which the next one
  // throws InputError naming the file and the scenario key that sets the limit
  // (outputs.max_rows): no output grows past a stated size unless the user asked for it.
  void limit_rows(std::uint64_t rows) { max_rows_ = rows; }
  void write(std::string_view s);
  // Throws fulcrum::Error on a write failure (disk full, ...), Interrupted when a signal came
  // (sim/report/interrupt.hpp).
  void flush();

  void close();             // flushes and closes the temporary; throws fulcrum::Error on failure
  void publish();           // renames the closed temporary to its final name; throws fulcrum::Error
  void discard() noexcept;  // closes and removes the temporary (no-op once published)

  const std::filesystem::path& final_path() const { return final_path_; }
  const std::filesystem::path& temp_path() const { return temp_path_; }
  bool is_published() const { return published_; }

  static constexpr std::size_t kFlushBytes = std::size_t{1} << 20;  // ~1 MiB per write()
  static constexpr std::size_t kMaxReserveBytes = std::size_t{1} << 16;
  static constexpr std::size_t kCapacityBytes = kFlushBytes + kMaxReserveBytes;

 private:
  void write_raw(const char* data, std::size_t size);
  [[noreturn]] void row_limit_exceeded() const;

  std::filesystem::path final_path_;
  std::filesystem::path temp_path_;
  std::FILE* file_ = nullptr;
  std::unique_ptr<char[]> buffer_;
  std::size_t size_ = 0;
  bool published_ = false;
  std::uint64_t rows_ = 0;
  std::uint64_t max_rows_ = UINT64_MAX;
};

}  // namespace fulcrum::sim
