// The cross-mode model and its fit on the published Orin AGX measurements (read in place;
// skipped without them).
#include <algorithm>
#include <catch2/catch.hpp>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <iostream>
#include <tuple>

#include "models/error.hpp"
#include "models/perf/cross_mode_fit.hpp"
#include "models/perf/profile_csv.hpp"
#include "models/workload/workload_catalog.hpp"
#include "tests/models/device/orin_fixture.hpp"
#include "tests/reference_data.hpp"

using namespace fulcrum::models;

namespace {

std::vector<ModeRow> reference_rows() {
  const DeviceSpec d = testing::orin_agx_64gb();
  std::vector<ModeRow> rows;
  for (const char* f :
       {"measurements/orin-agx-training-modes.csv", "measurements/orin-agx-inference-modes.csv"}) {
    const auto path = fulcrum::testing::reference_path(f);
    if (!path) return {};
    for (ModeRow& r : mode_rows(read_profile_csv(*path), d)) rows.push_back(std::move(r));
  }
  return rows;
}

const ErrorStats& stats(const ModeErrors& e, const std::string& group) {
  for (const auto* list : {&e.by_workload, &e.by_region}) {
    for (const GroupErrors& g : *list) {
      if (g.group == group) return g.stats;
    }
  }
  FAIL("no group " << group);
  static const ErrorStats none;
  return none;
}

}  // namespace

// Held-out accuracy, the protocol of docs/MODEL.md ("Across power modes"): fit on a random half of
// the distinct modes (seed 1), MAPE on the other half. Bounds: the targets (time 8%,
// power 4%) where the model meets them, else the figure reached, rounded up by about half a point.
TEST_CASE("held-out MAPE on a random half of the modes stays at the documented figures") {
  const auto rows = reference_rows();
  if (rows.empty()) return;  // skipped
  const DeviceSpec d = testing::orin_agx_64gb();
  const auto [fit_i, rest_i] = split_modes(rows, 0.5, 1);
  const CrossModeFit f = fit_cross_mode(d, select(rows, fit_i), workload_catalog());
  const ModeErrors e =
      evaluate_cross_mode(d, f.calibration, select(rows, rest_i), workload_catalog());
  INFO(to_table(e, "held out"));
  struct Bound {
    const char* group;
    double time_pct;
    double power_pct;
  };
  for (const Bound& b : std::vector<Bound>{
           {"resnet18 training", 8, 4},
           {"mobilenetv3-large training", 8, 4},
           {"bert-base training", 8, 4},
           {"lstm training", 8, 4},
           {"resnet50 inference", 8.9, 5.8},
           {"mobilenetv3-large inference", 15, 6},
           {"yolov8n inference", 9.9, 5.2},
           {"lstm inference", 8.75, 4},
           {"bert-large inference", 9.1, 5.8},
       }) {
    INFO(b.group);
    const ErrorStats& s = stats(e, b.group);
    CHECK(s.rows > 200);
    CHECK(s.time_mape_pct <= b.time_pct);
    CHECK(s.power_mape_pct <= b.power_pct);
  }
  // Training at 2 cores and at the lowest CPU clocks (docs/MODEL.md, "What the residuals say is
  // missing"): on every held-out row at the figures reached (9.13% and 8.90%; 10.94% and 9.48%
  // without the oversubscribed cores' lost clock), and within the 8% target on the rows their
  // own GPU-clock sweep does not contradict (5.35% and 6.96%).
  const std::vector<bool> flags = faster_than_gpu_clock_allows(rows);
  std::vector<bool> drop;
  for (const std::size_t i : rest_i) drop.push_back(flags[i]);
  CHECK(std::count(drop.begin(), drop.end(), true) == 78);
  const ModeErrors consistent = errors_without(d, select(rows, rest_i), e, drop);
  CHECK(consistent.all.rows == rest_i.size() - 78);
  CHECK(stats(e, "training cores 02").time_mape_pct <= 9.6);
  CHECK(stats(e, "training cpu low").time_mape_pct <= 9.4);
  CHECK(stats(consistent, "training cores 02").time_mape_pct <= 8);
  CHECK(stats(consistent, "training cpu low").time_mape_pct <= 8);
  CHECK(stats(consistent, "training cores 02").power_mape_pct <= 4);
}

// The new-workload path: the device's coefficients from the other workloads only, then 50 random
// profiled rows of LSTM training fit its parameters; MAPE on its other rows.
TEST_CASE("a new workload fitted from 50 profiled modes predicts its other modes") {
  const auto rows = reference_rows();
  if (rows.empty()) return;  // skipped
  const DeviceSpec d = testing::orin_agx_64gb();
  std::vector<ModeRow> others;
  for (const ModeRow& r : rows) {
    if (r.workload != "lstm") others.push_back(r);
  }
  // The other workloads on a random 30% of the modes only, to keep the test short.
  const auto [device_i, unused] = split_modes(others, 0.7, 2);
  CrossModeCalibration cal =
      fit_cross_mode(d, select(others, device_i), workload_catalog()).calibration;
  const auto is_lstm_training = [](const ModeRow& r) {
    return r.workload == "lstm" && r.phase == Phase::training;
  };
  const auto profiled = sample_rows(rows, 50, 1, is_lstm_training);
  const WorkloadKey key{"lstm", Phase::training};
  cal.workloads[key] = fit_workload(d, cal.device, key, select(rows, profiled), workload_catalog());
  std::vector<ModeRow> rest;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    if (is_lstm_training(rows[i]) && !std::binary_search(profiled.begin(), profiled.end(), i)) {
      rest.push_back(rows[i]);
    }
  }
  REQUIRE(rest.size() == 441 - 50);
  const ModeErrors e = evaluate_cross_mode(d, cal, rest, workload_catalog());
  INFO(to_table(e, "new workload"));
  CHECK(e.all.time_mape_pct <= 10);
  CHECK(e.all.power_mape_pct <= 5);
  // Only its own parameters were fitted: the device's are those of the other workloads' fit.
  CHECK_THROWS_AS(fit_workload(d, cal.device, key, select(rows, {0}), workload_catalog()),
                  fulcrum::InputError);
}

// Few-shot's prior toward the start (the zero-shot parameters, docs/MODEL.md "Few-shot"): rows
// made by the model itself from known parameters. Below 10 rows the prior holds at its default
// weight; from 10 rows on, cross-validation inside them weighs it, so a start far off does not
// hold the fit away from what the rows say.
TEST_CASE("few-shot: the prior toward the start is weighed by cross-validation inside the rows") {
  const DeviceSpec d = testing::orin_agx_64gb();
  const CrossModeDevice device;
  const WorkloadKey key{"resnet50", Phase::inference};
  const CrossModeWorkload truth{0.6, 0.4, 1.2, 1.1, 2.0};
  const auto rows_at = [&](const std::vector<double>& gpu_hz, const std::vector<double>& cpu_khz) {
    std::vector<ModeRow> rows;
    for (double gpu : gpu_hz) {
      for (double cpu : cpu_khz) {
        for (int batch : {16, 64}) {
          const PowerMode mode{12, cpu, gpu, 3199000000, 8};
          const auto e = cross_mode_estimate(
              d, device, truth, key.second,
              work_features(d, workload_catalog().get(key.first), key.second, batch), mode, batch);
          rows.push_back({key.first, key.second, mode, batch, e.time_s, e.power_w});
        }
      }
    }
    return rows;
  };
  CrossModeFitOptions bare;  // the physical parameters alone: no extras, no correction
  bare.workload_extras = false;
  bare.residual_correction = false;
  // A start with a tenth of the true compute efficiency. Four rows (fewer than cross-validation
  // needs): the prior at its default weight holds the fit between the start and what the rows
  // say; without it the rows alone pin the efficiency.
  CrossModeWorkload wrong = truth;
  wrong.eff_compute = 0.06;
  const auto few = rows_at({522750000, 1300500000}, {2201600});
  REQUIRE(few.size() == 4);
  const CrossModeWorkload held = fit_workload(d, device, key, few, workload_catalog(), bare, wrong);
  CHECK(held.eff_compute > wrong.eff_compute);
  CHECK(held.eff_compute < 0.9 * truth.eff_compute);
  CrossModeFitOptions no_prior = bare;
  no_prior.start_prior = 0;
  CHECK(fit_workload(d, device, key, few, workload_catalog(), no_prior, wrong).eff_compute ==
        Approx(truth.eff_compute).epsilon(0.05));
  // Sixteen rows over the GPU and CPU clocks, a start with a tenth of the true compute efficiency:
  // cross-validation keeps the prior from holding it there.
  const auto many = rows_at({114750000, 522750000, 930750000, 1300500000}, {422400, 2201600});
  REQUIRE(many.size() == 16);
  const CrossModeWorkload fitted =
      fit_workload(d, device, key, many, workload_catalog(), bare, wrong);
  CHECK(fitted.eff_compute == Approx(truth.eff_compute).epsilon(0.05));
  // Without cross-validation the fixed prior at full strength would hold it: the prior is real.
  CrossModeFitOptions fixed = bare;
  fixed.start_prior = 1;
  fixed.start_prior_choices = {1};
  const CrossModeWorkload pulled =
      fit_workload(d, device, key, many, workload_catalog(), fixed, wrong);
  CHECK(pulled.eff_compute < 0.9 * truth.eff_compute);
}

TEST_CASE("the model's terms: the pipeline bounds training, more cores never slow it") {
  const DeviceSpec d = testing::orin_agx_64gb();
  CrossModeCalibration cal;
  cal.workloads[{"resnet18", Phase::training}] = {0.8, 0.5, 1, 1, 7};
  cal.workloads[{"resnet18", Phase::inference}] = {0.8, 0.5, 1, 1, 0};
  const CrossModeModel m(d, cal);
  double previous = 1e9;
  for (int cores : {2, 4, 6, 8, 10, 12}) {
    const auto e =
        m.predict("resnet18", Phase::training, {cores, 729600, 1300500000, 3199000000, 8}, 16);
    CHECK(e.time_s <= previous);
    CHECK(e.time_s >= std::max(e.device_s, e.pipeline_s));
    CHECK(e.power_w > m.idle_power(d, {cores, 729600, 1300500000, 3199000000, 8}).module_w());
    previous = e.time_s;
  }
  // Inference has no data pipeline.
  const auto inf =
      m.predict("resnet18", Phase::inference, {12, 2201600, 1300500000, 3199000000, 8}, 16);
  CHECK(inf.pipeline_s == 0);
  CHECK(inf.time_s == Approx(inf.device_s));
}

