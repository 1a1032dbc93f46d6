// Properties of the analytic model that must hold for any sensible coefficients: monotonicity in
// every clock, growth with batch size, power rising with GPU clock, idle below busy.
#include "models/perf/analytic_model.hpp"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "models/error.hpp"
#include "models/perf/reference_anchors.hpp"
#include "models/workload/workload_catalog.hpp"
#include "tests/models/device/orin_fixture.hpp"

using namespace fulcrum::models;

namespace {

DeviceSpec orin() { return testing::orin_agx_64gb(); }

// Coefficients of the order the Orin fit produces (docs/MODEL.md).
AnalyticCoefficients typical() {
  AnalyticCoefficients c;
  c.eff_compute = 0.9;
  c.eff_matmul = 0.3;
  c.eff_grouped = 0.02;
  c.eff_memory = 0.5;
  c.launch_us = 80;
  c.overhead_ms = 0.1;
  c.launch_overlap = 0.05;
  c.static_w = 15;
  c.gpu_dynamic_w = 30;
  c.memory_dynamic_w = 10;
  c.cpu_dynamic_w = 3;
  return c;
}

LayerWork layer(std::string name, OpKind kind, double flops, double bytes, double kernels) {
  return {
      .name = std::move(name), .kind = kind, .flops = flops, .bytes = bytes, .kernels = kernels};
}

// A workload made of given layers, the same for every batch size times the batch.
class SyntheticWorkload : public Workload {
 public:
  SyntheticWorkload(std::string name, std::vector<LayerWork> per_sample)
      : name_(std::move(name)), layers_(std::move(per_sample)) {}
  const std::string& name() const override { return name_; }
  const std::string& task() const override { return task_; }
  double parameters() const override { return 0; }
  double forward_flops_per_sample() const override { return total(layers_).flops; }
  double input_bytes_per_sample() const override { return 0; }
  std::vector<LayerWork> layer_work(Phase phase, int batch_size) const override {
    std::vector<LayerWork> out = layers_;
    const double k = batch_size * (phase == Phase::training ? 3.0 : 1.0);
    for (auto& l : out) {
      l.flops *= k;
      l.bytes *= k;
    }
    return out;
  }

 private:
  std::string name_;
  std::string task_ = "synthetic";
  std::vector<LayerWork> layers_;
};

PowerMode with_gpu(PowerMode m, double hz) {
  m.gpu_hz = hz;
  return m;
}
PowerMode with_emc(PowerMode m, double hz) {
  m.emc_hz = hz;
  return m;
}
PowerMode with_cpu(PowerMode m, double khz) {
  m.cpu_khz = khz;
  return m;
}

double time_ms(const AnalyticModel& model, const DeviceSpec& d, const PowerMode& m,
               const Workload& w, Phase phase, int batch) {
  return model.predict({d, m, w, phase, batch}).time_ms;
}

}  // namespace

TEST_CASE("a compute-bound layer gets faster with every step of GPU frequency") {
  const DeviceSpec d = orin();
  const AnalyticModel model(typical());
  const SyntheticWorkload w("gemm", {layer("conv", OpKind::conv, 5e9, 1e6, 1)});
  double previous = 1e300;
  for (double hz : d.gpu_hz) {
    const double t = time_ms(model, d, with_gpu(maxn_mode(d), hz), w, Phase::inference, 1);
    CHECK(t < previous);
    previous = t;
  }
}

TEST_CASE("no catalog model gets slower with more GPU, EMC or CPU frequency") {
  const DeviceSpec d = orin();
  const AnalyticModel model(typical());
  for (const char* name : {"lenet5", "resnet18", "mobilenetv3-large", "resnet50", "bert-large"}) {
    const Workload& w = workload_catalog().get(name);
    INFO(name);
    for (Phase phase : {Phase::inference, Phase::training}) {
      double prev = 1e300;
      for (double hz : d.gpu_hz) {
        const double t = time_ms(model, d, with_gpu(maxn_mode(d), hz), w, phase, 16);
        CHECK(t <= prev);
        prev = t;
      }
      prev = 1e300;
      for (double hz : d.emc_hz) {
        const double t = time_ms(model, d, with_emc(maxn_mode(d), hz), w, phase, 16);
        CHECK(t <= prev);
        prev = t;
      }
      prev = 1e300;
      for (double khz : d.cpu_khz) {
        const double t = time_ms(model, d, with_cpu(maxn_mode(d), khz), w, phase, 16);
        CHECK(t <= prev);
        prev = t;
      }
    }
  }
}

