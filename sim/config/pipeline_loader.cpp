#include "sim/config/pipeline_loader.hpp"

#include <algorithm>
#include <filesystem>

#include "models/error.hpp"

namespace fulcrum::sim {

namespace {

// A figure above `max` would overflow the run's nanosecond clock or is surely a typo.
models::SourcedValue read_sourced(const YamlNode& parent, std::string_view key, double max) {
  const YamlNode n = parent.required(key);
  n.expect_map();
  n.allow_keys({"value", "source"});
  models::SourcedValue v;
  const YamlNode value = n.required("value");
  v.value = value.as_positive_double();
  if (v.value > max) value.fail("must be <= " + std::to_string(static_cast<long long>(max)));
  v.source = n.required("source").as_string();
  if (v.source.empty()) n.required("source").fail("must name where the figure comes from");
  return v;
}

double positive(const YamlNode& parent, std::string_view key) {
  return parent.required(key).as_positive_double();
}

std::string text(const YamlNode& parent, std::string_view key) {
  return parent.required(key).as_string();
}

}  // namespace

models::StorageMedium parse_storage_medium(const YamlNode& root) {
  root.expect_map();
  root.allow_keys(
      {"name", "description", "sequential_read_mb_s", "random_read_mb_s", "request_latency_ms"});
  models::StorageMedium m;
  m.name = text(root, "name");
  if (auto d = root.optional("description")) m.description = d->as_string();
  m.sequential_read_mb_s = read_sourced(root, "sequential_read_mb_s", 1e7);
  m.random_read_mb_s = read_sourced(root, "random_read_mb_s", 1e7);
  m.request_latency_ms = read_sourced(root, "request_latency_ms", 1e4);
  if (m.random_read_mb_s.value < 1e-3) {
    root.required("random_read_mb_s").required("value").fail("must be >= 0.001");
  }
  return m;
}

models::StorageMedium load_storage_medium(const std::string& path) {
  return parse_storage_medium(YamlDoc::load(path).root());
}

models::DataloaderModel parse_dataloader_model(const YamlNode& root) {
  root.expect_map();
  root.allow_keys(
      {"version", "cpu", "formats", "datasets", "memory", "power", "page_cache", "contention"});
  const YamlNode version = root.required("version");
  if (version.as_int() != 1) version.fail("unsupported version (expected 1)");
  models::DataloaderModel m;

  const YamlNode cpu = root.required("cpu");
  cpu.allow_keys({"ref_cpu_khz", "ref_arch", "arch_speed", "arch_basis", "memory_efficiency"});
  m.ref_cpu_khz = positive(cpu, "ref_cpu_khz");
  m.ref_arch = text(cpu, "ref_arch");
  const YamlNode speeds = cpu.required("arch_speed");
  speeds.expect_map();
  for (const std::string& arch : speeds.keys()) {
    m.arch_speed[arch] = positive(speeds, arch);
    if (m.arch_speed[arch] < 0.01) speeds.required(arch).fail("must be >= 0.01");
  }
  m.arch_basis = text(cpu, "arch_basis");
  const YamlNode eff = cpu.required("memory_efficiency");
  m.memory_efficiency = eff.as_positive_double();
  if (m.memory_efficiency > 1) eff.fail("expected a value in (0, 1]");

  const YamlNode formats = root.required("formats");
  formats.expect_map();
  for (const std::string& name : formats.keys()) {
    const YamlNode f = formats.required(name);
    f.allow_keys({"cpu_ms_at_ref", "memory_mb_touched", "basis"});
    models::SampleFormat s;
    s.name = name;
    s.cpu_ms_at_ref = positive(f, "cpu_ms_at_ref");
    if (s.cpu_ms_at_ref > 1e4) f.required("cpu_ms_at_ref").fail("must be <= 10000 (ms per sample)");
    s.memory_mb_touched = f.required("memory_mb_touched").as_nonnegative_double();
    if (s.memory_mb_touched > 1e4) {
      f.required("memory_mb_touched").fail("must be <= 10000 (MB per sample)");
    }
    s.basis = text(f, "basis");
    m.formats.push_back(std::move(s));
  }
  const YamlNode datasets = root.required("datasets");
  datasets.expect_map();
  for (const std::string& name : datasets.keys()) {
    // `name: format`, or `name: {format, cpu_ms_at_ref, basis}` for a dataset with its own cost.
    const YamlNode d = datasets.required(name);
    const bool detailed = d.is_map();
    if (detailed) d.allow_keys({"format", "cpu_ms_at_ref", "basis"});
    const YamlNode f = detailed ? d.required("format") : d;
    const std::string format = f.as_string();
    const auto known =
        std::find_if(m.formats.begin(), m.formats.end(),
                     [&](const models::SampleFormat& s) { return s.name == format; });
    if (known == m.formats.end()) f.fail("unknown format '" + format + "' (not under 'formats')");
    m.dataset_formats[name] = format;
    if (detailed && d.has("cpu_ms_at_ref")) {
      models::SampleFormat s = *known;
      s.cpu_ms_at_ref = positive(d, "cpu_ms_at_ref");
      if (s.cpu_ms_at_ref > 1e4) {
        d.required("cpu_ms_at_ref").fail("must be <= 10000 (ms per sample)");
      }
      s.basis = text(d, "basis");
      m.dataset_overrides[name] = std::move(s);
    } else if (detailed && d.has("basis")) {
      d.required("basis").fail("a basis without cpu_ms_at_ref (it states the override's source)");
    }
  }

  const YamlNode memory = root.required("memory");
  memory.allow_keys(
      {"os_gb", "training_process_gb", "inference_process_gb", "gpu_bytes_per_parameter", "basis"});
  m.os_gb = memory.required("os_gb").as_nonnegative_double();
  m.training_process_gb = memory.required("training_process_gb").as_nonnegative_double();
  m.inference_process_gb = memory.required("inference_process_gb").as_nonnegative_double();
  m.gpu_bytes_per_parameter = memory.required("gpu_bytes_per_parameter").as_nonnegative_double();
  m.memory_basis = text(memory, "basis");

  const YamlNode power = root.required("power");
  power.allow_keys({"core_active_w", "cpu_v_min_ratio", "basis"});
  m.core_active_w = power.required("core_active_w").as_nonnegative_double();
  const YamlNode v = power.required("cpu_v_min_ratio");
  m.cpu_v_min_ratio = v.as_positive_double();
  if (m.cpu_v_min_ratio > 1) v.fail("expected a value in (0, 1]");
  m.power_basis = text(power, "basis");

  // Optional: without it the OS takes no core and a worker no per-minibatch time.
  if (const auto contention = root.optional("contention")) {
    contention->allow_keys(
        {"os_cores", "worker_batch_ms_at_ref", "host_copy_gb_s", "oversubscription_mhz", "basis"});
    const YamlNode os = contention->required("os_cores");
    m.os_cores = os.as_nonnegative_double();
    if (m.os_cores > 1) os.fail("expected a value in [0, 1] (cores' worth of CPU time)");
    const YamlNode batch = contention->required("worker_batch_ms_at_ref");
    m.worker_batch_ms_at_ref = batch.as_nonnegative_double();
    if (m.worker_batch_ms_at_ref > 1e4) batch.fail("must be <= 10000 (ms per minibatch)");
    // Optional: without it the training process's intake of a minibatch is not modelled.
    if (const auto copy = contention->optional("host_copy_gb_s")) {
      m.host_copy_gb_s = copy->as_positive_double();
      if (m.host_copy_gb_s < 1e-3) copy->fail("must be >= 0.001 (GB/s)");
    }
    // Optional: without it oversubscribed cores keep their whole clock.
    if (const auto lost = contention->optional("oversubscription_mhz")) {
      m.oversubscription_mhz = lost->as_nonnegative_double();
      if (m.oversubscription_mhz > 1e4) lost->fail("must be <= 10000 (MHz)");
    }
    m.contention_basis = text(*contention, "basis");
  }

  const YamlNode cache = root.required("page_cache");
  cache.allow_keys({"copy_gb_s", "basis"});
  m.cache_copy_gb_s = positive(cache, "copy_gb_s");
  if (m.cache_copy_gb_s < 1e-3) cache.required("copy_gb_s").fail("must be >= 0.001");
  m.cache_copy_basis = text(cache, "basis");
  return m;
}

models::DataloaderModel load_dataloader_model(const std::string& path) {
  return parse_dataloader_model(YamlDoc::load(path).root());
}

std::vector<std::string> storage_names(const std::string& data_dir) {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(data_dir + "/storage", ec)) {
    if (e.path().extension() == ".yaml") out.push_back(e.path().stem().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

models::PipelineData load_pipeline_data(const std::string& data_dir, const std::string& storage) {
  const std::vector<std::string> known = storage_names(data_dir);
  if (std::find(known.begin(), known.end(), storage) == known.end()) {
    std::string list;
    for (const auto& n : known) list += (list.empty() ? "" : ", ") + n;
    throw InputError("unknown storage '" + storage + "' (known: " + list + "; add " + data_dir +
                     "/storage/" + storage + ".yaml to define it)");
  }
  models::PipelineData d;
  d.storage = load_storage_medium(data_dir + "/storage/" + storage + ".yaml");
  d.dataloader = load_dataloader_model(data_dir + "/pipeline/dataloader.yaml");
  return d;
}

}  // namespace fulcrum::sim
