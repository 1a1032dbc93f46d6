// The data pipeline's hand-computable cases (issue: the data pipeline in the event-driven
// runtime): fake GPU times from runtime_fakes.hpp, a made-up storage medium and sample format
// with round figures, so every stall below can be worked out on paper.
#include "sim/runtime/dataloader_pipeline.hpp"

#include <catch2/catch.hpp>
#include <numeric>

#include "runtime_fakes.hpp"

using namespace fulcrum::sim;
using namespace fulcrum::sim::testing;
using fulcrum::models::Phase;

namespace {

constexpr double kSampleBytes = 1e6;  // 1 MB per sample file

// Storage reading `ms_per_sample` per 1 MB file, no per-request latency; pre-processing
// `preprocess_ms` per sample on one core; copying out of the cache costs (almost) nothing.
fulcrum::models::PipelineData pipeline_data(double ms_per_sample, double preprocess_ms) {
  fulcrum::models::PipelineData d;
  d.storage.name = "test-disk";
  d.storage.random_read_mb_s.value = 1e3 / ms_per_sample;  // 1 MB in ms_per_sample
  d.storage.request_latency_ms.value = 0;
  d.dataloader.ref_cpu_khz = 1000000;
  d.dataloader.os_gb = 0;
  d.dataloader.training_process_gb = 0;
  d.dataloader.inference_process_gb = 0;
  d.dataloader.gpu_bytes_per_parameter = 0;
  d.dataloader.core_active_w = 1.0;
  d.dataloader.cache_copy_gb_s = 1e9;  // 1 MB in 1e-6 ms: rounds to 0 ns
  d.format = {"test-format", preprocess_ms, 0.0, "test"};
  d.bytes_per_sample = kSampleBytes;
  return d;
}

struct PipelineRun {
  Harness h;
  fulcrum::models::PipelineData data;
  int cores = 4;

  PipelineRun(double samples, int batch_size, int epochs, double compute_ms, double duration_s) {
    h.scenario = base_scenario(duration_s);
    h.scenario.training = training_spec(batch_size, epochs);
    h.scenario.training->data_pipeline = DataPipelineKind::dataloader;
    h.scenario.device.ram_gb = 1e-9;  // no page cache unless a test gives RAM
    h.dataset_samples = samples;
    h.backend.set(h.train, Phase::training, {compute_ms, 0});
  }
  void workers(int w, int prefetch = 2) {
    h.scenario.training->dataloader.workers = w;
    h.scenario.training->dataloader.prefetch_factor = prefetch;
  }
  void ram_gb(double gb) { h.scenario.device.ram_gb = gb; }

  RunResult run(RecordingObserver& obs) {
    RunSetup setup = h.setup();
    setup.pipeline = &data;
    setup.mode.cores = cores;
    return fulcrum::sim::run(setup, h.backend, &obs);
  }
};

std::vector<ItemRecord> training_items(const RecordingObserver& obs) {
  std::vector<ItemRecord> out;
  for (const ItemRecord& it : obs.items)
    if (it.phase == Phase::training) out.push_back(it);
  return out;
}

// Invariants of every run: each epoch reads each sample once, from storage or from the cache.
void check_epochs(const RecordingObserver& obs, double samples) {
  for (const EpochRecord& e : obs.epochs) {
    REQUIRE(e.data.has_value());
    CHECK(static_cast<double>(e.data->cache_hit_samples + e.data->storage_samples) == samples);
    CHECK(e.data->bytes_from_cache + e.data->bytes_from_storage == Approx(samples * kSampleBytes));
  }
}

}  // namespace

TEST_CASE("one worker with fetch slower than compute stalls fetch - compute per minibatch") {
  // 4 samples x 10 ms = 40 ms to fetch a minibatch, 25 ms to compute it, no pre-processing.
  PipelineRun p(400, 4, 1, 25, 10);
  p.data = pipeline_data(10, 0);
  p.workers(1);
  RecordingObserver obs;
  const RunResult r = p.run(obs);
  const auto items = training_items(obs);
  REQUIRE(items.size() == 100);
  CHECK(items[0].fetch_stall == 40 * kMillisecond);  // nothing prefetched before the start
  for (std::size_t k = 1; k < items.size(); ++k) {
    CHECK(items[k].fetch_stall == 15 * kMillisecond);  // 40 - 25
    CHECK(items[k].data.fetch == 40 * kMillisecond);
    CHECK(items[k].data.cache_hit_samples == 0);
  }
  CHECK(r.training->fetch_stall_s == Approx(0.040 + 99 * 0.015));
  check_epochs(obs, 400);
}

