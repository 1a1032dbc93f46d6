// The rules every verb's outputs follow, checked before the verb does any work: a single output
// file is absent or a regular file (never a device such as /dev/null, a FIFO, a socket or a
// folder) in an existing folder, and never one of the command's own inputs; a folder output is
// absent or a folder, and holds none of the inputs (ResultFolder then applies run's rules).
//
//   check_output_file(out, "--out", {fit_csv, at_csv});   // InputError "--out: ..." otherwise
//   AtomicFile f(out); ...
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace fulcrum::sim {

// InputError (key `key`, e.g. "--out") naming the path and the rule it breaks. `inputs` are the
// files the command reads; they are compared by identity (device and inode), so another spelling
// of the same file, or a hard link to it, is refused too. With `ours` (what the verb's files
// start with, e.g. "# fulcrum profile"), an existing non-empty file is replaced only when it
// starts so: a verb overwrites its own earlier output, never a scenario or a user's data.
void check_output_file(const std::filesystem::path& path, const std::string& key,
                       const std::vector<std::filesystem::path>& inputs = {},
                       std::string_view ours = {});

// The same for an output folder: absent or a folder (not a file or device), and no input inside
// it (a published result replaces the whole folder).
void check_output_folder(const std::filesystem::path& dir, const std::string& key,
                         const std::vector<std::filesystem::path>& inputs = {});

// Two outputs of one command must not be the same file (--out and --save-weights).
void check_distinct_outputs(
    const std::vector<std::pair<std::string, std::filesystem::path>>& outputs);

}  // namespace fulcrum::sim
