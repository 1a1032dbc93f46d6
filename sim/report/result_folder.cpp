#include "sim/report/result_folder.hpp"

#include <fcntl.h>
#include <stdio.h>  // renameat2, RENAME_EXCHANGE, RENAME_NOREPLACE (glibc >= 2.28)
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <random>
#include <system_error>
#include <thread>
#include <vector>

#include "models/error.hpp"
#include "sim/report/publication_step.hpp"

namespace fulcrum::sim {

namespace fs = std::filesystem;

namespace {

// What a run writes into its folder. A new output file is added here too, or a folder holding it
// could no longer be replaced.
constexpr std::array<std::string_view, 8> kDataFiles{
    "summary.json", "run.json",   "requests.csv", "minibatches.csv",
    "power.csv",    "trace.json", "epochs.csv",   "device.json"};  // device.json: hardware runs
// The figures scripts/plot.py draws into a run's folder (its --format choices).
constexpr std::array<std::string_view, 4> kFigures{"latency", "latency_cdf", "power", "timeline"};
constexpr std::array<std::string_view, 3> kFigureFormats{"png", "pdf", "svg"};

constexpr std::string_view kStagingTag = ".staging-";
constexpr std::string_view kPreviousTag = ".previous-";
constexpr auto kWaitPoll = std::chrono::milliseconds(50);

bool is_data_file(std::string_view name) {
  return std::find(kDataFiles.begin(), kDataFiles.end(), name) != kDataFiles.end();
}

// Whether `inner` is `outer` or lies inside it (both absolute and normalised).
bool is_within(const fs::path& inner, const fs::path& outer) {
  auto i = inner.begin();
  for (auto o = outer.begin(); o != outer.end(); ++o, ++i) {
    if (i == inner.end() || *i != *o) return false;
  }
  return true;
}

// "<pid>-<8 hex digits>", the tail of the names this code gives its own folders.
bool is_unique_suffix(std::string_view s) {
  const auto dash = s.find('-');
  if (dash == 0 || dash == std::string_view::npos || s.size() - dash - 1 != 8) return false;
  const auto digit = [](char c) { return c >= '0' && c <= '9'; };
  const auto hex = [&](char c) { return digit(c) || (c >= 'a' && c <= 'f'); };
  return std::all_of(s.begin(), s.begin() + static_cast<std::ptrdiff_t>(dash), digit) &&
         std::all_of(s.begin() + static_cast<std::ptrdiff_t>(dash) + 1, s.end(), hex);
}

std::string unique_suffix() {
  static std::mt19937 bits(std::random_device{}());
  char hex[9];
  std::snprintf(hex, sizeof hex, "%08x", static_cast<unsigned>(bits()));
  return std::to_string(::getpid()) + "-" + hex;
}

// Removes the result files in `dir` (and its result sub-folders, the same way), then `dir` if
// that left it empty. Anything else stays, and so does the folder: this never deletes what a run
// did not write.
void remove_result_folder(const fs::path& dir, const ResultLayout& layout) noexcept {
  std::error_code ec;
  std::vector<fs::path> files;
  std::vector<std::pair<fs::path, const ResultLayout*>> folders;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    std::error_code entry_ec;
    const std::string name = it->path().filename().string();
    const fs::file_type type = it->symlink_status(entry_ec).type();
    if (type == fs::file_type::regular && layout.is_file(name)) files.push_back(it->path());
    if (type != fs::file_type::directory) continue;
    for (const auto& [folder, inner] : layout.folders) {
      if (name == folder) folders.emplace_back(it->path(), inner);
    }
  }
  for (const fs::path& f : files) fs::remove(f, ec);
  for (const auto& [folder, inner] : folders) remove_result_folder(folder, *inner);
  fs::remove(dir, ec);  // only an empty folder
}

int rename2(const fs::path& from, const fs::path& to, unsigned flags) {
  return ::renameat2(AT_FDCWD, from.c_str(), AT_FDCWD, to.c_str(), flags);
}

// The filesystem (or kernel) cannot do this renameat2 flag.
bool is_unsupported(int error) { return error == EINVAL || error == ENOSYS || error == ENOTSUP; }

}  // namespace

