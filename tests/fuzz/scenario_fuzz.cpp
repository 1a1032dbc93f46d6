// libFuzzer target: scenario text -> parse_scenario, and when it parses, resolve() against the
// shipped device catalog. Seeds: scenarios/ (trace paths resolve against that folder). Promises:
// an error is one printable line; an accepted scenario keeps every documented range
// (scenario_promises.hpp).
#include <cstddef>
#include <cstdint>
#include <string>

#include "models/device/device_catalog.hpp"
#include "sim/config/device_catalog_loader.hpp"
#include "sim/config/scenario_loader.hpp"
#include "tests/fuzz/fuzz_support.hpp"
#include "tests/fuzz/scenario_promises.hpp"

namespace {

const fulcrum::models::DeviceCatalog& catalog() {
  // Loaded once: reading the YAML files on every input would dominate the run time.
  static const fulcrum::models::DeviceCatalog devices =
      fulcrum::sim::load_device_catalog(std::string(FULCRUM_DATA_DIR) + "/devices");
  return devices;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace fulcrum;
  const std::string text = fuzz::to_text(data, size);
  const std::string base_dir = std::string(FULCRUM_SOURCE_DIR) + "/scenarios";
  sim::LoadedScenario loaded;
  const auto one_line = fuzz::ErrorLines::one_printable;
  if (!fuzz::accepts([&] { loaded = sim::parse_scenario(text, "fuzz.yaml", {}, base_dir); },
                     one_line)) {
    return 0;
  }
  fuzz::check_scenario_promises(loaded.scenario);
  fuzz::accepts(
      [&] {
        const sim::ResolvedScenario r = sim::resolve(loaded, catalog());
        if (r.device == nullptr) fuzz::broken("resolve() returned no device");
        (void)r.setup();
      },
      one_line);
  return 0;
}