TEST_CASE("a memory-bound layer speeds up with EMC frequency and not with GPU frequency") {
  const DeviceSpec d = orin();
  AnalyticCoefficients c = typical();
  c.launch_us = 0;
  c.overhead_ms = 0;
  const AnalyticModel model(c);
  const SyntheticWorkload w("copy", {layer("copy", OpKind::add, 1e6, 1e9, 1)});
  const PowerMode maxn = maxn_mode(d);
  const double fast = time_ms(model, d, maxn, w, Phase::inference, 1);
  CHECK(time_ms(model, d, with_emc(maxn, 2133000000), w, Phase::inference, 1) ==
        Approx(fast * 3199.0 / 2133.0));
  CHECK(time_ms(model, d, with_gpu(maxn, 624750000), w, Phase::inference, 1) == Approx(fast));
}

TEST_CASE("a launch-bound model speeds up with CPU frequency in proportion to the clock") {
  const DeviceSpec d = orin();
  const AnalyticModel model(typical());
  const SyntheticWorkload w("tiny",
                            std::vector<LayerWork>(20, layer("op", OpKind::act, 1e3, 1e3, 1)));
  const PowerMode maxn = maxn_mode(d);
  const double fast = time_ms(model, d, maxn, w, Phase::inference, 1);
  const double slow = time_ms(model, d, with_cpu(maxn, 1113600), w, Phase::inference, 1);
  CHECK(slow > fast * 1.9);
}

TEST_CASE("a host thread with half a core doubles launch-bound time and leaves GPU-bound time") {
  // docs/PIPELINE.md "CPU contention". At MAXN (the reference CPU clock) each 1-kernel layer's
  // launch takes 80 us and the minibatch overhead 0.1 ms; the tiny layers' GPU time is ~1e-5 ms.
  const DeviceSpec d = orin();
  const AnalyticModel model(typical());
  const PowerMode maxn = maxn_mode(d);
  const SyntheticWorkload tiny("tiny",
                               std::vector<LayerWork>(20, layer("op", OpKind::act, 1e3, 1e3, 1)));
  const auto at = [&](const Workload& w, double share) {
    return model.predict({d, maxn, w, Phase::inference, 1, share}).time_ms;
  };
  CHECK(at(tiny, 1.0) == Approx(20 * 0.08 + 0.1).epsilon(1e-3));  // 1.7 ms
  CHECK(at(tiny, 0.5) == Approx(20 * 0.16 + 0.2).epsilon(1e-3));  // 3.4 ms
  // One 5 GFLOP convolution: 5e9 / (2048 x 2 x 1300.5 MHz x 0.9) = 1.043 ms of GPU, over its
  // 0.08 ms (0.16 ms stretched) launch: only the overhead (0.1 -> 0.2 ms) and the unhidden
  // share of the launch (0.05 x 0.08 ms more) grow.
  const SyntheticWorkload conv("conv", {layer("conv", OpKind::conv, 5e9, 1e6, 1)});
  CHECK(at(conv, 0.5) - at(conv, 1.0) == Approx(0.1 + 0.05 * 0.08).epsilon(1e-6));
  CHECK_THROWS_AS(at(tiny, 0.0), fulcrum::InputError);
  CHECK_THROWS_AS(at(tiny, 1.5), fulcrum::InputError);
}

