// The shipped storage media and dataloader coefficients load and carry a source for every
// figure; a scenario's dataloader settings are resolved against them, and bad values are
// one-line errors at their key.
#include "sim/config/pipeline_loader.hpp"

#include <catch2/catch.hpp>
#include <string>

#include "models/error.hpp"
#include "models/perf/cross_mode_model.hpp"
#include "models/pipeline/dataloader_model.hpp"
#include "sim/config/cross_mode_loader.hpp"
#include "sim/config/device_catalog_loader.hpp"
#include "sim/config/scenario_loader.hpp"
#include "tests/input_error.hpp"

using namespace fulcrum;
using fulcrum::testing::error_of;

namespace {

const std::string kDataDir = FULCRUM_DATA_DIR;

// A dataloader model document with every required section (7 lines), then `rest`, as "d.yaml".
models::DataloaderModel parse_model(const std::string& rest) {
  const std::string head = R"(version: 1
cpu: {ref_cpu_khz: 2201600, ref_arch: a, arch_speed: {a: 1}, arch_basis: b, memory_efficiency: 0.5}
formats:
  jpeg: {cpu_ms_at_ref: 8, memory_mb_touched: 6, basis: p}
memory: {os_gb: 1, training_process_gb: 2, inference_process_gb: 1, gpu_bytes_per_parameter: 16, basis: m}
power: {core_active_w: 0.9, cpu_v_min_ratio: 0.6, basis: w}
page_cache: {copy_gb_s: 2, basis: c}
)";
  return sim::parse_dataloader_model(sim::YamlDoc::parse(head + rest, "d.yaml").root());
}

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

TEST_CASE("the fitted per-dataset cost is the cross-mode calibration's, converted") {
  // The measured training workloads and the datasets they trained on
  // (../shared/reference/measurements/README.md): the dataloader's cost of a sample at the
  // reference mode (ref_cpu_khz, top EMC clock) must equal the calibration's preprocess_ms there.
  const models::DataloaderModel m =
      sim::load_dataloader_model(kDataDir + "/pipeline/dataloader.yaml");
  const models::CrossModeCalibration c =
      sim::load_cross_mode_calibration(sim::cross_mode_calibration_path(kDataDir, "orin-agx-64gb"));
  const models::DeviceCatalog devices = sim::load_device_catalog(kDataDir + "/devices");
  const models::DeviceSpec& orin = devices.get("orin-agx-64gb");
  REQUIRE(c.device.cpu_ref_khz == m.ref_cpu_khz);
  REQUIRE(orin.cpu_arch == m.ref_arch);
  models::PowerMode ref;
  ref.cpu_khz = m.ref_cpu_khz;
  ref.emc_hz = orin.emc_hz.back();
  for (const auto& [dataset, workload] :
       {std::pair{"imagenet", "resnet18"}, std::pair{"gld23k", "mobilenetv3-large"}}) {
    INFO(dataset << " <- " << workload);
    REQUIRE(m.dataset_overrides.count(dataset) == 1);
    const models::SampleFormat& f = m.format_of(dataset);
    CHECK_THAT(f.basis, Catch::StartsWith("fitted:"));
    const double fitted = c.workloads.at({workload, models::Phase::training}).preprocess_ms;
    CHECK(models::preprocess_ms_per_sample(m, f, orin, ref) ==
          Approx(fitted).epsilon(1e-6).margin(0));
  }
  // Oversubscribed cores lose the clock the cross-mode fit found, as fitted.
  CHECK(m.oversubscription_mhz == Approx(c.device.oversubscription_mhz).epsilon(1e-8));
  // The other JPEG datasets keep the format's prior.
  CHECK(m.format_of("coco-minitrain").cpu_ms_at_ref == 8.0);
}

