// ResultFolder: a run's --out folder, claimed for the whole run and replaced as a whole when the
// run succeeds, so that it always holds one complete result (or none) and two runs never mix.
//
//   ResultFolder folder("out/quickstart");   // locks out/.quickstart.lock, stages in
//                                            // out/.quickstart.staging-<pid>-<random>/
//   OutputWriter writer(folder.staging_dir(), scenario, rails);
//   ... run; writer.finish(result); write_run_json(folder.staging_dir(), info);
//   folder.publish();                        // out/quickstart is now exactly the new result
// Destroyed before publish() (a failure, an interrupt), it removes what it staged and the
// previous result stays as it was. Either way the lock is released.
//
// Only a folder that is absent, empty or an earlier result may be replaced: see
// why_not_replaceable(). Publication swaps the staging folder with the old one in one
// renameat2(RENAME_EXCHANGE) (a plain rename when there is no old one), then removes the old.
#pragma once

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sim/report/folder_lock.hpp"
#include "sim/report/interrupt.hpp"

namespace fulcrum::sim {

// What a result folder may hold: regular files by name, and sub-folders of given names with
// layouts of their own. Only such a folder is replaced, and only such entries are removed.
struct ResultLayout {
  std::function<bool(std::string_view name)> is_file;
  std::vector<std::pair<std::string, const ResultLayout*>> folders = {};

  // A run's folder: the files of ResultFolder::is_result_file_name, no sub-folders.
  static const ResultLayout& run();
  // `fulcrum validate`'s bundle: comparison.json, comparison.md, device.json; inputs/ (the
  // scenario, the profile and its layer times, the command line); simulated/ and measured/ (runs).
  static const ResultLayout& validation_bundle();
};

// How ResultFolder claims its folder.
struct ResultFolderOptions {
  // Another run holds the folder: wait for it (checking for interrupts), else InputError.
  bool wait = false;
  // Called once, with the holder's pid when known, before a wait begins.
  std::function<void(std::optional<long> holder_pid)> on_wait;
  // false: publish with two renames instead of one exchange, as on a filesystem without
  // RENAME_EXCHANGE (for tests; the target is then absent for a moment).
  bool exchange = true;
  // What the folder holds; null: a run's (ResultLayout::run()).
  const ResultLayout* layout = nullptr;
};

class ResultFolder {
 public:
  using Options = ResultFolderOptions;

  // Claims `target`: creates its parent, takes the lock beside it, checks that it may be
  // replaced, removes what runs killed earlier left beside it, and creates the staging folder.
  // Throws fulcrum::InputError (one line, `--out: ...`) when the folder may not be replaced, is
  // held by another run (without options.wait) or cannot be created; Interrupted when a signal
  // comes while waiting.
  explicit ResultFolder(std::filesystem::path target, Options options = {});
  ~ResultFolder();
  ResultFolder(const ResultFolder&) = delete;
  ResultFolder& operator=(const ResultFolder&) = delete;

  // The target as given (for messages and the paths of the published files).
  const std::filesystem::path& target() const { return target_; }
  // Where the run writes its files until publish().
  const std::filesystem::path& staging_dir() const { return staging_.path; }

  // Puts the staged folder in place of the target at once and removes the previous result.
  // Throws fulcrum::Error (or InputError when the target gained a file a run does not write, or
  // Interrupted) before the swap, leaving the previous result as it was; nothing after it throws.
  void publish();
  bool is_published() const { return published_; }

  // What an interrupt of this run leaves: "...; nothing was written to <target>".
  Interrupted interrupted(int signal) const;

  // Why a run may not replace `dir` (absent: it may). It may when `dir` is absent, or a folder
  // whose every entry is a regular file that a run or scripts/plot.py writes (see
  // is_result_file_name). Lists the folder; never changes anything.
  static std::optional<std::string> why_not_replaceable(const std::filesystem::path& dir);
  static std::optional<std::string> why_not_replaceable(const std::filesystem::path& dir,
                                                        const ResultLayout& layout);
  // summary.json, run.json, requests.csv, minibatches.csv, power.csv, trace.json, epochs.csv; the
  // figures of scripts/plot.py (latency, latency_cdf, power, timeline as .png, .pdf or .svg); and
  // NAME.partial for a data file NAME (what earlier versions left on a failure).
  static bool is_result_file_name(std::string_view name);

 private:
  // A folder of ours that is removed (its result files, then the folder) unless it was moved.
  struct Staging {
    std::filesystem::path path;
    const ResultLayout* layout = nullptr;
    ~Staging();
  };

  void step(std::string_view what);  // publication_step, with this folder in an interrupt's message
  void remove_leftovers() const;
  [[noreturn]] void refuse(const std::string& reason) const;

  std::filesystem::path target_;    // as given
  std::filesystem::path resolved_;  // absolute, symbolic links resolved
  std::string name_;                // resolved_'s last component
  Options options_;
  const ResultLayout* layout_;
  std::optional<FolderLock> lock_;
  Staging staging_;
  bool published_ = false;
};

}  // namespace fulcrum::sim
