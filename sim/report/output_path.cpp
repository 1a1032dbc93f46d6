#include "sim/report/output_path.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <fstream>
#include <optional>
#include <system_error>
#include <utility>

#include "models/error.hpp"

namespace fulcrum::sim {

namespace fs = std::filesystem;

namespace {

struct FileId {
  dev_t device;
  ino_t inode;
  bool operator==(const FileId&) const = default;
};

std::optional<FileId> id_of(const fs::path& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return std::nullopt;
  return FileId{st.st_dev, st.st_ino};
}

[[noreturn]] void refuse(const std::string& key, const fs::path& path, const std::string& why) {
  throw InputError(std::nullopt, key, path.string() + " " + why);
}

// `path` as the user's absolute spelling, for comparing an absent output with absent inputs.
fs::path normal(const fs::path& path) {
  std::error_code ec;
  fs::path p = fs::weakly_canonical(path, ec);
  return ec ? fs::absolute(path, ec).lexically_normal() : p;
}

void check_not_input(const fs::path& path, const std::string& key,
                     const std::vector<fs::path>& inputs, const char* what) {
  const std::optional<FileId> out = id_of(path);
  for (const fs::path& input : inputs) {
    const std::optional<FileId> in = id_of(input);
    if ((out && in && *out == *in) || (!out && normal(path) == normal(input))) {
      refuse(key, path,
             std::string("is ") + what + " of this command (" + input.string() +
                 "); choose another output");
    }
  }
}

}  // namespace

void check_output_file(const fs::path& path, const std::string& key,
                       const std::vector<fs::path>& inputs, std::string_view ours) {
  if (path.empty()) throw InputError(std::nullopt, key, "is empty; name an output file");
  std::error_code ec;
  const fs::file_status status = fs::status(path, ec);
  if (fs::exists(status)) {
    if (fs::is_directory(status)) refuse(key, path, "is a folder; name a file");
    if (!fs::is_regular_file(status)) {
      refuse(key, path,
             fs::is_fifo(status) ? "is a FIFO; name a regular file"
             : fs::is_character_file(status) || fs::is_block_file(status)
                 ? "is a device; name a regular file"
                 : "is not a regular file; name a regular file");
    }
  } else if (fs::is_symlink(fs::symlink_status(path, ec))) {
    refuse(key, path, "is a dangling symbolic link; name a regular file");
  }
  check_not_input(path, key, inputs, "an input");
  if (!ours.empty() && fs::is_regular_file(status) && fs::file_size(path, ec) > 0) {
    std::ifstream in(path, std::ios::binary);
    std::string head(ours.size(), '\0');
    in.read(head.data(), static_cast<std::streamsize>(head.size()));
    if (!in || head != ours) {
      refuse(key, path,
             "exists and is not an earlier output of this command (it does not start with '" +
                 std::string(ours) + "'); choose a new file or remove it");
    }
  }
}

void check_output_folder(const fs::path& dir, const std::string& key,
                         const std::vector<fs::path>& inputs) {
  if (dir.empty()) throw InputError(std::nullopt, key, "is empty; name an output folder");
  std::error_code ec;
  const fs::file_status status = fs::status(dir, ec);
  if (fs::exists(status) && !fs::is_directory(status)) {
    refuse(key, dir, "is not a folder; name a folder (absent, empty or an earlier result)");
  }
  check_not_input(dir, key, inputs, "an input");
  const fs::path folder = normal(dir);
  for (const fs::path& input : inputs) {
    const fs::path in = normal(input);
    const auto mismatch = std::mismatch(folder.begin(), folder.end(), in.begin(), in.end());
    if (mismatch.first == folder.end()) {
      refuse(key, dir,
             "holds an input of this command (" + input.string() +
                 "); a result replaces the whole folder");
    }
  }
}

void check_distinct_outputs(const std::vector<std::pair<std::string, fs::path>>& outputs) {
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    for (std::size_t j = i + 1; j < outputs.size(); ++j) {
      if (normal(outputs[i].second) == normal(outputs[j].second)) {
        refuse(outputs[j].first, outputs[j].second,
               "is also " + outputs[i].first + "; give each output its own file");
      }
    }
  }
}

}  // namespace fulcrum::sim
