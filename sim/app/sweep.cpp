#include "sim/app/sweep.hpp"

#include <memory>
#include <optional>
#include <ostream>
#include <streambuf>
#include <string_view>

#include "models/error.hpp"
#include "sim/app/version.hpp"
#include "sim/report/atomic_file.hpp"
#include "sim/report/folder_lock.hpp"
#include "sim/report/interrupt.hpp"
#include "sim/report/output_path.hpp"
#include "sim/search/strategy.hpp"
#include "sim/sweep/sweep_spec.hpp"

namespace fulcrum::sim::app {

namespace {

// An ostream's buffer that writes into an AtomicFile (which flushes every MiB and checks for an
// interrupt as it does).
class AtomicFileBuf : public std::streambuf {
 public:
  explicit AtomicFileBuf(AtomicFile& file) : file_(file) {}

 protected:
  std::streamsize xsputn(const char* s, std::streamsize n) override {
    file_.write(std::string_view(s, static_cast<std::size_t>(n)));
    return n;
  }
  int_type overflow(int_type ch) override {
    if (ch != traits_type::eof()) {
      const char c = traits_type::to_char_type(ch);
      file_.write(std::string_view(&c, 1));
    }
    return ch;
  }

 private:
  AtomicFile& file_;
};

}  // namespace

struct SweepCsv::Open {
  Open(const std::filesystem::path& path, FolderLock held) : lock(std::move(held)), file(path) {}
  FolderLock lock;
  AtomicFile file;
  AtomicFileBuf buf{file};
  std::ostream csv{&buf};
};

SweepCsv::SweepCsv(std::filesystem::path path) : path_(std::move(path)) {
  if (path_.has_parent_path()) std::filesystem::create_directories(path_.parent_path());
  const std::filesystem::path lock_path = path_.string() + ".lock";
  std::optional<FolderLock> lock = FolderLock::try_lock(lock_path);
  if (!lock) {
    const std::optional<long> pid = FolderLock::holder_pid(lock_path);
    throw InputError(std::nullopt, "--out",
                     "'" + path_.string() + "' is being written by another fulcrum" +
                         (pid ? " (pid " + std::to_string(*pid) + ")" : std::string()) +
                         "; not started");
  }
  open_ = std::make_unique<Open>(path_, std::move(*lock));
}

SweepCsv::~SweepCsv() = default;

std::ostream& SweepCsv::csv() { return open_->csv; }

void SweepCsv::publish() {
  try {
    throw_if_interrupted();
    open_->file.close();
    open_->file.publish();
  } catch (const Interrupted& e) {
    throw interrupted(e.signal());
  }
}

Interrupted SweepCsv::interrupted(int signal) const {
  return Interrupted(signal, "nothing was written to " + path_.string());
}

namespace {

// Writes the CSV through `write`: locked, staged, renamed into place when complete.
template <typename Write>
void publish_csv(const std::filesystem::path& path, Write write) {
  SweepCsv out(path);
  try {
    write(out.csv());
  } catch (const Interrupted& e) {
    throw out.interrupted(e.signal());
  }
  out.publish();
}

}  // namespace

std::filesystem::path sweep_output(const SweepRequest& request, const sweep::SweepSpec& spec) {
  std::filesystem::path csv;
  if (request.out) {
    csv = *request.out;
  } else if (request.shards > 1) {
    csv = "out/sweep-" + spec.name + ".shard-" + std::to_string(request.shard) + "-of-" +
          std::to_string(request.shards) + ".csv";
  } else {
    csv = "out/sweep-" + spec.name + ".csv";
  }
  // The default folder is ours to make; a folder the user named must exist.
  if (!request.out) std::filesystem::create_directories(csv.parent_path());
  check_output_file(csv, "--out", {request.sweep_file}, "# fulcrum sweep ");
  return csv;
}

sweep::SweepTruths sweep_truths(const SweepRequest& request, const sweep::SweepSpec& spec) {
  const std::string reference =
      request.reference_dir ? *request.reference_dir : reference_dir_for(request.sweep_file);
  return sweep::SweepTruths::load(spec, request.data_dir, reference + "/measurements");
}

SweepReport sweep(const SweepRequest& request) {
  const search::StrategyRegistry& registry =
      request.strategies != nullptr ? *request.strategies : search::strategy_registry();
  const sweep::SweepSpec spec = sweep::load_sweep(request.sweep_file, registry.names());
  SweepReport r;
  r.shard = request.shard;
  r.shards = request.shards;
  r.csv = sweep_output(request, spec);
  const sweep::SweepTruths truths = sweep_truths(request, spec);
  sweep::SweepOptions o;
  o.version = kFulcrumVersion;
  o.threads = request.threads;
  o.shard = request.shard;
  o.shards = request.shards;
  o.strategies = &registry;
  o.progress = [&](std::size_t done, std::size_t total) {
    if (request.progress) request.progress(spec.name, done, total);
    throw_if_interrupted();
  };
  publish_csv(r.csv,
              [&](std::ostream& csv) { r.summary = sweep::run_sweep(spec, truths, o, csv); });
  return r;
}

SweepReport merge(const MergeRequest& request) {
  std::vector<std::filesystem::path> inputs(request.shard_files.begin(), request.shard_files.end());
  check_output_file(request.out, "--out", inputs, "# fulcrum sweep ");
  SweepReport r;
  r.csv = request.out;
  publish_csv(r.csv, [&](std::ostream& csv) {
    r.summary = sweep::merge_sweep(request.shard_files, csv, kFulcrumVersion);
  });
  return r;
}

}  // namespace fulcrum::sim::app
