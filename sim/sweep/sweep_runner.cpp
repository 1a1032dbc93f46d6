#include "sim/sweep/sweep_runner.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <optional>
#include <ostream>
#include <set>
#include <sstream>
#include <string_view>
#include <utility>

#include "models/io/csv_reader.hpp"
#include "models/parallel/parallel.hpp"
#include "models/random/rng_streams.hpp"
#include "sim/config/device_catalog_loader.hpp"
#include "sim/config/perf_model_loader.hpp"
#include "sim/search/evaluation.hpp"
#include "sim/search/measured_set.hpp"
#include "sim/search/steady_state.hpp"
#include "sim/search/strategy.hpp"

namespace fulcrum::sim::sweep {

using search::Choice;
using search::Problem;

SweepTruths SweepTruths::load(const SweepSpec& spec, const std::string& data_dir,
                              const std::string& measurements_dir) {
  SweepTruths t;
  t.data_dir_ = data_dir;
  t.catalog_ = std::make_unique<models::DeviceCatalog>(load_device_catalog(data_dir + "/devices"));
  const models::DeviceSpec& orin = t.catalog_->get("orin-agx-64gb");
  t.catalog_idle_power_w_ = search::catalog_idle_power_w(orin);
  const search::TruthSources sources{measurements_dir, data_dir};
  for (GroundTruthKind kind : spec.ground_truths) {
    t.truths_.push_back(search::make_ground_truth(kind, orin, sources));
  }
  return t;
}

namespace {

const char* const kColumns =
    "config,ground_truth,workloads,arrival_per_s,latency_budget_s,power_budget_w,strategy,found,"
    "budgets_met,feasible_optimum,value,oracle_value,ratio,mode,batch_sizes,modes_profiled,"
    "tries,profiling_s,mode_switches,reused";

std::string num(double v, const char* format = "%.6g") {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

std::string strategy_label(const StrategyEntry& e) {
  return e.max_modes ? e.name + "@" + std::to_string(*e.max_modes) : e.name;
}

// What the summary needs of one row.
struct Row {
  std::string strategy;
  std::string set_key;  // ground truth + workloads: a reused exploration is charged once
  bool feasible = false;
  bool met = false;
  double ratio = 0;
  double modes = 0;
  double profiling_s = 0;
  long switches = 0;
  bool reused = false;
};

class SummaryBuilder {
 public:
  explicit SummaryBuilder(std::vector<std::string> order) : order_(std::move(order)) {}
  void add(const Row& r) {
    Acc& a = acc_[r.strategy];
    ++a.configurations;
    a.modes += r.modes;
    a.switches += static_cast<std::size_t>(r.switches);
    if (!r.reused || a.charged.insert(r.set_key).second) a.seconds += r.profiling_s;
    if (!r.feasible) return;
    ++a.feasible;
    if (r.met) ++a.met;
    a.ratios.push_back(r.ratio);
  }
  SweepSummary finish(std::string name, std::size_t configurations) {
    SweepSummary s{std::move(name), configurations, {}};
    for (const std::string& n : order_) {
      Acc& a = acc_[n];
      StrategySummary o;
      o.strategy = n;
      o.configurations = a.configurations;
      o.feasible = a.feasible;
      o.met = a.met;
      if (!a.ratios.empty()) {
        double sum = 0;
        for (double r : a.ratios) sum += r;
        o.mean_ratio = sum / static_cast<double>(a.ratios.size());
        std::sort(a.ratios.begin(), a.ratios.end());
        o.p5_ratio = a.ratios[static_cast<std::size_t>(
            std::floor(0.05 * static_cast<double>(a.ratios.size() - 1)))];
      }
      o.mean_modes = a.configurations ? a.modes / static_cast<double>(a.configurations) : 0;
      o.profiling_hours = a.seconds / 3600.0;
      o.mode_switches = a.switches;
      s.strategies.push_back(o);
    }
    return s;
  }

 private:
  struct Acc {
    std::size_t configurations = 0, feasible = 0, met = 0, switches = 0;
    double modes = 0, seconds = 0;
    std::vector<double> ratios;
    std::set<std::string> charged;
  };
  std::vector<std::string> order_;
  std::map<std::string, Acc> acc_;
};

// What every configuration of one (ground truth, workload set) shares.
struct Prepared {
  Problem base;  // the workload set's problem (rates and budgets set per configuration)
  std::optional<search::SearchContext> context;
  // The oracle's tables, read from the exact truth (never through the sweep's noisy Profiler).
  std::optional<search::CandidateTable> oracle_table;  // one stream
  std::optional<search::MeasuredSet> full;             // two streams: every grid mode
  // Per strategy entry: the answer its exploration leaves when it answers every configuration
  // of the set (Strategy::explore_reusable), and what that exploration cost.
  std::vector<std::unique_ptr<search::ReusableAnswer>> reusable;
  std::vector<search::ProfilingCost> reusable_cost;
  // Per strategy entry: seeded with the set's seed in every configuration of the set
  // (Strategy::seeded_per_workload_set), so that its fits are shared.
  std::vector<bool> per_set_seed;
  std::uint64_t set_seed = 0;
};

// The oracle's choice for a problem, from the shared tables (what Oracle::solve answers, without
// reading the truth again for every configuration).
Choice oracle_of(const Prepared& p, const Problem& problem) {
  if (!p.oracle_table) return p.full->answer(problem);
  Choice c;
  const search::CandidateTable::Best b = p.oracle_table->best(problem);
  if (!b.found) return c;
  c.found = true;
  c.mode = p.context->grid.at(b.mode);
  c.batch_sizes = {b.batch_size};
  c.predicted_per_window = b.state.per_window;
  c.predicted_per_s = b.state.per_s;
  c.predicted_power_w = b.state.power_w(problem.power_kind);
  return c;
}

double choice_value(const Problem& problem, const Choice& c) {
  return problem.objective == search::Objective::per_window
             ? static_cast<double>(c.predicted_per_window)
             : c.predicted_per_s;
}

search::ProfilerOptions profiler_options(const SweepSpec& spec, std::uint64_t seed) {
  search::ProfilerOptions o;
  o.noise = spec.noise;
  o.seed = seed;
  o.settle_s = spec.settle_s;
  o.minibatches = spec.minibatches;
  return o;
}

std::unique_ptr<Prepared> prepare(const SweepSpec& spec, const SweepTruths& truths,
                                  const search::StrategyRegistry& registry, std::size_t truth,
                                  std::size_t set) {
  auto p = std::make_unique<Prepared>();
  SweepConfig c;
  c.truth = truth;
  c.workloads = set;
  const search::GroundTruth& t = truths.at(truth);
  const std::uint64_t seed =
      models::RngStreams(spec.seed)
          .stream("sweep/set/" + std::to_string(truth) + "/" + std::to_string(set))
          .next();
  try {
    p->base = search::problem_from(request_of(spec, set), t);
    const Problem problem = problem_at(p->base, spec, c, spec.arrivals.front().rates_per_s.front());
    p->context.emplace(search::make_context(t, problem, seed));
  } catch (const InputError& e) {
    throw InputError(spec.workloads[set].where, "workloads[" + std::to_string(set) + "]",
                     e.problem());
  }
  const Problem problem = problem_at(p->base, spec, c, spec.arrivals.front().rates_per_s.front());
  if (problem.streams.size() == 1) {
    p->oracle_table.emplace(search::Oracle::table(problem, *p->context));
  } else {
    p->full.emplace(search::Oracle::grid_set(problem, *p->context));
  }
  for (const StrategyEntry& e : spec.strategies) {
    std::unique_ptr<search::Strategy> s = registry.make(
        e.name, {.max_modes = e.max_modes, .seed = seed, .data_dir = truths.data_dir()});
    search::ProfilerOptions o = profiler_options(spec, seed);
    o.max_modes = s->max_modes();
    search::Profiler profiler(t, o);
    p->reusable.push_back(s->explore_reusable(problem, profiler, *p->context));
    p->reusable_cost.push_back(p->reusable.back() ? profiler.cost() : search::ProfilingCost{});
    p->per_set_seed.push_back(s->seeded_per_workload_set());
  }
  p->set_seed = seed;
  return p;
}

// The CSV rows of one configuration (one per strategy) and their summary records.
std::string run_config(const SweepSpec& spec, const SweepTruths& truths,
                       const search::StrategyRegistry& registry, const Prepared& prep,
                       std::size_t index, std::vector<Row>& rows) {
  const SweepConfig c = config_at(spec, index);
  const ArrivalCase& arrivals = spec.arrivals[c.arrival];
  const search::GroundTruth& truth = truths.at(c.truth);
  const std::string truth_name = to_string(spec.ground_truths[c.truth]);
  const std::string set_key = truth_name + "/" + spec.workloads[c.workloads].label();
  std::string prefix = std::to_string(index) + "," + truth_name + "," +
                       spec.workloads[c.workloads].label() + "," + arrivals.label() + "," +
                       num(spec.latency_budgets_s[c.latency]) + "," +
                       num(spec.power_budgets_w[c.power]) + ",";
  std::vector<Problem> problems;
  std::vector<Choice> oracles;
  bool feasible = true;
  double oracle_total = 0;
  for (double rate : arrivals.rates_per_s) {
    problems.push_back(problem_at(prep.base, spec, c, rate));
    oracles.push_back(oracle_of(prep, problems.back()));
    feasible = feasible && oracles.back().found;
    if (oracles.back().found) oracle_total += choice_value(problems.back(), oracles.back());
  }
  std::string out;
  for (std::size_t si = 0; si < spec.strategies.size(); ++si) {
    const StrategyEntry& e = spec.strategies[si];
    bool found = true, met = true;
    double value = 0, ratio_sum = 0, seconds = 0;
    int modes = 0, tries = 0;
    long switches = 0;
    std::optional<models::PowerMode> last;
    std::string mode_text, batch_text;
    const bool reused = prep.reusable[si] != nullptr;
    // A strategy that keeps its profiles (Strategy::keeps_profiles) keeps one instance and one
    // Profiler over the segments of a dynamic case: a mode measured once is charged once.
    std::unique_ptr<search::Strategy> keeper;
    std::optional<search::Profiler> kept_profiler;
    for (std::size_t seg = 0; seg < problems.size(); ++seg) {
      const Problem& problem = problems[seg];
      Choice choice;
      // The Profiler's noise is drawn per configuration whatever the strategy's seed.
      const std::uint64_t seed =
          models::RngStreams(spec.seed)
              .stream("sweep/config/" + std::to_string(index) + "/" + std::to_string(seg))
              .next();
      const std::uint64_t strategy_seed = prep.per_set_seed[si] ? prep.set_seed : seed;
      std::unique_ptr<search::Strategy> s =
          reused || keeper ? nullptr
                           : registry.make(e.name, {.max_modes = e.max_modes,
                                                    .seed = strategy_seed,
                                                    .data_dir = truths.data_dir()});
      if (s && s->keeps_profiles()) {
        search::ProfilerOptions o = profiler_options(spec, seed);
        if (s->max_modes()) {
          o.max_modes = *s->max_modes() * static_cast<int>(problems.size());
        }
        kept_profiler.emplace(truth, o);
        keeper = std::move(s);
      }
      if (reused) {
        choice = *prep.reusable[si]->answer(problem);
      } else if (keeper) {
        search::SearchContext context = *prep.context;
        context.seed = seed;
        try {
          choice = keeper->choose(problem, *kept_profiler, context);
          choice.strategy = keeper->name();
        } catch (const InputError&) {
          choice = Choice{};
        }
        tries += choice.tries;
      } else if (s->answers_from_truth()) {
        choice = oracles[seg];  // brute force on the truth, from the shared tables; not charged
      } else {
        search::SearchContext context = *prep.context;
        context.seed = strategy_seed;
        try {
          choice = search::run_strategy(*s, problem, context, profiler_options(spec, seed));
        } catch (const InputError&) {
          choice = Choice{};  // the strategy cannot pose this problem: nothing found
        }
        modes += choice.cost.modes;
        tries += choice.tries;
        seconds += choice.cost.seconds;
      }
      const search::Outcome o = search::Scorer::evaluate(problem, choice, truth);
      found = found && choice.found;
      met = met && o.budgets_met;
      const double v = o.budgets_met ? search::objective_value(problem, o.actual) : 0;
      value += v;
      const double best = oracles[seg].found ? choice_value(problem, oracles[seg]) : 0;
      ratio_sum += best > 0 ? v / best : (o.budgets_met ? 1 : 0);
      if (choice.found) {
        if (last && *last != choice.mode) ++switches;
        last = choice.mode;
        mode_text = choice.mode.label();
        batch_text.clear();
        for (std::size_t i = 0; i < choice.batch_sizes.size(); ++i) {
          if (i > 0) batch_text += '+';
          batch_text += std::to_string(choice.batch_sizes[i]);
        }
      }
    }
    if (kept_profiler) {
      modes = kept_profiler->cost().modes;
      seconds = kept_profiler->cost().seconds;
    }
    if (reused) {
      modes = prep.reusable_cost[si].modes;
      tries = modes;
      seconds = prep.reusable_cost[si].seconds;
    }
    seconds += static_cast<double>(switches) * spec.settle_s;
    const double segs = static_cast<double>(problems.size());
    // A row that missed a budget in any segment scores 0, as a fixed row that missed does.
    const double ratio = feasible && met ? ratio_sum / segs : 0;
    out += prefix + strategy_label(e) + "," + (found ? "1" : "0") + "," + (met ? "1" : "0") + "," +
           (feasible ? "1" : "0") + "," + num(value / segs) + "," + num(oracle_total / segs) + "," +
           num(ratio, "%.6f") + "," + mode_text + "," + batch_text + "," + std::to_string(modes) +
           "," + std::to_string(tries) + "," + num(seconds, "%.3f") + "," +
           std::to_string(switches) + "," + (reused ? "1" : "0") + "\n";
    // The summary reads the values as the CSV prints them, so that a merge of shards (which
    // reads them back) summarises to the same figures.
    rows.push_back({strategy_label(e), set_key, feasible, met, std::stod(num(ratio, "%.6f")),
                    static_cast<double>(modes), std::stod(num(seconds, "%.3f")), switches, reused});
  }
  return out;
}

std::vector<std::string> strategy_order(const SweepSpec& spec) {
  std::vector<std::string> out;
  for (const StrategyEntry& e : spec.strategies) out.push_back(strategy_label(e));
  return out;
}

}  // namespace

std::string csv_header(const SweepSpec& spec, const std::string& version) {
  std::string strategies;
  for (const std::string& s : strategy_order(spec)) {
    if (!strategies.empty()) strategies += ' ';
    strategies += s;
  }
  return "# fulcrum sweep " + spec.name + ": " + std::to_string(spec.configurations()) +
         " configurations; strategies: " + strategies + "; sweep file " + spec.digest +
         "; fulcrum " + version + "\n" + kColumns + "\n";
}

std::pair<std::size_t, std::size_t> parse_shard(const std::string& text) {
  const std::size_t slash = text.find('/');
  auto parse = [&](const std::string& s) -> std::optional<std::size_t> {
    if (s.empty() || s.size() > 9 ||
        !std::all_of(s.begin(), s.end(), [](char ch) { return ch >= '0' && ch <= '9'; })) {
      return std::nullopt;
    }
    return static_cast<std::size_t>(std::stoul(s));
  };
  if (slash != std::string::npos) {
    const std::optional<std::size_t> k = parse(text.substr(0, slash));
    const std::optional<std::size_t> n = parse(text.substr(slash + 1));
    if (k && n && *k >= 1 && *k <= *n) return {*k, *n};
  }
  throw InputError("--shard: expected K/N with 1 <= K <= N, got '" + text + "'");
}

SweepSummary run_sweep(const SweepSpec& spec, const SweepTruths& truths,
                       const SweepOptions& options, std::ostream& csv) {
  const std::size_t total = spec.configurations();
  const std::size_t begin = total * (options.shard - 1) / options.shards;
  const std::size_t end = total * options.shard / options.shards;
  const unsigned threads = models::thread_count(options.threads);
  const search::StrategyRegistry& registry =
      options.strategies != nullptr ? *options.strategies : search::strategy_registry();
  // The shared work of every (ground truth, workload set) the shard touches.
  const std::size_t per_set = total / (spec.ground_truths.size() * spec.workloads.size());
  std::vector<std::pair<std::size_t, std::size_t>> sets;
  for (std::size_t key = 0; key < spec.ground_truths.size() * spec.workloads.size(); ++key) {
    if (begin < (key + 1) * per_set && key * per_set < end) {
      sets.emplace_back(key / spec.workloads.size(), key % spec.workloads.size());
    }
  }
  // The grid is the sweep's, not a workload set's: an unknown one is reported at `grid`, once
  // per ground truth and before any set is prepared.
  for (std::size_t truth = 0; truth < spec.ground_truths.size(); ++truth) {
    try {
      (void)models::ModeSpace::grid(truths.at(truth).device(), spec.grid);
    } catch (const InputError& e) {
      throw InputError(spec.grid_where, "grid", e.problem());
    }
  }
  std::vector<std::unique_ptr<Prepared>> prepared(sets.size());
  models::parallel_for(0, sets.size(), threads, [&](std::size_t i) {
    prepared[i] = prepare(spec, truths, registry, sets[i].first, sets[i].second);
  });
  auto prep_of = [&](std::size_t index) -> const Prepared& {
    const SweepConfig c = config_at(spec, index);
    for (std::size_t i = 0; i < sets.size(); ++i) {
      if (sets[i].first == c.truth && sets[i].second == c.workloads) return *prepared[i];
    }
    return *prepared.front();
  };
  csv << csv_header(spec, options.version);
  SummaryBuilder summary(strategy_order(spec));
  const std::size_t chunk = 1024;
  for (std::size_t from = begin; from < end; from += chunk) {
    const std::size_t to = std::min(end, from + chunk);
    std::vector<std::string> text(to - from);
    std::vector<std::vector<Row>> rows(to - from);
    models::parallel_for(from, to, threads, [&](std::size_t i) {
      text[i - from] = run_config(spec, truths, registry, prep_of(i), i, rows[i - from]);
    });
    for (std::size_t i = 0; i < text.size(); ++i) {
      csv << text[i];
      for (const Row& r : rows[i]) summary.add(r);
    }
    if (options.progress) options.progress(to - begin, end - begin);
  }
  return summary.finish(spec.name, end - begin);
}

namespace {

// The fields of `line` between its commas, as views into it (into `out`, reused line by line).
void split_csv(std::string_view line, std::vector<std::string_view>& out) {
  out.clear();
  for (std::size_t from = 0;;) {
    const std::size_t comma = line.find(',', from);
    out.push_back(line.substr(from, comma == std::string_view::npos ? comma : comma - from));
    if (comma == std::string_view::npos) return;
    from = comma + 1;
  }
}

}  // namespace

namespace {

// What the first header line of a sweep CSV says.
struct HeaderFacts {
  std::string name;
  std::size_t total = 0;
  std::vector<std::string> order;
  std::string digest;
  std::string version;
};

std::optional<HeaderFacts> read_header(const std::string& comment) {
  const std::string prefix = "# fulcrum sweep ";
  if (comment.rfind(prefix, 0) != 0) return std::nullopt;
  HeaderFacts h;
  const std::size_t colon = comment.find(": ", prefix.size());
  const std::size_t st = comment.find("; strategies: ");
  const std::size_t file = comment.find("; sweep file ");
  const std::size_t version = comment.find("; fulcrum ");
  if (colon == std::string::npos || st == std::string::npos || file == std::string::npos ||
      version == std::string::npos || !(colon < st && st < file && file < version)) {
    return std::nullopt;
  }
  h.name = comment.substr(prefix.size(), colon - prefix.size());
  const std::string count = comment.substr(colon + 2, comment.find(' ', colon + 2) - colon - 2);
  if (count.empty() || count.size() > 18 ||
      !std::all_of(count.begin(), count.end(), [](char ch) { return ch >= '0' && ch <= '9'; })) {
    return std::nullopt;
  }
  h.total = static_cast<std::size_t>(std::stoull(count));
  std::istringstream names(comment.substr(st + 14, file - st - 14));
  for (std::string s; names >> s;) h.order.push_back(s);
  h.digest = comment.substr(file + 13, version - file - 13);
  h.version = comment.substr(version + 10);
  return h;
}

// std::getline without a trailing '\r' (a CRLF file reads as an LF one).
bool get_line(std::istream& in, std::string& line) {
  if (!std::getline(in, line)) return false;
  if (!line.empty() && line.back() == '\r') line.pop_back();
  return true;
}

}  // namespace

namespace {

// merge_sweep() over shards that `open(i)` opens, named files[i] in its errors.
SweepSummary merge_shards(const std::vector<std::string>& files,
                          const std::function<std::unique_ptr<std::istream>(std::size_t)>& open,
                          std::ostream& csv, const std::string& version) {
  if (files.empty()) throw InputError("--merge: no shard files given");
  std::string header;
  HeaderFacts first;
  // config index -> its rows' text, and their summary records.
  std::map<std::size_t, std::pair<std::string, std::vector<Row>>> configs;
  // config index -> the shard (its index in `files`) and line of its first row (for errors).
  std::map<std::size_t, std::pair<std::size_t, int>> first_row;
  for (std::size_t shard = 0; shard < files.size(); ++shard) {
    const std::string& file = files[shard];
    const std::unique_ptr<std::istream> stream = open(shard);
    std::istream& in = *stream;
    std::string comment, columns;
    get_line(in, comment);
    get_line(in, columns);
    const std::optional<HeaderFacts> facts = read_header(comment);
    if (!facts || columns != kColumns) {
      throw InputError(SourceLocation{file, 1, 1}, "",
                       "not a fulcrum sweep CSV of this version (expected its two header lines, "
                       "the first naming the sweep file's digest and the build)");
    }
    if (facts->version != version) {
      throw InputError(SourceLocation{file, 1, 1}, "",
                       "was written by fulcrum " + facts->version + ", not by this build (" +
                           version + "): run its sweep again");
    }
    const std::string this_header = comment + "\n" + columns + "\n";
    if (header.empty()) {
      header = this_header;
      first = *facts;
    } else if (facts->digest != first.digest) {
      throw InputError(SourceLocation{file, 1, 1}, "",
                       "is a shard of another sweep file (digest " + facts->digest + ", " +
                           files[0] + " has " + first.digest + ")");
    } else if (this_header != header) {
      throw InputError(SourceLocation{file, 1, 1}, "",
                       "is a shard of another sweep (its header differs from " + files[0] + "'s)");
    }
    const std::vector<std::string>& order = first.order;
    std::string line;
    std::vector<std::string_view> f;
    for (int line_no = 3; get_line(in, line); ++line_no) {
      const auto here = [&] { return SourceLocation{file, line_no, 1}; };
      split_csv(line, f);
      if (f.size() != 20) {
        throw InputError(here(), "", "expected 20 columns, got " + std::to_string(f.size()));
      }
      const std::string id(f[0]);
      std::size_t index = 0;
      try {
        index = static_cast<std::size_t>(std::stoull(id));
      } catch (const std::exception&) {
        throw InputError(here(), "", "bad configuration index");
      }
      if (index >= first.total) {
        throw InputError(
            here(), "",
            "configuration " + id + " is outside the sweep's " + std::to_string(first.total));
      }
      auto& entry = configs[index];
      if (entry.second.empty()) first_row[index] = {shard, line_no};
      if (entry.second.size() >= order.size() || first_row[index].first != shard) {
        throw InputError(here(), "", "configuration " + id + " appears in more than one shard");
      }
      if (f[6] != order[entry.second.size()]) {
        throw InputError(here(), "",
                         "configuration " + id + ": expected the row of strategy '" +
                             order[entry.second.size()] + "', got '" + std::string(f[6]) + "'");
      }
      Row r;
      try {
        std::string set_key(f[1]);
        set_key.append("/").append(f[2]);
        r = {std::string(f[6]),
             std::move(set_key),
             f[9] == "1",
             f[8] == "1",
             std::stod(std::string(f[12])),
             std::stod(std::string(f[15])),
             std::stod(std::string(f[17])),
             std::stol(std::string(f[18])),
             f[19] == "1"};
      } catch (const std::exception&) {
        throw InputError(here(), "", "a number column does not hold a number");
      }
      entry.first.append(line).append("\n");
      entry.second.push_back(std::move(r));
    }
  }
  for (const auto& [index, entry] : configs) {
    if (entry.second.size() != first.order.size()) {
      throw InputError(
          SourceLocation{files[first_row[index].first], first_row[index].second, 1}, "",
          "configuration " + std::to_string(index) + " has " + std::to_string(entry.second.size()) +
              " of its " + std::to_string(first.order.size()) + " rows (one per strategy)");
    }
  }
  if (configs.size() != first.total) {
    std::size_t missing = 0;
    while (configs.count(missing) != 0) ++missing;
    throw InputError("--merge: the shards hold " + std::to_string(configs.size()) + " of " +
                     std::to_string(first.total) +
                     " configurations (first missing: " + std::to_string(missing) + ")");
  }
  csv << header;
  SummaryBuilder summary(first.order);
  for (const auto& [index, entry] : configs) {
    csv << entry.first;
    for (const Row& r : entry.second) summary.add(r);
  }
  return summary.finish(first.name, first.total);
}

}  // namespace

SweepSummary merge_sweep(const std::vector<std::string>& files, std::ostream& csv,
                         const std::string& version) {
  return merge_shards(
      files,
      [&](std::size_t i) -> std::unique_ptr<std::istream> {
        // A shard is a regular file of bounded size, as every CSV input (a device such as
        // /dev/zero would be read forever, a FIFO would block).
        return std::make_unique<std::ifstream>(models::open_csv_file(files[i], "--merge"));
      },
      csv, version);
}

SweepSummary merge_sweep_parts(std::vector<std::pair<std::string, std::string>> parts,
                               std::ostream& csv, const std::string& version) {
  std::vector<std::string> names;
  for (const auto& part : parts) names.push_back(part.first);
  return merge_shards(
      names,
      [&](std::size_t i) -> std::unique_ptr<std::istream> {
        return std::make_unique<std::istringstream>(std::move(parts[i].second));
      },
      csv, version);
}

std::string format_summary(const SweepSummary& s) {
  std::ostringstream out;
  out << "sweep " << s.name << ": " << s.configurations << " configurations\n";
  char line[256];
  std::snprintf(line, sizeof line, "%-14s %9s %8s %11s %10s %11s %12s %9s\n", "strategy",
                "feasible", "met %", "mean/oracle", "p5/oracle", "modes/conf", "profiling h",
                "switches");
  out << line;
  for (const StrategySummary& t : s.strategies) {
    const double met =
        t.feasible ? 100.0 * static_cast<double>(t.met) / static_cast<double>(t.feasible) : 0;
    std::snprintf(line, sizeof line, "%-14s %9zu %8.2f %11.4f %10.4f %11.2f %12.1f %9zu\n",
                  t.strategy.c_str(), t.feasible, met, t.mean_ratio, t.p5_ratio, t.mean_modes,
                  t.profiling_hours, t.mode_switches);
    out << line;
  }
  return out.str();
}

}  // namespace fulcrum::sim::sweep