TEST_CASE("a launch thread with half a core doubles launch-bound time, not GPU-bound time") {
  // docs/PIPELINE.md "CPU contention": the runtime's core share stretches the launch thread.
  // ResNet-18 inference with the default coefficients: at batch 1 and 422.4 MHz CPU its ~60
  // launches take ~15 ms against ~0.7 ms of GPU; at batch 64 with the GPU at 114.75 MHz the GPU
  // takes ~300 ms against ~3 ms of launches.
  const DeviceSpec d = testing::orin_agx_64gb();
  CrossModeCalibration cal;
  cal.workloads[{"resnet18", Phase::inference}] = {0.8, 0.5, 1, 1, 0};
  const CrossModeModel m(d, cal);
  const Workload& w = workload_catalog().get("resnet18");
  const auto time_ms = [&](const PowerMode& mode, int batch, double share) {
    return m.predict(PerfQuery{d, mode, w, Phase::inference, batch, share}).time_ms;
  };
  const PowerMode slow_cpu{12, 422400, 1300500000, 3199000000, 8};
  const PowerMode slow_gpu{12, 2201600, 114750000, 3199000000, 8};
  CHECK(time_ms(slow_cpu, 1, 0.5) / time_ms(slow_cpu, 1, 1.0) > 1.8);
  CHECK(time_ms(slow_cpu, 1, 0.5) / time_ms(slow_cpu, 1, 1.0) <= 2.0);
  CHECK(time_ms(slow_gpu, 64, 0.5) / time_ms(slow_gpu, 64, 1.0) < 1.01);
  CHECK_THROWS_AS(time_ms(slow_cpu, 1, 0.0), fulcrum::InputError);
}

TEST_CASE("graph parameters add each op class's cost per FLOP, byte and kernel by its share") {
  GraphCoefficients g;
  // Per class (dense conv, grouped conv, gemm, other): 1/eff_compute 2, 10, 4, 1; 1/eff_memory
  // 2 everywhere but 8 for gemm; activity 1, 1, 3, 1; kernels 1, 1, 1, 5.
  g.inv_compute = {std::log(2.0), std::log(10.0), std::log(4.0), 0.0};
  g.inv_memory = {std::log(2.0), std::log(2.0), std::log(8.0), std::log(2.0)};
  g.activity = {0.0, 0.0, std::log(3.0), 0.0};
  g.kernels = {0.0, 0.0, 0.0, std::log(5.0)};
  OpClassShares s;
  s.flops = {0.5, 0, 0.5, 0};  // activity = 0.5 x 1 + 0.5 x 3 = 2
  // As the tiles run them, the dense convolutions' FLOPs count twice (half the tiles' columns
  // idle): 1/eff_compute = 1.0 x 2 + 0.5 x 4 = 4.
  s.padded_flops = {1.0, 0, 0.5, 0};
  s.bytes = {0.25, 0, 0.5, 0.25};
  s.moved_bytes = s.bytes;       // 1/eff_memory = 0.25 x 2 + 0.5 x 8 + 0.25 x 2 = 5
  s.kernels = {0.5, 0, 0, 0.5};  // kernel_scale = 0.5 x 1 + 0.5 x 5 = 3
  const CrossModeWorkload w = graph_parameters(g, s);
  CHECK(w.eff_compute == Approx(1.0 / 4));
  CHECK(w.eff_memory == Approx(0.2));
  CHECK(w.gpu_activity == Approx(0.5 * 1 + 0.5 * 3));
  CHECK(w.kernel_scale == Approx(3));
  CHECK(w.preprocess_ms == 0);
  // Half the dense class's tile columns idle: its FLOPs switch at half its activity per busy
  // cycle, 0.5 x 0.5 x 1 + 0.5 x 3 = 1.75.
  s.tile_utilization = {0.5, 1, 1, 1, 1};
  CHECK(graph_parameters(g, s).gpu_activity == Approx(1.75));
  // Copies that double the dense class's bytes as moved: 0.5 x 2 + 0.5 x 8 + 0.25 x 2 = 5.5.
  s.moved_bytes = {0.5, 0, 0.5, 0.25};
  CHECK(graph_parameters(g, s).eff_memory == Approx(1 / 5.5));

  // MobileNetV3's depthwise layers are grouped convolutions; ResNet-18 has none; BERT's FLOPs
  // are matrix products.
  const DeviceSpec d = testing::orin_agx_64gb();
  const OpClassShares mnv3 =
      op_class_shares(d, workload_catalog().get("mobilenetv3-large"), Phase::inference);
  const OpClassShares resnet =
      op_class_shares(d, workload_catalog().get("resnet18"), Phase::training);
  const OpClassShares bert =
      op_class_shares(d, workload_catalog().get("bert-base"), Phase::training);
  CHECK(mnv3.flops[1] > 0.01);
  CHECK(resnet.flops[1] == 0);
  CHECK(bert.flops[2] > 0.9);
  // The LSTM's recurrent layers are a class of their own (index 4), apart from BERT's matrix
  // products; its embedding and decoder stay matrix products.
  const OpClassShares lstm = op_class_shares(d, workload_catalog().get("lstm"), Phase::inference);
  CHECK(bert.flops[4] == 0);
  CHECK(lstm.flops[4] > 0);
  CHECK(lstm.flops[2] > 0);
  double sum = 0;
  for (double v : resnet.kernels) sum += v;
  CHECK(sum == Approx(1));

  // The memory shares count the bytes that grow with the batch only. The LSTM's decoder reads
  // 33,278 x 200 fp32 weights (26.6 MB) once per minibatch; per batch-16 minibatch its
  // activations are about 2.1 MB of decoder output, 4.3 MB through the log-softmax, 0.9 MB of
  // embedding rows and output and 0.9 MB in and out of each LSTM layer: the matrix products
  // (embedding, decoder) hold about 3.0 of 9.1 MB, a third, not the 83% the weights would make.
  CHECK(lstm.bytes[2] == Approx(0.33).margin(0.05));
}

TEST_CASE("a dense convolution's FLOPs count as its tensor-core tiles run them") {
  // 128 x 32 tiles (N = output channels, K = input channels x window).
  CHECK(tensor_tile_utilization(256, 576) == Approx(1));         // 3x3x64 -> 256: full tiles
  CHECK(tensor_tile_utilization(64, 576) == Approx(0.5));        // 64 of 128 columns
  CHECK(tensor_tile_utilization(16, 27) == Approx(0.10546875));  // 16/128 x 27/32 (3x3x3 -> 16)
  // YOLOv8n's narrow convolutions (16-256 channels) idle more of each tile than ResNet-50's
  // (64-2048): their FLOPs weigh more in 1/eff_compute; a depthwise convolution is not padded.
  const DeviceSpec d = testing::orin_agx_64gb();
  const WorkloadCatalog& catalog = workload_catalog();
  const OpClassShares yolo = op_class_shares(d, catalog.get("yolov8n"), Phase::inference);
  const OpClassShares resnet = op_class_shares(d, catalog.get("resnet50"), Phase::inference);
  const OpClassShares mnv3 = op_class_shares(d, catalog.get("mobilenetv3-large"), Phase::inference);
  CHECK(resnet.padded_flops[0] / resnet.flops[0] < 1.2);
  CHECK(yolo.padded_flops[0] / yolo.flops[0] > 1.8);
  // A depthwise convolution is not padded but counts its window's loop (depthwise_window_cost).
  CHECK(mnv3.padded_flops[1] > mnv3.flops[1]);
  // Training adds the gradients' GEMMs: the weight gradient's N is input channels x window, so a
  // 64-channel layer idles less in training than in its forward pass alone.
  const OpClassShares r18_training = op_class_shares(d, catalog.get("resnet18"), Phase::training);
  const OpClassShares r18_inference = op_class_shares(d, catalog.get("resnet18"), Phase::inference);
  CHECK(r18_training.padded_flops[0] / r18_training.flops[0] <
        r18_inference.padded_flops[0] / r18_inference.flops[0]);
}

TEST_CASE(
    "a windowed dense convolution's activation bytes count the NHWC copy of its input; a 1x1 "
    "convolution's do not") {
  // (3 in + out) / (in + out): the copy reads the NCHW input once more and writes it once.
  // ResNet-50's layer1 3x3 convolution, 64 x 56 x 56 in and out: 4 / 2.
  CHECK(nchw_copy_byte_factor(200704, 200704, 3) == Approx(2.0));
  // Its 7x7 stem, 3 x 224 x 224 in, 64 x 112 x 112 out: (451,584 + 802,816) / 953,344.
  CHECK(nchw_copy_byte_factor(150528, 802816, 7) == Approx(1254400.0 / 953344));
  // A 1x1 convolution is a GEMM on the NCHW sample; no window (a global pool) neither.
  CHECK(nchw_copy_byte_factor(802816, 200704, 1) == 1);
  CHECK(nchw_copy_byte_factor(802816, 200704, 0) == 1);

  const DeviceSpec d = testing::orin_agx_64gb();
  const WorkloadCatalog& catalog = workload_catalog();
  // MobileNetV3's only windowed dense convolution is its 3x3 stem on the 3 x 224 x 224 image
  // (its pointwise convolutions are 1x1, its depthwise ones grouped): the dense class moves
  // 2 x 4 bytes x 150,528 more per sample, over the activation bytes per sample.
  const OpClassShares mnv3 = op_class_shares(d, catalog.get("mobilenetv3-large"), Phase::inference);
  const double act =
      activation_bytes_per_sample(d, catalog.get("mobilenetv3-large"), Phase::inference);
  CHECK(mnv3.moved_bytes[0] - mnv3.bytes[0] == Approx(2 * 4 * 150528.0 / act).epsilon(1e-6));
  for (std::size_t c = 1; c < kOpClasses; ++c) CHECK(mnv3.moved_bytes[c] == mnv3.bytes[c]);
  // ResNet-50's windowed layers (the stem and the 3x3 of each bottleneck) move more; the LSTM
  // has no convolution.
  const OpClassShares resnet = op_class_shares(d, catalog.get("resnet50"), Phase::inference);
  CHECK(resnet.moved_bytes[0] > resnet.bytes[0]);
  CHECK(resnet.moved_bytes[3] == resnet.bytes[3]);
  const OpClassShares lstm = op_class_shares(d, catalog.get("lstm"), Phase::training);
  for (std::size_t c = 0; c < kOpClasses; ++c) CHECK(lstm.moved_bytes[c] == lstm.bytes[c]);
}

