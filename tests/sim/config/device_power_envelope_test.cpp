// Every catalog device's modelled power lies within the envelope its data file publishes, in every
// preset: idle power near the published idle figure, and a fully loaded GPU within the maximum
// module power and near the preset's nvpmodel budget. The figures are read from the shipped
// files, so a device added without them, or a model that strays from them, fails here.
#include <catch2/catch.hpp>
#include <fstream>
#include <optional>
#include <string>

#include "models/device/power_mode_resolver.hpp"
#include "models/io/csv_reader.hpp"
#include "models/perf/analytic_model.hpp"
#include "models/workload/workload_catalog.hpp"
#include "sim/config/calibration_loader.hpp"
#include "sim/config/device_catalog_loader.hpp"
#include "tests/reference_data.hpp"

using namespace fulcrum;
using models::Phase;

namespace {

// idle_w is the idle power at the maximum clocks, where it is highest: no preset idles above
// it. The 10% allow for the precision of a published figure (a few jtop readings about 1 s apart)
// and for the rounding of the estimated ones.
constexpr double kIdleAbove = 1.10;
// Presets cap clocks and online cores; they leave the memory, the always-on domain and the
// module's regulators powered, so no preset idles below half the maximum-clock figure. The
// lowest public reading we know needs far more than a preset: an Orin Nano 8GB with display,
// PCIe, cameras and audio disabled in the device tree, 2 cores and low clocks read VDD_IN 2.18 W,
// 52% of its 4.23 W idle (NVIDIA developer forum, "Jetson Orin Nano 8GB - Lowest Theoretical
// Operating Power Consumption").
constexpr double kIdleFloor = 0.50;
// nvpmodel budgets are clock caps chosen so that NVIDIA's qualification loads draw about the
// budget; nothing meters or limits power to them, and heavy loads are reported above them (e.g.
// NVIDIA-AI-IOT/jetson_benchmarks issue 16, AGX Xavier above 15 W in a 15 W mode). A fully loaded
// GPU may read up to 10% above the budget; more is a modelling error (before the per-device
// scaling, Xavier NX read 23.7 W, 58% above MODE_15W_6CORE's 15 W). The maximum module power is
// the module's design ceiling and gets no margin.
constexpr double kBudgetMargin = 1.10;

const models::DeviceCatalog& catalog() {
  static const models::DeviceCatalog c =
      sim::load_device_catalog(std::string(FULCRUM_DATA_DIR) + "/devices");
  return c;
}

const models::AnalyticModel& model() {
  static const models::AnalyticModel m(
      sim::load_calibration(sim::calibration_path(FULCRUM_DATA_DIR, "orin-agx-64gb")));
  return m;
}

// Demanding loads: large-batch training of a CNN and a transformer keep the GPU busy nearly all
// the time; large-batch inference of the same kinds.
struct Load {
  const char* workload;
  Phase phase;
  int batch_size;
};
constexpr Load kLoads[] = {{"resnet50", Phase::training, 64},
                           {"bert-base", Phase::training, 32},
                           {"resnet50", Phase::inference, 64},
                           {"bert-large", Phase::inference, 32}};

// The `value` of the training-anchors.csv row with these cells, read in place.
std::optional<double> published(const std::string& path, const std::string& device,
                                const std::string& workload, const std::string& quantity) {
  std::ifstream in(path);
  models::CsvReader csv(in, path);
  const auto col = [&](const char* name) {
    const std::optional<std::size_t> c = csv.column(name);
    REQUIRE(c.has_value());
    return *c;
  };
  const std::size_t dev = col("device"), mode = col("power_mode"), work = col("workload"),
                    qty = col("quantity"), value = col("value");
  for (models::CsvRow row; csv.next(row);) {
    if (row.cells[dev].text == device && row.cells[mode].text == "MAXN" &&
        row.cells[work].text == workload && row.cells[qty].text == quantity) {
      return std::stod(row.cells[value].text);
    }
  }
  return std::nullopt;
}

}  // namespace