TEST_CASE("a dataset's cost override is checked at its key") {
  const auto load = [](const std::string& tail) {
    return parse_model(std::string("datasets:\n  plain: jpeg\n") + tail);
  };
  const models::DataloaderModel ok =
      load("  own: {format: jpeg, cpu_ms_at_ref: 5, basis: fitted}\n  same: {format: jpeg}\n");
  CHECK(ok.format_of("own").cpu_ms_at_ref == 5);
  CHECK(ok.format_of("own").memory_mb_touched == 6);
  CHECK(ok.format_of("own").basis == "fitted");
  CHECK(ok.format_of("same").cpu_ms_at_ref == 8);
  CHECK(ok.format_of("plain").cpu_ms_at_ref == 8);

  InputError e = error_of([&] { load("  own: {format: jpeg, cpu_ms_at_ref: -1, basis: f}\n"); });
  CHECK(e.key_path() == "datasets.own.cpu_ms_at_ref");
  CHECK_THAT(e.what(), Catch::StartsWith("d.yaml:10:"));
  e = error_of([&] { load("  own: {format: jpeg, cpu_ms_at_ref: 5}\n"); });
  CHECK(e.key_path() == "datasets.own");  // the fitted figure must say where it comes from
  CHECK_THAT(e.what(), Catch::Contains("basis"));
  e = error_of([&] { load("  own: {format: png, cpu_ms_at_ref: 5, basis: f}\n"); });
  CHECK(e.key_path() == "datasets.own.format");
  e = error_of([&] { load("  own: {format: jpeg, cpu_ms: 5, basis: f}\n"); });
  CHECK(e.key_path() == "datasets.own.cpu_ms");
  e = error_of([&] { load("  own: {format: jpeg, basis: f}\n"); });
  CHECK(e.key_path() == "datasets.own.basis");
}

TEST_CASE(
    "the CPU contention figures are optional, stated with a basis, and checked at their key") {
  const auto load = [](const std::string& tail) {
    return parse_model("datasets: {plain: jpeg}\n" + tail);
  };
  const models::DataloaderModel none = load("");
  CHECK(none.os_cores == 0);
  CHECK(none.worker_batch_ms_at_ref == 0);
  const models::DataloaderModel ok =
      load("contention: {os_cores: 0.25, worker_batch_ms_at_ref: 2, basis: e}\n");
  CHECK(ok.os_cores == 0.25);
  CHECK(ok.worker_batch_ms_at_ref == 2);
  CHECK(ok.contention_basis == "e");
  CHECK(ok.oversubscription_mhz == 0);  // optional: oversubscribed cores keep their clock
  CHECK(load("contention: {os_cores: 0, worker_batch_ms_at_ref: 0, oversubscription_mhz: 78, "
             "basis: e}\n")
            .oversubscription_mhz == 78);

  InputError e =
      error_of([&] { load("contention: {os_cores: 1.5, worker_batch_ms_at_ref: 2, basis: e}\n"); });
  CHECK(e.key_path() == "contention.os_cores");
  CHECK_THAT(e.what(), Catch::StartsWith("d.yaml:9:"));
  e = error_of(
      [&] { load("contention: {os_cores: 0.1, worker_batch_ms_at_ref: -1, basis: e}\n"); });
  CHECK(e.key_path() == "contention.worker_batch_ms_at_ref");
  for (const char* lost : {"-1", "20000", "fast"}) {
    e = error_of([&] {
      load(std::string(
               "contention: {os_cores: 0, worker_batch_ms_at_ref: 0, oversubscription_mhz: ") +
           lost + ", basis: e}\n");
    });
    CHECK(e.key_path() == "contention.oversubscription_mhz");
  }
  e = error_of([&] { load("contention: {os_cores: 0.1, worker_batch_ms_at_ref: 1}\n"); });
  CHECK(e.key_path() == "contention");  // the estimates must say what they rest on
  CHECK_THAT(e.what(), Catch::Contains("basis"));
}

TEST_CASE("the shipped dataloader coefficients include the CPU contention estimates") {
  const models::DataloaderModel m =
      sim::load_dataloader_model(kDataDir + "/pipeline/dataloader.yaml");
  CHECK(m.os_cores == 0.1);
  CHECK(m.worker_batch_ms_at_ref == 1.0);
  CHECK(m.format_of("mnist").cpu_ms_at_ref == 0.2);
  CHECK_THAT(m.contention_basis, Catch::Contains("estimates"));
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