TEST_CASE("minibatch time grows with batch size") {
  const DeviceSpec d = orin();
  const AnalyticModel model(typical());
  for (const char* name : {"resnet50", "mobilenetv3-large", "yolov8n"}) {
    const Workload& w = workload_catalog().get(name);
    INFO(name);
    double prev = 0;
    for (int b : {1, 2, 4, 8, 16, 32, 64}) {
      const double t = time_ms(model, d, maxn_mode(d), w, Phase::inference, b);
      CHECK(t > prev);
      prev = t;
    }
    CHECK(time_ms(model, d, maxn_mode(d), w, Phase::training, 16) >
          time_ms(model, d, maxn_mode(d), w, Phase::inference, 16));
  }
}

TEST_CASE("fewer powered TPCs make a compute-bound layer slower") {
  const DeviceSpec d = orin();
  AnalyticCoefficients c = typical();
  c.launch_us = 0;
  c.overhead_ms = 0;
  const AnalyticModel model(c);
  const SyntheticWorkload w("gemm", {layer("conv", OpKind::conv, 5e9, 1e6, 1)});
  PowerMode half = maxn_mode(d);
  half.gpu_tpcs = 4;
  CHECK(time_ms(model, d, half, w, Phase::inference, 1) ==
        Approx(2 * time_ms(model, d, maxn_mode(d), w, Phase::inference, 1)).epsilon(0.01));
}

TEST_CASE("module power grows with GPU frequency for the same minibatch") {
  const DeviceSpec d = orin();
  const AnalyticModel model(typical());
  for (const char* name : {"resnet50", "lenet5"}) {
    const Workload& w = workload_catalog().get(name);
    INFO(name);
    double prev = 0;
    for (double hz : d.gpu_hz) {
      const double p =
          model.predict({d, with_gpu(maxn_mode(d), hz), w, Phase::training, 16}).power.module_w();
      CHECK(p > prev);
      prev = p;
    }
  }
}

TEST_CASE("idle power is below busy power, per rail and in total, in every preset-like mode") {
  const DeviceSpec d = orin();
  const AnalyticModel model(typical());
  const Workload& w = workload_catalog().get("resnet18");
  for (double hz : {420750000.0, 828750000.0, 1300500000.0}) {
    for (int cores : {4, 8, 12}) {
      PowerMode m = with_gpu(maxn_mode(d), hz);
      m.cores = cores;
      const RailPower idle = model.idle_power(d, m);
      const RailPower busy = model.predict({d, m, w, Phase::training, 16}).power;
      REQUIRE(idle.power_w.size() == 3);
      REQUIRE(busy.power_w.size() == 3);
      for (std::size_t i = 0; i < 3; ++i) {
        CHECK(idle.power_w[i] > 0);
        CHECK(idle.power_w[i] <= busy.power_w[i]);
      }
      CHECK(idle.module_w() < busy.module_w());
    }
  }
}

TEST_CASE("idle power at MAXN is the static power and falls in slower modes") {
  const DeviceSpec d = orin();
  const AnalyticModel model(typical());
  CHECK(model.idle_power(d, maxn_mode(d)).module_w() == Approx(typical().static_w));
  PowerMode slow = maxn_mode(d);
  slow.cores = 4;
  slow.gpu_hz = 420750000;
  slow.emc_hz = 2133000000;
  CHECK(model.idle_power(d, slow).module_w() < typical().static_w);
}

TEST_CASE("predictions on the calibration device are modelled and on others extrapolated") {
  const DeviceSpec d = orin();
  DeviceSpec other = orin();
  other.name = "orin-agx-32gb";
  other.gpu_tpcs = 7;
  other.cuda_cores = 1792;
  const AnalyticModel model(typical());
  const Workload& w = workload_catalog().get("resnet18");
  CHECK(model.predict({d, maxn_mode(d), w, Phase::training, 16}).provenance ==
        Provenance::modelled);
  CHECK(model.predict({other, maxn_mode(other), w, Phase::training, 16}).provenance ==
        Provenance::extrapolated);
}

