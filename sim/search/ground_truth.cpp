#include "sim/search/ground_truth.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>
#include <utility>

#include "models/error.hpp"
#include "models/perf/profile_csv.hpp"
#include "models/workload/workload_catalog.hpp"
#include "sim/config/perf_model_loader.hpp"

namespace fulcrum::sim::search {

const char* measurement_phase(models::Phase phase) {
  return phase == models::Phase::training ? "train" : "infer";
}

std::vector<std::optional<MeasuredPoint>> GroundTruth::series(
    TruthKey key, std::string_view workload, models::Phase phase, int batch_size,
    const std::vector<models::PowerMode>& modes) const {
  std::vector<std::optional<MeasuredPoint>> out;
  out.reserve(modes.size());
  for (const models::PowerMode& m : modes) out.push_back(at(key, workload, phase, batch_size, m));
  return out;
}

std::optional<std::string> GroundTruth::name_for(std::string_view workload,
                                                 models::Phase phase) const {
  if (batch_sizes(workload, phase).empty()) return std::nullopt;
  return std::string(workload);
}

std::optional<std::string> TableGroundTruth::name_for(std::string_view workload,
                                                      models::Phase phase) const {
  if (!batch_sizes(workload, phase).empty()) return std::string(workload);
  const std::string canonical(models::canonical_workload_name(workload));
  for (const std::string& w : workloads(phase)) {
    if (models::canonical_workload_name(w) == canonical) return w;
  }
  return std::nullopt;
}

std::unique_ptr<GroundTruth> make_ground_truth(GroundTruthKind kind,
                                               const models::DeviceSpec& device,
                                               const TruthSources& sources) {
  if (kind == GroundTruthKind::table) {
    return TableGroundTruth::load(sources.measurements_dir, device);
  }
  return std::make_unique<ModelGroundTruth>(
      device, load_perf_model(AnalyticPerfModel{}, sources.data_dir, device),
      sources.analytic_batch_sizes, sources.analytic_training_batch);
}

// --- TableGroundTruth ---------------------------------------------------------------------------

namespace {
constexpr const char* kTrainingFile = "orin-agx-training-modes.csv";
constexpr const char* kInferenceFile = "orin-agx-inference-modes.csv";
constexpr const char* kTableGrid = "powertrain-4368";
}  // namespace

TableGroundTruth::TableGroundTruth(const models::DeviceSpec& device, models::ModeSpace space)
    : device_(device), space_(std::move(space)) {}

std::string TableGroundTruth::key(std::string_view workload, models::Phase phase, int batch_size) {
  std::string k(workload);
  k += '/';
  k += measurement_phase(phase);
  k += '/';
  k += std::to_string(batch_size);
  return k;
}

std::unique_ptr<TableGroundTruth> TableGroundTruth::load(const std::string& measurements_dir,
                                                         const models::DeviceSpec& device) {
  std::unique_ptr<TableGroundTruth> t(
      new TableGroundTruth(device, models::ModeSpace::grid(device, kTableGrid)));
  t->read_file(measurements_dir + "/" + kTrainingFile);
  t->read_file(measurements_dir + "/" + kInferenceFile);
  return t;
}

void TableGroundTruth::read_file(const std::string& path) {
  // read_profile_csv checks the columns, numbers and duplicate rows, with file:line:col.
  const models::ProfileTable table = models::read_profile_csv(path);
  const MeasuredPoint unmeasured{std::numeric_limits<double>::quiet_NaN(), 0.0};
  for (const models::ProfileRow& row : table.rows) {
    if (!row.workload || !row.time_ms || row.phase == models::ProfilePhase::idle) {
      throw InputError(row.where, "", "a measurement row needs a model, a phase and a time");
    }
    const models::PowerMode mode{row.cores, row.cpu_khz, row.gpu_hz, row.emc_hz, device_.gpu_tpcs};
    const std::optional<std::size_t> index = space_.index_of(mode);
    if (!index) {
      throw InputError(
          row.where, "",
          "mode " + mode.label() + " is not on the " + kTableGrid + " grid of " + device_.name);
    }
    const models::Phase phase = row.phase == models::ProfilePhase::training
                                    ? models::Phase::training
                                    : models::Phase::inference;
    Series& s = series_[key(*row.workload, phase, row.batch_size)];
    if (s.points.empty()) s.points.assign(space_.size(), unmeasured);
    s.points[*index] = MeasuredPoint{*row.time_ms, row.power_w};
    ++rows_;
  }
}

std::optional<MeasuredPoint> TableGroundTruth::lookup(std::string_view workload,
                                                      models::Phase phase, int batch_size,
                                                      const models::PowerMode& mode) const {
  const auto it = series_.find(key(workload, phase, batch_size));
  if (it == series_.end()) return std::nullopt;
  const std::optional<std::size_t> index = space_.index_of(mode);
  if (!index) return std::nullopt;
  const MeasuredPoint& p = it->second.points[*index];
  if (std::isnan(p.time_ms)) return std::nullopt;
  return p;
}

std::vector<int> TableGroundTruth::batch_sizes(std::string_view workload,
                                               models::Phase phase) const {
  std::vector<int> out;
  const std::string prefix = std::string(workload) + "/" + measurement_phase(phase) + "/";
  for (auto it = series_.lower_bound(prefix);
       it != series_.end() && it->first.compare(0, prefix.size(), prefix) == 0; ++it) {
    out.push_back(std::stoi(it->first.substr(prefix.size())));
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<std::string> TableGroundTruth::workloads(models::Phase phase) const {
  std::set<std::string> names;
  const std::string tag = std::string("/") + measurement_phase(phase) + "/";
  for (const auto& [k, s] : series_) {
    const std::size_t at = k.find(tag);
    if (at != std::string::npos) names.insert(k.substr(0, at));
  }
  return {names.begin(), names.end()};
}

// --- ModelGroundTruth ---------------------------------------------------------------------------

ModelGroundTruth::ModelGroundTruth(const models::DeviceSpec& device, const models::PerfModel& model,
                                   std::vector<int> inference_batch_sizes, int training_batch)
    : device_(device),
      model_(model),
      inference_batches_(std::move(inference_batch_sizes)),
      training_batch_(training_batch) {
  std::sort(inference_batches_.begin(), inference_batches_.end());
}

ModelGroundTruth::ModelGroundTruth(const models::DeviceSpec& device,
                                   std::unique_ptr<models::PerfModel> model,
                                   std::vector<int> inference_batch_sizes, int training_batch)
    : device_(device),
      owned_(std::move(model)),
      model_(*owned_),
      inference_batches_(std::move(inference_batch_sizes)),
      training_batch_(training_batch) {
  std::sort(inference_batches_.begin(), inference_batches_.end());
}

std::vector<int> ModelGroundTruth::batch_sizes(std::string_view workload,
                                               models::Phase phase) const {
  if (models::workload_catalog().find(models::canonical_workload_name(workload)) == nullptr) {
    return {};
  }
  if (phase == models::Phase::training) return {training_batch_};
  return inference_batches_;
}

std::optional<MeasuredPoint> ModelGroundTruth::lookup(std::string_view workload,
                                                      models::Phase phase, int batch_size,
                                                      const models::PowerMode& mode) const {
  const models::Workload* w =
      models::workload_catalog().find(models::canonical_workload_name(workload));
  if (w == nullptr) return std::nullopt;
  const models::Prediction p = model_.predict({device_, mode, *w, phase, batch_size});
  return MeasuredPoint{p.time_ms, p.power.module_w()};
}

}  // namespace fulcrum::sim::search