TEST_CASE("every catalog device publishes its idle and maximum module power, with sources") {
  REQUIRE(catalog().size() == 5);
  for (const models::DeviceSpec& d : catalog().devices()) {
    INFO(d.name);
    CHECK(d.idle_w.has_value());
    CHECK(d.module_peak_w.has_value());
    CHECK_FALSE(d.idle_source.empty());
    CHECK_FALSE(d.module_peak_source.empty());
    for (const models::Preset& p : d.presets) {
      if (p.budget_w) CHECK_FALSE(d.budget_source.empty());
    }
  }
}

TEST_CASE(
    "in every preset of every catalog device, idle power lies within the published idle "
    "envelope") {
  for (const models::DeviceSpec& d : catalog().devices()) {
    INFO(d.name);
    CHECK(d.idle_w.has_value());
    if (!d.idle_w) continue;
    for (const models::Preset& p : d.presets) {
      const models::PowerMode mode = models::resolve_preset(d, p.name);
      const double idle_w = model().idle_power(d, mode).module_w();
      INFO(p.name << " (" << mode.label() << "): idle " << idle_w << " W, published " << *d.idle_w
                  << " W");
      CHECK(idle_w <= *d.idle_w * kIdleAbove);
      CHECK(idle_w >= *d.idle_w * kIdleFloor);
    }
  }
}

TEST_CASE(
    "in every preset of every catalog device, a fully loaded GPU stays within the maximum "
    "module power and near the preset's budget") {
  for (const models::DeviceSpec& d : catalog().devices()) {
    INFO(d.name);
    CHECK(d.module_peak_w.has_value());
    for (const models::Preset& p : d.presets) {
      const models::PowerMode mode = models::resolve_preset(d, p.name);
      const double idle_w = model().idle_power(d, mode).module_w();
      for (const Load& load : kLoads) {
        const models::Workload& w = models::workload_catalog().get(load.workload);
        const double busy_w =
            model().predict({d, mode, w, load.phase, load.batch_size}).power.module_w();
        INFO(p.name << " (" << mode.label() << "): " << load.workload
                    << (load.phase == Phase::training ? " training" : " inference") << " batch "
                    << load.batch_size << " draws " << busy_w << " W; maximum "
                    << d.module_peak_w.value_or(0) << " W, budget " << p.budget_w.value_or(0)
                    << " W (0: none)");
        CHECK(busy_w > idle_w);
        if (d.module_peak_w) CHECK(busy_w <= *d.module_peak_w);
        if (p.budget_w) CHECK(busy_w <= *p.budget_w * kBudgetMargin);
      }
    }
  }
}

// The one published loaded reading on a device other than the calibration one. It trained
// ResNet-18 on CIFAR-10 with four dataloader workers busy on the CPU; the model runs the catalog's
// ImageNet-size ResNet-18 and has no CPU activity term (fitted to 0 on Orin). PowerTrain needs
// about 50 profiled modes on Xavier AGX to predict power within 11%; a prediction from no Xavier
// measurement at all is held to 30%.
TEST_CASE("Xavier AGX training at MAXN draws within 30% of its published power", "[reference]") {
  const std::optional<std::string> csv = fulcrum::testing::reference_path("training-anchors.csv");
  if (!csv) return;  // skipped
  const std::optional<double> measured_w =
      published(*csv, "xavier-agx-32gb", "resnet18", "average_power_w");
  REQUIRE(measured_w.has_value());
  const models::DeviceSpec& d = catalog().get("xavier-agx-32gb");
  const models::Workload& w = models::workload_catalog().get("resnet18");
  const double predicted_w =
      model()
          .predict({d, models::resolve_preset(d, "MAXN"), w, Phase::training, 16})
          .power.module_w();
  INFO("predicted " << predicted_w << " W, published " << *measured_w << " W");
  CHECK(predicted_w >= 0.7 * *measured_w);
  CHECK(predicted_w <= 1.3 * *measured_w);
}
