// The shipped calibration file: it loads, and it is exactly what the fit to the reference files
// gives today, so the shipped data can never drift from its source. Bad files fail with
// file:line:col and the key path.
#include "sim/config/calibration_loader.hpp"

#include <catch2/catch.hpp>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>

#include "models/error.hpp"
#include "sim/config/device_catalog_loader.hpp"
#include "tests/reference_data.hpp"
#include "tests/sim/config/edited_file.hpp"

using namespace fulcrum;

namespace {

const models::DeviceSpec& orin() {
  static const models::DeviceCatalog catalog =
      sim::load_device_catalog(std::string(FULCRUM_DATA_DIR) + "/devices");
  return catalog.get("orin-agx-64gb");
}

std::string shipped_path() { return sim::calibration_path(FULCRUM_DATA_DIR, "orin-agx-64gb"); }

models::AnalyticCoefficients parse(const std::string& text) {
  return sim::parse_calibration(sim::YamlDoc::parse(text, "cal.yaml").root());
}

// The shipped text with one piece replaced.
std::string edited(const std::string& from, const std::string& to) {
  return fulcrum::testing::edited_text(shipped_path(), from, to);
}

}  // namespace

TEST_CASE("the shipped Orin calibration matches a fresh fit to the reference files",
          "[calibration]") {
  const std::optional<std::string> reference = fulcrum::testing::reference_path();
  if (!reference) return;  // skipped
  const sim::CalibrationReport report = sim::calibrate_from_reference(*reference, orin());
  // Regenerating the shipped file: FULCRUM_WRITE_CALIBRATION=1 test_sim_config "[calibration]".
  if (std::getenv("FULCRUM_WRITE_CALIBRATION")) {
    std::ofstream(shipped_path()) << report.yaml;
  }
  const models::AnalyticCoefficients shipped = sim::load_calibration(shipped_path());
  const models::AnalyticCoefficients& fresh = report.result.coefficients;
  CHECK(shipped.device == "orin-agx-64gb");
  for (const models::CoefficientField& f : models::coefficient_fields()) {
    INFO(f.name);
    CHECK(shipped.*(f.member) == Approx(fresh.*(f.member)).epsilon(1e-6).margin(1e-12));
  }
  CHECK(report.table.find("time MAPE") != std::string::npos);
}

TEST_CASE("calibrating twice gives byte-identical text") {
  const std::optional<std::string> reference = fulcrum::testing::reference_path();
  if (!reference) return;  // skipped
  const auto a = sim::calibrate_from_reference(*reference, orin());
  const auto b = sim::calibrate_from_reference(*reference, orin());
  CHECK(a.yaml == b.yaml);
}

TEST_CASE("an unknown coefficient is an error at its line") {
  try {
    parse(
        edited("coefficients:\n", "coefficients:\n  eff_magic: {value: 1, unit: x, source: y}\n"));
    FAIL("no error");
  } catch (const InputError& e) {
    CHECK(std::string(e.what()).find("cal.yaml:") == 0);
    CHECK(std::string(e.what()).find("unknown coefficient 'eff_magic'") != std::string::npos);
  }
}

TEST_CASE("a missing coefficient is an error naming it") {
  const std::string text = fulcrum::testing::read_text(shipped_path());
  const auto at = text.find("  launch_us:");
  REQUIRE(at != std::string::npos);
  const auto end = text.find('\n', at);
  std::string cut = text;
  cut.erase(at, end - at + 1);
  CHECK_THROWS_WITH(parse(cut), Catch::Contains("launch_us"));
}

TEST_CASE("out-of-range coefficients are errors with the key path") {
  const std::string text = fulcrum::testing::read_text(shipped_path());
  const auto at = text.find("  eff_memory: {value: ");
  REQUIRE(at != std::string::npos);
  const auto value_at = at + std::string("  eff_memory: {value: ").size();
  const auto comma = text.find(',', value_at);
  std::string bad = text;
  bad.replace(value_at, comma - value_at, "-0.5");
  CHECK_THROWS_WITH(parse(bad),
                    Catch::Contains("coefficients.eff_memory.value") && Catch::Contains("> 0"));
  CHECK_THROWS_AS(parse(edited("model: analytic", "model: table")), InputError);
}
