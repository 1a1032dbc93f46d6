#include "sim/report/atomic_file.hpp"

#include <cerrno>
#include <cstring>
#include <system_error>

#include "models/error.hpp"
#include "sim/report/interrupt.hpp"

namespace fulcrum::sim {

AtomicFile::AtomicFile(std::filesystem::path final_path)
    : final_path_(std::move(final_path)), temp_path_(final_path_) {
  temp_path_ += ".partial";
  file_ = std::fopen(temp_path_.c_str(), "wb");
  if (file_ == nullptr) {
    throw InputError("cannot create output file " + temp_path_.string() + ": " +
                     std::strerror(errno));
  }
  std::setvbuf(file_, nullptr, _IONBF, 0);  // we buffer ourselves, in large chunks
  buffer_ = std::make_unique_for_overwrite<char[]>(kCapacityBytes);
}

AtomicFile::~AtomicFile() {
  if (!published_) discard();
}

void AtomicFile::row_limit_exceeded() const {
  throw InputError(std::nullopt, "outputs.max_rows",
                   final_path_.filename().string() + " reached " + std::to_string(max_rows_) +
                       " rows, the limit; raise outputs.max_rows (e.g. --set "
                       "outputs.max_rows=1e9) or turn the file off in outputs");
}

void AtomicFile::write(std::string_view s) {
  if (s.size() <= kMaxReserveBytes) {
    char* p = reserve(s.size());
    std::memcpy(p, s.data(), s.size());
    commit(p + s.size());
    return;
  }
  flush();
  write_raw(s.data(), s.size());
}

void AtomicFile::write_raw(const char* data, std::size_t size) {
  if (file_ == nullptr) throw Error("write to a closed output file " + temp_path_.string());
  if (std::fwrite(data, 1, size, file_) != size) {
    throw Error("cannot write output file " + temp_path_.string() + ": " + std::strerror(errno));
  }
}

void AtomicFile::flush() {
  if (size_ == 0) return;
  throw_if_interrupted();  // once a MiB: a run writing gigabytes still stops soon after a signal
  write_raw(buffer_.get(), size_);
  size_ = 0;
}

void AtomicFile::close() {
  if (file_ == nullptr) return;
  flush();
  std::FILE* f = file_;
  file_ = nullptr;
  if (std::fclose(f) != 0) {
    throw Error("cannot close output file " + temp_path_.string() + ": " + std::strerror(errno));
  }
}

void AtomicFile::publish() {
  close();
  std::error_code ec;
  std::filesystem::rename(temp_path_, final_path_, ec);
  if (ec) {
    throw Error("cannot move " + temp_path_.string() + " to " + final_path_.string() + ": " +
                ec.message());
  }
  published_ = true;
}

void AtomicFile::discard() noexcept {
  if (published_) return;
  if (file_ != nullptr) {
    std::fclose(file_);
    file_ = nullptr;
  }
  size_ = 0;
  std::error_code ec;
  std::filesystem::remove(temp_path_, ec);  // best effort: nothing more can be done here
}

}  // namespace fulcrum::sim