TEST_CASE("an LSTM's matrix products run at the dense class's rate over their tensor-core tiles") {
  const DeviceSpec d = testing::orin_agx_64gb();
  const WorkloadCatalog& catalog = workload_catalog();
  const OpClassShares lstm = op_class_shares(d, catalog.get("lstm"), Phase::inference);
  // Both layers: 200 input features, hidden 200. The input projection and the per-step GEMM have
  // N = 4 x 200 = 800 gate columns (7 tiles of 128: 800/896 = 25/28 used) and K = 200 (7 steps
  // of 32: 25/28 used): 625/784 of each tile does useful work.
  const double u = (25.0 / 28) * (25.0 / 28);
  CHECK(lstm.tile_utilization[4] == Approx(u));
  CHECK(lstm.padded_flops[4] == 0);
  // The LSTM has no convolution: the dense entry holds the recurrent FLOPs over their tiles.
  CHECK(lstm.padded_flops[0] == Approx(lstm.flops[4] / u));
  CHECK(lstm.flops[0] == 0);
  // Training runs the same GEMMs (and their gradients) on the same tiles.
  const OpClassShares training = op_class_shares(d, catalog.get("lstm"), Phase::training);
  CHECK(training.tile_utilization[4] == Approx(u));
  // Dense convolutions: ResNet-50's forward tiles are 87% used, YOLOv8n's 45% (docs/MODEL.md);
  // classes without tiles keep 1.
  const OpClassShares resnet = op_class_shares(d, catalog.get("resnet50"), Phase::inference);
  const OpClassShares yolo = op_class_shares(d, catalog.get("yolov8n"), Phase::inference);
  CHECK(resnet.tile_utilization[0] == Approx(0.87).margin(0.01));
  CHECK(yolo.tile_utilization[0] == Approx(0.45).margin(0.01));
  CHECK(resnet.tile_utilization[3] == 1);
  CHECK(yolo.tile_utilization[2] == 1);
}

TEST_CASE(
    "a depthwise convolution's FLOP costs PyTorch's native kernel's SM-cycles per multiply-"
    "accumulate at its window where no calibrated workload has one") {
  // 0.32 SM-cycles per MAC against one MAC per FP32 lane and cycle at the peak: Orin AGX's SMs
  // have 2048 / 16 = 128 lanes, so a depthwise FLOP takes 0.32 x 128 = 40.96 peak FLOP times.
  // (The measurement behind 0.32: 2 x 32 x 512 x 512 outputs x 9 taps = 150,994,944 MACs in
  // 1.02 ms on 30 SMs at 1582 MHz, 48,409,200 SM-cycles: 0.3206 per MAC.)
  const DeviceSpec d = testing::orin_agx_64gb();
  REQUIRE(depthwise_flop_cost(d).has_value());
  CHECK(*depthwise_flop_cost(d) == Approx(40.96));
  CHECK(30 * 1582e6 * 1.02e-3 / (2.0 * 32 * 512 * 512 * 9) ==
        Approx(kDepthwiseSmCyclesPerMac).epsilon(0.01));
  DeviceSpec unknown = d;
  unknown.gpu_sms = 0;
  CHECK_FALSE(depthwise_flop_cost(unknown).has_value());

  // PyTorch 1.12 unrolls the 3x3 and 1x1 windows; a 5x5 window runs the generic loop at twice
  // the cost per tap in the forward and input-gradient kernels. The weight gradient costs 2.59
  // generic loops per MAC whatever the window (a 5x5 layer's backward pass 3.59 times its
  // forward pass, the input gradient one of it): 5.18 unrolled ones.
  CHECK(depthwise_window_cost(3, Phase::inference) == 1);
  CHECK(depthwise_window_cost(5, Phase::inference) == 2);
  CHECK(depthwise_window_cost(1, Phase::training) == Approx((1 + 1 + 5.18) / 3.0));
  CHECK(depthwise_window_cost(3, Phase::training) == Approx(2.393333));
  CHECK(depthwise_window_cost(5, Phase::training) == Approx((2 + 2 + 5.18) / 3.0));
  // The measurement behind 2.59: backward over forward of the three shapes both pull requests
  // time (89.002686 / 24.982176, 88.885025 / 24.643536, 9.488832 / 2.636320 ms), less the input
  // gradient's one loop.
  CHECK((89.002686 / 24.982176 + 88.885025 / 24.643536 + 9.488832 / 2.636320) / 3 - 1 ==
        Approx(kDepthwiseWeightGradLoopCost).epsilon(0.001));
  // MobileNetV3-Large's depthwise MACs per sample: 3x3 in blocks 1-3 and 7-12, 16 x 112^2 x 9 +
  // 64 x 56^2 x 9 + 72 x 56^2 x 9 + 240 x 14^2 x 9 + 200 x 14^2 x 9 + 2 x 184 x 14^2 x 9 +
  // 480 x 14^2 x 9 + 672 x 14^2 x 9 = 9,102,240; 5x5 in blocks 4-6 and 13-15, 72 x 28^2 x 25 +
  // 2 x 120 x 28^2 x 25 + 672 x 7^2 x 25 + 2 x 960 x 7^2 x 25 = 9,290,400. Their FLOPs as the
  // loops run them: (9,102,240 + 2 x 9,290,400) / 18,392,640 = 1.5051 in inference; in
  // training (9,102,240 x 7.18 / 3 + 9,290,400 x 9.18 / 3) / 18,392,640 = 2.7301.
  const WorkloadCatalog& catalog = workload_catalog();
  for (const auto& [phase, ratio] :
       {std::pair{Phase::inference, 1.5051}, std::pair{Phase::training, 2.7301}}) {
    const OpClassShares mnv3 = op_class_shares(d, catalog.get("mobilenetv3-large"), phase);
    CHECK(mnv3.padded_flops[kGroupedConvClass] / mnv3.flops[kGroupedConvClass] ==
          Approx(ratio).epsilon(1e-4));
    CHECK(mnv3.tile_utilization[kGroupedConvClass] == 1);
  }

  // The graph coefficients fitted on rows of ResNet-50 inference alone (no grouped convolution):
  // the grouped class's compute coefficient is log 40.96, whatever the rows; with MobileNetV3
  // among the calibrated workloads its rows set it.
  const auto rows_of = [&](const CrossModeCalibration& cal, const std::string& name) {
    std::vector<ModeRow> rows;
    for (double gpu : {318750000.0, 1300500000.0}) {
      for (int batch : {1, 16}) {
        const PowerMode mode{12, 2201600, gpu, 3199000000, 8};
        const auto e = cross_mode_estimate(
            d, cal.device, cal.workloads.at({name, Phase::inference}), Phase::inference,
            work_features(d, catalog.get(name), Phase::inference, batch), mode, batch);
        rows.push_back({name, Phase::inference, mode, batch, e.time_s, e.power_w});
      }
    }
    return rows;
  };
  CrossModeCalibration cal;
  cal.workloads[{"resnet50", Phase::inference}] = {0.7, 0.7, 1, 1.5, 5};
  const GraphCoefficients without =
      fit_graph_coefficients(d, cal, rows_of(cal, "resnet50"), catalog);
  CHECK(without.inv_compute[kGroupedConvClass] == Approx(std::log(40.96)));
  cal.workloads[{"mobilenetv3-large", Phase::inference}] = {0.085, 0.5, 0.13, 1.7, 6.5};
  std::vector<ModeRow> rows = rows_of(cal, "resnet50");
  for (ModeRow& r : rows_of(cal, "mobilenetv3-large")) rows.push_back(r);
  const GraphCoefficients with = fit_graph_coefficients(d, cal, rows, catalog);
  CHECK(std::abs(with.inv_compute[kGroupedConvClass] - std::log(40.96)) > 0.1);
}

TEST_CASE(
    "cuDNN's per-step launches inside an LSTM cost the host the raw launch, not an operator") {
  const DeviceSpec d = testing::orin_agx_64gb();
  const WorkloadCatalog& catalog = workload_catalog();
  // Two LSTM layers of 35 steps. cuDNN issues per layer one input-projection GEMM and, per step,
  // a recurrent GEMM and a point-wise gate kernel: 1 + 2 x 35 = 71 launches where the graph
  // counts 2, so 69 more per layer, 138 for the two; training's backward pass walks the steps
  // again: 276. No other workload has a layer that launches by itself.
  CHECK(library_launches(catalog.get("lstm"), Phase::inference) == 138);
  CHECK(library_launches(catalog.get("lstm"), Phase::training) == 276);
  CHECK(library_launches(catalog.get("resnet18"), Phase::training) == 0);
  CHECK(library_launches(catalog.get("bert-large"), Phase::inference) == 0);
  CHECK(work_features(d, catalog.get("lstm"), Phase::inference, 4).library_launches == 138);

  // The default device coefficients: 30 us per graph kernel, 1 ms per minibatch, 3.8 us per
  // library launch, all at cpu_ref (2201.6 MHz); at the top EMC clock the host waits on nothing
  // more. The LSTM's forward graph has 7 kernels (embedding, 2 per LSTM layer, decoder,
  // log-softmax): host = 7 x 30 + 138 x 3.8 + 1000 = 1734.4 us with kernel_scale 1, and twice
  // that at half the CPU clock (1100.8 MHz).
  CHECK(work_features(d, catalog.get("lstm"), Phase::inference, 1).kernels == 7);
  const CrossModeDevice device;
  CHECK(device.library_launch_us == 3.8);
  CrossModeWorkload w{1.0, 0.5, 1, 1, 0};
  w.library_launches_apart = true;  // as graph_parameters gives them
  const WorkFeatures f = work_features(d, catalog.get("lstm"), Phase::inference, 1);
  const PowerMode top{12, 2201600, 1300500000, 3199000000, 8};
  const PowerMode half{12, 1100800, 1300500000, 3199000000, 8};
  CHECK(cross_mode_estimate(d, device, w, Phase::inference, f, top, 1).host_s * 1e6 ==
        Approx(1734.4));
  CHECK(cross_mode_estimate(d, device, w, Phase::inference, f, half, 1).host_s * 1e6 ==
        Approx(2 * 1734.4));
  // The launches are counted, not scaled: a workload's kernel_scale multiplies its graph kernels
  // only (kernel_scale 2: 14 x 30 + 138 x 3.8 + 1000 = 1944.4 us).
  CrossModeWorkload twice = w;
  twice.kernel_scale = 2;
  CHECK(cross_mode_estimate(d, device, twice, Phase::inference, f, top, 1).host_s * 1e6 ==
        Approx(1944.4));
  // A workload fitted on its own rows carries them in its kernel_scale: 7 x 30 + 1000 = 1210 us.
  w.library_launches_apart = false;
  CHECK(cross_mode_estimate(d, device, w, Phase::inference, f, top, 1).host_s * 1e6 ==
        Approx(1210));
  // Parameters from the layer graph count them apart.
  CHECK(graph_parameters(GraphCoefficients{}, OpClassShares{}).library_launches_apart);
}

