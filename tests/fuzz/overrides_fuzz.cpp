// libFuzzer target: a fixed valid scenario with fuzzed --set strings (one per input line, at
// most four), parsed and resolved like `fulcrum run --set ...`. Promises: an error is one
// printable line; an accepted scenario keeps every documented range (scenario_promises.hpp).
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "models/device/device_catalog.hpp"
#include "sim/config/device_catalog_loader.hpp"
#include "sim/config/overrides.hpp"
#include "sim/config/scenario_loader.hpp"
#include "tests/fuzz/fuzz_support.hpp"
#include "tests/fuzz/scenario_promises.hpp"

namespace {

constexpr const char* kScenario = R"(version: 1
name: overrides-fuzz
seed: 7
duration_s: 60
device: {model: orin-agx-64gb, power_mode: MAXN}
gpu_sharing: managed
training:
  workload: mobilenetv3-large
  dataset: gld23k
  batch_size: 16
  dataloader: {workers: 4, prefetch_factor: 2, storage: nvme-ssd}
inference:
  - name: resnet50
    workload: resnet50
    batch_size: 16
    arrivals: {process: fixed, rate_per_s: 100}
budgets: {latency_ms: 250, latency_percentile: 99, power_w: 30}
outputs: {requests: true, minibatches: true, power: true, trace: true}
)";

const fulcrum::models::DeviceCatalog& catalog() {
  static const fulcrum::models::DeviceCatalog devices =
      fulcrum::sim::load_device_catalog(std::string(FULCRUM_DATA_DIR) + "/devices");
  return devices;
}

std::vector<std::string> split_lines(const std::string& text, std::size_t max_lines) {
  std::vector<std::string> lines;
  std::size_t start = 0;
  while (start <= text.size() && lines.size() < max_lines) {
    const std::size_t end = text.find('\n', start);
    if (end == std::string::npos) {
      lines.push_back(text.substr(start));
      break;
    }
    lines.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return lines;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace fulcrum;
  const std::vector<std::string> sets = split_lines(fuzz::to_text(data, size), 4);
  const auto one_line = fuzz::ErrorLines::one_printable;
  for (const std::string& s : sets) {
    fuzz::accepts([&] { (void)sim::parse_override(s); }, one_line);
  }
  const std::string base_dir = std::string(FULCRUM_SOURCE_DIR) + "/scenarios";
  sim::LoadedScenario loaded;
  if (!fuzz::accepts([&] { loaded = sim::parse_scenario(kScenario, "fuzz.yaml", sets, base_dir); },
                     one_line)) {
    return 0;
  }
  fuzz::check_scenario_promises(loaded.scenario);
  fuzz::accepts([&] { (void)sim::resolve(loaded, catalog()); }, one_line);
  return 0;
}
