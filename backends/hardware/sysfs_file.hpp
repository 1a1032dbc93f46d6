// Reading and writing the one-value text files of sysfs, hwmon and debugfs.
//
//   std::optional<std::string> v = read_sysfs(root / "sys/class/devfreq/gpu/cur_freq");
//   write_sysfs(path, "1300500000");   // Error naming the file and errno's text on failure
#pragma once

#include <filesystem>
#include <optional>
#include <string>

namespace fulcrum::backends {

// The file's text with surrounding whitespace removed; absent when it cannot be read.
std::optional<std::string> read_sysfs(const std::filesystem::path& file);
// The file's text as a number; absent when unreadable or not a finite number.
std::optional<double> read_sysfs_number(const std::filesystem::path& file);
// The file's text as a number; Error naming the file when unreadable or not a number.
double require_sysfs_number(const std::filesystem::path& file);
// Writes `value` followed by a newline, as `echo value > file` does. Error naming the file.
void write_sysfs(const std::filesystem::path& file, const std::string& value);

}  // namespace fulcrum::backends
