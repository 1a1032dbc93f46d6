#include "sim/report/catalog_report.hpp"

#include <cstddef>
#include <optional>
#include <sstream>

#include "models/device/power_mode.hpp"
#include "models/device/power_mode_resolver.hpp"
#include "sim/report/json_writer.hpp"
#include "sim/report/number_format.hpp"
#include "sim/report/summary.hpp"
#include "sim/report/text_table.hpp"

namespace fulcrum::sim {

namespace {

void doubles(JsonWriter& j, const std::vector<double>& values) {
  j.begin_array();
  for (const double v : values) j.value(v);
  j.end_array();
}

std::string join_mhz(const std::vector<double>& values, double per_mhz) {
  std::string s;
  for (double v : values) s += (s.empty() ? "" : ", ") + models::format_mhz(v / per_mhz);
  return s;
}

void print_device(const models::DeviceSpec& d, std::ostream& out) {
  out << d.name << " (" << d.soc << ")\n";
  if (!d.source.empty()) out << "  source: " << d.source << "\n";
  out << "  CPU: " << d.cpu_cores << " x " << d.cpu_arch << " in " << d.cpu_clusters
      << " clusters\n"
      << "  GPU: " << d.gpu_arch << ", " << d.gpu_tpcs << " TPCs, " << d.gpu_sms << " SMs, "
      << d.cuda_cores << " CUDA cores, " << d.tensor_cores << " tensor cores\n"
      << "  memory: " << models::format_mhz(d.memory_gb) << " GB " << d.memory_type << ", "
      << d.memory_bus_bits << "-bit\n";
  if (d.module_peak_w) out << "  module peak power: " << *d.module_peak_w << " W\n";
  std::string rails;
  for (const auto& r : d.rails) rails += (rails.empty() ? "" : ", ") + r;
  out << "  power rails: " << rails << "\n\n";
  out << "  CPU frequencies (MHz, " << d.cpu_khz.size() << "): " << join_mhz(d.cpu_khz, 1e3)
      << "\n";
  out << "  GPU frequencies (MHz, " << d.gpu_hz.size() << "): " << join_mhz(d.gpu_hz, 1e6) << "\n";
  out << "  EMC frequencies (MHz, " << d.emc_hz.size() << "): " << join_mhz(d.emc_hz, 1e6) << "\n";
  out << "  modes: " << d.cpu_cores << " x " << d.cpu_khz.size() << " x " << d.gpu_hz.size()
      << " x " << d.emc_hz.size() << " = "
      << (d.cpu_cores * d.cpu_khz.size() * d.gpu_hz.size() * d.emc_hz.size()) << "\n\n";
  TextTable presets(
      {"preset", "cores", "CPU max MHz", "GPU max MHz", "EMC max MHz", "TPCs on", "resolved mode"});
  auto cap = [](const std::optional<double>& v, double per_mhz) {
    return v ? models::format_mhz(*v / per_mhz) : std::string("uncapped");
  };
  for (const models::Preset& p : d.presets) {
    const models::PowerMode m = models::resolve_preset(d, p.name);
    presets.add({p.name + (p.name == d.default_preset ? " (default)" : ""), std::to_string(p.cores),
                 cap(p.cpu_max_khz, 1e3), cap(p.gpu_max_hz, 1e6), cap(p.emc_max_hz, 1e6),
                 std::to_string(m.gpu_tpcs), power_mode_label(m)});
  }
  out << presets.str();
  if (!d.grids.empty()) {
    out << "\n";
    TextTable grids({"mode grid", "cores", "CPU freqs", "GPU freqs", "EMC freqs", "modes"});
    for (const models::ModeGrid& g : d.grids) {
      grids.add({g.name, std::to_string(g.cores.size()), std::to_string(g.cpu_khz.size()),
                 std::to_string(g.gpu_hz.size()), std::to_string(g.emc_hz.size()),
                 std::to_string(g.size())});
    }
    out << grids.str();
  }
  if (!d.note.empty()) out << "\n  note: " << d.note << "\n";
}

}  // namespace

std::string devices_json(const DevicesReport& report) {
  JsonWriter j;
  j.begin_object().key("devices").begin_array();
  for (const models::DeviceSpec& device : report.devices) {
    const models::DeviceSpec* d = &device;
    j.begin_object();
    j.key("name").value(d->name);
    j.key("soc").value(d->soc);
    j.key("cpu_cores").value(d->cpu_cores);
    j.key("cpu_khz");
    doubles(j, d->cpu_khz);
    j.key("gpu_hz");
    doubles(j, d->gpu_hz);
    j.key("emc_hz");
    doubles(j, d->emc_hz);
    j.key("gpu_tpcs").value(d->gpu_tpcs);
    j.key("cuda_cores").value(d->cuda_cores);
    j.key("memory_gb").value(d->memory_gb);
    j.key("presets").begin_array();
    for (const models::Preset& p : d->presets) {
      j.begin_object();
      j.key("name").value(p.name);
      j.key("cores").value(p.cores);
      j.key("cpu_max_khz").value(p.cpu_max_khz);
      j.key("gpu_max_hz").value(p.gpu_max_hz);
      j.key("emc_max_hz").value(p.emc_max_hz);
      j.end_object();
    }
    j.end_array();
    j.end_object();
  }
  j.end_array().end_object();
  return j.take();
}

std::string devices_text(const DevicesReport& report) {
  std::ostringstream out;
  if (report.one) {
    for (const models::DeviceSpec& d : report.devices) print_device(d, out);
    if (!report.default_model.empty()) {
      out << "\n  perf model of a scenario that names none: " << report.default_model
          << "\n    why: " << report.default_model_reason << "\n";
      if (!report.fitted_workloads.empty()) {
        out << "    fitted to measured modes:";
        for (std::size_t i = 0; i < report.fitted_workloads.size(); ++i)
          out << (i == 0 ? " " : ", ") << report.fitted_workloads[i];
        out << "\n    any other workload or phase (the rest of the catalog, workload files): "
               "zero-shot parameters from its layer graph, its figures marked extrapolated "
               "(docs/MODEL.md, \"Zero-shot and few-shot\")\n";
        for (const std::string& clause : report.zero_shot_check) {
          out << "    zero-shot check: " << clause << "\n";
        }
        for (const std::string& clause : report.few_shot_check) {
          out << "    few-shot check: " << clause << "\n";
        }
        if (!report.few_shot_check.empty()) {
          out << "    (profile k modes of a workload with `fulcrum profile`, then "
                 "`fulcrum calibrate --modes --workload W --fit PROFILE.csv`)\n";
        }
      }
    }
    return out.str();
  }
  TextTable t({"device", "SoC", "CPU cores", "CPU max MHz", "GPU max MHz", "EMC max MHz",
               "CUDA cores", "memory GB", "modes", "presets"});
  for (const models::DeviceSpec& d : report.devices) {
    std::string presets;
    for (const auto& p : d.presets) presets += (presets.empty() ? "" : ", ") + p.name;
    const std::size_t modes = static_cast<std::size_t>(d.cpu_cores) * d.cpu_khz.size() *
                              d.gpu_hz.size() * d.emc_hz.size();
    t.add({d.name, d.soc, std::to_string(d.cpu_cores),
           d.cpu_khz.empty() ? "-" : models::format_mhz(d.cpu_khz.back() / 1e3),
           d.gpu_hz.empty() ? "-" : models::format_mhz(d.gpu_hz.back() / 1e6),
           d.emc_hz.empty() ? "-" : models::format_mhz(d.emc_hz.back() / 1e6),
           std::to_string(d.cuda_cores), models::format_mhz(d.memory_gb), std::to_string(modes),
           presets});
  }
  out << t.str();
  return out.str();
}

std::string workloads_json(const WorkloadsReport& report) {
  JsonWriter j;
  j.begin_object().key("workloads").begin_array();
  for (const WorkloadRow& w : report.workloads) {
    j.begin_object();
    j.key("name").value(w.name);
    j.key("task").value(w.task);
    j.key("parameters").value(w.parameters);
    j.key("forward_flops_per_sample").value(w.forward_flops_per_sample);
    j.key("training_flops_per_sample").value(w.training_flops_per_sample);
    j.key("kernels_per_minibatch").begin_object();
    j.key("inference").value(w.inference_kernels);
    j.key("training").value(w.training_kernels);
    j.end_object();
    j.key("source").value(w.source);
    j.key("phases").begin_array();
    for (const std::string& p : w.phases) j.value(p);
    j.end_array();
    j.end_object();
  }
  j.end_array();
  j.key("datasets").begin_array();
  for (const DatasetRow& s : report.datasets) {
    j.begin_object();
    j.key("name").value(s.name);
    j.key("samples").value(s.samples);
    j.key("bytes").value(s.bytes);
    j.key("note").value(s.note);
    j.end_object();
  }
  j.end_array().end_object();
  return j.take();
}

std::string workloads_text(const WorkloadsReport& report) {
  TextTable t({"workload", "task", "params (M)", "GFLOP/sample fwd", "GFLOP/sample train",
               "kernels/minibatch fwd", "kernels/minibatch train"});
  for (const WorkloadRow& w : report.workloads) {
    t.add({w.name, w.task, fixed(w.parameters / 1e6, 2), fixed(w.forward_flops_per_sample / 1e9, 3),
           fixed(w.training_flops_per_sample / 1e9, 3), fixed(w.inference_kernels, 0),
           fixed(w.training_kernels, 0)});
  }
  std::string notes;
  for (const WorkloadRow& w : report.workloads) {
    if (w.source != "built-in") notes += w.name + ": read from " + w.source + "\n";
    if (w.phases.size() == 1) notes += w.name + ": " + w.phases[0] + " only\n";
  }
  if (report.datasets.empty()) return t.str() + notes;
  TextTable d({"dataset", "samples", "size (GB)", "note"});
  for (const DatasetRow& s : report.datasets) {
    d.add({s.name, fixed(s.samples, 0), s.bytes ? fixed(*s.bytes / 1e9, 3) : "-", s.note});
  }
  return t.str() + notes + "\n" + d.str();
}

}  // namespace fulcrum::sim