TEST_CASE("enough workers on fast storage leave no stall after the first minibatch") {
  // Storage 1 ms per sample (4 ms a minibatch), 5 ms of CPU per sample (20 ms a minibatch on a
  // core), 25 ms of compute: four workers on 8 cores supply a minibatch every ~6 ms.
  PipelineRun p(400, 4, 1, 25, 10);
  p.data = pipeline_data(1, 5);
  p.cores = 8;
  p.workers(4);
  RecordingObserver obs;
  p.run(obs);
  const auto items = training_items(obs);
  REQUIRE(items.size() == 100);
  CHECK(items[0].fetch_stall == 24 * kMillisecond);  // 4 ms read + 20 ms pre-processing
  Time later = 0;
  for (std::size_t k = 1; k < items.size(); ++k) later += items[k].fetch_stall;
  CHECK(later == 0);
}

TEST_CASE("workers = 0 runs fetch, pre-processing and compute one after another") {
  PipelineRun p(40, 4, 1, 25, 10);
  p.data = pipeline_data(10, 5);
  p.workers(0);
  RecordingObserver obs;
  p.run(obs);
  const auto items = training_items(obs);
  REQUIRE(items.size() == 10);
  Time previous_end = 0;
  for (const ItemRecord& it : items) {
    CHECK(it.data.fetch == 40 * kMillisecond);
    CHECK(it.data.preprocess == 20 * kMillisecond);
    CHECK(it.fetch_stall == 60 * kMillisecond);
    CHECK(it.start == previous_end + 60 * kMillisecond);
    previous_end = it.end;
  }
  check_epochs(obs, 40);
}

TEST_CASE("a dataset that fits in free RAM is read from storage in epoch 1 only") {
  PipelineRun p(400, 4, 3, 25, 60);
  p.data = pipeline_data(1, 1);
  p.ram_gb(1.0);  // 1000 files of 1 MB: the dataset is 400
  p.workers(2);
  RecordingObserver obs;
  const RunResult r = p.run(obs);
  REQUIRE(obs.epochs.size() == 3);
  check_epochs(obs, 400);
  CHECK(obs.epochs[0].data->storage_samples == 400);  // each sample read exactly once
  CHECK(obs.epochs[0].data->cache_hit_samples == 0);
  for (std::size_t e = 1; e < 3; ++e) {
    CHECK(obs.epochs[e].data->bytes_from_storage == 0);
    CHECK(obs.epochs[e].data->cache_hit_ratio() == 1.0);
  }
  REQUIRE(r.training->epochs.size() == 3);
  CHECK(r.training->epochs[2].cache_hit_ratio == 1.0);
  REQUIRE(r.training->dataloader);
  CHECK(r.training->dataloader->bytes_from_storage == Approx(400 * kSampleBytes));
  CHECK(r.training->dataloader->bytes_from_cache == Approx(800 * kSampleBytes));
}

TEST_CASE("a dataset four times the free RAM gets a low hit ratio under random order") {
  PipelineRun p(4000, 16, 3, 5, 600);
  p.data = pipeline_data(0.1, 0.1);
  p.ram_gb(1.0);  // 1000 of 4000 files
  p.workers(4);
  RecordingObserver obs;
  p.run(obs);
  REQUIRE(obs.epochs.size() == 3);
  check_epochs(obs, 4000);
  for (std::size_t e = 1; e < 3; ++e) CHECK(obs.epochs[e].data->cache_hit_ratio() < 0.15);
}

TEST_CASE("more online cores never increase the stall") {
  // 20 ms of CPU per sample, 80 ms a minibatch on a core, 25 ms compute: CPU-bound.
  double previous = 1e300;
  double first = 0;
  for (int cores = 1; cores <= 8; ++cores) {
    PipelineRun p(320, 4, 1, 25, 60);
    p.data = pipeline_data(1, 20);
    p.cores = cores;
    p.workers(4);
    RecordingObserver obs;
    const double stall = p.run(obs).training->fetch_stall_s;
    CHECK(stall <= previous + 1e-9);
    if (cores == 1) first = stall;
    previous = stall;
  }
  CHECK(previous < first / 2);
}

