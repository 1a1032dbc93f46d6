#include "models/pipeline/dataloader_model.hpp"

#include <catch2/catch.hpp>

#include "models/error.hpp"

using namespace fulcrum::models;

namespace {

DataloaderModel model() {
  DataloaderModel m;
  m.ref_cpu_khz = 2000000;
  m.arch_speed = {{"cortex-a78ae", 1.0}, {"carmel", 0.5}};
  m.memory_efficiency = 0.5;
  m.formats = {{"jpeg", 8.0, 10.0, "test"}};
  m.dataset_formats = {{"gld23k", "jpeg"}};
  m.os_gb = 1;
  m.training_process_gb = 2;
  m.inference_process_gb = 1;
  m.gpu_bytes_per_parameter = 16;
  m.core_active_w = 1.0;
  m.cpu_v_min_ratio = 0.5;
  return m;
}

DeviceSpec device(const char* arch) {
  DeviceSpec d;
  d.cpu_arch = arch;
  d.cpu_khz = {1000000, 2000000};
  d.memory_bus_bits = 128;  // 16 B per transfer, 2 per clock
  return d;
}

}  // namespace

TEST_CASE("pre-processing cost scales with CPU clock, architecture and memory bandwidth") {
  const DataloaderModel m = model();
  const SampleFormat& jpeg = m.format_of("gld23k");
  PowerMode mode;
  mode.cpu_khz = 2000000;
  mode.emc_hz = 1e9;  // 1e9 x 2 x 16 B = 32 GB/s peak, 16 GB/s achieved
  // 8 ms of CPU + 10 MB / 16 GB/s = 0.625 ms.
  CHECK(preprocess_ms_per_sample(m, jpeg, device("cortex-a78ae"), mode) == Approx(8.625));
  mode.cpu_khz = 1000000;  // half the clock: twice the CPU term
  CHECK(preprocess_ms_per_sample(m, jpeg, device("cortex-a78ae"), mode) == Approx(16.625));
  CHECK(preprocess_ms_per_sample(m, jpeg, device("carmel"), mode) == Approx(32.625));
  mode.emc_hz = 0.5e9;  // half the bandwidth: twice the memory term
  CHECK(preprocess_ms_per_sample(m, jpeg, device("carmel"), mode) == Approx(33.25));
  CHECK_THROWS_AS(m.format_of("unknown-set"), fulcrum::InputError);
}

TEST_CASE("the page cache gets the RAM the OS, the processes and the GPU leave") {
  const DataloaderModel m = model();
  // 8 GB - 1 (OS) - 2 (training) - 1 (one inference process) - (1e8 x 16 + 5e7 x 4) B.
  const CacheEstimate c = cache_capacity(m, 8, 1e8, {5e7});
  CHECK(c.processes_gb == Approx(3));
  CHECK(c.gpu_gb == Approx(1.8));
  CHECK(c.capacity_bytes == Approx(2.2e9));
  CHECK(cache_capacity(m, 2, 1e8, {}).capacity_bytes == 0);  // never negative
}

TEST_CASE("a busy core's power scales with f x V^2 and storage reads with latency and bandwidth") {
  const DataloaderModel m = model();
  PowerMode mode;
  mode.cpu_khz = 2000000;
  CHECK(busy_core_power_w(m, device("carmel"), mode) == Approx(1.0));
  mode.cpu_khz = 1000000;  // half the clock at V = 0.5: 0.5 x 0.25
  CHECK(busy_core_power_w(m, device("carmel"), mode) == Approx(0.125));

  StorageMedium s;
  s.random_read_mb_s.value = 100;
  s.request_latency_ms.value = 2;
  CHECK(s.read_time_s(10e6, 5) == Approx(5 * 0.002 + 0.1));
  CHECK(s.read_time_s(0, 0) == 0);
}

TEST_CASE(
    "the training process's intake of a minibatch scales with its input bytes, clock and core") {
  DataloaderModel m = model();
  PowerMode mode;
  mode.cpu_khz = 2000000;
  // Not modelled without a copy rate.
  CHECK(host_intake_ms(m, 1e7, device("cortex-a78ae"), mode) == 0.0);
  m.host_copy_gb_s = 2.0;
  // 16 ImageNet tensors of 3 x 224 x 224 float32 = 9,633,792 B at 2 GB/s: 4.816896 ms.
  CHECK(host_intake_ms(m, 9633792, device("cortex-a78ae"), mode) == Approx(4.816896));
  mode.cpu_khz = 1000000;  // half the clock: twice the time
  CHECK(host_intake_ms(m, 9633792, device("cortex-a78ae"), mode) == Approx(9.633792));
  CHECK(host_intake_ms(m, 9633792, device("carmel"), mode) == Approx(19.267584));  // half speed
  CHECK(host_intake_ms(m, 0, device("carmel"), mode) == 0.0);
}
