#include "sim/config/scenario_loader.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <limits>
#include <set>

#include "models/device/power_mode_resolver.hpp"
#include "models/workload/dataset_catalog.hpp"
#include "models/workload/graph_workload.hpp"
#include "models/workload/workload_catalog.hpp"
#include "sim/config/data_dirs.hpp"
#include "sim/config/input_text.hpp"
#include "sim/config/overrides.hpp"
#include "sim/config/pipeline_loader.hpp"
#include "sim/config/search_reader.hpp"
#include "sim/config/trace_loader.hpp"
#include "sim/config/workload_file_loader.hpp"
#include "sim/config/yaml_support.hpp"
#include "sim/scenario/scenario_limits.hpp"

namespace fulcrum::sim {

namespace {

constexpr int kSupportedVersion = 1;

// A bound as it reads in a message: 1e-9, 1e7, 1024, 0.001.
std::string format_number(double v) {
  char buf[64];
  const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  std::string s(buf, ec == std::errc() ? end : buf);
  // to_chars writes exponents as e-09 and e+07.
  if (const auto e = s.find('e'); e != std::string::npos) {
    std::string mantissa = s.substr(0, e);
    std::string exponent = s.substr(e + 1);
    const bool negative = !exponent.empty() && exponent[0] == '-';
    if (!exponent.empty() && (exponent[0] == '-' || exponent[0] == '+')) exponent.erase(0, 1);
    while (exponent.size() > 1 && exponent[0] == '0') exponent.erase(0, 1);
    s = mantissa + "e" + (negative ? "-" : "") + exponent;
  }
  return s;
}

// The documented range of a number: inclusive ends, the unit that follows them, and why each end
// is there (said when a value is past it).
struct Range {
  double min;
  double max;
  const char* unit;  // " s", " ms", "" ...
  const char* why_min;
  const char* why_max;
};

constexpr const char* kWholeNs = "time is counted in whole nanoseconds";
constexpr const char* kLongestRun = "the longest run";

constexpr Range kSpanS{limits::kMinSpanS, limits::kMaxDurationS, " s", kWholeNs, kLongestRun};
constexpr Range kSpanMs{limits::kMinSpanMs, limits::kMaxSpanMs, " ms", kWholeNs, kLongestRun};
constexpr Range kTimesliceUs{limits::kMinTimesliceUs, limits::kMaxTimesliceUs, " us",
                             "a slice of at least 1 ns", "a slice of at most 1 s"};
constexpr Range kContextSwitchUs{0, limits::kMaxContextSwitchUs, " us", "",
                                 "a switch of at most 1 s"};
constexpr Range kWindowRisk{limits::kMinWindowRisk, limits::kMaxWindowRisk, "",
                            "a quantile within double precision",
                            "more would train through most batches"};
constexpr Range kRatePerS{limits::kMinRatePerS, limits::kMaxRatePerS, " requests/s",
                          "at least one request per 1e6 s", "at most one request per microsecond"};
constexpr Range kSegmentStartS{0, limits::kMaxDurationS, " s", "", kLongestRun};
// outputs.max_rows: a way to lift the limit on requests.csv explicitly, not to remove it.
constexpr Range kMaxRows{1, 1e15, " rows", "", ""};
constexpr Range kDatasetScale{limits::kMinDatasetScale, limits::kMaxDatasetScale, "", "", ""};
constexpr Range kRamGb{limits::kMinRamGb, limits::kMaxRamGb, " GB", "", ""};

double read_in(const YamlNode& n, const Range& r) {
  const double v = n.as_double();
  const auto why = [](const char* text) {
    return text[0] != '\0' ? std::string(" (") + text + ")" : std::string();
  };
  if (v < r.min) {
    n.fail("must be >= " + format_number(r.min) + r.unit + why(r.why_min) + ", got " +
           n.raw().Scalar());
  }
  if (v > r.max) {
    n.fail("must be <= " + format_number(r.max) + r.unit + why(r.why_max) + ", got " +
           n.raw().Scalar());
  }
  return v;
}

// A whole number with thousands separators: 100,000,000.
std::string with_commas(double v) {
  const std::string digits = std::to_string(static_cast<unsigned long long>(std::llround(v)));
  std::string out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i != 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

// A period of which a run of `duration_s` holds at most kMaxPeriodsPerRun.
double read_period_s(const YamlNode& n, double duration_s, const char* what) {
  const double v = read_in(n, kSpanS);
  const double min = duration_s / limits::kMaxPeriodsPerRun;
  if (v < min) {
    n.fail("must be >= " + format_number(min) + " s for a " + format_number(duration_s) +
           " s run (at most " + format_number(limits::kMaxPeriodsPerRun) + " " + what +
           " in a run), got " + n.raw().Scalar());
  }
  return v;
}

// Reads one scenario document; remembers which key paths --set touched.
class ScenarioReader {
 public:
  ScenarioReader(std::string base_dir, std::vector<std::string> touched,
                 const std::vector<std::string>* known_strategies)
      : base_dir_(std::move(base_dir)),
        touched_(std::move(touched)),
        known_strategies_(known_strategies) {}

  LoadedScenario read(const YamlNode& root) {
    LoadedScenario out;
    Scenario& s = out.scenario;
    if (root.is_null()) root.fail("empty scenario: expected a map with at least 'version: 1'");
    root.allow_keys({"version", "name", "seed", "duration_s", "device", "gpu_sharing", "training",
                     "inference", "budgets", "search", "outputs"});
    const YamlNode version = root.required("version");
    const long long v = version.as_int();
    if (v != kSupportedVersion) {
      version.fail("unsupported version " + std::to_string(v) + " (this Fulcrum reads version " +
                   std::to_string(kSupportedVersion) + ")");
    }
    s.version = kSupportedVersion;
    s.source_path = root.file();
    s.name = default_name(root.file());
    if (auto n = root.optional("name")) s.name = read_scenario_name(*n);
    if (auto n = root.optional("seed")) s.seed = read_seed(*n);
    if (auto n = root.optional("duration_s")) s.duration_s = read_in(*n, kSpanS);
    if (auto n = root.optional("device")) s.device = read_device(*n, out.sources);
    if (auto n = root.optional("gpu_sharing")) s.gpu_sharing = read_gpu_sharing(*n);
    if (auto n = root.optional("training"); n && !n->is_null()) {
      s.training = read_training(*n, out.sources, out.warnings);
    }
    if (auto n = root.optional("inference"); n && !n->is_null()) {
      s.inference = read_inference(*n, out.sources);
    }
    if (!s.training && s.inference.empty()) {
      root.fail("nothing to run: give a 'training' job, an 'inference' stream, or both");
    }
    if (auto n = root.optional("budgets")) s.budgets = read_budgets(*n, s.duration_s);
    if (auto n = root.optional("search"))
      s.search = read_search(*n, out.sources, known_strategies_);
    s.outputs = read_outputs(root.optional("outputs"), s, root);
    return out;
  }

 private:
  SourceLocation where(const YamlNode& n) const {
    return is_overridden(n.path(), touched_) ? override_location() : n.location();
  }

  static std::string default_name(const std::string& file) {
    std::string stem = std::filesystem::path(file).stem().string();
    std::string out;
    for (char c : stem) out += is_name_char(c) ? c : '-';
    if (out.empty() || out[0] == '.') out = "scenario" + out;
    return out;
  }

  static bool is_name_char(char c) {
    return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '-' || c == '_' || c == '.';
  }

  // A name (of a stream, a workload, a device...), or a path when `max_bytes` says so; the text
  // itself is printable UTF-8 (checked when the YAML was read).
  static std::string read_nonempty(const YamlNode& n, int max_bytes = limits::kMaxNameBytes) {
    std::string s = n.as_string();
    if (s.empty()) n.fail("must not be empty");
    if (s.size() > static_cast<std::size_t>(max_bytes)) {
      n.fail("must be at most " + std::to_string(max_bytes) + " bytes long, got " +
             std::to_string(s.size()));
    }
    return s;
  }

  // The scenario name is also the default output folder, so it is kept to a safe file name.
  static std::string read_scenario_name(const YamlNode& n) {
    std::string s = read_nonempty(n);
    const bool ok = std::all_of(s.begin(), s.end(), is_name_char) && s[0] != '.';
    if (!ok)
      n.fail("'" + s +
             "' is not a valid name (letters, digits, '-', '_', '.'; not starting with '.')");
    return s;
  }

  // The same rule as --seed's.
  static std::uint64_t read_seed(const YamlNode& n) {
    const std::string& text = n.plain_scalar("an integer");
    const std::optional<std::uint64_t> seed = seed_from_text(text);
    if (!seed) n.fail(bad_seed_problem(text));
    return *seed;
  }

  static int read_int_in(const YamlNode& n, long long lo, long long hi) {
    const long long v = n.as_int();
    if (v < lo || v > hi) {
      n.fail("must be an integer in " + std::to_string(lo) + ".." + std::to_string(hi) + ", got " +
             std::to_string(v));
    }
    return static_cast<int>(v);
  }

  static int read_batch_size(const YamlNode& n) { return read_int_in(n, 1, limits::kMaxBatchSize); }

  // A list of at most `max` elements.
  static std::size_t read_list_size(const YamlNode& n, int max, const char* what) {
    const std::size_t size = n.size();
    if (size > static_cast<std::size_t>(max)) {
      n.fail("at most " + std::to_string(max) + " " + what + ", got " + std::to_string(size));
    }
    return size;
  }

  DeviceChoice read_device(const YamlNode& n, ScenarioSources& sources) const {
    n.allow_keys(
        {"model", "power_mode", "cores", "cpu_mhz", "gpu_mhz", "emc_mhz", "perf_model", "ram_gb"});
    DeviceChoice d;
    if (auto m = n.optional("ram_gb")) d.ram_gb = read_in(*m, kRamGb);
    if (auto m = n.optional("perf_model")) d.perf_model = read_perf_model(*m, sources);
    if (auto m = n.optional("model")) {
      d.model = read_nonempty(*m);
      sources.record("device.model", where(*m));
    } else {
      sources.record("device.model", where(n));
    }
    const bool custom = n.has("cores") || n.has("cpu_mhz") || n.has("gpu_mhz") || n.has("emc_mhz");
    if (auto p = n.optional("power_mode")) {
      if (custom) {
        // Blame the key that --set added, not the file's own line: the user's conflict is there.
        for (const char* key : {"cores", "cpu_mhz", "gpu_mhz", "emc_mhz"}) {
          if (auto c = n.optional(key); c && where(*c).file == override_location().file &&
                                        where(*p).file != override_location().file) {
            c->fail("the scenario names the preset power_mode " + p->raw().Scalar() +
                    "; give either a preset or cores/cpu_mhz/gpu_mhz/emc_mhz, not both");
          }
        }
        p->fail("give either a preset power_mode or cores/cpu_mhz/gpu_mhz/emc_mhz, not both");
      }
      d.preset = read_nonempty(*p);
      sources.record("device.power_mode", where(*p));
    }
    if (custom) {
      // 0 is not "the maximum" (an absent key is): say so, since 0 is what people try.
      models::ModeRequest r;
      if (auto c = n.optional("cores")) {
        if (c->as_int() == 0) {
          c->fail("must be >= 1, got " + c->raw().Scalar() +
                  " (omit the key for all of the device's cores)");
        }
        r.cores = read_int_in(*c, 1, limits::kMaxCores);
        sources.record("device.cores", where(*c));
      }
      auto mhz = [&](const char* key, std::optional<double>& field) {
        if (auto f = n.optional(key)) {
          if (f->as_double() == 0) {
            f->fail("must be > 0, got " + f->raw().Scalar() +
                    " (omit the key for the table's highest frequency)");
          }
          field = f->as_positive_double();
          sources.record(f->path(), where(*f));
        }
      };
      mhz("cpu_mhz", r.cpu_mhz);
      mhz("gpu_mhz", r.gpu_mhz);
      mhz("emc_mhz", r.emc_mhz);
      d.custom = r;
      sources.record("device", where(n));
    }
    return d;
  }

  // `analytic`, `analytic-modes`, or `{table: PATH}` / `{table: [PATH, ...]}` (profile CSVs,
  // relative to the scenario's folder).
  PerfModelChoice read_perf_model(const YamlNode& n, ScenarioSources& sources) const {
    if (n.is_scalar()) {
      const std::string s = n.as_string();
      if (s == "analytic") return AnalyticPerfModel{};
      if (s == "analytic-modes") {
        sources.record("device.perf_model", where(n));  // the device may have no calibration
        return AnalyticModesPerfModel{};
      }
      if (s == "table") n.fail("a table model needs its profile CSV: perf_model: {table: PATH}");
      n.fail("unknown perf_model '" + s + "' (known: analytic, analytic-modes, {table: PATH})");
    }
    n.allow_keys({"table"});
    const YamlNode table = n.required("table");
    TablePerfModel t;
    auto add = [&](const YamlNode& path) {
      t.paths.push_back(resolve_data_path(path, "profile CSV"));
      sources.record(path.path(), where(path));
    };
    if (table.is_scalar()) {
      add(table);
    } else {
      const std::size_t count = read_list_size(table, limits::kMaxProfileTables, "profile CSVs");
      if (count == 0) table.fail("needs at least one profile CSV");
      for (std::size_t i = 0; i < count; ++i) add(table.at(i));
    }
    sources.record("device.perf_model", where(n));
    return t;
  }

  // A workload: a catalog name, or a workload file (a path ending in .yaml or .yml, relative to
  // the scenario's folder), read now and added to the catalog; its workload's name either way.
  std::string read_workload(const YamlNode& w) const {
    if (!names_workload_file(w.as_string())) return read_nonempty(w);
    const std::string path = resolve_data_path(w, "workload file");
    try {
      return add_workload_file(path);
    } catch (const InputError& e) {
      if (e.where() && e.where()->line > 0) throw;  // a line of the workload file
      throw InputError(where(w), w.path(), e.problem());
    }
  }

  // A path given in the scenario: relative to the scenario's folder, or to the reference folder
  // when it starts with ${FULCRUM_REFERENCE_DIR}; it must name a file.
  std::string resolve_data_path(const YamlNode& path, const std::string& what) const {
    const std::string rel = expand_reference_dir(read_nonempty(path, limits::kMaxPathBytes));
    std::filesystem::path p(rel);
    if (p.is_relative()) p = std::filesystem::path(base_dir_) / p;
    const std::string resolved = p.lexically_normal().string();
    std::error_code ec;
    if (!std::filesystem::exists(p, ec)) {
      throw InputError(
          where(path), path.path(),
          "cannot open " + what + " '" + printable(resolved, 4096) + "': no such file");
    }
    if (!std::filesystem::is_regular_file(p, ec)) {
      throw InputError(
          where(path), path.path(),
          "cannot open " + what + " '" + printable(resolved, 4096) + "': not a regular file");
    }
    return resolved;
  }

  static GpuSharing read_gpu_sharing(const YamlNode& n) {
    GpuSharing g;
    if (n.is_scalar()) {
      g.policy = read_policy(n);
      return g;
    }
    n.allow_keys({"policy", "variant", "risk", "timeslice_us", "context_switch_us"});
    g.policy = read_policy(n.required("policy"));
    for (const char* key : {"timeslice_us", "context_switch_us"}) {
      if (auto f = n.optional(key); f && g.policy != SharingPolicy::native) {
        f->fail("applies only to policy: native");
      }
    }
    if (auto v = n.optional("variant")) {
      if (g.policy != SharingPolicy::managed) v->fail("applies only to policy: managed");
      g.variant = read_variant(*v);
    }
    if (auto r = n.optional("risk")) {
      if (g.policy != SharingPolicy::managed || g.variant != ManagedVariant::windowed) {
        r->fail("applies only to policy: managed with variant: windowed");
      }
      g.risk = read_in(*r, kWindowRisk);
    }
    const std::optional<YamlNode> slice = n.optional("timeslice_us");
    const std::optional<YamlNode> change = n.optional("context_switch_us");
    if (slice) g.timeslice_us = read_in(*slice, kTimesliceUs);
    if (change) g.context_switch_us = read_in(*change, kContextSwitchUs);
    // Contexts get at least 1/1001 of the GPU: a completion stretched further could overflow.
    if (g.context_switch_us > limits::kMaxSwitchPerSlice * g.timeslice_us) {
      const std::string rule =
          "context_switch_us must be <= " + format_number(limits::kMaxSwitchPerSlice) +
          " x timeslice_us (the GPU runs work at least 1/1001 of the time)";
      if (change) {
        change->fail(rule + ", got " + change->raw().Scalar() + " with timeslice_us " +
                     format_number(g.timeslice_us));
      }
      slice->fail(rule + ", got " + slice->raw().Scalar() + " with the default context_switch_us " +
                  format_number(g.context_switch_us));
    }
    return g;
  }

  static SharingPolicy read_policy(const YamlNode& n) {
    const std::string s = n.as_string();
    for (SharingPolicy p :
         {SharingPolicy::managed, SharingPolicy::native, SharingPolicy::sequential}) {
      if (s == to_string(p)) return p;
    }
    n.fail("unknown policy '" + s + "' (known: managed, native, sequential)");
  }

  static ManagedVariant read_variant(const YamlNode& n) {
    const std::string s = n.as_string();
    for (ManagedVariant v : {ManagedVariant::windowed, ManagedVariant::greedy}) {
      if (s == to_string(v)) return v;
    }
    n.fail("unknown variant '" + s + "' (known: windowed, greedy)");
  }

  TrainingSpec read_training(const YamlNode& n, ScenarioSources& sources,
                             std::vector<std::string>& warnings) const {
    n.allow_keys({"workload", "dataset", "batch_size", "epochs", "dataloader", "data_pipeline"});
    TrainingSpec t;
    const YamlNode w = n.required("workload");
    t.workload = read_workload(w);
    sources.record(w.path(), where(w));
    const YamlNode d = n.required("dataset");
    t.dataset = read_nonempty(d);
    sources.record(d.path(), where(d));
    if (auto b = n.optional("batch_size")) t.batch_size = read_batch_size(*b);
    if (auto e = n.optional("epochs")) t.epochs = read_int_in(*e, 1, limits::kMaxEpochs);
    const std::optional<YamlNode> pipeline = n.optional("data_pipeline");
    if (auto f = pipeline) {
      const std::string kind = f->as_string();
      if (kind == to_string(DataPipelineKind::none)) {
        t.data_pipeline = DataPipelineKind::none;
      } else if (kind == to_string(DataPipelineKind::dataloader)) {
        t.data_pipeline = DataPipelineKind::dataloader;
      } else {
        f->fail("unknown data_pipeline '" + kind + "' (known: none, dataloader)");
      }
    }
    if (auto dl = n.optional("dataloader")) {
      dl->allow_keys({"workers", "prefetch_factor", "storage", "dataset_scale"});
      if (auto f = dl->optional("dataset_scale")) {
        t.dataloader.dataset_scale = read_in(*f, kDatasetScale);
        sources.record(f->path(), where(*f));
      }
      if (auto f = dl->optional("workers"))
        t.dataloader.workers = read_int_in(*f, 0, limits::kMaxWorkers);
      if (auto f = dl->optional("prefetch_factor"))
        t.dataloader.prefetch_factor = read_int_in(*f, 1, limits::kMaxPrefetchFactor);
      if (auto f = dl->optional("storage")) {
        t.dataloader.storage = read_nonempty(*f);
        sources.record(f->path(), where(*f));
      }
      // workers, prefetch_factor and storage describe the dataloader: given, they ask for it,
      // unless data_pipeline says otherwise, which then leaves them inert and says so.
      // (dataset_scale alone scales the epoch under either pipeline.)
      std::optional<YamlNode> first_dataloader_key;
      for (const char* key : {"workers", "prefetch_factor", "storage"}) {
        if (!first_dataloader_key) first_dataloader_key = dl->optional(key);
      }
      if (first_dataloader_key && !pipeline) {
        t.data_pipeline = DataPipelineKind::dataloader;
      } else if (first_dataloader_key && t.data_pipeline == DataPipelineKind::none) {
        warnings.push_back(
            InputError(where(*first_dataloader_key), first_dataloader_key->path(),
                       "ignored: data_pipeline is none, so the dataloader block's workers, "
                       "prefetch_factor and storage change nothing (remove them, or set "
                       "data_pipeline: dataloader)")
                .what());
      }
    }
    return t;
  }

  std::vector<InferenceStreamSpec> read_inference(const YamlNode& list,
                                                  ScenarioSources& sources) const {
    std::vector<InferenceStreamSpec> out;
    std::set<std::string> names;
    const std::size_t count = read_list_size(list, limits::kMaxStreams, "inference streams");
    for (std::size_t i = 0; i < count; ++i) {
      const YamlNode n = list.at(i);
      n.allow_keys({"name", "workload", "batch_size", "max_wait_ms", "arrivals"});
      InferenceStreamSpec s;
      const YamlNode w = n.required("workload");
      s.workload = read_workload(w);
      sources.record(w.path(), where(w));
      s.name = s.workload + "-" + std::to_string(i);
      if (auto f = n.optional("name")) s.name = read_nonempty(*f);
      if (!names.insert(s.name).second) {
        (n.has("name") ? n.required("name") : n).fail("duplicate stream name '" + s.name + "'");
      }
      if (auto f = n.optional("batch_size")) s.batch_size = read_batch_size(*f);
      if (auto f = n.optional("max_wait_ms")) s.max_wait_ms = read_in(*f, kSpanMs);
      s.arrivals = read_arrivals(n.required("arrivals"));
      out.push_back(std::move(s));
    }
    return out;
  }

  ArrivalSpec read_arrivals(const YamlNode& n) const {
    n.expect_map();
    const YamlNode process = n.required("process");
    const std::string kind = process.as_string();
    if (kind == "fixed" || kind == "poisson") {
      n.allow_keys({"process", "rate_per_s"});
      const double rate = read_in(n.required("rate_per_s"), kRatePerS);
      if (kind == "fixed") return FixedArrivals{rate};
      return PoissonArrivals{rate};
    }
    if (kind == "piecewise") {
      n.allow_keys({"process", "segments", "poisson"});
      PiecewiseArrivals p;
      if (auto f = n.optional("poisson")) p.poisson = f->as_bool();
      const YamlNode segs = n.required("segments");
      const std::size_t count = read_list_size(segs, limits::kMaxSegments, "segments");
      if (count == 0) segs.fail("needs at least one segment");
      bool any_rate = false;
      for (std::size_t i = 0; i < count; ++i) {
        const YamlNode seg = segs.at(i);
        seg.allow_keys({"start_s", "rate_per_s"});
        RateSegment r;
        const YamlNode start = seg.required("start_s");
        r.start_s = read_in(start, kSegmentStartS);
        if (i == 0 && r.start_s != 0) start.fail("the first segment must start at 0");
        if (i > 0 && !(r.start_s > p.segments.back().start_s)) {
          start.fail("segment starts must be ascending, got " + format_number(r.start_s) +
                     " after " + format_number(p.segments.back().start_s));
        }
        // 0 is a silent segment; any other rate is a stream's.
        const YamlNode rate = seg.required("rate_per_s");
        r.rate_per_s = rate.as_double() == 0 ? 0.0 : read_in(rate, kRatePerS);
        any_rate = any_rate || r.rate_per_s > 0;
        p.segments.push_back(r);
      }
      if (!any_rate)
        segs.fail("every segment has rate_per_s 0: the stream would never see a request");
      return p;
    }
    if (kind == "trace") {
      n.allow_keys({"process", "path"});
      TraceArrivals t;
      t.path = resolve_data_path(n.required("path"), "trace file");
      t.arrival_s = load_arrival_trace(t.path);
      return t;
    }
    process.fail("unknown arrival process '" + kind +
                 "' (known: fixed, poisson, piecewise, trace)");
  }

  static Budgets read_budgets(const YamlNode& n, double duration_s) {
    n.allow_keys({"latency_ms", "latency_percentile", "power_w", "power_kind", "power_window_s"});
    Budgets b;
    if (auto f = n.optional("latency_ms")) b.latency_ms = read_in(*f, kSpanMs);
    if (auto f = n.optional("latency_percentile")) {
      const double p = f->as_double();
      if (p != 50 && p != 95 && p != 99 && p != 100) {
        f->fail("must be one of 50, 95, 99, 100, got " + f->as_string());
      }
      b.latency_percentile = p;
    }
    if (auto f = n.optional("power_w")) b.power_w = f->as_positive_double();
    if (auto f = n.optional("power_kind")) {
      const std::string k = f->as_string();
      if (k == "average") {
        b.power_kind = PowerBudgetKind::average;
      } else if (k == "max_window") {
        b.power_kind = PowerBudgetKind::max_window;
      } else {
        f->fail("unknown power_kind '" + k + "' (known: average, max_window)");
      }
    }
    if (auto f = n.optional("power_window_s")) {
      b.power_window_s = read_period_s(*f, duration_s, "windows");
    }
    return b;
  }

  // The `search:` block; its values through the reader sweep files share (search_reader.hpp).
  static SearchSpec read_search(const YamlNode& n, ScenarioSources& sources,
                                const std::vector<std::string>* known_strategies) {
    n.allow_keys({"strategy", "batch_sizes", "modes", "max_modes", "power_constraint", "objective",
                  "ground_truth", "seed", "noise"});
    SearchSpec s;
    if (auto f = n.optional("strategy")) {
      s.strategy = read_strategy_name(*f, known_strategies);
      sources.record("search.strategy", f->location());
    }
    if (auto f = n.optional("max_modes")) s.max_modes = f->as_positive_int();
    if (auto f = n.optional("power_constraint")) s.power_constraint = read_power_constraint(*f);
    if (auto f = n.optional("objective")) s.objective = read_objective(*f);
    if (auto f = n.optional("ground_truth")) s.ground_truth = read_ground_truth(*f);
    if (auto f = n.optional("seed")) s.seed = read_seed(*f);
    if (auto f = n.optional("noise")) s.noise = read_profiler_noise(*f);
    if (auto f = n.optional("modes")) sources.record("search.modes", f->location());
    if (auto f = n.optional("batch_sizes")) {
      sources.record("search.batch_sizes", f->location());
      s.batch_sizes.clear();
      const std::size_t count = read_list_size(*f, limits::kMaxSearchBatchSizes, "batch sizes");
      if (count == 0) f->fail("needs at least one batch size");
      for (std::size_t i = 0; i < count; ++i) s.batch_sizes.push_back(read_batch_size(f->at(i)));
    }
    if (auto f = n.optional("modes")) s.modes = read_nonempty(*f);
    return s;
  }

  // Requests a stream's arrival process brings in [0, duration): exact for evenly spaced ones,
  // the mean for Poisson ones.
  static double expected_arrivals(const ArrivalSpec& arrivals, double duration_s) {
    if (const auto* f = std::get_if<FixedArrivals>(&arrivals)) {
      return std::ceil(f->rate_per_s * duration_s);
    }
    if (const auto* p = std::get_if<PoissonArrivals>(&arrivals)) return p->rate_per_s * duration_s;
    if (const auto* t = std::get_if<TraceArrivals>(&arrivals)) {
      return static_cast<double>(std::count_if(t->arrival_s.begin(), t->arrival_s.end(),
                                               [&](double a) { return a < duration_s; }));
    }
    const auto& pw = std::get<PiecewiseArrivals>(arrivals);
    double total = 0;
    for (std::size_t i = 0; i < pw.segments.size(); ++i) {
      const double begin = pw.segments[i].start_s;
      const double end = std::min(
          i + 1 < pw.segments.size() ? pw.segments[i + 1].start_s : duration_s, duration_s);
      if (end <= begin) continue;
      const double n = (end - begin) * pw.segments[i].rate_per_s;
      total += pw.poisson ? n : std::ceil(n);
    }
    return total;
  }

  // `n` absent: every default. Refuses (located at the key that asks for it) a requests.csv of
  // more than max_rows rows, which would otherwise fill a disk and take hours to write; power.csv
  // is bounded by power_sample_s's own range (at most 1e8 samples in a run).
  OutputsSpec read_outputs(const std::optional<YamlNode>& n, const Scenario& s,
                           const YamlNode& root) const {
    OutputsSpec o;
    if (n) {
      n->allow_keys(
          {"requests", "minibatches", "epochs", "power", "trace", "power_sample_s", "max_rows"});
      if (auto f = n->optional("requests")) o.requests = f->as_bool();
      if (auto f = n->optional("minibatches")) o.minibatches = f->as_bool();
      if (auto f = n->optional("epochs")) o.epochs = f->as_bool();
      if (auto f = n->optional("power")) o.power = f->as_bool();
      if (auto f = n->optional("trace")) o.trace = f->as_bool();
      if (auto f = n->optional("power_sample_s")) {
        o.power_sample_s = read_period_s(*f, s.duration_s, "samples");
      }
      if (auto f = n->optional("max_rows")) {
        o.max_rows = static_cast<std::uint64_t>(read_in(*f, kMaxRows));
      }
    }
    if (o.requests) {
      double rows = 0;
      for (const InferenceStreamSpec& stream : s.inference) {
        rows += expected_arrivals(stream.arrivals, s.duration_s);
      }
      if (rows > static_cast<double>(o.max_rows)) {
        // Blame the key itself, else the limit, else the outputs map, else the duration.
        std::optional<YamlNode> at = n ? n->optional("requests") : std::nullopt;
        if (!at && n) at = n->optional("max_rows");
        if (!at) at = n;
        if (!at) at = root.optional("duration_s");
        throw InputError(where(at ? *at : root), "outputs.requests",
                         "requests.csv would have about " + with_commas(rows) +
                             " rows (one per request arriving in " + format_number(s.duration_s) +
                             " s), more than outputs.max_rows = " +
                             with_commas(static_cast<double>(o.max_rows)) +
                             ": set outputs.requests: false, shorten duration_s, or raise "
                             "outputs.max_rows");
      }
    }
    return o;
  }

  std::string base_dir_;
  std::vector<std::string> touched_;
  const std::vector<std::string>* known_strategies_;  // null: kStrategyNames
};

LoadedScenario read_document(YamlDoc& doc, const std::vector<std::string>& overrides,
                             const std::string& base_dir,
                             const std::vector<std::string>* known_strategies = nullptr) {
  const std::vector<std::string> touched = apply_overrides(doc.raw(), overrides);
  try {
    return ScenarioReader(base_dir, touched, known_strategies).read(doc.root());
  } catch (const InputError& e) {
    // A value that came from --set has no place in the file; point at the command line.
    if (!e.key_path().empty() && is_overridden(e.key_path(), touched)) {
      throw e.located(override_location(), e.key_path());
    }
    throw;
  }
}

// Re-throws a location-less model error at the key the value came from.
template <typename F>
decltype(auto) located_call(const ScenarioSources* sources, const std::string& key_path, F&& f) {
  try {
    return f();
  } catch (const InputError& e) {
    if (e.where()) throw;
    std::optional<SourceLocation> at = sources ? sources->find(key_path) : std::nullopt;
    throw InputError(at, key_path, e.problem());
  }
}

// The workload `name` for `phase`: a workload file may be for one phase only.
const models::Workload& workload_for(const ScenarioSources* sources, const std::string& key_path,
                                     const std::string& name, models::Phase phase) {
  return located_call(sources, key_path, [&]() -> const models::Workload& {
    const models::Workload& w = models::workload_catalog().get(name);
    if (w.graph() != nullptr && !w.graph()->supports(phase)) {
      std::string phases;
      for (models::Phase p : w.graph()->use().phases)
        phases += (phases.empty() ? "" : ", ") + std::string(models::to_string(p));
      throw InputError("workload '" + name + "' is not for " + models::to_string(phase) +
                       " (its file says phases: [" + phases + "])");
    }
    return w;
  });
}

// A training job's samples are what its workload reads: token ids for a {T} input (an
// embedding's), images for a {C, H, W} one. Other inputs (a {T, features} sequence) take any.
void check_samples_fit(const models::Workload& workload, const models::DatasetSpec& data) {
  const models::GraphWorkload* g = workload.graph();
  if (g == nullptr) return;
  const models::Shape& input = g->layers().shape(0);
  const bool reads_tokens = input.rank() == 1;
  const bool reads_images = input.rank() == 3;
  if ((reads_tokens && !data.tokens) || (reads_images && data.tokens)) {
    throw InputError("dataset '" + data.name + "' holds " +
                     (data.tokens ? "token sequences" : "images") + ", but workload '" +
                     workload.name() + "' reads " + (reads_tokens ? "token ids " : "images ") +
                     models::to_string(input));
  }
}

ResolvedScenario resolve_impl(const Scenario& s, const ScenarioSources* sources,
                              const models::DeviceCatalog& devices) {
  add_data_workloads(default_data_dir());
  ResolvedScenario r;
  r.scenario = s;
  const models::DeviceSpec& device =
      located_call(sources, "device.model",
                   [&]() -> const models::DeviceSpec& { return devices.get(s.device.model); });
  r.device = &device;
  if (s.device.preset) {
    r.mode = located_call(sources, "device.power_mode",
                          [&] { return models::resolve_preset(device, *s.device.preset); });
  } else if (s.device.custom) {
    // Check each given field alone first (the others absent: the device maximum) so that an
    // error names its key.
    const models::ModeRequest& req = *s.device.custom;
    auto check = [&](const char* key, models::ModeRequest one) {
      located_call(sources, std::string("device.") + key,
                   [&] { return models::resolve_request(device, one); });
    };
    if (req.cores) check("cores", {.cores = req.cores});
    if (req.cpu_mhz) check("cpu_mhz", {.cpu_mhz = req.cpu_mhz});
    if (req.gpu_mhz) check("gpu_mhz", {.gpu_mhz = req.gpu_mhz});
    if (req.emc_mhz) check("emc_mhz", {.emc_mhz = req.emc_mhz});
    r.mode = located_call(sources, "device", [&] { return models::resolve_request(device, req); });
  } else {
    r.mode = located_call(sources, "device.model", [&] { return models::default_mode(device); });
  }
  if (s.training) {
    r.training_workload =
        &workload_for(sources, "training.workload", s.training->workload, models::Phase::training);
    r.training_dataset_samples = located_call(sources, "training.dataset", [&] {
      const models::DatasetSpec& data = models::dataset(s.training->dataset);
      check_samples_fit(*r.training_workload, data);
      return std::floor(static_cast<double>(data.samples) * s.training->dataloader.dataset_scale);
    });
    if (s.training->data_pipeline == DataPipelineKind::dataloader &&
        r.training_dataset_samples > limits::kMaxPipelineSamples) {
      const std::string key = "training.dataloader.dataset_scale";
      const auto at = sources != nullptr ? sources->find(key) : std::nullopt;
      throw InputError(at ? at : (sources ? sources->find("training.dataset") : std::nullopt),
                       at ? key : "training.dataset",
                       "the dataloader model handles at most 1e7 samples per epoch, the scaled "
                       "dataset has " +
                           format_number(r.training_dataset_samples));
    }
  }
  for (std::size_t i = 0; i < s.inference.size(); ++i) {
    const std::string key = "inference[" + std::to_string(i) + "].workload";
    r.inference_workloads.push_back(
        &workload_for(sources, key, s.inference[i].workload, models::Phase::inference));
  }
  return r;
}

}  // namespace

std::optional<std::uint64_t> seed_from_text(std::string_view text) {
  const char* first = text.data();
  const char* last = text.data() + text.size();
  if (first != last && *first == '+') ++first;
  // from_chars alone would accept neither a sign nor anything but digits, but check digits first
  // so that "+-1" is not read as a negative number wrapped around.
  if (first == last || !std::all_of(first, last, [](char c) { return c >= '0' && c <= '9'; })) {
    return std::nullopt;
  }
  std::uint64_t v = 0;
  const auto [ptr, ec] = std::from_chars(first, last, v);
  if (ec != std::errc() || ptr != last) return std::nullopt;
  return v;
}

std::string bad_seed_problem(std::string_view text) {
  return "must be an integer in 0.." + std::to_string(std::numeric_limits<std::uint64_t>::max()) +
         ", got '" + printable(text) + "'";
}

void ScenarioSources::record(const std::string& key_path, SourceLocation where) {
  by_path_[key_path] = std::move(where);
}

std::optional<SourceLocation> ScenarioSources::find(const std::string& key_path) const {
  auto it = by_path_.find(key_path);
  if (it == by_path_.end()) return std::nullopt;
  return it->second;
}

LoadedScenario parse_scenario(const std::string& text, const std::string& display_name,
                              const std::vector<std::string>& overrides,
                              const std::string& base_dir) {
  YamlDoc doc = YamlDoc::parse(text, display_name);
  return read_document(doc, overrides, base_dir);
}

LoadedScenario load_scenario_with_sources(const std::string& path,
                                          const std::vector<std::string>& overrides,
                                          const std::vector<std::string>* known_strategies) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    throw InputError(SourceLocation{printable(path, 4096), 0, 0}, "",
                     "is a directory, expected a scenario file");
  }
  YamlDoc doc = YamlDoc::load(path);
  std::string base = std::filesystem::path(path).parent_path().string();
  if (base.empty()) base = ".";
  return read_document(doc, overrides, base, known_strategies);
}