TEST_CASE("an LSTM's dependent steps floor the GPU time of parameters from its layer graph") {
  const DeviceSpec d = testing::orin_agx_64gb();
  const WorkloadCatalog& catalog = workload_catalog();
  // Two LSTM layers of 35 steps, each step waiting for the one before it: 70 dependent steps per
  // forward pass at any batch size; training's backward pass walks them again: 140. No other
  // workload has a recurrent layer.
  CHECK(recurrent_steps(catalog.get("lstm"), Phase::inference) == 70);
  CHECK(recurrent_steps(catalog.get("lstm"), Phase::training) == 140);
  CHECK(recurrent_steps(catalog.get("resnet18"), Phase::training) == 0);
  CHECK(recurrent_steps(catalog.get("bert-large"), Phase::inference) == 0);
  CHECK(work_features(d, catalog.get("lstm"), Phase::inference, 64).recurrent_steps == 70);

  // DeepBench's LSTM (hidden 256, batch 4) on a GTX 1080 Ti: 150 steps in 1.63 ms, 10.87 us a
  // step at 1582 MHz: 17,191.1 GPU cycles a step.
  CHECK(kRecurrentStepGpuKcycles == Approx(17.1911).epsilon(1e-5));
  const CrossModeDevice device;
  CHECK(device.recurrent_step_gpu_kcycles == kRecurrentStepGpuKcycles);

  // At 114.75 MHz the 70 steps take 70 x 17,191.1 / 114.75e6 s = 10.487 ms, far longer than the
  // batch-1 forward pass's work and fixed kernel cycles (under 1 ms): the GPU time is the chain.
  const WorkFeatures f = work_features(d, catalog.get("lstm"), Phase::inference, 1);
  const PowerMode slow{12, 2201600, 114750000, 3199000000, 8};
  CrossModeWorkload graph{1.0, 0.5, 1, 1, 0};
  graph.library_launches_apart = true;  // as graph_parameters gives them
  CrossModeWorkload fitted = graph;
  fitted.library_launches_apart = false;  // its kernel_scale carries the steps
  const CrossModeEstimate chained =
      cross_mode_estimate(d, device, graph, Phase::inference, f, slow, 1);
  const CrossModeEstimate alone =
      cross_mode_estimate(d, device, fitted, Phase::inference, f, slow, 1);
  CHECK(chained.gpu_s * 1e3 == Approx(10.487).epsilon(1e-4));
  CHECK(alone.gpu_s * 1e3 < 1.0);
  CHECK(chained.compute_s == alone.compute_s);  // the chain is waiting, not work
  // Throughput work longer than the chain overlaps it: the GPU time is the work's, not a sum. At
  // a compute efficiency of 0.001 the batch's FLOPs alone take longer than 10.487 ms.
  graph.eff_compute = fitted.eff_compute = 0.001;
  const double work_s = cross_mode_estimate(d, device, fitted, Phase::inference, f, slow, 1).gpu_s;
  CHECK(work_s > 0.0105);
  CHECK(cross_mode_estimate(d, device, graph, Phase::inference, f, slow, 1).gpu_s == work_s);
}

TEST_CASE("an LSTM's chain draws the GPU's power of the SMs its steps' thread blocks fill") {
  const DeviceSpec d = testing::orin_agx_64gb();
  const WorkloadCatalog& catalog = workload_catalog();
  // A step's recurrent GEMM: batch rows by 4 x 200 = 800 gate columns, in 128 x 128 tiles:
  // ceil(800 / 128) = 7 column tiles, one row tile up to batch 128, two at 129-256. Training's
  // backward step: 200 columns, ceil(200 / 128) = 2 tiles; the mean of 7 and 2 over its forward
  // and backward steps (35 each per layer) is 4.5. No recurrent layer: 0.
  CHECK(recurrent_step_blocks(catalog.get("lstm"), Phase::inference, 1) == 7);
  CHECK(recurrent_step_blocks(catalog.get("lstm"), Phase::inference, 64) == 7);
  CHECK(recurrent_step_blocks(catalog.get("lstm"), Phase::inference, 200) == 14);
  CHECK(recurrent_step_blocks(catalog.get("lstm"), Phase::training, 16) == 4.5);
  CHECK(recurrent_step_blocks(catalog.get("resnet18"), Phase::inference, 16) == 0);
  CHECK(work_features(d, catalog.get("lstm"), Phase::inference, 4).recurrent_step_blocks == 7);

  // Batch 1 at the top GPU clock: the 70 steps take 70 x 17,191.1 / 1300.5e6 s = 0.9253 ms, longer
  // than the work. Orin AGX 64GB has 16 SMs: 7 blocks keep 7 / 16 = 0.4375 of them busy. Beyond
  // the work the chain draws the stalled share 0.5 plus (1 - 0.5) x 0.4375 of the busy power:
  // against a device without an SM count (the stalled share alone), the GPU rail draws
  // 10 W x activity 1 x 0.5 x 0.4375 x (chain - work) / minibatch time more (f = f_max, V = V_max).
  const WorkFeatures f = work_features(d, catalog.get("lstm"), Phase::inference, 1);
  CrossModeDevice device;
  device.gpu_dynamic_w = 10;
  device.gpu_stall_power_share = 0.5;
  CrossModeWorkload graph{1.0, 0.5, 1, 1, 0};
  graph.gpu_activity = 1;
  graph.library_launches_apart = true;
  CrossModeWorkload fitted = graph;
  fitted.library_launches_apart = false;
  DeviceSpec no_sms = d;
  no_sms.gpu_sms = 0;
  const PowerMode top{12, 2201600, 1300500000, 3199000000, 8};
  const CrossModeEstimate e = cross_mode_estimate(d, device, graph, Phase::inference, f, top, 1);
  const CrossModeEstimate stalled =
      cross_mode_estimate(no_sms, device, graph, Phase::inference, f, top, 1);
  const double work_s = cross_mode_estimate(d, device, fitted, Phase::inference, f, top, 1).gpu_s;
  CHECK(e.gpu_s * 1e3 == Approx(0.92530).epsilon(1e-4));
  REQUIRE(work_s < e.gpu_s);
  CHECK(e.time_s == stalled.time_s);
  CHECK(e.power_w - stalled.power_w ==
        Approx(10 * 0.5 * 0.4375 * (0.92530e-3 - work_s) / e.time_s).epsilon(1e-4));
  // Four of the eight TPCs powered: 8 SMs, 7 / 8 of them busy through the chain.
  const PowerMode gated{12, 2201600, 1300500000, 3199000000, 4};
  const CrossModeEstimate g = cross_mode_estimate(d, device, graph, Phase::inference, f, gated, 1);
  const CrossModeEstimate g0 =
      cross_mode_estimate(no_sms, device, graph, Phase::inference, f, gated, 1);
  const double g_work = cross_mode_estimate(d, device, fitted, Phase::inference, f, gated, 1).gpu_s;
  REQUIRE(g_work < g.gpu_s);
  CHECK(g.power_w - g0.power_w ==
        Approx(10 * 0.5 * 0.875 * (0.92530e-3 - g_work) / g.time_s).epsilon(1e-4));
  // Throughput work longer than the chain leaves nothing beyond it: the same power either way.
  graph.eff_compute = 0.0001;
  CHECK(cross_mode_estimate(d, device, graph, Phase::inference, f, top, 1).power_w ==
        cross_mode_estimate(no_sms, device, graph, Phase::inference, f, top, 1).power_w);
}

// The fit computes each row's time terms once for the Jacobian columns of the power parameters
// (cross_mode_fit.cpp): that holds only if no time term reads a power parameter, and if the
// estimate is exactly its time terms followed by its power. Every power field of the device and
// the workload's gpu_activity, moved by 10%, on workloads of both phases (an LSTM's chain, a
// training pipeline, a correction), must leave the time terms' bits as they were; the other
// fitted fields must not all be power fields (a field wrongly named one would be caught here).
TEST_CASE("the time terms read no power parameter and the estimate is them then its power") {
  const DeviceSpec d = testing::orin_agx_64gb();
  const WorkloadCatalog& catalog = workload_catalog();
  CrossModeDevice device;
  CrossModeWorkload w{0.4, 0.5, 1.2, 1.3, 2.5};
  w.library_launches_apart = true;
  ResidualCorrection c;
  c.points = {{0.1, 0.2, 0.3, 0.4, 0.5, 0.2, 0.1, 0.6}};
  c.weights = {0.05};
  c.regime = true;
  CrossModeWorkload corrected = w;
  corrected.time_correction = c;
  corrected.power_correction = c;
  const PowerMode modes[] = {{12, 2201600, 1300500000, 3199000000, 8},
                             {4, 422400, 114750000, 665600000, 8},
                             {2, 1497600, 726750000, 2133000000, 4}};
  const auto same = [](const CrossModeTimeTerms& a, const CrossModeTimeTerms& b) {
    return a.time_s == b.time_s && a.gpu_s == b.gpu_s && a.compute_s == b.compute_s &&
           a.host_s == b.host_s && a.device_s == b.device_s && a.pipeline_s == b.pipeline_s &&
           a.chain_s == b.chain_s && a.chain_sm_share == b.chain_sm_share &&
           a.pipeline_core_s == b.pipeline_core_s;
  };
  int power_fields = 0, time_fields = 0, checked = 0;
  for (const auto& [name, phase, batch] :
       {std::tuple{"lstm", Phase::inference, 4}, std::tuple{"resnet18", Phase::training, 16},
        std::tuple{"mobilenetv3-large", Phase::inference, 64}}) {
    const WorkFeatures f = work_features(d, catalog.get(name), phase, batch);
    for (const CrossModeWorkload& wl : {w, corrected}) {
      for (const PowerMode& mode : modes) {
        const CrossModeTimeTerms base = cross_mode_time_terms(d, device, wl, phase, f, mode, batch);
        // The estimate is its time terms, then its power: the same bits.
        const CrossModeEstimate whole = cross_mode_estimate(d, device, wl, phase, f, mode, batch);
        const CrossModeEstimate split =
            cross_mode_estimate_from(d, device, wl, f, mode, batch, base);
        CHECK(whole.time_s == split.time_s);
        CHECK(whole.power_w == split.power_w);
        CHECK(whole.rails.power_w == split.rails.power_w);
        for (const CrossModeField& field : cross_mode_fields()) {
          CrossModeDevice moved = device;
          moved.*(field.member) *= field.kind == 's' ? 0.9 : 1.1;
          const bool unchanged =
              same(base, cross_mode_time_terms(d, moved, wl, phase, f, mode, batch));
          if (cross_mode_power_field(field)) {
            INFO(field.name);
            CHECK(unchanged);
            ++power_fields;
          } else if (!unchanged) {
            ++time_fields;
          }
          ++checked;
        }
        CrossModeWorkload busier = wl;
        busier.gpu_activity *= 1.1;
        CHECK(same(base, cross_mode_time_terms(d, device, busier, phase, f, mode, batch)));
      }
    }
  }
  CHECK(checked == 18 * static_cast<int>(cross_mode_fields().size()));
  CHECK(power_fields == 18 * 13);
  CHECK(time_fields > 0);
}

