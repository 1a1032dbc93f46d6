// The table model on the published Orin AGX measurements, read in place (skipped without them):
// the files load in the measurement layout, their model names land on catalog workloads, and
// predictions agree with rows looked up here by plain text matching, not by the CSV reader.
#include <algorithm>
#include <catch2/catch.hpp>
#include <chrono>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "models/perf/profile_csv.hpp"
#include "models/perf/table_model.hpp"
#include "models/workload/workload_catalog.hpp"
#include "tests/models/device/orin_fixture.hpp"
#include "tests/reference_data.hpp"

using namespace fulcrum::models;

namespace {

constexpr const char* kTraining = "measurements/orin-agx-training-modes.csv";
constexpr const char* kInference = "measurements/orin-agx-inference-modes.csv";

struct Measured {
  double time_ms = 0;
  double power_w = 0;
};

// The row whose text starts with `key` (model,dataset,phase,minibatch_size,cores,cpu,gpu,mem,):
// its minibatch_time_ms and power_w, the two fields after the key.
Measured row(const std::string& path, const std::string& key) {
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(key, 0) != 0) continue;
    const std::size_t comma = line.find(',', key.size());
    const std::size_t end = line.find(',', comma + 1);
    return {std::stod(line.substr(key.size(), comma - key.size())),
            std::stod(line.substr(comma + 1, end - comma - 1))};
  }
  FAIL("no row starting with " << key << " in " << path);
  return {};
}

// Both files in one model, loaded once per test executable.
const TableModel& reference_model(const std::string& training, const std::string& inference) {
  static const TableModel m = [&] {
    TableModel model;
    model.add_profiles(read_profile_csv(training));
    model.add_profiles(read_profile_csv(inference));
    return model;
  }();
  return m;
}

Prediction predict(const TableModel& m, const PowerMode& pm, const char* workload, Phase phase,
                   int batch) {
  const DeviceSpec d = testing::orin_agx_64gb();
  return m.predict({d, pm, workload_catalog().get(workload), phase, batch});
}

constexpr double kMaxCpu = 2201600;
constexpr double kMaxGpu = 1300500000;
constexpr double kMaxEmc = 3199000000;

}  // namespace

TEST_CASE("the published measurement files load in place with every row", "[wall]") {
  const auto training = fulcrum::testing::reference_path(kTraining);
  const auto inference = fulcrum::testing::reference_path(kInference);
  if (!training || !inference) return;  // skipped
  const auto start = std::chrono::steady_clock::now();
  const ProfileTable t = read_profile_csv(*training);
  const ProfileTable i = read_profile_csv(*inference);
  TableModel m;
  m.add_profiles(t);
  m.add_profiles(i);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  // The measurements README: 9,618 training and 11,024 inference rows.
  CHECK(t.rows.size() == 9618);
  CHECK(i.rows.size() == 11024);
  CHECK(m.workloads() == std::vector<std::string>{"bert-base", "bert-large", "lstm",
                                                  "mobilenetv3-large", "resnet18", "resnet50",
                                                  "yolov8n"});
  // Generous: about 25 ms for both on one 2-core Xeon VM in a Release build.
  CHECK(seconds < 2.0);
}

TEST_CASE("a profiled mode answers with its measured row under the catalog name") {
  const auto training = fulcrum::testing::reference_path(kTraining);
  const auto inference = fulcrum::testing::reference_path(kInference);
  if (!training || !inference) return;  // skipped
  const TableModel& m = reference_model(*training, *inference);

  const Measured maxn = row(*training,
                            "mobilenet_v3,gld23k,train,16,12,2201600,1300500000,"
                            "3199000000,");
  const Prediction p = predict(m, PowerMode{12, kMaxCpu, kMaxGpu, kMaxEmc}, "mobilenetv3-large",
                               Phase::training, 16);
  CHECK(p.provenance == Provenance::measured);
  CHECK(p.time_ms == Approx(maxn.time_ms).epsilon(1e-12));
  CHECK(p.power.module_w() == Approx(maxn.power_w).epsilon(1e-12));

  const Measured slow = row(*inference,
                            "bert_large,squad_v2_dev,infer,8,4,422400,318750000,"
                            "665600000,");
  const Prediction q =
      predict(m, PowerMode{4, 422400, 318750000, 665600000}, "bert-large", Phase::inference, 8);
  CHECK(q.provenance == Provenance::measured);
  CHECK(q.time_ms == Approx(slow.time_ms).epsilon(1e-12));
  CHECK(q.power.module_w() == Approx(slow.power_w).epsilon(1e-12));
}

