#include "sim/mpi/mpi_runner.hpp"

#include <bit>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <exception>
#include <memory>
#include <sstream>
#include <stdexcept>

#include "models/error.hpp"
#include "sim/app/version.hpp"
#include "sim/config/study_spec.hpp"
#include "sim/search/strategy.hpp"
#include "sim/sweep/sweep_runner.hpp"
#include "sim/sweep/sweep_spec.hpp"

namespace fulcrum::sim::mpi {

namespace {

// How one rank fared in a step, and the job's verdict, as text: "kind\nsignal\nmessage".
enum class Kind { ok, input, interrupted, internal };

struct Status {
  Kind kind = Kind::ok;
  int signal = 0;
  std::string message;
};

std::string encode_status(const Status& s) {
  return std::to_string(static_cast<int>(s.kind)) + "\n" + std::to_string(s.signal) + "\n" +
         s.message;
}

Status decode_status(const std::string& text) {
  Status s;
  const std::size_t a = text.find('\n');
  const std::size_t b = text.find('\n', a + 1);
  if (a == std::string::npos || b == std::string::npos) {
    throw std::runtime_error("a rank's status is malformed");
  }
  s.kind = static_cast<Kind>(std::stoi(text.substr(0, a)));
  s.signal = std::stoi(text.substr(a + 1, b - a - 1));
  s.message = text.substr(b + 1);
  return s;
}

Status run_step(const std::function<void()>& step) {
  try {
    step();
    if (const std::optional<int> signal = pending_interrupt()) {
      return {Kind::interrupted, *signal, ""};
    }
    return {};
  } catch (const Interrupted& e) {
    return {Kind::interrupted, e.signal(), e.what()};
  } catch (const InputError& e) {
    return {Kind::input, 0, e.what()};
  } catch (const std::exception& e) {
    return {Kind::internal, 0, e.what()};
  } catch (...) {
    return {Kind::internal, 0, "unknown exception"};
  }
}

// A collective call; a rank whose part fails cannot go on, nor can its peers: end the job.
template <typename Call>
auto collective(Communicator& world, Call call) -> decltype(call()) {
  try {
    return call();
  } catch (...) {
    world.abort(1);
  }
  std::terminate();  // abort() does not return
}

// Bytes of a study's rows.
class Writer {
 public:
  void u64(std::uint64_t v) { out_.append(reinterpret_cast<const char*>(&v), sizeof v); }
  void f64(double v) { u64(std::bit_cast<std::uint64_t>(v)); }
  void str(const std::string& s) {
    u64(s.size());
    out_ += s;
  }
  std::string take() { return std::move(out_); }

 private:
  std::string out_;
};

class Reader {
 public:
  explicit Reader(const std::string& in) : in_(in) {}
  std::uint64_t u64() {
    if (at_ + 8 > in_.size()) throw std::runtime_error("a rank's rows are truncated");
    std::uint64_t v = 0;
    std::memcpy(&v, in_.data() + at_, sizeof v);
    at_ += sizeof v;
    return v;
  }
  double f64() { return std::bit_cast<double>(u64()); }
  std::string str() {
    const std::uint64_t n = u64();
    if (n > in_.size() - at_) throw std::runtime_error("a rank's rows are truncated");
    std::string s = in_.substr(at_, n);
    at_ += n;
    return s;
  }
  bool done() const { return at_ == in_.size(); }