// Zero-shot, leave one workload out (docs/MODEL.md, "Zero-shot and few-shot"), on three workloads
// and the device fitted on 10% of the other workloads' modes (seed 1) to keep the test short:
// bounded at the figures this reduced protocol reaches (BERT-base training 5.33% / 2.70%,
// ResNet-18 training 9.34% / 3.82%, ResNet-50 inference 12.88% / 9.22% time / power), rounded
// up by about half a point (the full-protocol figures are in docs/MODEL.md).
TEST_CASE("zero-shot: a workload left out is predicted from its layer graph alone") {
  const auto rows = reference_rows();
  if (rows.empty()) return;  // skipped
  const DeviceSpec d = testing::orin_agx_64gb();
  struct Bound {
    const char* workload;
    Phase phase;
    double time_pct;
    double power_pct;
  };
  for (const Bound& b : std::vector<Bound>{{"bert-base", Phase::training, 5.6, 3.3},
                                           {"resnet18", Phase::training, 9.9, 4.2},
                                           {"resnet50", Phase::inference, 13.3, 9.7}}) {
    const auto results = zero_shot_leave_one_out(d, rows, workload_catalog(), 0.1, 1, b.workload);
    REQUIRE(results.size() == 1);
    const ZeroShotResult& r = results.front();
    INFO(to_table(r.errors, b.workload));
    CHECK(r.key.second == b.phase);
    CHECK(r.errors.all.rows > 400);
    CHECK(r.errors.all.time_mape_pct <= b.time_pct);
    CHECK(r.errors.all.power_mape_pct <= b.power_pct);
  }
}

// The p-norm skips the powers whose value IEEE 754 fixes (pow(1, y) = 1; a sum that rounds to 1)
// and must return the very bits of the formula it stands for, on either side of its cut-off
// (the smaller ratio below 2^-60/p) and at the exponents the fit uses (1.2 to the occupancy's
// hundreds).
TEST_CASE("the p-norm's shortcuts return the bits of the full formula") {
  const auto full = [](double a, double b, double p) {
    const double m = std::max(a, b);
    if (!(m > 0)) return 0.0;
    return m * std::pow(std::pow(a / m, p) + std::pow(b / m, p), 1.0 / p);
  };
  std::size_t checked = 0;
  for (double p : {1.0, 1.21, 2.3, 3.46, 4.0, 60.0, 517.0, 5000.0}) {
    for (double m : {1e-6, 3.7e-3, 0.25, 1.0, 42.0}) {
      // Ratios from 1 down across 2^-60/p, and 0.
      for (double r = 1.0; r > 1e-30; r *= 0.61) {
        const double a = m, b = m * r;
        CHECK(cross_mode_pnorm(a, b, p) == full(a, b, p));
        CHECK(cross_mode_pnorm(b, a, p) == full(b, a, p));
        checked += 2;
      }
      CHECK(cross_mode_pnorm(m, 0.0, p) == m);
      CHECK(cross_mode_pnorm(m, m, p) == full(m, m, p));
    }
  }
  CHECK(checked > 1000);
  CHECK(cross_mode_pnorm(0.0, 0.0, 2.0) == 0.0);
  // By hand: (3^2 + 4^2)^(1/2) = 5, in sequence 3 + 4 = 7, and at p = 517 the max.
  CHECK(cross_mode_pnorm(3, 4, 2) == Approx(5).epsilon(1e-15));
  CHECK(cross_mode_pnorm(3, 4, 1) == Approx(7).epsilon(1e-15));
  CHECK(cross_mode_pnorm(1e-3, 0.2, 517) == 0.2);
}

// The leave-outs are independent fits: run on threads they must give what they give one at a
// time (same seed, same bytes), in the same order, with one progress call per workload left out.
// A small protocol (the device on 2% of the modes, two few-shot draws at k = 10) keeps it short.
TEST_CASE("zero-shot: workloads left out on threads give the same results as one at a time") {
  const auto rows = reference_rows();
  if (rows.empty()) return;  // skipped
  const DeviceSpec d = testing::orin_agx_64gb();
  ZeroShotOptions options;
  options.device_modes = 0.02;
  options.seed = 3;
  options.only = {"lstm", "bert-base"};
  options.few_shot_k = {10};
  options.draws = 2;
  options.own_fit = true;
  const auto serial = zero_shot_leave_one_out(d, rows, workload_catalog(), options);
  std::vector<std::pair<std::string, std::size_t>> calls;
  // Four threads: one per leave-out, and two for each one's device fit and few-shot draws.
  options.threads = 4;
  options.progress = [&](const std::string& left_out, std::size_t done, std::size_t total) {
    CHECK(total == 2);
    calls.emplace_back(left_out, done);
  };
  const auto threaded = zero_shot_leave_one_out(d, rows, workload_catalog(), options);
  // bert-base has training rows, the LSTM both phases: three results, by name then phase
  // (inference first).
  REQUIRE(serial.size() == 3);
  REQUIRE(threaded.size() == 3);
  CHECK(serial[0].key == WorkloadKey{"bert-base", Phase::training});
  CHECK(serial[1].key == WorkloadKey{"lstm", Phase::inference});
  CHECK(serial[2].key == WorkloadKey{"lstm", Phase::training});
  for (std::size_t i = 0; i < serial.size(); ++i) {
    CHECK(threaded[i].key == serial[i].key);
    CHECK(to_table(threaded[i].errors, "x") == to_table(serial[i].errors, "x"));
    CHECK(threaded[i].errors.all.time_mape_pct == serial[i].errors.all.time_mape_pct);
    CHECK(threaded[i].errors.all.power_mape_pct == serial[i].errors.all.power_mape_pct);
    REQUIRE(threaded[i].few_shot.size() == 1);
    REQUIRE(serial[i].few_shot.size() == 1);
    CHECK(threaded[i].few_shot[0].time_mape_pct == serial[i].few_shot[0].time_mape_pct);
    CHECK(threaded[i].few_shot[0].power_mape_pct == serial[i].few_shot[0].power_mape_pct);
    // The five parameters fitted on all its rows do at least about as well as those derived
    // from its graph (the fit minimises a Huber loss of log errors, not the MAPE itself).
    REQUIRE(serial[i].own_fit);
    REQUIRE(threaded[i].own_fit);
    CHECK(threaded[i].own_fit->time_mape_pct == serial[i].own_fit->time_mape_pct);
    CHECK(threaded[i].own_fit->power_mape_pct == serial[i].own_fit->power_mape_pct);
    CHECK(serial[i].own_fit->rows == serial[i].errors.all.rows);
    CHECK(serial[i].own_fit->time_mape_pct < serial[i].errors.all.time_mape_pct * 1.05);
  }
  // As a calibration file records them (CrossModeCalibration::zero_shot_check).
  const ZeroShotCheck check = zero_shot_check_of(serial, options);
  CHECK(check.device_modes == 0.02);
  CHECK(check.seed == 3);
  REQUIRE(check.results.size() == 3);
  for (std::size_t i = 0; i < serial.size(); ++i) {
    CHECK(check.results[i].key == serial[i].key);
    CHECK(check.results[i].rows == serial[i].errors.all.rows);
    CHECK(check.results[i].time_mape_pct == serial[i].errors.all.time_mape_pct);
    CHECK(check.results[i].time_bias_pct == serial[i].errors.all.time_bias_pct);
    CHECK(check.results[i].power_mape_pct == serial[i].errors.all.power_mape_pct);
    CHECK(check.results[i].power_bias_pct == serial[i].errors.all.power_bias_pct);
    REQUIRE(check.results[i].few_shot.size() == 1);
    CHECK(check.results[i].few_shot[0].k == 10);
    CHECK(check.results[i].few_shot[0].time_mape_pct == serial[i].few_shot[0].time_mape_pct);
    CHECK(check.results[i].own_fit_time_mape_pct == serial[i].own_fit->time_mape_pct);
    CHECK(check.results[i].own_fit_power_mape_pct == serial[i].own_fit->power_mape_pct);
  }
  REQUIRE(calls.size() == 2);
  CHECK(calls[0].second == 1);
  CHECK(calls[1].second == 2);
  CHECK(calls[0].first != calls[1].first);
  for (const auto& c : calls) CHECK((c.first == "lstm" || c.first == "bert-base"));
}

namespace {

// A workload-phase of a hand-made zero-shot check: 100 rows, its time and power MAPE, no bias,
// no few-shot figures or floor.
void add_zero_shot_result(ZeroShotCheck& check, const char* workload, Phase phase,
                          double time_mape_pct, double power_mape_pct) {
  check.results.push_back(
      {{workload, phase}, 100, time_mape_pct, 0, power_mape_pct, 0, {}, {}, {}});
}

}  // namespace

// The clause a run and `devices NAME` print for a phase's extrapolated figures: the range and
// median of that phase's leave-one-out MAPEs, the other phase's left out.
TEST_CASE("the zero-shot check's clause gives a phase's range and median") {
  ZeroShotCheck check;
  const auto add = [&](const char* w, Phase p, double t, double pw) {
    add_zero_shot_result(check, w, p, t, pw);
  };
  add("a", Phase::training, 9.61, 2.0);
  add("b", Phase::training, 28.63, 18.2);
  add("c", Phase::training, 5.74, 6.9);
  add("d", Phase::training, 14.6, 6.86);
  add("e", Phase::inference, 12.48, 7.69);
  CHECK(zero_shot_check_clause(check, Phase::training) ==
        "this device's measured training workloads (4), each left out in turn and predicted from "
        "its layer graph: time MAPE 5.7-28.6% (median 12.1%), power 2.0-18.2% (median 6.9%)");
  CHECK(zero_shot_check_clause(check, Phase::inference) ==
        "this device's measured inference workloads (1), each left out in turn and predicted from "
        "its layer graph: time MAPE 12.5%, power 7.7%");
  CHECK(zero_shot_check_clause(ZeroShotCheck{}, Phase::training).empty());
}

