#include "sim/sweep/sweep_spec.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "models/error.hpp"
#include "sim/config/scenario_loader.hpp"
#include "sim/config/search_reader.hpp"
#include "sim/config/yaml_support.hpp"

namespace fulcrum::sim::sweep {

namespace {

constexpr std::size_t kMaxListValues = 100000;
constexpr std::size_t kMaxConfigurations = std::size_t{1} << 40;

std::string number_label(double v) {
  std::ostringstream s;
  s.precision(10);
  s << v;
  return s.str();
}

// A list of numbers: [a, b, ...] or {from: a, to: b, step: s} (both ends included; values
// rounded to 1e-9 so that 0.1 steps land on the decimal values).
std::vector<double> read_values(const YamlNode& n, bool positive) {
  std::vector<double> out;
  auto check = [&](const YamlNode& v) {
    const double x = positive ? v.as_positive_double() : v.as_nonnegative_double();
    return x;
  };
  if (n.is_map()) {
    n.allow_keys({"from", "to", "step"});
    const double from = check(n.required("from"));
    const YamlNode to_node = n.required("to");
    const double to = check(to_node);
    const double step = n.required("step").as_positive_double();
    if (to < from) to_node.fail("must be >= from (" + number_label(from) + ")");
    const double count = std::floor((to - from) / step + 1e-9) + 1;
    if (count > static_cast<double>(kMaxListValues)) {
      n.fail("expands to more than " + std::to_string(kMaxListValues) + " values");
    }
    for (long i = 0; i < static_cast<long>(count); ++i) {
      out.push_back(std::round((from + static_cast<double>(i) * step) * 1e9) / 1e9);
    }
    return out;
  }
  if (n.is_sequence()) {
    if (n.size() == 0) n.fail("needs at least one value");
    if (n.size() > kMaxListValues) {
      n.fail("has more than " + std::to_string(kMaxListValues) + " values");
    }
    for (std::size_t i = 0; i < n.size(); ++i) out.push_back(check(n.at(i)));
    return out;
  }
  out.push_back(check(n));
  return out;
}

std::string read_name(const YamlNode& n) {
  const std::string s = n.as_string();
  if (s.empty()) n.fail("must not be empty");
  if (s.size() > 128) n.fail("must be at most 128 bytes long");
  return s;
}

// The sweep's name, which names its output files: no folder separators, nothing hidden.
std::string read_file_name_part(const YamlNode& n) {
  const std::string s = read_name(n);
  const bool plain = std::all_of(s.begin(), s.end(), [](char ch) {
    return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
           ch == '.' || ch == '_' || ch == '-';
  });
  if (!plain || s.front() == '.') {
    n.fail(
        "must be letters, digits, '.', '_' and '-', not starting with '.' (it names "
        "out/sweep-NAME.csv), got '" +
        s + "'");
  }
  return s;
}

}  // namespace

std::string WorkloadSet::label() const {
  std::string s = training + "/";
  for (std::size_t i = 0; i < inference.size(); ++i) {
    if (i > 0) s += '+';
    s += inference[i];
  }
  return s;
}

std::string ArrivalCase::label() const {
  std::string s;
  for (std::size_t i = 0; i < rates_per_s.size(); ++i) {
    if (i > 0) s += '>';
    s += number_label(rates_per_s[i]);
  }
  return s;
}

std::size_t SweepSpec::configurations() const {
  return ground_truths.size() * workloads.size() * arrivals.size() * latency_budgets_s.size() *
         power_budgets_w.size();
}

SweepConfig config_at(const SweepSpec& spec, std::size_t index) {
  SweepConfig c;
  c.index = index;
  c.power = index % spec.power_budgets_w.size();
  index /= spec.power_budgets_w.size();
  c.latency = index % spec.latency_budgets_s.size();
  index /= spec.latency_budgets_s.size();
  c.arrival = index % spec.arrivals.size();
  index /= spec.arrivals.size();
  c.workloads = index % spec.workloads.size();
  index /= spec.workloads.size();
  c.truth = index;
  return c;
}

search::ProblemRequest request_of(const SweepSpec& spec, std::size_t workload_set) {
  search::ProblemRequest r;
  const WorkloadSet& w = spec.workloads.at(workload_set);
  const std::string key = "workloads[" + std::to_string(workload_set) + "]";
  r.training = search::ProblemRequest::Training{w.training, 16, key + ".training", key};
  for (std::size_t i = 0; i < w.inference.size(); ++i) {
    search::ProblemRequest::Stream s;
    s.workload = w.inference[i];
    s.workload_key = key + ".inference[" + std::to_string(i) + "]";
    r.streams.push_back(std::move(s));
  }
  r.power_kind = spec.power_kind;
  r.objective = spec.objective;
  r.idle_power_w = spec.idle_power_w;
  r.grid = spec.grid;
  return r;
}

search::Problem problem_at(const search::Problem& base, const SweepSpec& spec,
                           const SweepConfig& config, double arrival_per_s) {
  search::Problem p = base;
  for (search::SearchStream& s : p.streams) {
    s.arrival_per_s = arrival_per_s;
    s.latency_budget_s = spec.latency_budgets_s.at(config.latency);
  }
  p.power_budget_w = spec.power_budgets_w.at(config.power);
  return p;
}

namespace {

SweepSpec read_spec(const YamlNode& root, const std::vector<std::string>& known) {
  SweepSpec s;
  s.source = root.file();
  if (root.is_null()) root.fail("empty sweep: expected a map with at least 'version: 1'");
  root.expect_map();
  root.allow_keys({"version", "name", "seed", "grid", "objective", "power_constraint",
                   "idle_power_w", "ground_truth", "workloads", "arrivals", "latency_budget_s",
                   "power_budget_w", "strategies", "profiler"});
  const YamlNode version = root.required("version");
  if (version.as_int() != 1) version.fail("unsupported version (this Fulcrum reads version 1)");
  s.name = read_file_name_part(root.required("name"));
  if (auto n = root.optional("seed")) {
    const std::optional<std::uint64_t> seed = seed_from_text(n->plain_scalar("a seed"));
    if (!seed) n->fail(bad_seed_problem(n->raw().Scalar()));
    s.seed = *seed;
  }
  if (auto n = root.optional("grid")) {
    s.grid = read_name(*n);
    s.grid_where = n->location();
  }
  if (auto n = root.optional("objective")) s.objective = read_objective(*n);
  if (auto n = root.optional("power_constraint")) s.power_kind = read_power_constraint(*n);
  if (auto n = root.optional("idle_power_w")) s.idle_power_w = n->as_nonnegative_double();
  if (auto n = root.optional("ground_truth")) {
    s.ground_truths.clear();
    auto one = [&](const YamlNode& v) {
      const GroundTruthKind t = read_ground_truth(v);
      if (std::find(s.ground_truths.begin(), s.ground_truths.end(), t) != s.ground_truths.end()) {
        v.fail(std::string("'") + to_string(t) + "' is listed twice");
      }
      s.ground_truths.push_back(t);
    };
    if (n->is_sequence()) {
      if (n->size() == 0) n->fail("needs at least one ground truth");
      for (std::size_t i = 0; i < n->size(); ++i) one(n->at(i));
    } else {
      one(*n);
    }
  }
  const YamlNode w = root.required("workloads");
  w.expect_sequence();
  if (w.size() == 0) w.fail("needs at least one workload set");
  for (std::size_t i = 0; i < w.size(); ++i) {
    const YamlNode e = w.at(i);
    e.expect_map();
    e.allow_keys({"training", "inference"});
    WorkloadSet set;
    set.where = e.location();
    set.training = read_name(e.required("training"));
    const YamlNode inf = e.required("inference");
    if (inf.is_sequence()) {
      if (inf.size() < 1 || inf.size() > 2) inf.fail("needs one or two inference workloads");
      for (std::size_t j = 0; j < inf.size(); ++j) set.inference.push_back(read_name(inf.at(j)));
    } else {
      set.inference.push_back(read_name(inf));
    }
    s.workloads.push_back(std::move(set));
  }
  const YamlNode a = root.required("arrivals");
  a.expect_map();
  a.allow_keys({"fixed", "dynamic"});
  if (auto f = a.optional("fixed")) {
    for (double r : read_values(*f, true)) s.arrivals.push_back({{r}});
  }
  if (auto d = a.optional("dynamic")) {
    d->expect_sequence();
    for (std::size_t i = 0; i < d->size(); ++i) {
      const YamlNode seg = d->at(i);
      seg.expect_sequence();
      if (seg.size() < 2) seg.fail("a dynamic case needs at least two rates (one is 'fixed')");
      s.arrivals.push_back({read_values(seg, true)});
    }
  }
  if (s.arrivals.empty()) a.fail("needs 'fixed' rates, 'dynamic' cases or both");
  s.latency_budgets_s = read_values(root.required("latency_budget_s"), true);
  s.power_budgets_w = read_values(root.required("power_budget_w"), true);
  const YamlNode st = root.required("strategies");
  st.expect_sequence();
  if (st.size() == 0) st.fail("needs at least one strategy");
  for (std::size_t i = 0; i < st.size(); ++i) {
    const YamlNode e = st.at(i);
    StrategyEntry entry;
    const YamlNode* name_node = &e;
    std::optional<YamlNode> named;
    if (e.is_map()) {
      e.allow_keys({"name", "max_modes"});
      named = e.required("name");
      name_node = &*named;
      if (auto m = e.optional("max_modes")) entry.max_modes = m->as_positive_int();
    }
    entry.name = read_name(*name_node);
    if (!std::binary_search(known.begin(), known.end(), entry.name)) {
      std::string list;
      for (const std::string& k : known) {
        if (!list.empty()) list += ", ";
        list += k;
      }
      name_node->fail("unknown strategy '" + entry.name + "' (known: " + list + ")");
    }
    for (const StrategyEntry& prev : s.strategies) {
      if (prev.name == entry.name && prev.max_modes == entry.max_modes) {
        name_node->fail("strategy '" + entry.name + "' is listed twice with the same budget");
      }
    }
    s.strategies.push_back(entry);
  }
  if (auto p = root.optional("profiler")) {
    p->expect_map();
    p->allow_keys({"settle_s", "minibatches", "noise"});
    if (auto v = p->optional("settle_s")) s.settle_s = v->as_nonnegative_double();
    if (auto v = p->optional("minibatches")) s.minibatches = v->as_positive_int();
    if (auto v = p->optional("noise")) s.noise = read_profiler_noise(*v);
  }
  const double total =
      static_cast<double>(s.ground_truths.size()) * static_cast<double>(s.workloads.size()) *
      static_cast<double>(s.arrivals.size()) * static_cast<double>(s.latency_budgets_s.size()) *
      static_cast<double>(s.power_budgets_w.size());
  if (total > static_cast<double>(kMaxConfigurations)) {
    root.fail("expands to more than 2^40 configurations");
  }
  return s;
}

}  // namespace

std::string text_digest(const std::string& bytes) {
  std::uint64_t h = 0xcbf29ce484222325ULL;  // FNV-1a offset basis and prime (64-bit)
  for (unsigned char ch : bytes) {
    h ^= ch;
    h *= 0x100000001b3ULL;
  }
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

SweepSpec load_sweep(const std::string& path, const std::vector<std::string>& known) {
  const YamlDoc doc = YamlDoc::load(path);  // a regular file of at most kMaxYamlFileBytes
  SweepSpec s = read_spec(doc.root(), known);
  std::ifstream in(path, std::ios::binary);
  std::ostringstream bytes;
  bytes << in.rdbuf();
  s.digest = text_digest(bytes.str());
  return s;
}

SweepSpec parse_sweep(const std::string& text, const std::string& display_name,
                      const std::vector<std::string>& known) {
  const YamlDoc doc = YamlDoc::parse(text, display_name);
  SweepSpec s = read_spec(doc.root(), known);
  s.digest = text_digest(text);
  return s;
}

}  // namespace fulcrum::sim::sweep