TEST_CASE("a worker gets what the launch thread leaves of the cores while a minibatch computes") {
  // docs/PIPELINE.md "CPU contention": host threads first. One worker, one minibatch in flight;
  // no fetch, 40 ms of pre-processing a minibatch, 20 ms of compute. Minibatch 0 is
  // pre-processed alone: ready at 40 ms. Minibatch 1 is handed out at 40 ms, when minibatch 0
  // starts computing. On one core the launch thread takes it for those 20 ms and the worker
  // gets its floor, 0.001 of a core (0.02 ms of work), then the remaining 39.98 ms alone: ready
  // at 99.98 ms, 39.98 ms after the GPU wanted it (60 ms). With two cores each has one: ready at
  // 80 ms, 20 ms of stall.
  for (const int cores : {1, 2}) {
    PipelineRun p(12, 4, 1, 20, 10);
    p.data = pipeline_data(0, 10);  // reads take no time
    p.cores = cores;
    p.workers(1, 1);
    RecordingObserver obs;
    p.run(obs);
    const auto items = training_items(obs);
    REQUIRE(items.size() == 3);
    INFO(cores << " cores");
    CHECK(items[0].fetch_stall == 40 * kMillisecond);
    const Time expected = cores == 1 ? 39'980'000 : 20 * kMillisecond;
    CHECK(items[1].fetch_stall == expected);
    CHECK(items[1].data.preprocess == expected + 20 * kMillisecond);
    CHECK(items[2].fetch_stall == expected);
  }
}

TEST_CASE("a training minibatch's host thread gets a core before the busy workers") {
  // docs/PIPELINE.md "CPU contention". The setup of the test above: one worker, 40 ms of
  // pre-processing a minibatch, 20 ms of compute; the worker is busy while minibatches 1 and 2
  // compute. The host thread comes first, so it runs with a full core whenever one is left:
  // one core (OS 0), two cores with an OS share of 0.5 (1.5 left). With less than a core left
  // it gets what is left: one core with an OS share of 0.5 leaves 0.5; with 0.95, the floor of
  // 0.1 core.
  struct Case {
    int cores;
    double os_cores;
    double share;
  };
  for (const Case c : {Case{1, 0, 1.0}, Case{2, 0.5, 1.0}, Case{1, 0.5, 0.5}, Case{1, 0.95, 0.1}}) {
    PipelineRun p(12, 4, 1, 20, 10);
    p.data = pipeline_data(0, 10);
    p.data.dataloader.os_cores = c.os_cores;
    p.cores = c.cores;
    p.workers(1, 1);
    RecordingObserver obs;
    const RunResult r = p.run(obs);
    INFO(c.cores << " cores, OS " << c.os_cores);
    std::vector<double> shares;
    for (const auto& item : p.h.backend.executed) {
      if (item.phase == Phase::training) shares.push_back(item.host_share);
    }
    REQUIRE(shares.size() == 3);
    for (const double s : shares) CHECK(s == Approx(c.share));
    // summary.json's mean over the run's minibatches.
    CHECK(r.training->dataloader->training_host_share == Approx(c.share));
    CHECK(r.training->dataloader->os_cores == c.os_cores);
  }
}

TEST_CASE("more runnable threads than cores cost each core a fixed share of its clock") {
  // docs/PIPELINE.md "CPU contention": two workers, one core, both busy from the start with a
  // minibatch of 4 x 10 ms at the reference clock (the mode's, 1000 MHz), the host thread
  // waiting for data. Each worker gets half the core; with 500 MHz lost per thread beyond one
  // per core (2 threads on 1 core: one beyond) the core keeps 500 of its 1000 MHz, so each
  // minibatch takes 40 / (0.5 x 0.5) = 160 ms instead of 80. With 1000 MHz lost the clock kept is
  // held at a quarter: 320 ms. On two cores nothing is lost: 40 ms.
  struct Case {
    int cores;
    double lost_mhz;
    Time stall;
  };
  for (const Case c : {Case{1, 0, 80 * kMillisecond}, Case{1, 500, 160 * kMillisecond},
                       Case{1, 1000, 320 * kMillisecond}, Case{2, 500, 40 * kMillisecond}}) {
    PipelineRun p(16, 4, 1, 20, 10);
    p.data = pipeline_data(0, 10);
    p.data.dataloader.oversubscription_mhz = c.lost_mhz;
    p.cores = c.cores;
    p.workers(2, 1);
    RecordingObserver obs;
    p.run(obs);
    const auto items = training_items(obs);
    REQUIRE(!items.empty());
    INFO(c.cores << " cores, " << c.lost_mhz << " MHz lost");
    CHECK(items[0].fetch_stall == c.stall);
  }
}

TEST_CASE("a worker's fixed per-minibatch cost adds to its samples' pre-processing") {
  // 4 samples x 10 ms + 8 ms a minibatch at the reference clock (the mode's CPU clock is the
  // reference here): minibatch 0 is ready at 48 ms.
  PipelineRun p(12, 4, 1, 20, 10);
  p.data = pipeline_data(0, 10);
  p.data.dataloader.worker_batch_ms_at_ref = 8;
  p.cores = 4;
  p.workers(1, 1);
  RecordingObserver obs;
  p.run(obs);
  const auto items = training_items(obs);
  REQUIRE(!items.empty());
  CHECK(items[0].fetch_stall == 48 * kMillisecond);
}