ResultFolder::Staging::~Staging() {
  if (!path.empty()) remove_result_folder(path, layout ? *layout : ResultLayout::run());
}

const ResultLayout& ResultLayout::run() {
  static const ResultLayout layout{.is_file = ResultFolder::is_result_file_name};
  return layout;
}

const ResultLayout& ResultLayout::validation_bundle() {
  static const ResultLayout inputs{.is_file = [](std::string_view name) {
    return name == "scenario.yaml" || name == "profile.csv" || name == "profile-layers.csv" ||
           name == "command.txt";
  }};
  static const ResultLayout bundle{
      .is_file =
          [](std::string_view name) {
            return name == "comparison.json" || name == "comparison.md" || name == "device.json";
          },
      .folders = {{"inputs", &inputs}, {"simulated", &run()}, {"measured", &run()}}};
  return bundle;
}

bool ResultFolder::is_result_file_name(std::string_view name) {
  if (is_data_file(name)) return true;
  constexpr std::string_view kPartial = ".partial";
  if (name.size() > kPartial.size() && name.ends_with(kPartial)) {
    return is_data_file(name.substr(0, name.size() - kPartial.size()));
  }
  const auto dot = name.rfind('.');
  if (dot == std::string_view::npos) return false;
  const std::string_view stem = name.substr(0, dot);
  const std::string_view format = name.substr(dot + 1);
  return std::find(kFigures.begin(), kFigures.end(), stem) != kFigures.end() &&
         std::find(kFigureFormats.begin(), kFigureFormats.end(), format) != kFigureFormats.end();
}

std::optional<std::string> ResultFolder::why_not_replaceable(const fs::path& dir) {
  return why_not_replaceable(dir, ResultLayout::run());
}

std::optional<std::string> ResultFolder::why_not_replaceable(const fs::path& dir,
                                                             const ResultLayout& layout) {
  std::error_code ec;
  const fs::file_status status = fs::symlink_status(dir, ec);
  if (status.type() == fs::file_type::not_found) return std::nullopt;
  if (ec) return "cannot read it: " + ec.message();
  if (status.type() != fs::file_type::directory) return std::string("it is not a folder");
  fs::directory_iterator it(dir, ec);
  if (ec) return "cannot read it: " + ec.message();
  for (const fs::directory_iterator end; it != end; it.increment(ec)) {
    if (ec) return "cannot read it: " + ec.message();
    const std::string name = it->path().filename().string();
    std::error_code entry_ec;
    const fs::file_type type = it->symlink_status(entry_ec).type();
    const ResultLayout* inner = nullptr;
    for (const auto& [folder, sub] : layout.folders) {
      if (name == folder) inner = sub;
    }
    if (inner != nullptr && type == fs::file_type::directory) {
      if (auto why = why_not_replaceable(it->path(), *inner)) return name + "/: " + *why;
      continue;
    }
    if (!layout.is_file(name)) return "it holds '" + name + "', which a run does not write";
    // One that vanished meanwhile (a run removing its previous result) is no one's file.
    if (type != fs::file_type::regular && type != fs::file_type::not_found) {
      return "its '" + name + "' is not a regular file";
    }
  }
  return std::nullopt;
}