Scenario load_scenario(const std::string& path, const std::vector<std::string>& overrides) {
  return load_scenario_with_sources(path, overrides).scenario;
}

RunSetup ResolvedScenario::setup() const {
  RunSetup s;
  s.scenario = &scenario;
  s.device = device;
  s.mode = mode;
  s.training_workload = training_workload;
  s.training_dataset_samples = training_dataset_samples;
  s.inference_workloads = inference_workloads;
  return s;
}

ResolvedScenario resolve(const LoadedScenario& loaded, const models::DeviceCatalog& devices) {
  return resolve_impl(loaded.scenario, &loaded.sources, devices);
}

ResolvedScenario resolve(const Scenario& scenario, const models::DeviceCatalog& devices) {
  return resolve_impl(scenario, nullptr, devices);
}

void check_predictable(const LoadedScenario& loaded, const ResolvedScenario& resolved,
                       const models::PerfModel& model) {
  const Scenario& s = resolved.scenario;
  const auto check = [&](const std::string& key, const models::Workload& w, models::Phase phase,
                         int batch_size) {
    located_call(&loaded.sources, key, [&] {
      return model.predict({*resolved.device, resolved.mode, w, phase, batch_size});
    });
  };
  if (s.training && resolved.training_workload != nullptr) {
    check("training.workload", *resolved.training_workload, models::Phase::training,
          s.training->batch_size);
  }
  for (std::size_t i = 0; i < s.inference.size() && i < resolved.inference_workloads.size(); ++i) {
    check("inference[" + std::to_string(i) + "].workload", *resolved.inference_workloads[i],
          models::Phase::inference, s.inference[i].batch_size);
  }
  located_call(&loaded.sources, "device.perf_model",
               [&] { return model.idle_power(*resolved.device, resolved.mode); });
}

