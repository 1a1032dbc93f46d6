// The shipped storage media and dataloader coefficients load and carry a source for every
// figure; a scenario's dataloader settings are resolved against them, and bad values are
// one-line errors at their key.
#include "sim/config/pipeline_loader.hpp"

#include <catch2/catch.hpp>
#include <string>

#include "models/error.hpp"
#include "sim/config/device_catalog_loader.hpp"
#include "sim/config/scenario_loader.hpp"
#include "tests/input_error.hpp"

using namespace fulcrum;
using fulcrum::testing::error_of;

namespace {

const std::string kDataDir = FULCRUM_DATA_DIR;

constexpr const char* kScenario = R"(version: 1
device: {model: xavier-nx-8gb}
training:
  workload: mobilenetv3-large
  dataset: gld23k
  epochs: 3
  data_pipeline: dataloader
  dataloader: {workers: 4, storage: sd-card, dataset_scale: 4}
)";

}  // namespace

TEST_CASE("every shipped storage medium loads with a source for each figure") {
  const std::vector<std::string> names = sim::storage_names(kDataDir);
  CHECK(names == std::vector<std::string>{"emmc", "nvme-ssd", "sd-card", "usb-hdd"});
  for (const std::string& name : names) {
    const models::StorageMedium m =
        sim::load_storage_medium(kDataDir + "/storage/" + name + ".yaml");
    INFO(name);
    CHECK(m.name == name);
    CHECK_FALSE(m.sequential_read_mb_s.source.empty());
    CHECK_FALSE(m.random_read_mb_s.source.empty());
    CHECK_FALSE(m.request_latency_ms.source.empty());
    CHECK(m.random_read_mb_s.value <= m.sequential_read_mb_s.value);
  }
}

TEST_CASE("the shipped dataloader coefficients give every catalog dataset a format") {
  const models::DataloaderModel m =
      sim::load_dataloader_model(kDataDir + "/pipeline/dataloader.yaml");
  for (const char* d : {"gld23k", "imagenet", "cifar10", "mnist", "squad", "wikitext"}) {
    CHECK_FALSE(m.format_of(d).basis.empty());
  }
  CHECK(m.format_of("gld23k").name == "jpeg");
  CHECK_FALSE(m.memory_basis.empty());
  CHECK_FALSE(m.power_basis.empty());
}

TEST_CASE("a storage file with a bad figure is an error at its key") {
  const sim::YamlDoc doc = sim::YamlDoc::parse(R"(name: x
sequential_read_mb_s: {value: 10, source: a}
random_read_mb_s: {value: -1, source: b}
request_latency_ms: {value: 1, source: c}
)",
                                               "x.yaml");
  const InputError e = error_of([&] { sim::parse_storage_medium(doc.root()); });
  CHECK(e.key_path() == "random_read_mb_s.value");
  CHECK_THAT(e.what(), Catch::StartsWith("x.yaml:3:"));
}

TEST_CASE("a scenario's dataloader is resolved: medium, format, bytes per sample") {
  const sim::LoadedScenario loaded = sim::parse_scenario(kScenario, "s.yaml");
  const models::DeviceCatalog devices = sim::load_device_catalog(kDataDir + "/devices");
  const sim::ResolvedScenario r = sim::resolve(loaded, devices);
  CHECK(r.training_dataset_samples == 4 * 23080);  // dataset_scale 4
  const auto d = sim::load_pipeline(loaded, r, kDataDir);
  REQUIRE(d);
  CHECK(d->storage.name == "sd-card");
  CHECK(d->format.name == "jpeg");
  CHECK(d->bytes_per_sample == Approx(2.8e9 / 23080));
}

TEST_CASE("an unknown storage medium is an error at training.dataloader.storage") {
  const sim::LoadedScenario loaded =
      sim::parse_scenario(kScenario, "s.yaml", {"training.dataloader.storage=floppy"});
  const models::DeviceCatalog devices = sim::load_device_catalog(kDataDir + "/devices");
  const sim::ResolvedScenario r = sim::resolve(loaded, devices);
  const InputError e = error_of([&] { sim::load_pipeline(loaded, r, kDataDir); });
  CHECK(e.key_path() == "training.dataloader.storage");
  CHECK_THAT(e.what(), Catch::Contains("unknown storage 'floppy' (known: emmc, nvme-ssd, "
                                       "sd-card, usb-hdd"));
}

TEST_CASE("a dataset without a size on storage cannot feed the dataloader") {
  const sim::LoadedScenario loaded = sim::parse_scenario(
      kScenario, "s.yaml", {"training.dataset=squad", "training.workload=bert-base"});
  const models::DeviceCatalog devices = sim::load_device_catalog(kDataDir + "/devices");
  const sim::ResolvedScenario r = sim::resolve(loaded, devices);
  const InputError e = error_of([&] { sim::load_pipeline(loaded, r, kDataDir); });
  CHECK(e.key_path() == "training.dataset");
  CHECK(e.where().has_value());
}