ResultFolder::ResultFolder(fs::path target, Options options)
    : target_(std::move(target)),
      options_(std::move(options)),
      layout_(options_.layout != nullptr ? options_.layout : &ResultLayout::run()) {
  staging_.layout = layout_;
  std::error_code ec;
  resolved_ = fs::weakly_canonical(fs::absolute(target_, ec), ec);
  if (ec) {
    throw InputError(std::nullopt, "--out",
                     "cannot resolve output directory " + target_.string() + ": " + ec.message());
  }
  if (!resolved_.has_filename()) resolved_ = resolved_.parent_path();  // "out/quickstart/"
  // A run replaces its folder as a whole: never the root, nor the folder a shell is in.
  if (resolved_ == resolved_.root_path() ||
      is_within(fs::current_path(ec).lexically_normal(), resolved_)) {
    throw InputError(std::nullopt, "--out",
                     target_.string() +
                         " is the root folder or holds the current folder, which a run would "
                         "replace as a whole; name a new folder below it");
  }
  name_ = resolved_.filename().string();
  if (auto why = why_not_replaceable(resolved_, *layout_)) refuse(*why);
  const fs::path parent = resolved_.parent_path();
  fs::create_directories(parent, ec);
  if (ec) {
    throw InputError(std::nullopt, "--out",
                     "cannot create output directory " + target_.string() + ": " + ec.message());
  }
  // The lock, the staging folder and the swap are in the parent; the previous result's files are
  // removed from the folder itself.
  for (const fs::path& dir : {parent, resolved_}) {
    if (fs::exists(dir, ec) && ::access(dir.c_str(), W_OK) != 0) {
      const int error = errno;
      throw InputError(std::nullopt, "--out",
                       "cannot write output directory " + target_.string() + ": " + dir.string() +
                           " is not writable (" + std::strerror(error) + ")");
    }
  }

  const fs::path lock_path = parent / ("." + name_ + ".lock");
  lock_ = FolderLock::try_lock(lock_path);
  if (!lock_) {
    const std::optional<long> holder = FolderLock::holder_pid(lock_path);
    const std::string who =
        "another fulcrum run" + (holder ? " (pid " + std::to_string(*holder) + ")" : "");
    if (!options_.wait) {
      throw InputError(std::nullopt, "--out",
                       target_.string() + " is being written by " + who +
                           "; wait for it to finish, or pass --wait");
    }
    if (options_.on_wait) options_.on_wait(holder);
    while (!(lock_ = FolderLock::try_lock(lock_path))) {
      if (const std::optional<int> signal = pending_interrupt()) throw interrupted(*signal);
      std::this_thread::sleep_for(kWaitPoll);
    }
  }
  step("locked the output folder");
  // Checked again now that no run can change it: the one we waited for may have left it so.
  if (auto why = why_not_replaceable(resolved_, *layout_)) refuse(*why);
  remove_leftovers();

  for (int attempt = 0; staging_.path.empty(); ++attempt) {
    const fs::path candidate = parent / ("." + name_ + std::string(kStagingTag) + unique_suffix());
    if (fs::create_directory(candidate, ec)) {
      staging_.path = candidate;
    } else if (ec || attempt >= 100) {
      throw InputError(std::nullopt, "--out",
                       "cannot create output directory " + candidate.string() + ": " +
                           (ec ? ec.message() : std::string("it exists")));
    }
  }
  step("created the staging folder");
}

ResultFolder::~ResultFolder() {
  // A repeated signal (timeout's second one, a second Ctrl-C) must not cut this short: left
  // half-done it would leave the staging folder and the lock behind.
  const CleanupScope cleanup;
  if (!staging_.path.empty()) {
    remove_result_folder(staging_.path, *layout_);
    staging_.path.clear();
  }
  lock_.reset();
}

void ResultFolder::step(std::string_view what) {
  // Re-thrown with this folder named: only here is it known what the interrupt left.
  try {
    publication_step(what);
  } catch (const Interrupted& e) {
    throw interrupted(e.signal());
  }
}

Interrupted ResultFolder::interrupted(int signal) const {
  return Interrupted(signal, "nothing was written to " + target_.string());
}

void ResultFolder::refuse(const std::string& reason) const {
  throw InputError(std::nullopt, "--out",
                   target_.string() + " is not a Fulcrum result folder: " + reason +
                       "; a run replaces its folder as a whole, so --out must name a new or empty "
                       "folder or an earlier result");
}