std::optional<models::PipelineData> load_pipeline(const LoadedScenario& loaded,
                                                  const ResolvedScenario& resolved,
                                                  const std::string& data_dir) {
  const Scenario& s = resolved.scenario;
  if (!s.training || s.training->data_pipeline != DataPipelineKind::dataloader) return std::nullopt;
  const TrainingSpec& t = *s.training;
  models::PipelineData d = located_call(&loaded.sources, "training.dataloader.storage", [&] {
    return load_pipeline_data(data_dir, t.dataloader.storage);
  });
  d.format = located_call(&loaded.sources, "training.dataset",
                          [&] { return d.dataloader.format_of(t.dataset); });
  d.bytes_per_sample = located_call(&loaded.sources, "training.dataset", [&] {
    const models::DatasetSpec& spec = models::dataset(t.dataset);
    if (!spec.bytes || !(spec.samples > 0)) {
      throw InputError(
          "the dataloader needs the dataset's size on storage, which the catalog "
          "does not give for '" +
          t.dataset + "'");
    }
    return *spec.bytes / spec.samples;
  });
  return d;
}

ResolvedScenario load_and_resolve(const std::string& path,
                                  const std::vector<std::string>& overrides,
                                  const models::DeviceCatalog& devices) {
  return resolve(load_scenario_with_sources(path, overrides), devices);
}

}  // namespace fulcrum::sim