// How unlike two op mixes are: 0 for the same graph, 1 for graphs without a class in common, the
// mean of the FLOP shares' and the kernel shares' total-variation distances between.
TEST_CASE("op mix distance: 0 for one graph, 1 for none in common, the shares' mean between") {
  const DeviceSpec d = testing::orin_agx_64gb();
  const auto& catalog = workload_catalog();
  const OpClassShares resnet = op_class_shares(d, catalog.get("resnet18"), Phase::training);
  CHECK(op_mix_distance(resnet, resnet) == 0);
  OpClassShares a, b;
  a.flops = {1, 0, 0, 0, 0};
  a.kernels = {0.5, 0, 0, 0.5, 0};
  b.flops = {0, 0, 1, 0, 0};
  b.kernels = {0, 0, 1, 0, 0};
  CHECK(op_mix_distance(a, b) == Approx(1));
  b.flops = {0.5, 0, 0.5, 0, 0};  // half the FLOPs moved: 0.5; the kernels share none: 1
  CHECK(op_mix_distance(a, b) == Approx(0.75));
  CHECK(op_mix_distance(b, a) == op_mix_distance(a, b));
}

// A run names, for each workload it extrapolates, the measured workload of its phase most like it
// by op mix and that one's left-out figures: a plain CNN is nearest the CNN, a recurrent model the
// LSTM, a transformer the transformer.
TEST_CASE("an extrapolated workload is named with the measured workload most like it") {
  const DeviceSpec d = testing::orin_agx_64gb();
  CrossModeCalibration cal;
  ZeroShotCheck check;
  const auto add = [&](const char* w, Phase p, double t, double pw) {
    add_zero_shot_result(check, w, p, t, pw);
  };
  add("resnet18", Phase::training, 9.46, 6.91);
  add("bert-base", Phase::training, 5.59, 2.36);
  add("lstm", Phase::training, 23.55, 18.62);
  add("mobilenetv3-large", Phase::inference, 27.9, 9.14);
  add("bert-large", Phase::inference, 11.47, 7.54);
  const auto& catalog = workload_catalog();
  const auto nearest = [&](const CrossModeModel& m, const char* w, Phase p) {
    return m.extrapolation_nearest(catalog.get(w), p);
  };
  const CrossModeModel without(d, cal);
  CHECK(nearest(without, "vgg11", Phase::training).empty());  // no check recorded
  cal.zero_shot_check = check;
  const CrossModeModel m(d, cal);
  const std::string vgg = nearest(m, "vgg11", Phase::training);
  CHECK(vgg.rfind("vgg11 training is most like resnet18 training by op mix, at distance ", 0) == 0);
  CHECK(vgg.find(" of 1, whose zero-shot time and power MAPE were 9.5% and 6.9%") !=
        std::string::npos);
  CHECK(nearest(m, "lstm", Phase::training) ==
        "lstm training is most like lstm training by op mix, at distance 0.00 of 1, whose "
        "zero-shot time and power MAPE were 23.6% and 18.6%");
  CHECK(nearest(m, "bert-base", Phase::inference)
            .rfind("bert-base inference is most like bert-large inference", 0) == 0);
  CHECK(nearest(m, "resnet18", Phase::inference)
            .rfind("resnet18 inference is most like mobilenetv3-large inference", 0) == 0);
  // A phase without a measured workload in the check: nothing to name.
  check.results.resize(3);
  cal.zero_shot_check = check;
  CHECK(nearest(CrossModeModel(d, cal), "resnet50", Phase::inference).empty());
}

// The few-shot clause `devices NAME` prints: per k the median over the phase's workloads.
TEST_CASE("the few-shot check's clause gives a phase's medians at each k") {
  ZeroShotCheck check;
  const auto add = [&](const char* w, Phase p, std::vector<ZeroShotCheck::FewShot> few) {
    check.results.push_back({{w, p}, 100, 10, 0, 5, 0, std::move(few), {}, {}});
  };
  add("a", Phase::training, {{10, 7.46, 4.08}, {50, 3.97, 2.33}});
  add("b", Phase::training, {{10, 3.13, 1.93}, {50, 1.45, 1.28}});
  add("c", Phase::training, {{10, 4.56, 2.55}, {50, 2.65, 1.63}});
  add("d", Phase::inference, {{10, 10.63, 5.56}});
  add("e", Phase::inference, {{20, 8.0, 4.0}});  // another k: no clause for the phase
  CHECK(few_shot_check_clause(check, Phase::training) ==
        "this device's measured training workloads (3), each refined from k of its profiled "
        "modes: time MAPE median 4.6 / 2.6% at k = 10 / 50, power 2.5 / 1.6%");
  CHECK(few_shot_check_clause(check, Phase::inference).empty());
  check.results.pop_back();
  CHECK(few_shot_check_clause(check, Phase::inference) ==
        "this device's measured inference workloads (1), each refined from k of its profiled "
        "modes: time MAPE median 10.6% at k = 10, power 5.6%");
  CHECK(few_shot_check_clause(ZeroShotCheck{}, Phase::training).empty());
}

// A leave-out that fails on its thread is reported as it would be on one thread: the error, not a
// crash. Rows naming a workload the catalog lacks make every fit of the device refuse them.
TEST_CASE("zero-shot: an error in a workload left out on a thread reaches the caller") {
  const DeviceSpec d = testing::orin_agx_64gb();
  ModeRow row;
  row.phase = Phase::training;
  row.mode = {12, d.cpu_khz.back(), d.gpu_hz.back(), d.emc_hz.back(), d.gpu_tpcs};
  row.batch_size = 16;
  row.time_s = 0.1;
  row.power_w = 30;
  std::vector<ModeRow> rows;
  for (const char* name : {"resnet18", "no-such-workload", "bert-base"}) {
    row.workload = name;
    rows.push_back(row);
  }
  ZeroShotOptions options;
  options.threads = 3;
  std::size_t progress_calls = 0;
  options.progress = [&](const std::string&, std::size_t, std::size_t) { ++progress_calls; };
  CHECK_THROWS_AS(zero_shot_leave_one_out(d, rows, workload_catalog(), options),
                  fulcrum::InputError);
  // Every leave-out fails (the unknown workload is in its fit or is the one predicted): none
  // reports done.
  CHECK(progress_calls == 0);
}

TEST_CASE(
    "zero-shot CPU work per sample follows the input's size among samples of its kind, bounded by "
    "the activations") {
  const DeviceSpec d = testing::orin_agx_64gb();
  const WorkloadCatalog& catalog = workload_catalog();
  // Two image models calibrated (224x224x3 fp32 inputs, 602,112 bytes), 5 and 6.5 ms per sample.
  // BERT-large's 384 int64 tokens (3,072 bytes) are 196 times smaller: the input rule gives
  // (5 + 6.5) / 2 x 3072 / 602112 = 0.029337 ms (both equally near), far below what its
  // activations would allow.
  CrossModeCalibration images;
  images.workloads[{"resnet50", Phase::inference}] = {0.7, 0.7, 1, 1, 5};
  images.workloads[{"mobilenetv3-large", Phase::inference}] = {0.1, 0.5, 1, 1, 6.5};
  const CrossModeWorkload bert =
      zero_shot_parameters(d, images, catalog.get("bert-large"), Phase::inference, catalog);
  CHECK(bert.preprocess_ms == Approx(5.75 * 3072 / 602112).epsilon(1e-9));

  // Only BERT-large calibrated (24 ms per 384-token sample): the input rule alone would give the
  // LSTM (35 tokens, 280 bytes) 24 x 280 / 3072 = 2.19 ms per sample, more than its whole
  // minibatch takes; its activations per sample are over a thousand times smaller than BERT's,
  // which bounds it at about 1% of that.
  CrossModeCalibration tokens;
  tokens.workloads[{"bert-large", Phase::inference}] = {0.3, 0.07, 3, 0.7, 24};
  tokens.workloads[{"bert-base", Phase::training}] = {0.3, 0.07, 3, 0.7, 24};
  const CrossModeWorkload lstm =
      zero_shot_parameters(d, tokens, catalog.get("lstm"), Phase::inference, catalog);
  CHECK(lstm.preprocess_ms > 0);
  CHECK(lstm.preprocess_ms < 0.02 * 24 * 280 / 3072);
  CHECK(activation_bytes_per_sample(d, catalog.get("lstm"), Phase::inference) * 1000 <
        activation_bytes_per_sample(d, catalog.get("bert-large"), Phase::inference));
  // Training's CPU work is the dataset's decoding: the input rule alone, no bound.
  const CrossModeWorkload lstm_training =
      zero_shot_parameters(d, tokens, catalog.get("lstm"), Phase::training, catalog);
  CHECK(lstm_training.preprocess_ms == Approx(24.0 * 280 / 3072).epsilon(1e-9));

  // Training on images: in proportion to the bytes a worker handles, the stored JPEG (bytes on
  // storage over samples), the decoded image (3 bytes per stored pixel) and the 3x224x224 crop it
  // makes of it (150,528 elements), not the network's input alone (the same for both).
  // MobileNetV3 decodes GLD-23k's 800x600 JPEGs (2.8 GB / 23,080 = 121,317.16 bytes) at 11.85 ms
  // each: 121,317.16 + 1,440,000 + 150,528 = 1,711,845.16 bytes; ResNet-18's ImageNet images
  // (140 GB / 1,281,167 = 109,275.37 bytes) are 469x387 on average: 109,275.37 + 544,509 +
  // 150,528 = 804,312.37 bytes. 11.85 x 804,312.37 / 1,711,845.16 = 5.567736 ms.
  CrossModeCalibration landmarks;
  landmarks.workloads[{"mobilenetv3-large", Phase::training}] = {0.06, 0.5, 0.8, 0.6, 11.85};
  const CrossModeWorkload resnet =
      zero_shot_parameters(d, landmarks, catalog.get("resnet18"), Phase::training, catalog);
  CHECK(resnet.preprocess_ms == Approx(5.567736).epsilon(1e-6));

  // Images and token sequences both calibrated: a sample's CPU work comes from workloads whose
  // samples are of the same kind. LeNet-5's 1x32x32 fp32 input (4,096 bytes) is about the size of
  // BERT-base's 384 int64 tokens (3,072 bytes), whose 24 ms of tokenising would make it
  // 24 x 4096 / 3072 = 32 ms per sample; from ResNet-18's ImageNet decoding (6 ms per 804,312.37
  // bytes, above) it is 6 x 4096 / 804312.37 = 0.0305553 ms. The LSTM's tokens take
  // BERT's rule:
  // 24 x 280 / 3072 = 2.1875 ms.
  CrossModeCalibration both;
  both.workloads[{"resnet18", Phase::training}] = {0.3, 0.5, 1.3, 1, 6};
  both.workloads[{"bert-base", Phase::training}] = {0.3, 0.07, 3, 0.7, 24};
  const CrossModeWorkload lenet =
      zero_shot_parameters(d, both, catalog.get("lenet5"), Phase::training, catalog);
  CHECK(lenet.preprocess_ms == Approx(0.0305553).epsilon(1e-5));
  const CrossModeWorkload lstm_both =
      zero_shot_parameters(d, both, catalog.get("lstm"), Phase::training, catalog);
  CHECK(lstm_both.preprocess_ms == Approx(24.0 * 280 / 3072).epsilon(1e-9));
}