TEST_CASE("a mode between two profiled modes is interpolated within their values") {
  const auto training = fulcrum::testing::reference_path(kTraining);
  const auto inference = fulcrum::testing::reference_path(kInference);
  if (!training || !inference) return;  // skipped
  const TableModel& m = reference_model(*training, *inference);

  // 1267.2 MHz is an Orin CPU frequency the 4,368-mode grid skips: it lies between 1190.4 and
  // 1344 MHz, both profiled.
  const Measured lo = row(*training,
                          "mobilenet_v3,gld23k,train,16,12,1190400,1300500000,"
                          "3199000000,");
  const Measured hi = row(*training,
                          "mobilenet_v3,gld23k,train,16,12,1344000,1300500000,"
                          "3199000000,");
  const Prediction p = predict(m, PowerMode{12, 1267200, kMaxGpu, kMaxEmc}, "mobilenetv3-large",
                               Phase::training, 16);
  CHECK(p.provenance == Provenance::interpolated);
  CHECK(p.time_ms >= std::min(lo.time_ms, hi.time_ms));
  CHECK(p.time_ms <= std::max(lo.time_ms, hi.time_ms));
  CHECK(p.power.module_w() >= std::min(lo.power_w, hi.power_w));
  CHECK(p.power.module_w() <= std::max(lo.power_w, hi.power_w));

  // 1236.75 MHz lies between the inference grid's GPU values 1134.75 and 1300.5 MHz.
  const Measured glo = row(*inference,
                           "resnet50,imagenet_val50k,infer,16,12,2201600,1134750000,"
                           "3199000000,");
  const Measured ghi = row(*inference,
                           "resnet50,imagenet_val50k,infer,16,12,2201600,1300500000,"
                           "3199000000,");
  const Prediction g =
      predict(m, PowerMode{12, kMaxCpu, 1236750000, kMaxEmc}, "resnet50", Phase::inference, 16);
  CHECK(g.provenance == Provenance::interpolated);
  CHECK(g.time_ms >= std::min(glo.time_ms, ghi.time_ms));
  CHECK(g.time_ms <= std::max(glo.time_ms, ghi.time_ms));
  CHECK(g.power.module_w() >= std::min(glo.power_w, ghi.power_w));
  CHECK(g.power.module_w() <= std::max(glo.power_w, ghi.power_w));
}

TEST_CASE("beyond the profiled modes and batch sizes the answer is extrapolated within bounds") {
  const auto training = fulcrum::testing::reference_path(kTraining);
  const auto inference = fulcrum::testing::reference_path(kInference);
  if (!training || !inference) return;  // skipped
  const TableModel& m = reference_model(*training, *inference);

  // Batch 128 is beyond the largest profiled batch, 64: time between the batch-64 time and twice
  // it (per-sample time neither grows nor beats batch 64's), power that of batch 64.
  const Measured b64 = row(*inference,
                           "resnet50,imagenet_val50k,infer,64,12,2201600,1300500000,"
                           "3199000000,");
  const Prediction big =
      predict(m, PowerMode{12, kMaxCpu, kMaxGpu, kMaxEmc}, "resnet50", Phase::inference, 128);
  CHECK(big.provenance == Provenance::extrapolated);
  CHECK(big.time_ms >= b64.time_ms);
  CHECK(big.time_ms <= 2 * b64.time_ms);
  CHECK(big.power.module_w() == Approx(b64.power_w).epsilon(1e-12));

  // bert_base was profiled on 4, 8 and 12 cores; 2 cores is below them: time no less than at 4
  // cores and at most twice it (inverse proportion), power between half of it and all of it.
  const Measured c4 = row(*training,
                          "bert_base,squad_v2_train,train,16,4,2201600,1300500000,"
                          "3199000000,");
  const Prediction few =
      predict(m, PowerMode{2, kMaxCpu, kMaxGpu, kMaxEmc}, "bert-base", Phase::training, 16);
  CHECK(few.provenance == Provenance::extrapolated);
  CHECK(few.time_ms >= c4.time_ms);
  CHECK(few.time_ms <= 2 * c4.time_ms);
  CHECK(few.power.module_w() >= c4.power_w / 2);
  CHECK(few.power.module_w() <= c4.power_w);
}
