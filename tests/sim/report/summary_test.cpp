#include "sim/report/summary.hpp"

#include <catch2/catch.hpp>
#include <string>

#include "tests/sim/report/json_check.hpp"
#include "tests/sim/report/report_fixtures.hpp"

using namespace fulcrum::sim;
using fulcrum::sim::testing::JsonValue;
using fulcrum::sim::testing::parse_json;

TEST_CASE("the summary holds every required field with the result's values") {
  const RunResult result = testing::small_result();
  const auto doc = parse_json(summary_json(result, testing::small_scenario()));

  CHECK(doc.at("scenario").text == "report-test");
  CHECK(doc.at("seed").number == 7);
  CHECK(doc.at("duration_s").number == 3);
  CHECK(doc.at("device").text == "orin-agx-64gb");
  CHECK(doc.at("gpu_sharing").text == "managed");
  CHECK(doc.at("gpu_sharing_variant").text == "windowed");

  CHECK(doc.path("power_mode.cores").number == 12);
  CHECK(doc.path("power_mode.cpu_mhz").text == "2201.6");
  CHECK(doc.path("power_mode.gpu_mhz").text == "1300.5");
  CHECK(doc.path("power_mode.emc_mhz").text == "3199");
  CHECK(doc.path("power_mode.gpu_tpcs").number == 8);
  CHECK(doc.path("power_mode.label").text == result.mode.label());

  CHECK(doc.path("training.minibatches_per_s").number == 10);
  CHECK(doc.path("training.samples_per_s").number == 160);
  CHECK(doc.path("training.fetch_stall_s").number == 0.25);

  const JsonValue& inference = doc.at("inference");
  REQUIRE(inference.items.size() == 1);
  const JsonValue& s = inference.items[0];
  CHECK(s.at("name").text == "resnet50-0");
  CHECK(s.path("latency_ms.p50").number == 20.25);
  CHECK(s.path("latency_ms.p95").number == 40.5);
  CHECK(s.path("latency_ms.p99").number == 55.125);
  CHECK(s.path("latency_ms.max").number == 61);
  CHECK(s.path("latency_ms.mean").number == 21.5);
  CHECK(s.at("stable").boolean);
  CHECK_FALSE(s.has("unstable_reason"));
  CHECK(s.at("arrived").number == 300);
  CHECK(s.at("completed").number == 298);
  CHECK(s.at("queued").number == 2);
  CHECK(s.at("dropped").number == 0);
  CHECK(s.at("throughput_per_s").number == Approx(298.0 / 3));

  CHECK(doc.path("power.avg_w").number == 24);
  CHECK(doc.path("power.max_window_w").number == 26.5);
  CHECK(doc.path("power.rails.VDD_GPU_SOC.avg_w").number == 15);
  CHECK(doc.path("power.rails.VDD_GPU_SOC.energy_j").number == 45);
  CHECK(doc.path("power.rails.VIN_SYS_5V0.energy_j").number == 12);
  CHECK(doc.at("energy_j").number == 72);
  CHECK(doc.path("gpu.utilization").number == 0.9666);
  CHECK(doc.path("budgets.latency_met").boolean);
  CHECK(doc.path("budgets.power_met").boolean);
  CHECK(doc.path("budgets.latency_ms").number == 250);
  CHECK(doc.path("budgets.power_w").number == 30);
}

TEST_CASE("the summary keeps a fixed top-level key order") {
  const auto doc = parse_json(summary_json(testing::small_result(), testing::small_scenario()));
  std::vector<std::string> keys;
  for (const auto& [k, v] : doc.members) keys.push_back(k);
  CHECK(keys == std::vector<std::string>{"scenario", "seed", "duration_s", "device", "power_mode",
                                         "gpu_sharing", "gpu_sharing_variant", "perf_model",
                                         "training", "inference", "power", "energy_j", "gpu",
                                         "budgets"});
}

TEST_CASE("the summary names the performance model and counts each context's provenances") {
  RunResult result = testing::small_result();
  result.perf_model = "table";
  result.training->provenance.measured = 28;
  result.training->provenance.interpolated = 2;
  result.inference[0].provenance.extrapolated = 149;
  const auto doc = parse_json(summary_json(result, testing::small_scenario()));
  CHECK(doc.path("perf_model").text == "table");
  CHECK(doc.path("training.provenance.measured").number == 28);
  CHECK(doc.path("training.provenance.interpolated").number == 2);
  CHECK(doc.path("training.provenance.extrapolated").number == 0);
  CHECK(doc.path("training.provenance.modelled").number == 0);
  const JsonValue& stream = doc.at("inference").items[0];
  CHECK(stream.at("provenance").at("extrapolated").number == 149);
  CHECK(stream.at("provenance").at("measured").number == 0);
}