TEST_CASE("a training launch's share of host time goes as its launch time over its kernel's") {
  // One other workload, fitted at 0.2 of its graph's launches with kernels 4 times its launch
  // time: ratio x kernel_over_launch = 0.8 is training's; a workload whose kernels run 8 times its
  // launches hides twice as many, 0.8 / 8 = 0.1; one at 0.4 x would get 2: at most 1.
  CHECK(launch_hiding_ratio({{0.2, 4}}, 8) == Approx(0.1));
  CHECK(launch_hiding_ratio({{0.2, 4}}, 0.8) == Approx(1));
  CHECK(launch_hiding_ratio({{0.2, 4}}, 0.4) == 1);
  // Two others, (0.1, 5) and (0.5, 2): products 0.5 and 1, weights 1/5 and 1/2: exp((0.2 ln 0.5 +
  // 0.5 ln 1) / 0.7) = 0.5^(2/7) = 0.820335; at 2.5, 0.820335 / 2.5 = 0.328134.
  CHECK(launch_hiding_ratio({{0.1, 5}, {0.5, 2}}, 2.5) == Approx(0.328134).epsilon(1e-5));
  // A third whose kernels run 28 times its launches (0.7, 28: product 19.6) weighs 1/28: its
  // launches are a small part of its time. exp((0.2 ln 0.5 + 0.5 ln 1 + ln(19.6) / 28) / (0.7 +
  // 1/28)) / 2.5 = 0.956968 / 2.5 = 0.382787.
  CHECK(launch_hiding_ratio({{0.1, 5}, {0.5, 2}, {0.7, 28}}, 2.5) ==
        Approx(0.382787).epsilon(1e-5));
  // Nothing to learn from: the graph's launches.
  CHECK(launch_hiding_ratio({}, 2.5) == 1);
  CHECK(launch_hiding_ratio({{0, 4}}, 2.5) == 1);
}

TEST_CASE("a kernel's GPU time over its launch time is read at the device's top clocks") {
  const DeviceSpec d = testing::orin_agx_64gb();
  const WorkloadCatalog& catalog = workload_catalog();
  const Workload& resnet = catalog.get("resnet18");
  // No fixed cycles per kernel and DRAM nearly free: the GPU time is the compute alone,
  // FLOPs / (2048 cores x 2 x 1300.5 MHz x eff_compute 0.5), against 40 us per kernel.
  CrossModeDevice dev;
  dev.kernel_gpu_kcycles = 0;
  dev.eff_weights = 1e12;
  dev.l2_speedup = 1e12;
  dev.launch_us = 40;
  CrossModeWorkload w;
  w.eff_compute = 0.5;
  w.eff_memory = 1e12;
  w.preprocess_ms = 5;  // the data pipeline is not the GPU's
  const WorkFeatures f = work_features(d, resnet, Phase::training, 16);
  REQUIRE(f.kernels > 0);
  const double gpu_s = f.flops / (2048 * 2 * 1300.5e6 * 0.5);
  CHECK(kernel_launch_ratio(d, dev, w, resnet) ==
        Approx(gpu_s / (f.kernels * 40e-6)).epsilon(1e-6));
  // The launch time holds at cpu_ref: referred to half the top clock, launches at the top clock
  // take half as long.
  dev.cpu_ref_khz = 2201600.0 / 2;
  CHECK(kernel_launch_ratio(d, dev, w, resnet) ==
        Approx(2 * gpu_s / (f.kernels * 40e-6)).epsilon(1e-6));
}

TEST_CASE(
    "a zero-shot training workload's launches hide as the other training workloads' do, by "
    "kernel length") {
  const DeviceSpec d = testing::orin_agx_64gb();
  const WorkloadCatalog& catalog = workload_catalog();
  // Every class's kernel coefficient 0: the graph gives each workload kernel_scale = sum of its
  // kernel shares = 1. ResNet-18 training fitted 0.25 of it: MobileNetV3 training's launches
  // take 0.25 x ResNet-18's kernel_launch_ratio over its own, its graph's parameters. The
  // inference workload (4) and the workload's own entry (100) do not count.
  CrossModeCalibration cal;
  cal.graph = GraphCoefficients{};
  cal.workloads[{"resnet18", Phase::training}] = {0.3, 0.5, 1, 0.25, 6};
  cal.workloads[{"resnet50", Phase::inference}] = {0.7, 0.7, 1, 4, 5};
  cal.workloads[{"mobilenetv3-large", Phase::training}] = {0.06, 0.5, 1, 100, 11.85};
  const Workload& mobilenet = catalog.get("mobilenetv3-large");
  const Workload& resnet = catalog.get("resnet18");
  const double x_resnet =
      kernel_launch_ratio(d, cal.device, cal.workloads.at({"resnet18", Phase::training}), resnet);
  const CrossModeWorkload g =
      graph_parameters(*cal.graph, op_class_shares(d, mobilenet, Phase::training));
  REQUIRE(g.kernel_scale == Approx(1));
  const double x_mobilenet = kernel_launch_ratio(d, cal.device, g, mobilenet);
  const double expected = std::min(1.0, 0.25 * x_resnet / x_mobilenet);
  CHECK(training_kernel_ratio(d, cal, mobilenet, catalog) == Approx(expected));
  CHECK(zero_shot_parameters(d, cal, mobilenet, Phase::training, catalog).kernel_scale ==
        Approx(expected));
  // An inference workload keeps its graph's 1.
  CHECK(zero_shot_parameters(d, cal, mobilenet, Phase::inference, catalog).kernel_scale ==
        Approx(1));
  // Without graph coefficients, or with no other training workload, no ratio.
  CrossModeCalibration alone;
  alone.graph = GraphCoefficients{};
  alone.workloads[{"resnet18", Phase::training}] = {0.3, 0.5, 1, 0.25, 6};
  CHECK(training_kernel_ratio(d, alone, resnet, catalog) == 1);
  alone.graph.reset();
  CHECK(training_kernel_ratio(d, alone, catalog.get("lstm"), catalog) == 1);
}

TEST_CASE(
    "the nearest-neighbour yardstick: the nearest row, an inverse-distance mean, and a plane "
    "that reproduces a log-linear surface",
    "[perf][cross-mode][yardstick]") {
  const DeviceSpec d = testing::orin_agx_64gb();
  // A full 3 x 3 x 2 x 2 grid of one workload: time = 0.1 s x 2^(cores / 4) x (1 GHz / f_cpu)^0.5
  // x (1 GHz / f_gpu) x (1 GHz / f_emc)^0.2, power = 10 W x f_gpu / 1 GHz: log-linear in
  // (cores, ln f) by construction.
  const auto time_s = [](int cores, double cpu_khz, double gpu_hz, double emc_hz) {
    return 0.1 * std::pow(2.0, cores / 4.0) * std::pow(1e6 / cpu_khz, 0.5) * (1e9 / gpu_hz) *
           std::pow(1e9 / emc_hz, 0.2);
  };
  std::vector<ModeRow> fit, held;
  for (int cores : {4, 8, 12}) {
    for (double cpu : {729600.0, 1344000.0, 2201600.0}) {
      for (double gpu : {318750000.0, 1300500000.0}) {
        for (double emc : {665600000.0, 3199000000.0}) {
          ModeRow r{"w",
                    Phase::training,
                    PowerMode{cores, cpu, gpu, emc, 8},
                    16,
                    time_s(cores, cpu, gpu, emc),
                    10.0 * gpu / 1e9};
          // Held out: the middle of the grid in cores and CPU clock.
          (cores == 8 && cpu == 1344000.0 ? held : fit).push_back(r);
        }
      }
    }
  }
  REQUIRE(held.size() == 4);
  // A plane through the 16 nearest reproduces the log-linear surface (to its small ridge: within
  // 0.001 %).
  const ModeErrors plane = nearest_neighbour_errors(d, fit, held, 16, true);
  REQUIRE(plane.time_error_pct.size() == 4);
  for (std::size_t i = 0; i < 4; ++i) {
    CHECK(plane.time_error_pct[i] == Approx(0).margin(1e-3));
    CHECK(plane.power_error_pct[i] == Approx(0).margin(1e-3));
  }
  // The nearest rows of (8 cores, 1344 MHz) are one step away in cores or in CPU clock, at the
  // same GPU and EMC clocks: four at distance 1 (4 or 12 cores, 729.6 or 2201.6 MHz), equally
  // weighted. Time of held[0] (GPU 318.75, EMC 665.6 MHz) relative to the truth:
  // (2^-1 + 2^1 + sqrt(1344 / 729.6) + sqrt(1344 / 2201.6)) / 4 as a geometric mean:
  // exp((ln 0.5 + ln 2 + 0.5 ln(1344 / 729.6) + 0.5 ln(1344 / 2201.6)) / 4).
  const ModeErrors idw = nearest_neighbour_errors(d, fit, held, 4);
  const double expected =
      std::exp((0.5 * std::log(1344.0 / 729.6) + 0.5 * std::log(1344.0 / 2201.6)) / 4) - 1;
  CHECK(idw.time_error_pct[0] == Approx(expected * 100).epsilon(1e-9));
  CHECK(idw.power_error_pct[0] == Approx(0).margin(1e-9));  // power follows the GPU clock only
  // Grouped as the model's errors are: one workload, every row.
  CHECK(idw.all.rows == 4);
  REQUIRE(idw.by_workload.size() == 1);
  CHECK(idw.by_workload[0].group == "w training");
  // A row whose workload has no fitted rows is an error, not a silent zero.
  std::vector<ModeRow> other = held;
  other[0].workload = std::string(2, 'v');  // "vv"
  CHECK_THROWS_AS(nearest_neighbour_errors(d, fit, other, 4), fulcrum::Error);
}