 private:
  const std::string& in_;
  std::size_t at_ = 0;
};

}  // namespace

std::pair<std::size_t, std::size_t> rank_block(std::size_t total, int rank, int size) {
  const auto r = static_cast<std::size_t>(rank);
  const auto n = static_cast<std::size_t>(size);
  return {total * r / n, total * (r + 1) / n};
}

void agree(Communicator& world, const std::function<void()>& step,
           const std::function<Interrupted(int signal)>& interrupted) {
  const Status mine = run_step(step);
  const std::vector<std::string> all =
      collective(world, [&] { return world.gather(encode_status(mine)); });
  std::string verdict;
  if (world.rank() == 0) {
    for (std::size_t r = 0; r < all.size(); ++r) {
      const Status s = collective(world, [&] { return decode_status(all[r]); });
      if (s.kind != Kind::ok) {
        verdict = std::to_string(r) + "\n" + all[r];
        break;
      }
    }
  }
  verdict = collective(world, [&] { return world.broadcast(verdict); });
  if (verdict.empty()) return;
  if (world.rank() != 0) throw RankStopped();
  const std::size_t nl = verdict.find('\n');
  const std::string rank = verdict.substr(0, nl);
  const Status s = decode_status(verdict.substr(nl + 1));
  const std::string where = " (rank " + rank + " of " + std::to_string(world.size()) + ")";
  switch (s.kind) {
    case Kind::interrupted:
      throw interrupted(s.signal);
    case Kind::input:
      throw InputError(s.message + where);
    default:
      throw Error(s.message + where);
  }
}

std::optional<app::SweepReport> sweep_over_ranks(Communicator& world,
                                                 const app::SweepRequest& request) {
  const int rank = world.rank();
  std::optional<sweep::SweepSpec> spec;
  std::optional<sweep::SweepTruths> truths;
  std::unique_ptr<app::SweepCsv> out;
  app::SweepReport report;
  auto interrupted = [&](int signal) {
    return out ? out->interrupted(signal) : Interrupted(signal, "nothing was written");
  };
  const search::StrategyRegistry& registry =
      request.strategies != nullptr ? *request.strategies : search::strategy_registry();
  std::string mine;
  try {
    agree(
        world,
        [&] {
          if (request.shards > 1) {
            throw InputError(std::nullopt, "--shard",
                             "does not combine with MPI ranks (the ranks of mpirun -n N split "
                             "the configurations): give one or the other");
          }
          spec.emplace(sweep::load_sweep(request.sweep_file, registry.names()));
          if (rank == 0) {
            report.csv = app::sweep_output(request, *spec);
            out = std::make_unique<app::SweepCsv>(report.csv);
          }
          truths.emplace(app::sweep_truths(request, *spec));
        },
        interrupted);
    agree(
        world,
        [&] {
          sweep::SweepOptions o;
          o.version = kFulcrumVersion;
          o.threads = rank_threads(request.threads, world);
          o.shard = static_cast<std::size_t>(rank) + 1;
          o.shards = static_cast<std::size_t>(world.size());
          o.strategies = &registry;
          o.progress = [&](std::size_t done, std::size_t total) {
            if (rank == 0 && request.progress) request.progress(spec->name, done, total);
            throw_if_interrupted();
          };
          std::ostringstream text;
          sweep::run_sweep(*spec, *truths, o, text);
          mine = std::move(text).str();
        },
        interrupted);
  } catch (const RankStopped&) {
    return std::nullopt;
  }
  std::vector<std::string> all = collective(world, [&] { return world.gather(mine); });
  if (rank != 0) return std::nullopt;
  std::vector<std::pair<std::string, std::string>> parts;
  for (std::size_t r = 0; r < all.size(); ++r) {
    parts.emplace_back("rank " + std::to_string(r), std::move(all[r]));
  }
  try {
    report.summary = sweep::merge_sweep_parts(std::move(parts), out->csv(), kFulcrumVersion);
  } catch (const Interrupted& e) {
    throw out->interrupted(e.signal());
  }
  out->publish();
  return report;
}

std::optional<app::StudyReport> study_over_ranks(Communicator& world,
                                                 const app::StudyRequest& request,
                                                 const app::StudyProgress& progress) {
  const auto started = std::chrono::steady_clock::now();
  const int rank = world.rank();
  app::StudyReport report;
  std::unique_ptr<ResultFolder> folder;
  auto interrupted = [&](int signal) {
    return folder ? folder->interrupted(signal) : Interrupted(signal, "nothing was written");
  };
  std::string mine;
  try {
    agree(
        world,
        [&] {
          report.spec = load_study_spec(request.study_path);
          if (rank == 0) folder = app::claim_study_folder(request, report.spec);
        },
        interrupted);
    agree(
        world,
        [&] {
          const auto [begin, end] = rank_block(report.spec.runs(), rank, world.size());
          mine = encode_rows(
              app::run_study_runs(report.spec, begin, end, rank_threads(request.jobs, world),
                                  request.data_dir, rank == 0 ? progress : app::StudyProgress{}));
        },
        interrupted);
  } catch (const RankStopped&) {
    return std::nullopt;
  }
  const std::vector<std::string> all = collective(world, [&] { return world.gather(mine); });
  if (rank != 0) return std::nullopt;
  std::vector<StudyRow> rows;
  rows.reserve(report.spec.runs());
  for (const std::string& part : all) {
    for (StudyRow& row : decode_rows(part)) rows.push_back(std::move(row));
  }
  if (rows.size() != report.spec.runs()) {
    throw Error("the ranks returned " + std::to_string(rows.size()) + " of the study's " +
                std::to_string(report.spec.runs()) + " runs");
  }
  app::publish_study(*folder, report, std::move(rows));
  report.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return report;
}

std::string encode_rows(const std::vector<StudyRow>& rows) {
  Writer w;
  w.u64(rows.size());
  for (const StudyRow& row : rows) {
    w.u64(row.point);
    w.u64(row.seed);
    w.u64(row.figures.size());
    for (const auto& [name, value] : row.figures) {
      w.str(name);
      w.u64(value ? 1 : 0);
      w.f64(value.value_or(0));
    }
    w.u64(row.latency_ms.size());
    for (const auto& [name, values] : row.latency_ms) {
      w.str(name);
      w.u64(values.size());
      for (double v : values) w.f64(v);
    }
  }
  return w.take();
}

std::vector<StudyRow> decode_rows(const std::string& bytes) {
  Reader r(bytes);
  std::vector<StudyRow> rows(r.u64());
  for (StudyRow& row : rows) {
    row.point = r.u64();
    row.seed = r.u64();
    row.figures.resize(r.u64());
    for (auto& [name, value] : row.figures) {
      name = r.str();
      const bool has = r.u64() != 0;
      const double v = r.f64();
      if (has) value = v;
    }
    row.latency_ms.resize(r.u64());
    for (auto& [name, values] : row.latency_ms) {
      name = r.str();
      values.resize(r.u64());
      for (double& v : values) v = r.f64();
    }
  }
  if (!r.done()) throw std::runtime_error("a rank's rows have bytes left over");
  return rows;
}

}  // namespace fulcrum::sim::mpi
