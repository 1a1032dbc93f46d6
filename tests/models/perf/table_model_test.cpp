#include "models/perf/table_model.hpp"

#include <catch2/catch.hpp>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

using fulcrum::InputError;
using namespace fulcrum::models;

namespace {

// Only the name matters to the table model.
class NamedWorkload : public Workload {
 public:
  explicit NamedWorkload(std::string name) : name_(std::move(name)) {}
  const std::string& name() const override { return name_; }
  const std::string& task() const override { return task_; }
  double parameters() const override { return 0; }
  double forward_flops_per_sample() const override { return 0; }
  double input_bytes_per_sample() const override { return 0; }
  std::vector<LayerWork> layer_work(Phase, int) const override { return {}; }

 private:
  std::string name_;
  std::string task_ = "classification";
};

DeviceSpec orin() {
  DeviceSpec d;
  d.name = "orin-agx-64gb";
  d.rails = {"VDD_GPU_SOC", "VDD_CPU_CV", "VIN_SYS_5V0"};
  return d;
}

PowerMode mode(int cores, double cpu_khz, double gpu_hz, double emc_hz) {
  PowerMode m;
  m.cores = cores;
  m.cpu_khz = cpu_khz;
  m.gpu_hz = gpu_hz;
  m.emc_hz = emc_hz;
  return m;
}

ProfileTable parse(const std::string& text, const std::string& source = "p.csv") {
  std::istringstream in(text);
  return parse_profile_csv(in, source);
}

const std::string kHeader = "cores,cpu_khz,gpu_hz,emc_hz,phase,batch_size,time_ms,power_w\n";
constexpr double kCpu = 2201600;
constexpr double kEmc = 3199000000;

// Synthetic ground truth with the shapes the model assumes: time = a + b/f_gpu, power linear in f.
double truth_time_ms(double gpu_hz) { return 5 + 2e9 / gpu_hz; }
double truth_power_w(double gpu_hz) { return 10 + 20 * gpu_hz / 1e9; }

std::string gpu_sweep_row(double gpu_hz, int batch = 16) {
  std::ostringstream s;
  s.precision(17);
  s << "12," << kCpu << "," << gpu_hz << "," << kEmc << ",inference," << batch << ","
    << truth_time_ms(gpu_hz) << "," << truth_power_w(gpu_hz) << "\n";
  return s.str();
}

TableModel gpu_sweep_model() {
  TableModel m;
  m.add_profile("resnet50", parse(kHeader + gpu_sweep_row(318750000) + gpu_sweep_row(726750000) +
                                  gpu_sweep_row(1300500000)));
  return m;
}

Prediction predict(const TableModel& m, const PowerMode& pm, int batch,
                   const std::string& workload = "resnet50", Phase phase = Phase::inference) {
  const DeviceSpec d = orin();
  const NamedWorkload w(workload);
  return m.predict(PerfQuery{d, pm, w, phase, batch});
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("a profiled row comes back measured with its own numbers") {
  const TableModel m = gpu_sweep_model();
  const Prediction p = predict(m, mode(12, kCpu, 726750000, kEmc), 16);
  CHECK(p.provenance == Provenance::measured);
  CHECK(p.time_ms == Approx(truth_time_ms(726750000)).epsilon(1e-12));
  REQUIRE(p.power.power_w.size() == 3);
  CHECK(p.power.module_w() == Approx(truth_power_w(726750000)).epsilon(1e-12));
  CHECK(m.name() == "table");
}

TEST_CASE("module power without rail columns goes to the GPU rail") {
  const Prediction p = predict(gpu_sweep_model(), mode(12, kCpu, 1300500000, kEmc), 16);
  CHECK(p.power.power_w[0] == Approx(truth_power_w(1300500000)));
  CHECK(p.power.power_w[1] == 0.0);
  CHECK(p.power.power_w[2] == 0.0);
}

TEST_CASE("between two profiled GPU frequencies the prediction is interpolated and monotone") {
  const TableModel m = gpu_sweep_model();
  double last_time_ms = 1e300;
  double last_power_w = 0;
  for (double gpu_hz : {318750000.0, 420750000.0, 522750000.0, 624750000.0, 726750000.0,
                        828750000.0, 930750000.0, 1134750000.0, 1300500000.0}) {
    const Prediction p = predict(m, mode(12, kCpu, gpu_hz, kEmc), 16);
    CHECK(p.time_ms <= last_time_ms);
    CHECK(p.power.module_w() >= last_power_w);
    last_time_ms = p.time_ms;
    last_power_w = p.power.module_w();
  }
  const Prediction mid = predict(m, mode(12, kCpu, 522750000, kEmc), 16);
  CHECK(mid.provenance == Provenance::interpolated);
  CHECK(mid.time_ms < truth_time_ms(318750000));
  CHECK(mid.time_ms > truth_time_ms(726750000));
}

TEST_CASE("time interpolates in inverse frequency so a + b/f profiles are reproduced exactly") {
  const TableModel m = gpu_sweep_model();
  for (double gpu_hz : {420750000.0, 522750000.0, 930750000.0, 1134750000.0}) {
    const Prediction p = predict(m, mode(12, kCpu, gpu_hz, kEmc), 16);
    CHECK(p.time_ms == Approx(truth_time_ms(gpu_hz)).epsilon(1e-12));
    CHECK(p.power.module_w() == Approx(truth_power_w(gpu_hz)).epsilon(1e-12));
  }
}

TEST_CASE("outside the profiled frequencies the prediction is extrapolated and bounded") {
  TableModel m;
  m.add_profile("resnet50", parse(kHeader + gpu_sweep_row(318750000) + gpu_sweep_row(726750000)));

  // Below the range: the inverse-frequency line through the two nearest is exact for a + b/f.
  const Prediction low = predict(m, mode(12, kCpu, 114750000, kEmc), 16);
  CHECK(low.provenance == Provenance::extrapolated);
  CHECK(low.time_ms == Approx(truth_time_ms(114750000)).epsilon(1e-12));
  CHECK(low.time_ms <= truth_time_ms(318750000) * 318750000 / 114750000);
  CHECK(low.power.module_w() >= truth_power_w(318750000) * 114750000 / 318750000);
  CHECK(low.power.module_w() <= truth_power_w(318750000));

  // Above the range: faster than the edge, but never more than in proportion to frequency.
  const Prediction high = predict(m, mode(12, kCpu, 1300500000, kEmc), 16);
  CHECK(high.provenance == Provenance::extrapolated);
  CHECK(high.time_ms == Approx(truth_time_ms(1300500000)).epsilon(1e-12));
  CHECK(high.time_ms >= truth_time_ms(726750000) * 726750000 / 1300500000);
  CHECK(high.power.module_w() == Approx(truth_power_w(1300500000)).epsilon(1e-12));
  CHECK(high.power.module_w() <= truth_power_w(726750000) * 1300500000 / 726750000);
}

TEST_CASE("extrapolation clamps time that would grow with a resource") {
  // Noisy data where the faster clock measured slower: the line would predict time rising with
  // frequency beyond the range, so the edge value is kept.
  TableModel m;
  m.add_profile("resnet50", parse(kHeader + "12,2201600,600000000,3199000000,inference,1,10,20\n"
                                            "12,2201600,800000000,3199000000,inference,1,11,22\n"));
  const Prediction p = predict(m, mode(12, kCpu, 1000000000, kEmc), 1);
  CHECK(p.provenance == Provenance::extrapolated);
  CHECK(p.time_ms == Approx(11));
}

TEST_CASE("an axis profiled at one value falls back to the nearest value") {
  const TableModel m = gpu_sweep_model();
  const Prediction p = predict(m, mode(4, 1036800, 726750000, 2133000000), 16);
  CHECK(p.provenance == Provenance::extrapolated);
  CHECK(p.time_ms == Approx(truth_time_ms(726750000)).epsilon(1e-12));
  CHECK(p.power.module_w() == Approx(truth_power_w(726750000)).epsilon(1e-12));
}

TEST_CASE("on a full 4-D grid every axis interpolates at once") {
  // time = 1 + 8/cores + 2e6/cpu_khz + 3e9/gpu_hz + 4e9/emc_hz: linear in each 1/x, so the nested
  // interpolation must reproduce it inside the grid. Power is linear in each x likewise.
  auto t = [](double c, double cpu, double gpu, double emc) {
    return 1 + 8 / c + 2e6 / cpu + 3e9 / gpu + 4e9 / emc;
  };
  auto p = [](double c, double cpu, double gpu, double emc) {
    return 5 + 0.5 * c + 2e-6 * cpu + 10e-9 * gpu + 1e-9 * emc;
  };
  std::ostringstream csv;
  csv.precision(17);
  csv << kHeader;
  for (int c : {4, 12}) {
    for (double cpu : {1036800.0, 2201600.0}) {
      for (double gpu : {318750000.0, 1300500000.0}) {
        for (double emc : {665600000.0, 3199000000.0}) {
          csv << c << "," << cpu << "," << gpu << "," << emc << ",training,16,"
              << t(c, cpu, gpu, emc) << "," << p(c, cpu, gpu, emc) << "\n";
        }
      }
    }
  }
  TableModel m;
  m.add_profile("mobilenet", parse(csv.str()));
  const Prediction r =
      predict(m, mode(8, 1728000, 726750000, 2133000000), 16, "mobilenet", Phase::training);
  CHECK(r.provenance == Provenance::interpolated);
  CHECK(r.time_ms == Approx(t(8, 1728000, 726750000, 2133000000)).epsilon(1e-12));
  CHECK(r.power.module_w() == Approx(p(8, 1728000, 726750000, 2133000000)).epsilon(1e-12));
}

TEST_CASE("between profiled batch sizes time and power are linear in batch size") {
  TableModel m;
  m.add_profile("resnet50",
                parse(kHeader + "12,2201600,1300500000,3199000000,inference,1,10,20\n"
                                "12,2201600,1300500000,3199000000,inference,16,40,35\n"));
  const Prediction p = predict(m, mode(12, kCpu, 1300500000, kEmc), 4);
  CHECK(p.provenance == Provenance::interpolated);
  CHECK(p.time_ms == Approx(16));
  CHECK(p.power.module_w() == Approx(23));
}

TEST_CASE("beyond the profiled batch sizes time follows the nearest two and power clamps") {
  // One mode, five batch sizes, module power only.
  TableModel m;
  m.add_profile("resnet50",
                parse(kHeader + "12,2201600,1300500000,3199000000,inference,1,15,27\n"
                                "12,2201600,1300500000,3199000000,inference,4,20,41\n"
                                "12,2201600,1300500000,3199000000,inference,16,50,52\n"
                                "12,2201600,1300500000,3199000000,inference,32,100,54\n"
                                "12,2201600,1300500000,3199000000,inference,64,190,55\n"));
  const PowerMode maxn = mode(12, kCpu, 1300500000, kEmc);
  const Prediction big = predict(m, maxn, 128);
  CHECK(big.provenance == Provenance::extrapolated);
  // The line through (32, 100 ms) and (64, 190 ms) reaches 370 ms at 128, inside [190, 380].
  CHECK(big.time_ms == Approx(370));
  CHECK(big.power.module_w() == Approx(55));

  const Prediction exact = predict(m, maxn, 16);
  CHECK(exact.provenance == Provenance::measured);
  CHECK(exact.time_ms == Approx(50));
  CHECK(exact.power.module_w() == Approx(52));

  // The profile holds one mode, so another mode keeps its numbers and says it extrapolated.
  const Prediction other = predict(m, mode(8, 1728000, 612000000, kEmc), 16);
  CHECK(other.provenance == Provenance::extrapolated);
  CHECK(other.time_ms == Approx(50));
}

TEST_CASE("a single profiled batch size scales time in proportion to batch size") {
  TableModel m;
  m.add_profile("resnet50",
                parse(kHeader + "12,2201600,1300500000,3199000000,inference,8,20,30\n"));
  const Prediction p = predict(m, mode(12, kCpu, 1300500000, kEmc), 32);
  CHECK(p.provenance == Provenance::extrapolated);
  CHECK(p.time_ms == Approx(80));
  CHECK(p.power.module_w() == Approx(30));
}

TEST_CASE("rail columns give rail powers and the unexplained rest goes to the GPU rail") {
  TableModel m;
  m.add_profile("resnet50",
                parse("cores,cpu_khz,gpu_hz,emc_hz,phase,batch_size,time_ms,power_w,VDD_GPU_SOC_w,"
                      "VDD_CPU_CV_w,VIN_SYS_5V0_w\n"
                      "12,2201600,1300500000,3199000000,inference,1,10,30,18,4,8\n"
                      "12,2201600,1300500000,3199000000,inference,2,12,30,,4,8\n"
                      "12,2201600,1300500000,3199000000,inference,4,14,30,,4,\n"));
  const PowerMode maxn = mode(12, kCpu, 1300500000, kEmc);
  CHECK(predict(m, maxn, 1).power.power_w == std::vector<double>{18, 4, 8});
  CHECK(predict(m, maxn, 2).power.power_w == std::vector<double>{18, 4, 8});
  CHECK(predict(m, maxn, 4).power.power_w == std::vector<double>{26, 4, 0});
}

TEST_CASE("without a GPU-named rail the module power goes to the first rail") {
  TableModel m;
  m.add_profile("resnet50", parse(kHeader + "6,1510400,624750000,3199000000,inference,1,10,12\n"));
  DeviceSpec nano;
  nano.name = "orin-nano-8gb";
  nano.rails = {"VDD_IN"};
  const NamedWorkload w("resnet50");
  const PowerMode pm = mode(6, 1510400, 624750000, 3199000000);
  const Prediction p = m.predict(PerfQuery{nano, pm, w, Phase::inference, 1});
  CHECK(p.power.power_w == std::vector<double>{12});
}

TEST_CASE("a rail column the device does not have is an input error at its row") {
  TableModel m;
  m.add_profile("resnet50",
                parse("cores,cpu_khz,gpu_hz,emc_hz,phase,batch_size,time_ms,power_w,GPU_w\n"
                      "12,2201600,1300500000,3199000000,inference,1,10,30,18\n"));
  CHECK(error_of([&] { predict(m, mode(12, kCpu, 1300500000, kEmc), 1); }) ==
        "p.csv:2:1: GPU_w: not a rail of device 'orin-agx-64gb' (its rails: VDD_GPU_SOC, "
        "VDD_CPU_CV, VIN_SYS_5V0)");
}

TEST_CASE("an unknown workload is an input error naming the profiled ones") {
  TableModel m = gpu_sweep_model();
  m.add_profile("bert-large", parse(kHeader + gpu_sweep_row(726750000)));
  CHECK(m.workloads() == std::vector<std::string>{"bert-large", "resnet50"});
  CHECK(error_of([&] { predict(m, mode(12, kCpu, 726750000, kEmc), 16, "yolov8n"); }) ==
        "workload 'yolov8n' has no profile in the table model (profiled: bert-large, resnet50)");
  CHECK(error_of([&] {
          predict(m, mode(12, kCpu, 726750000, kEmc), 16, "resnet50", Phase::training);
        }) == "workload 'resnet50' has no training rows in its profile");
  CHECK(error_of([&] { predict(m, mode(12, kCpu, 726750000, kEmc), 0); }) ==
        "batch_size must be at least 1, got 0");
}

TEST_CASE("a multi-workload profile registers each workload's own rows") {
  const ProfileTable t = parse("workload," + kHeader +
                               "resnet50,12,2201600,1300500000,3199000000,inference,1,15,27\n"
                               "lstm,12,2201600,1300500000,3199000000,inference,1,1.2,29\n"
                               ",12,2201600,1300500000,3199000000,idle,0,,11\n");
  TableModel all;
  all.add_profiles(t);
  CHECK(all.workloads() == std::vector<std::string>{"lstm", "resnet50"});
  const PowerMode maxn = mode(12, kCpu, 1300500000, kEmc);
  CHECK(predict(all, maxn, 1, "lstm").time_ms == Approx(1.2));
  CHECK(predict(all, maxn, 1, "resnet50").time_ms == Approx(15));
  // The idle row is shared by both registrations, not a duplicate.
  CHECK(all.idle_power(orin(), maxn).power_w == std::vector<double>{11, 0, 0});

  TableModel one;
  one.add_profile("lstm", t);
  CHECK(one.workloads() == std::vector<std::string>{"lstm"});
  CHECK(error_of([&] { one.add_profile("bert-large", t); }) ==
        "p.csv: workload: no training or inference rows for workload 'bert-large' (the profile "
        "holds: lstm, resnet50)");
  CHECK(error_of([&] { TableModel().add_profiles(parse(kHeader + gpu_sweep_row(726750000))); }) ==
        "p.csv: workload: the profile has no workload column; register it for one workload");
}

TEST_CASE("a row registered twice is rejected and leaves the model as it was") {
  TableModel m = gpu_sweep_model();
  const ProfileTable again =
      parse(kHeader + gpu_sweep_row(114750000) + gpu_sweep_row(726750000), "again.csv");
  CHECK(error_of([&] { m.add_profile("resnet50", again); }) ==
        "again.csv:3:1: row: duplicate of the row at p.csv:3 (same workload, mode, phase and "
        "batch_size)");
  // The first row of the rejected file was not kept: 114.75 MHz is still extrapolated.
  CHECK(predict(m, mode(12, kCpu, 114750000, kEmc), 16).provenance == Provenance::extrapolated);
}

TEST_CASE("idle power comes from idle rows when a profile has them") {
  TableModel m;
  m.add_profile("resnet50", parse(kHeader + gpu_sweep_row(726750000) +
                                  "12,2201600,318750000,3199000000,idle,0,,8\n"
                                  "12,2201600,1300500000,3199000000,idle,0,,12\n"));
  const DeviceSpec d = orin();
  CHECK(m.idle_power(d, mode(12, kCpu, 1300500000, kEmc)).power_w == std::vector<double>{12, 0, 0});
  const double mid_w = m.idle_power(d, mode(12, kCpu, 726750000, kEmc)).module_w();
  CHECK(mid_w > 8);
  CHECK(mid_w < 12);
  // Idle rows are not a workload: they do not answer predictions.
  CHECK(m.workloads() == std::vector<std::string>{"resnet50"});
}

TEST_CASE("without idle rows idle power is a share of the lowest busy power at the nearest mode") {
  TableModel m(TableModel::Options{0.4});
  m.add_profile("resnet50", parse(kHeader + gpu_sweep_row(318750000, 1) +
                                  gpu_sweep_row(318750000, 16) + gpu_sweep_row(1300500000, 16)));
  const DeviceSpec d = orin();
  const RailPower idle = m.idle_power(d, mode(12, kCpu, 420750000, kEmc));
  CHECK(idle.module_w() == Approx(0.4 * truth_power_w(318750000)));
  CHECK(idle.power_w[0] == Approx(idle.module_w()));
  CHECK(error_of([&] { TableModel().idle_power(d, mode(12, kCpu, 420750000, kEmc)); }) ==
        "the table model has no profile rows to estimate idle power from");
}

TEST_CASE("predictions are deterministic across models built from the same profile") {
  const TableModel a = gpu_sweep_model();
  const TableModel b = gpu_sweep_model();
  for (int cores : {2, 12}) {
    for (double gpu_hz : {114750000.0, 522750000.0, 1300500000.0}) {
      for (int batch : {1, 16, 100}) {
        const PowerMode pm = mode(cores, kCpu, gpu_hz, kEmc);
        const Prediction x = predict(a, pm, batch);
        const Prediction y = predict(b, pm, batch);
        const Prediction z = predict(a, pm, batch);
        CHECK(x.time_ms == y.time_ms);
        CHECK(x.time_ms == z.time_ms);
        CHECK(x.power.power_w == y.power.power_w);
        CHECK(x.provenance == y.provenance);
      }
    }
  }
}

TEST_CASE("rows named by a workload alias are registered under the catalog name") {
  const ProfileTable t = parse(
      "model,phase,minibatch_size,cores,cpu_freq_khz,gpu_freq_hz,mem_freq_hz,minibatch_time_ms,"
      "power_w\n"
      "mobilenet_v3,train,16,12,2201600,1300500000,3199000000,90,40\n"
      "bert_large,infer,8,12,2201600,1300500000,3199000000,400,60\n"
      "resnet50,infer,8,12,2201600,1300500000,3199000000,30,45\n");
  TableModel m;
  m.add_profiles(t);
  CHECK(m.workloads() == std::vector<std::string>{"bert-large", "mobilenetv3-large", "resnet50"});
  const PowerMode maxn = mode(12, kCpu, 1300500000, kEmc);
  const Prediction p = predict(m, maxn, 16, "mobilenetv3-large", Phase::training);
  CHECK(p.provenance == Provenance::measured);
  CHECK(p.time_ms == Approx(90));
  CHECK(p.power.module_w() == Approx(40));
  CHECK(predict(m, maxn, 8, "bert-large").time_ms == Approx(400));
  // The alias itself is not a workload of the model.
  CHECK(error_of([&] {
          predict(m, maxn, 16, "mobilenet_v3", Phase::training);
        }).find("has no profile") != std::string::npos);
}

TEST_CASE("a profile registered under an alias answers for the catalog name") {
  TableModel m;
  m.add_profile("mobilenet_v3",
                parse(kHeader + "12,2201600,1300500000,3199000000,inference,1,10,20\n"));
  CHECK(m.workloads() == std::vector<std::string>{"mobilenetv3-large"});
  CHECK(predict(m, mode(12, kCpu, 1300500000, kEmc), 1, "mobilenetv3-large").time_ms == Approx(10));
  // Registering the same rows again under the catalog name repeats them.
  CHECK(error_of([&] {
          m.add_profile("mobilenetv3-large",
                        parse(kHeader + "12,2201600,1300500000,3199000000,inference,1,10,20\n"));
        }).find("duplicate of the row at p.csv:2") != std::string::npos);
}