TEST_CASE(
    "a row that a higher GPU clock made faster than the clock ratio allows is flagged, within its "
    "own sweep only",
    "[perf][cross-mode]") {
  // One sweep (4 cores, 729.6 MHz CPU, 3199 MHz EMC) of 114.75 / 318.75 / 522.75 / 1300.5 MHz:
  // 900 ms, then flat at 400 ms (a CPU-bound sweep: allowed), then 100 ms at the top clock. From
  // 522.75 to 1300.5 MHz the minibatch may shorten to 400 x 522.75 / 1300.5 = 160.8 ms, and to
  // 0.8 x that (128.6 ms) within the tolerance: 100 ms is flagged, 130 ms would not be.
  const auto row = [](double gpu_mhz, double ms, int cores = 4, int batch = 16) {
    return ModeRow{"w",   Phase::training, PowerMode{cores, 729600.0, gpu_mhz * 1e6, 3199e6, 8},
                   batch, ms * 1e-3,       20.0};
  };
  std::vector<ModeRow> rows{row(1300.5, 100), row(114.75, 900), row(522.75, 400), row(318.75, 400),
                            // Another sweep (8 cores): its 100 ms is compared with its own rows.
                            row(522.75, 110, 8), row(1300.5, 100, 8),
                            // Another batch size: alone in its sweep, nothing to compare with.
                            row(1300.5, 1, 4, 32)};
  std::vector<bool> flags = faster_than_gpu_clock_allows(rows);
  CHECK(flags == std::vector<bool>{true, false, false, false, false, false, false});
  // 900 ms at 114.75 MHz to 400 ms at 318.75 MHz is 0.44x for a 2.78x clock: allowed.
  rows[3].time_s = 0.2;  // 0.22x at 318.75 MHz: under 0.8 x 900 x 114.75 / 318.75 = 259 ms
  flags = faster_than_gpu_clock_allows(rows);
  CHECK(flags == std::vector<bool>{true, false, false, true, false, false, false});
  rows[0].time_s = 0.130;  // within the tolerance of 400 ms at 522.75 MHz
  CHECK_FALSE(faster_than_gpu_clock_allows(rows)[0]);
  CHECK(faster_than_gpu_clock_allows(rows, 1.0)[0]);  // no tolerance: 130 ms < 160.8 ms
  CHECK_THROWS(faster_than_gpu_clock_allows(rows, 0));
}

TEST_CASE("a residual correction scales time and power by exp(-value) at a mode's position") {
  const DeviceSpec d = testing::orin_agx_64gb();
  // Positions, by hand: log(f / f_max) / log(f_max / f_min) per axis, log(cores / 12) / log(12),
  // log2(batch) / 6. MAXN at batch 64: all 0 but the batch, 1. The lowest clocks, 1 core and
  // batch 1: -1 everywhere, 0 for the batch. 4 cores: ln(1/3) / ln(12) = -0.442114.
  const PowerMode maxn{12, 2201600, 1300500000, 3199000000, 8};
  const PowerMode lowest{1, 115200, 114750000, 204000000, 8};
  const auto z_max = residual_position(d, maxn, 64);
  const auto z_low = residual_position(d, lowest, 1);
  for (std::size_t j = 0; j < 4; ++j) {
    CHECK(z_max[j] == Approx(0).margin(1e-12));
    CHECK(z_low[j] == Approx(-1));
  }
  CHECK(z_max[4] == Approx(1));
  CHECK(z_low[4] == Approx(0).margin(1e-12));
  CHECK(residual_position(d, {4, 2201600, 1300500000, 3199000000, 8}, 8)[3] ==
        Approx(-0.442114).epsilon(1e-5));
  CHECK(residual_position(d, maxn, 8)[4] == Approx(0.5));

  // One point at MAXN, batch 64, weight 0.1, length 0.5, linear 1: at the point the kernel is
  // 1 + 1 x (0 + 0 + 0 + 0 + 1) + exp(0) = 3, value 0.3; at MAXN batch 8 (distance 0.5 in the
  // batch axis only) 1 + 0.5 + exp(-0.25 / 0.5) = 2.106531, value 0.2106531.
  ResidualCorrection c;
  c.length_scale = 0.5;
  c.linear = 1;
  c.points = {z_max};
  c.weights = {0.1};
  CHECK(residual_value(c, z_max) == Approx(0.3));
  CHECK(residual_value(c, residual_position(d, maxn, 8)) == Approx(0.2106531));

  CrossModeCalibration cal;
  cal.workloads[{"resnet18", Phase::inference}] = {0.8, 0.5, 1, 1, 0};
  CrossModeWorkload corrected = cal.workloads.at({"resnet18", Phase::inference});
  corrected.time_correction = c;
  ResidualCorrection p = c;
  p.weights = {-0.05};  // power: value -0.15 at the point, factor exp(0.15)
  corrected.power_correction = p;
  const WorkFeatures f = work_features(d, workload_catalog().get("resnet18"), Phase::inference, 64);
  const CrossModeEstimate plain =
      cross_mode_estimate(d, cal.device, cal.workloads.at({"resnet18", Phase::inference}),
                          Phase::inference, f, maxn, 64);
  const CrossModeEstimate fixed =
      cross_mode_estimate(d, cal.device, corrected, Phase::inference, f, maxn, 64);
  CHECK(fixed.time_s == Approx(plain.time_s * std::exp(-0.3)));
  CHECK(fixed.power_w == Approx(plain.power_w * std::exp(0.15)));
}

TEST_CASE("the correction's regime axes are the model's own time shares, used only when asked") {
  const DeviceSpec d = testing::orin_agx_64gb();
  const PowerMode maxn{12, 2201600, 1300500000, 3199000000, 8};
  // By hand: launch 0.05 s of a 0.2 s minibatch = 0.25, CPU work 0.1 s = 0.5, compute 0.08 s of
  // the GPU's 0.1 s = 0.8; a share above 1.5 is held at 1.5.
  CrossModeEstimate e;
  e.time_s = 0.2;
  e.host_s = 0.05;
  e.pipeline_s = 0.1;
  e.gpu_s = 0.1;
  e.compute_s = 0.08;
  const auto z = residual_position(d, maxn, 64, e);
  CHECK(z[4] == Approx(1));
  CHECK(z[5] == Approx(0.25));
  CHECK(z[6] == Approx(0.5));
  CHECK(z[7] == Approx(0.8));
  e.host_s = 0.4;
  CHECK(residual_position(d, maxn, 64, e)[5] == Approx(1.5));

  // One point at the first position, weight 0.1, length 0.5, no linear term; a second position
  // 0.5 away along the launch share only: exp(-0.25 / 0.5) = 0.606531 with the regime axes,
  // exp(0) = 1 without them (a correction from before them), plus the constant 1.
  ResidualCorrection c;
  c.length_scale = 0.5;
  c.points = {z};
  c.weights = {0.1};
  auto other = z;
  other[5] += 0.5;
  CHECK(residual_value(c, other) == Approx(0.2));
  c.regime = true;
  CHECK(residual_value(c, other) == Approx(0.1606531));
  CHECK(residual_value(c, z) == Approx(0.2));
}

TEST_CASE("a glitched profiled row does not bend the residual correction around it") {
  // 40 positions: GPU and CPU axes at -1, -0.75, ..., 0 (5 x 4 of them) and batch 0 or 1; the
  // log residuals lie on the plane 0.1 + 0.05 x gpu, except one row at gpu = cpu = -0.5, batch 0,
  // which reads 1.0 above it (a row measured at another clock than its mode's). The correction
  // should follow the plane: 0.1 - 0.025 = 0.075 at that row's position, not its 1.075.
  std::vector<std::array<double, kResidualDims>> z;
  std::vector<double> y;
  for (double gpu : {-1.0, -0.75, -0.5, -0.25, 0.0}) {
    for (double cpu : {-0.75, -0.5, -0.25, 0.0}) {
      for (double batch : {0.0, 1.0}) {
        z.push_back({gpu, cpu, 0.0, 0.0, batch});
        y.push_back(0.1 + 0.05 * gpu + (gpu == -0.5 && cpu == -0.5 && batch == 0.0 ? 1.0 : 0.0));
      }
    }
  }
  const auto c = fit_residual_correction(z, y);
  REQUIRE(c);
  CHECK(residual_value(*c, {-0.5, -0.5, 0.0, 0.0, 0.0}) == Approx(0.075).margin(0.02));
  CHECK(residual_value(*c, {-0.5, -0.25, 0.0, 0.0, 0.0}) == Approx(0.075).margin(0.02));
  CHECK(residual_value(*c, {0.0, 0.0, 0.0, 0.0, 1.0}) == Approx(0.1).margin(0.02));
  // Residuals on a plane alone: the correction reproduces it; none at all: no correction.
  std::vector<double> plane(y.size());
  for (std::size_t i = 0; i < z.size(); ++i) plane[i] = 0.1 + 0.05 * z[i][0];
  const auto p = fit_residual_correction(z, plane);
  REQUIRE(p);
  CHECK(residual_value(*p, {-0.5, -0.5, 0.0, 0.0, 0.0}) == Approx(0.075).margin(0.005));
  CHECK_FALSE(fit_residual_correction(z, std::vector<double>(z.size(), 0.0)));
}

// Few-shot refinement of an inference workload (docs/MODEL.md, "Zero-shot and few-shot"), reduced:
// the device on 10% of the other workloads' modes (seed 1), YOLOv8n left out, k = 50 profiled rows
// refine its parameters and learn its residual correction, MAPE on its other rows, median of 3
// draws. Bounded at the figures this reduced protocol reaches (5.25% / 3.25%), rounded up by about
// half a point.
TEST_CASE("few-shot: 50 profiled rows of a new inference workload predict its other rows") {
  const auto rows = reference_rows();
  if (rows.empty()) return;  // skipped
  const DeviceSpec d = testing::orin_agx_64gb();
  const auto results =
      zero_shot_leave_one_out(d, rows, workload_catalog(), 0.1, 1, "yolov8n", {50}, 3);
  REQUIRE(results.size() == 1);
  REQUIRE(results.front().few_shot.size() == 1);
  const FewShotPoint& p = results.front().few_shot.front();
  INFO("time " << p.time_mape_pct << "% power " << p.power_mape_pct << "%");
  CHECK(p.k == 50);
  CHECK(p.time_mape_pct <= 5.7);
  CHECK(p.power_mape_pct <= 3.7);
}