TEST_CASE("an unstable stream carries its reason") {
  RunResult result = testing::small_result();
  result.inference[0].stable = false;
  result.inference[0].unstable_reason = "backlog grew from 12 to 5,000 requests";
  const auto doc = parse_json(summary_json(result, testing::small_scenario()));
  const JsonValue& s = doc.at("inference").items[0];
  CHECK_FALSE(s.at("stable").boolean);
  CHECK(s.at("unstable_reason").text == "backlog grew from 12 to 5,000 requests");
}

TEST_CASE("budgets without a limit report null rather than a verdict") {
  RunResult result = testing::small_result();
  result.budgets = BudgetResult{};
  Scenario scenario = testing::small_scenario();
  scenario.budgets.latency_ms.reset();
  scenario.budgets.power_w.reset();
  const auto doc = parse_json(summary_json(result, scenario));
  CHECK(doc.path("budgets.latency_met").kind == JsonValue::Kind::null);
  CHECK(doc.path("budgets.power_met").kind == JsonValue::Kind::null);
  CHECK(doc.path("budgets.latency_ms").kind == JsonValue::Kind::null);
  CHECK(doc.path("budgets.power_w").kind == JsonValue::Kind::null);
}

TEST_CASE("a run without training reports training as null") {
  RunResult result = testing::small_result();
  result.training.reset();
  const auto doc = parse_json(summary_json(result, testing::small_scenario()));
  CHECK(doc.at("training").kind == JsonValue::Kind::null);
}

TEST_CASE("the summary keeps a fixed-size digest of epoch times, not one entry per epoch") {
  RunResult result = testing::small_result();
  result.training->epochs_completed = 50'000'000;
  result.training->epoch_time_s = EpochTimeStats{1.5, 2.5, 2.0, 1.25, 3.75};
  const std::string json = summary_json(result, testing::small_scenario());
  CHECK(json.size() < 4000);
  const auto doc = parse_json(json);
  CHECK(doc.path("training.epochs_completed").number == 50'000'000);
  CHECK(doc.path("training.epoch_time_s.first").number == 1.5);
  CHECK(doc.path("training.epoch_time_s.last").number == 2.5);
  CHECK(doc.path("training.epoch_time_s.mean").number == 2.0);
  CHECK(doc.path("training.epoch_time_s.min").number == 1.25);
  CHECK(doc.path("training.epoch_time_s.max").number == 3.75);
}

TEST_CASE("a training job without a completed epoch reports null epoch times, not zero") {
  const auto doc = parse_json(summary_json(testing::small_result(), testing::small_scenario()));
  CHECK(doc.path("training.epochs_completed").number == 0);
  for (const char* key : {"first", "last", "mean", "min", "max"}) {
    INFO(key);
    CHECK(doc.path(std::string("training.epoch_time_s.") + key).kind == JsonValue::Kind::null);
  }
}

TEST_CASE("the summary is byte-identical for identical results") {
  CHECK(summary_json(testing::small_result(), testing::small_scenario()) ==
        summary_json(testing::small_result(), testing::small_scenario()));
}

TEST_CASE("the text summary shows every headline number with its unit") {
  const std::string text = format_summary_text(testing::small_result());
  CHECK(text.find("report-test") != std::string::npos);
  CHECK(text.find(", managed (windowed), ") != std::string::npos);
  CHECK(text.find("160 samples/s") != std::string::npos);
  CHECK(text.find("p99 55.12 ms") != std::string::npos);
  CHECK(text.find("avg 24 W") != std::string::npos);
  CHECK(text.find("energy 72.0 J") != std::string::npos);  // fixed point: no 1.4e+07 J on long runs
  CHECK(text.find("utilization 96.66 %") != std::string::npos);
  CHECK(text.find("stable") != std::string::npos);
  CHECK(text.find("latency: met") != std::string::npos);
}