TEST_CASE(
    "an inference item's host thread gets a core before the busy workers and shares the cores "
    "with the training host thread") {
  // One core and a worker pre-processing most of the time (CPU-bound: 4 x 10 ms a minibatch
  // against 10 ms of compute). Under the managed policy an inference item never runs beside a
  // training minibatch, so its host thread is the only one and takes the core from the worker:
  // a full core. Under the native policy items also start while a training minibatch computes:
  // two host threads on one core, half each. With eight cores every host thread has a full one.
  struct Case {
    SharingPolicy policy;
    int cores;
    double least;
  };
  for (const Case c : {Case{SharingPolicy::managed, 1, 1.0}, Case{SharingPolicy::native, 1, 0.5},
                       Case{SharingPolicy::native, 8, 1.0}}) {
    PipelineRun p(400, 4, 1, 10, 5);
    p.h.scenario.gpu_sharing.policy = c.policy;
    p.h.scenario.inference.push_back(stream_spec("s0", 4, FixedArrivals{30}));
    p.h.backend.set(p.h.infer, Phase::inference, {5, 0});
    p.data = pipeline_data(0, 10);
    p.cores = c.cores;
    p.workers(1, 1);
    RecordingObserver obs;
    p.run(obs);
    double least = 1;
    int inference = 0;
    for (const auto& item : p.h.backend.executed) {
      if (item.phase != Phase::inference) continue;
      ++inference;
      least = std::min(least, item.host_share);
    }
    INFO(to_string(c.policy) << ", " << c.cores << " cores");
    REQUIRE(inference > 10);
    CHECK(least == c.least);
  }
}

TEST_CASE("the workers' CPU power goes to the CPU rail as its own source") {
  PipelineRun p(400, 4, 1, 25, 10);
  p.data = pipeline_data(1, 5);
  p.cores = 8;
  p.workers(4);
  RecordingObserver obs;
  const RunResult r = p.run(obs);
  const auto& sources = r.power.sources;
  const auto it = std::find(sources.begin(), sources.end(), "dataloader");
  REQUIRE(it != sources.end());
  const double energy = r.power.source_energy_j[static_cast<std::size_t>(it - sources.begin())];
  // 1 W per busy core x core-seconds of pre-processing: 400 samples x 5 ms = 2 s.
  CHECK(r.training->dataloader->worker_core_s == Approx(2.0));
  CHECK(energy == Approx(2.0));
}

TEST_CASE("the pipeline composes with concurrent inference under every sharing policy") {
  struct Case {
    SharingPolicy policy;
    ManagedVariant variant;
  };
  for (const Case c : {Case{SharingPolicy::managed, ManagedVariant::windowed},
                       Case{SharingPolicy::managed, ManagedVariant::greedy},
                       Case{SharingPolicy::native, ManagedVariant::windowed},
                       Case{SharingPolicy::sequential, ManagedVariant::windowed}}) {
    PipelineRun p(400, 4, 2, 10, 20);
    p.h.scenario.gpu_sharing.policy = c.policy;
    p.h.scenario.gpu_sharing.variant = c.variant;
    p.h.scenario.inference.push_back(stream_spec("s0", 4, FixedArrivals{40}));
    p.h.backend.set(p.h.infer, Phase::inference, {20, 0});
    p.data = pipeline_data(2, 3);
    p.ram_gb(1.0);
    p.workers(2);
    RecordingObserver obs;
    const RunResult r = p.run(obs);
    INFO(to_string(c.policy));
    CHECK(r.training->epochs_completed == 2);
    check_epochs(obs, 400);
    CHECK(r.inference[0].stable);
    CHECK(r.inference[0].completed > 700);
    // Every training minibatch started only once its data was there, and after the previous one.
    const auto items = training_items(obs);
    for (std::size_t k = 1; k < items.size(); ++k) CHECK(items[k].start >= items[k - 1].end);
  }
}

TEST_CASE("the same seed gives the same pipeline, another seed another order") {
  auto once = [](std::uint64_t seed) {
    PipelineRun p(4000, 16, 2, 5, 600);
    p.h.scenario.seed = seed;
    p.data = pipeline_data(0.1, 0.1);
    p.ram_gb(1.0);
    p.workers(3);
    RecordingObserver obs;
    p.run(obs);
    std::vector<std::uint64_t> hits;
    std::vector<Time> stalls;
    for (const ItemRecord& it : obs.items) {
      hits.push_back(it.data.cache_hit_samples);
      stalls.push_back(it.fetch_stall);
    }
    return std::make_pair(hits, stalls);
  };
  CHECK(once(5) == once(5));
  CHECK(once(5).first != once(6).first);
}