TEST_CASE("rails without Orin names are matched by keyword and a single rail takes everything") {
  DeviceSpec xavier = orin();
  xavier.rails = {"GPU", "CPU", "SOC", "CV", "VDDRQ", "SYS5V"};
  const RailMap m = rail_map(xavier);
  CHECK(m.gpu_soc == 0);
  CHECK(m.cpu == 1);
  CHECK(m.sys == 5);
  DeviceSpec nano = orin();
  nano.rails = {"VDD_IN"};
  const AnalyticModel model(typical());
  const RailPower p = model.idle_power(nano, maxn_mode(nano));
  REQUIRE(p.power_w.size() == 1);
  CHECK(p.power_w[0] == Approx(model.idle_power(orin(), maxn_mode(orin())).module_w()));
}

TEST_CASE("a zero batch size or a mode without GPU cores is an input error") {
  const DeviceSpec d = orin();
  const AnalyticModel model(typical());
  const Workload& w = workload_catalog().get("resnet18");
  CHECK_THROWS_AS(model.predict({d, maxn_mode(d), w, Phase::inference, 0}), fulcrum::InputError);
  PowerMode none = maxn_mode(d);
  none.gpu_tpcs = 0;
  CHECK_THROWS_AS(model.predict({d, none, w, Phase::inference, 1}), fulcrum::InputError);
}

TEST_CASE("another device's idle power at its maximum clocks is its published idle power") {
  DeviceSpec xavier = orin();
  xavier.name = "xavier-agx-32gb";
  xavier.idle_w = 7.5;
  const AnalyticModel model(typical());
  CHECK(model.idle_power(xavier, maxn_mode(xavier)).module_w() == Approx(7.5));
}

TEST_CASE("on another device activity takes the calibration device's share of its own headroom") {
  // typical(): static 15 W under a 60 W maximum leaves 45 W of headroom, of which a fully busy
  // GPU takes 30 W, two thirds. A device idling at 5 W under a 20 W maximum has 15 W of headroom:
  // its fully busy GPU takes two thirds of that, 10 W.
  DeviceSpec small = orin();
  small.name = "small-jetson";
  small.idle_w = 5;
  small.module_peak_w = 20;
  const AnalyticModel model(typical());
  const PowerMode m = maxn_mode(small);
  CHECK(model.idle_power(small, m).module_w() == Approx(5));
  TimeBreakdown gpu_only;
  gpu_only.total_ms = gpu_only.gpu_ms = 10;
  CHECK(model.busy_power(small, m, gpu_only).module_w() == Approx(5 + 10));
  // Everything busy at once (GPU 30 W, host thread 3 W, DRAM at peak bandwidth 10 W): 43 W of
  // the 45 W on the calibration device, so 43/45 of the 15 W here: still within the 20 W.
  TimeBreakdown all = gpu_only;
  all.host_ms = 10;
  all.dram_bytes = small.memory_bandwidth_gbps(m.emc_hz) * 1e9 * 10e-3;
  CHECK(model.busy_power(small, m, all).module_w() == Approx(5 + 15.0 * 43 / 45));
  CHECK(model.busy_power(orin(), maxn_mode(orin()), all).module_w() == Approx(15 + 43));
}

TEST_CASE("another device without its idle and maximum module power is an input error") {
  DeviceSpec other = orin();
  other.name = "jetson-x";
  other.idle_w.reset();
  const AnalyticModel model(typical());
  CHECK_THROWS_WITH(model.idle_power(other, maxn_mode(other)),
                    Catch::Contains("power.idle_w and power.module_peak_w"));
  other.idle_w = 70;  // above its 60 W maximum
  CHECK_THROWS_WITH(model.idle_power(other, maxn_mode(other)),
                    Catch::Contains("maximum module power must exceed idle power"));
}

