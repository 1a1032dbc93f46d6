#include "sim/report/catalog_json.hpp"

#include <optional>

#include "models/workload/dataset_catalog.hpp"
#include "models/workload/workload_catalog.hpp"
#include "sim/report/json_writer.hpp"

namespace fulcrum::sim {

namespace {

void doubles(JsonWriter& j, const std::vector<double>& values) {
  j.begin_array();
  for (const double v : values) j.value(v);
  j.end_array();
}

}  // namespace

std::string devices_json(const std::vector<const models::DeviceSpec*>& devices) {
  JsonWriter j;
  j.begin_object().key("devices").begin_array();
  for (const models::DeviceSpec* d : devices) {
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

std::string workloads_json() {
  const models::WorkloadCatalog& catalog = models::workload_catalog();
  JsonWriter j;
  j.begin_object().key("workloads").begin_array();
  for (const std::string& name : catalog.names()) {
    const models::Workload& w = catalog.get(name);
    const models::PhaseCost inference = w.cost(models::Phase::inference, 1);
    const models::PhaseCost training = w.cost(models::Phase::training, 1);
    j.begin_object();
    j.key("name").value(name);
    j.key("task").value(w.task());
    j.key("parameters").value(w.parameters());
    j.key("forward_flops_per_sample").value(w.forward_flops_per_sample());
    j.key("training_flops_per_sample").value(training.flops);
    j.key("kernels_per_minibatch").begin_object();
    j.key("inference").value(inference.kernels);
    j.key("training").value(training.kernels);
    j.end_object();
    j.end_object();
  }
  j.end_array();
  j.key("datasets").begin_array();
  for (const std::string& name : models::dataset_names()) {
    const models::DatasetSpec& s = models::dataset(name);
    j.begin_object();
    j.key("name").value(name);
    j.key("samples").value(s.samples);
    j.key("bytes").value(s.bytes);
    j.key("note").value(s.note);
    j.end_object();
  }
  j.end_array().end_object();
  return j.take();
}

}  // namespace fulcrum::sim
