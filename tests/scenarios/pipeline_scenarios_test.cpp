// The data-pipeline study's scenarios (scenarios/pipeline/): each runs its three epochs with the
// dataloader in place, and what docs/PIPELINE.md says of them holds -- cold first epoch, a page
// cache that serves later epochs when the dataset fits and not when it is four times the free
// RAM, workers that remove the serial pipeline's stall, byte-identical reruns, and a trace with
// the workers' and the storage's tracks.
#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "sim/app/run_plan.hpp"
#include "tests/temp_dir.hpp"

namespace fs = std::filesystem;
using namespace fulcrum;
using namespace fulcrum::sim;
using fulcrum::testing::TempDir;

namespace {

const std::vector<std::string> kDevices{"xavier-nx", "xavier-agx", "orin-agx"};

using fulcrum::testing::slurp;

struct PipelineRan {
  TempDir dir;
  app::ScenarioRun run;
  PipelineRan(const std::string& device, std::vector<std::string> overrides)
      : run(app::run_scenario_file({.scenario_path = (fs::path(FULCRUM_SOURCE_DIR) / "scenarios" /
                                                      "pipeline" / (device + "-gld23k.yaml"))
                                                         .string(),
                                    .overrides = std::move(overrides)},
                                   dir.path() / "out")) {}
  const TrainingResult& training() const { return *run.result.training; }
  fs::path out() const { return dir.path() / "out"; }
};

// Each epoch's samples came from storage or the cache, exactly once.
void check_epochs(const PipelineRan& r) {
  const TrainingResult& t = r.training();
  REQUIRE(t.epochs_completed == 3);
  REQUIRE(t.dataloader);
  const DataloaderResult& d = *t.dataloader;
  CHECK(d.cache_hit_samples + d.storage_samples == 3 * d.dataset_samples);
  CHECK(d.bytes_from_cache + d.bytes_from_storage == Approx(3 * d.dataset_bytes));
  REQUIRE(t.epochs.size() == 3);
  CHECK(t.epochs[0].cache_hit_ratio == 0.0);  // caches dropped at the start
}

}  // namespace

TEST_CASE("every pipeline scenario has checks here", "[scenarios][pipeline]") {
  std::set<std::string> shipped;
  for (const auto& e :
       fs::directory_iterator(fs::path(FULCRUM_SOURCE_DIR) / "scenarios" / "pipeline")) {
    if (e.path().extension() == ".yaml") shipped.insert(e.path().stem().string());
  }
  CHECK(shipped ==
        std::set<std::string>{"xavier-nx-gld23k", "xavier-agx-gld23k", "orin-agx-gld23k"});
}

TEST_CASE("pipeline scenarios: a dataset that fits is served from the page cache after epoch 1",
          "[scenarios][pipeline]") {
  for (const std::string& device : kDevices) {
    INFO(device);
    const PipelineRan r(device, {});
    check_epochs(r);
    CHECK(r.training().epochs[1].cache_hit_ratio == 1.0);
    CHECK(r.training().epochs[2].cache_hit_ratio == 1.0);
    CHECK(r.training().dataloader->bytes_from_storage ==
          Approx(r.training().dataloader->dataset_bytes));
  }
}

TEST_CASE("pipeline scenarios: four times the data on the 8 GB Xavier NX defeats the page cache",
          "[scenarios][pipeline]") {
  const PipelineRan r("xavier-nx", {"training.dataloader.dataset_scale=4"});
  check_epochs(r);
  const DataloaderResult& d = *r.training().dataloader;
  CHECK(d.dataset_bytes > 2 * d.page_cache_capacity_bytes);
  CHECK(*r.training().epochs[1].cache_hit_ratio < 0.25);
  CHECK(*r.training().epochs[2].cache_hit_ratio < 0.25);
  // The 32 GB Xavier AGX holds the same scaled dataset.
  const PipelineRan agx("xavier-agx", {"training.dataloader.dataset_scale=4"});
  check_epochs(agx);
  CHECK(agx.training().epochs[2].cache_hit_ratio == 1.0);
}

TEST_CASE(
    "pipeline scenarios: workers remove the serial pipeline stall and a slow disk shows in "
    "epoch 1 only when the data then fits",
    "[scenarios][pipeline]") {
  for (const std::string& device : kDevices) {
    INFO(device);
    const PipelineRan serial(device, {"training.dataloader.workers=0"});
    const PipelineRan four(device, {"training.dataloader.workers=4"});
    check_epochs(serial);
    check_epochs(four);
    CHECK(four.training().fetch_stall_s < serial.training().fetch_stall_s / 10);
    const PipelineRan hdd(device,
                          {"training.dataloader.workers=1", "training.dataloader.storage=usb-hdd"});
    const PipelineRan nvme(
        device, {"training.dataloader.workers=1", "training.dataloader.storage=nvme-ssd"});
    CHECK(hdd.training().epochs[0].fetch_stall_s > nvme.training().epochs[0].fetch_stall_s);
    // Later epochs come from the cache: the medium no longer matters.
    CHECK(hdd.training().epochs[2].fetch_stall_s ==
          Approx(nvme.training().epochs[2].fetch_stall_s).epsilon(1e-6));
  }
}

TEST_CASE(
    "pipeline scenarios: the same seed gives the same bytes and the trace has worker and storage "
    "tracks",
    "[scenarios][pipeline][determinism]") {
  const std::vector<std::string> set{"outputs.trace=true", "training.dataloader.dataset_scale=0.25",
                                     "training.dataloader.storage=sd-card"};
  const PipelineRan a("xavier-nx", set);
  const PipelineRan b("xavier-nx", set);
  for (const char* f :
       {"summary.json", "minibatches.csv", "epochs.csv", "power.csv", "trace.json"}) {
    INFO(f);
    const std::string x = slurp(a.out() / f);
    CHECK_FALSE(x.empty());
    CHECK(x == slurp(b.out() / f));
  }
  const std::string trace = slurp(a.out() / "trace.json");
  CHECK(trace.find("\"Data pipeline\"") != std::string::npos);
  CHECK(trace.find("\"worker 3\"") != std::string::npos);
  CHECK(trace.find("\"storage\"") != std::string::npos);
  CHECK(trace.find("\"name\":\"read 0\"") != std::string::npos);
  CHECK(trace.find("\"name\":\"preprocess 0\"") != std::string::npos);
  const std::string summary = slurp(a.out() / "summary.json");
  CHECK(summary.find("\"dataloader\": {") != std::string::npos);
}