TEST_CASE("recurrent weights come from DRAM once when they fit in L2 and at every step if not") {
  LayerWork lstm = layer("lstm", OpKind::lstm, 0, 1e6, 2);
  lstm.reread_footprint_bytes = 640e3;
  lstm.reread_bytes = 34 * 640e3;
  DeviceSpec d = orin();
  CHECK(dram_bytes(d, lstm) == 1e6);
  d.gpu_l2_kb = 512;  // Xavier's L2: the 640 kB block no longer fits
  CHECK(dram_bytes(d, lstm) == 1e6 + 34 * 640e3);
  d.gpu_l2_kb.reset();  // unknown L2: assume it does not fit
  CHECK(dram_bytes(d, lstm) == 1e6 + 34 * 640e3);

  const SyntheticWorkload w("rnn", {lstm});
  const AnalyticModel model(typical());
  DeviceSpec small_l2 = orin();
  small_l2.gpu_l2_kb = 512;
  const PowerMode m = maxn_mode(orin());
  CHECK(time_ms(model, small_l2, m, w, Phase::inference, 1) >
        time_ms(model, orin(), m, w, Phase::inference, 1));
}

TEST_CASE("grouped convolutions run at their own efficiency") {
  const DeviceSpec d = orin();
  const PowerMode m = maxn_mode(d);
  AnalyticCoefficients c = typical();
  c.launch_overlap = 0;  // launches hidden: GPU time and overhead only
  const AnalyticModel model(c);
  const SyntheticWorkload dense("dense", {layer("conv", OpKind::conv, 5e9, 1e6, 1)});
  LayerWork depthwise = layer("dw", OpKind::conv, 5e9, 1e6, 1);
  depthwise.grouped = true;
  const SyntheticWorkload grouped("grouped", {depthwise});
  const double t_dense = time_ms(model, d, m, dense, Phase::inference, 1);
  const double t_grouped = time_ms(model, d, m, grouped, Phase::inference, 1);
  // Both compute-bound here: time in inverse proportion to the efficiency (overhead aside).
  const double overhead = typical().overhead_ms;
  CHECK((t_grouped - overhead) / (t_dense - overhead) ==
        Approx(typical().eff_compute / typical().eff_grouped).epsilon(1e-9));
}

TEST_CASE("each layer kind runs at the efficiency docs/MODEL.md gives it") {
  // Matrix products (linear layers, attention's activation products, LSTMs, embeddings) at
  // eff_matmul; grouped and depthwise convolutions at eff_grouped; everything else, dense
  // convolutions included, at eff_compute.
  for (OpKind k : {OpKind::linear, OpKind::matmul, OpKind::lstm, OpKind::embedding}) {
    CHECK(compute_class(layer("x", k, 1, 1, 1)) == ComputeClass::matmul);
  }
  for (OpKind k : {OpKind::conv, OpKind::bn, OpKind::layernorm, OpKind::act, OpKind::pool,
                   OpKind::add, OpKind::mul, OpKind::concat, OpKind::upsample, OpKind::softmax}) {
    CHECK(compute_class(layer("x", k, 1, 1, 1)) == ComputeClass::general);
  }
  LayerWork depthwise = layer("dw", OpKind::conv, 1, 1, 1);
  depthwise.grouped = true;
  CHECK(compute_class(depthwise) == ComputeClass::grouped);
}

TEST_CASE("an attention product runs at the matrix-product efficiency") {
  const DeviceSpec d = orin();
  const PowerMode m = maxn_mode(d);
  AnalyticCoefficients c = typical();
  c.launch_overlap = 0;
  const AnalyticModel model(c);
  const SyntheticWorkload dense("dense", {layer("conv", OpKind::conv, 5e9, 1e6, 1)});
  const SyntheticWorkload product("product", {layer("scores", OpKind::matmul, 5e9, 1e6, 1)});
  const double t_dense = time_ms(model, d, m, dense, Phase::inference, 1);
  const double t_product = time_ms(model, d, m, product, Phase::inference, 1);
  // Both compute-bound: 0.9 / 0.3 = 3 times slower, overhead aside.
  const double overhead = c.overhead_ms;
  CHECK((t_product - overhead) / (t_dense - overhead) == Approx(3.0).epsilon(1e-9));
}