// Folders beside the target that runs killed earlier (SIGKILL, a crash, a power cut) left behind:
// a staging folder, or the previous result a two-rename publication had moved aside. Only this
// code makes such names, and while we hold the lock no live run owns one.
void ResultFolder::remove_leftovers() const {
  const fs::path parent = resolved_.parent_path();
  const std::string staging_prefix = "." + name_ + std::string(kStagingTag);
  const std::string previous_prefix = "." + name_ + std::string(kPreviousTag);
  std::vector<fs::path> staged;
  std::vector<fs::path> previous;
  std::error_code ec;
  for (fs::directory_iterator it(parent, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    std::error_code type_ec;
    if (it->symlink_status(type_ec).type() != fs::file_type::directory) continue;
    if (name.starts_with(staging_prefix) &&
        is_unique_suffix(std::string_view(name).substr(staging_prefix.size()))) {
      staged.push_back(it->path());
    } else if (name.starts_with(previous_prefix) &&
               is_unique_suffix(std::string_view(name).substr(previous_prefix.size()))) {
      previous.push_back(it->path());
    }
  }
  for (const fs::path& p : staged) remove_result_folder(p, *layout_);
  for (const fs::path& p : previous) {
    // Killed between its two renames: the target is missing and this is the last result.
    if (!fs::exists(fs::symlink_status(resolved_, ec)) &&
        ::rename(p.c_str(), resolved_.c_str()) == 0) {
      continue;
    }
    remove_result_folder(p, *layout_);
  }
}

void ResultFolder::publish() {
  if (published_ || staging_.path.empty()) throw Error("result folder: publish() twice");
  step("staged the result");
  // A process that is not a run may have put something into the target meanwhile.
  if (auto why = why_not_replaceable(resolved_, *layout_)) refuse(*why);
  std::error_code ec;
  const fs::file_status old = fs::symlink_status(resolved_, ec);
  fs::path previous;  // where the previous result is once the new one is in place
  if (old.type() == fs::file_type::not_found) {
    if (rename2(staging_.path, resolved_, RENAME_NOREPLACE) != 0) {
      const int error = errno;
      if (!is_unsupported(error) || ::rename(staging_.path.c_str(), resolved_.c_str()) != 0) {
        throw Error("cannot move " + staging_.path.string() + " to " + target_.string() + ": " +
                    std::strerror(is_unsupported(error) ? errno : error));
      }
    }
  } else {
    fs::permissions(staging_.path, old.permissions(), ec);  // keep the folder's mode
    const bool exchanged =
        options_.exchange && rename2(staging_.path, resolved_, RENAME_EXCHANGE) == 0;
    if (exchanged) {
      previous = staging_.path;
    } else {
      if (options_.exchange && !is_unsupported(errno)) {
        throw Error("cannot swap " + staging_.path.string() + " with " + target_.string() + ": " +
                    std::strerror(errno));
      }
      // No atomic swap here: the previous result goes aside, the new one takes its name. A
      // run killed in between leaves the target missing; the next run puts the aside one back.
      previous =
          resolved_.parent_path() / ("." + name_ + std::string(kPreviousTag) + unique_suffix());
      if (::rename(resolved_.c_str(), previous.c_str()) != 0) {
        throw Error("cannot move " + target_.string() + " aside: " + std::strerror(errno));
      }
      if (::rename(staging_.path.c_str(), resolved_.c_str()) != 0) {
        const int error = errno;
        ::rename(previous.c_str(), resolved_.c_str());
        throw Error("cannot move " + staging_.path.string() + " to " + target_.string() + ": " +
                    std::strerror(error));
      }
    }
  }
  published_ = true;
  staging_.path.clear();
  publication_step("published the result", StepPhase::committed);
  if (!previous.empty()) remove_result_folder(previous, *layout_);
  publication_step("removed the previous result", StepPhase::committed);
}

}  // namespace fulcrum::sim