TEST_CASE("the text summary names the performance model and counts figures not fitted") {
  RunResult result = testing::small_result();
  result.perf_model = "analytic-modes";
  result.training->provenance.modelled = 30;
  result.inference[0].provenance.modelled = 149;
  std::string text = format_summary_text(result);
  CHECK(text.find("\n  model      analytic-modes\n") != std::string::npos);  // nothing more to say

  // A workload without fitted parameters: every item extrapolated, and why, once.
  result.training->provenance = {};
  result.training->provenance.extrapolated = 30;
  text = format_summary_text(result);
  CHECK(text.find("  model      analytic-modes; mobilenetv3-large training: 30 of 30 minibatches "
                  "extrapolated (zero-shot: no fitted parameters on this device, from the layer "
                  "graph; docs/MODEL.md)\n") != std::string::npos);
  // With the calibration's leave-one-workload-out check, its clause for the phase extrapolated
  // (training here), not the other's.
  result.extrapolation_check_training = "training check";
  result.extrapolation_check_inference = "inference check";
  text = format_summary_text(result);
  CHECK(text.find("from the layer graph; docs/MODEL.md; training check)\n") != std::string::npos);
  CHECK(text.find("inference check") == std::string::npos);
  result.inference[0].provenance = {};
  result.inference[0].provenance.extrapolated = 149;
  CHECK(format_summary_text(result).find("docs/MODEL.md; training check; inference check)\n") !=
        std::string::npos);
  // Each extrapolated workload's nearest measured one, after the checks, a clause said once.
  result.training->extrapolation_nearest = "training nearest";
  result.inference[0].extrapolation_nearest = "inference nearest";
  result.inference.push_back(result.inference[0]);  // a second stream of the same workload
  CHECK(format_summary_text(result).find("training check; inference check; training nearest; "
                                         "inference nearest)\n") != std::string::npos);
  result.inference.pop_back();
  result.training->extrapolation_nearest.clear();
  result.inference[0].extrapolation_nearest.clear();
  result.extrapolation_check_training.clear();
  result.extrapolation_check_inference.clear();

  // A run on a device: the model decides, every figure is measured.
  result.training->provenance = {};
  result.training->provenance.measured = 30;
  result.inference[0].provenance = {};
  result.inference[0].provenance.measured = 149;
  CHECK(format_summary_text(result).find(
            "\n  model      analytic-modes; every item's figures measured\n") != std::string::npos);

  // A table model between and beyond its profiled modes, per context.
  result.perf_model = "table";
  result.training->provenance = {};
  result.training->provenance.measured = 20;
  result.training->provenance.interpolated = 10;
  result.inference[0].provenance = {};
  result.inference[0].provenance.extrapolated = 49;
  result.inference[0].provenance.interpolated = 100;
  text = format_summary_text(result);
  CHECK(text.find("  model      table; mobilenetv3-large training: 10 of 30 minibatches "
                  "interpolated; resnet50-0 inference: 49 of 149 batches extrapolated, 100 of 149 "
                  "batches interpolated (beyond the profiled modes or batch sizes)\n") !=
        std::string::npos);
}

TEST_CASE("a stream that completed no request reports null latencies, not zero") {
  RunResult result = testing::small_result();
  result.inference[0].completed = 0;
  result.inference[0].latency = std::nullopt;
  const auto doc = parse_json(summary_json(result, testing::small_scenario()));
  const JsonValue& latency = doc.at("inference").items[0].at("latency_ms");
  for (const char* key : {"mean", "p50", "p95", "p99", "max"}) {
    INFO(key);
    CHECK(latency.at(key).kind == JsonValue::Kind::null);
  }
  const std::string text = format_summary_text(result);
  CHECK(text.find("latency: none (no request completed)") != std::string::npos);
  CHECK(text.find("p50 0 ms") == std::string::npos);
}

TEST_CASE("the text summary writes long latencies and long reasons in full") {
  RunResult result = testing::small_result();
  result.inference[0].latency->p99_ms = 26430.4;
  result.inference[0].stable = false;
  result.inference[0].unstable_reason = std::string(600, 'x') + " end of reason";
  const std::string text = format_summary_text(result);
  CHECK(text.find("p99 26430 ms") != std::string::npos);
  CHECK(text.find("e+0") == std::string::npos);
  CHECK(text.find(std::string(600, 'x') + " end of reason\n") != std::string::npos);
}

TEST_CASE("the managed variant is recorded, and null for a policy without variants") {
  RunResult result = testing::small_result();
  result.gpu_sharing_variant = "greedy";
  CHECK(
      parse_json(summary_json(result, testing::small_scenario())).at("gpu_sharing_variant").text ==
      "greedy");
  CHECK(format_summary_text(result).find(", managed (greedy), ") != std::string::npos);
  result.gpu_sharing = "native";
  result.gpu_sharing_variant.clear();
  const auto doc = parse_json(summary_json(result, testing::small_scenario()));
  CHECK(doc.at("gpu_sharing").text == "native");
  CHECK(doc.at("gpu_sharing_variant").kind == JsonValue::Kind::null);
  CHECK(format_summary_text(result).find(", native, ") != std::string::npos);
}
