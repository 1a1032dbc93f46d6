// CudaBackend on a real GPU (CTest label `gpu`; each test skips when no GPU answers): the backend
// conformance checks, a training and an inference minibatch of one workload per family (CNN,
// depthwise CNN, detector, transformer, LSTM) with every planned launch made, per-layer timing,
// CUDA graph replay, timed items that pay no meter calls, and the GPU probe.
#include "backends/cuda/cuda_backend.hpp"

#include <algorithm>
#include <catch2/catch.hpp>
#include <chrono>
#include <iostream>
#include <string>
#include <vector>

#include "backends/cuda/execution_plan.hpp"
#include "models/error.hpp"
#include "models/workload/graph_workload.hpp"
#include "tests/backends/backend_conformance.hpp"
#include "tests/backends/cuda/gpu/gpu_fixtures.hpp"

using namespace fulcrum;
using namespace fulcrum::backends;
using namespace fulcrum::backends::cuda;
using namespace fulcrum::backends::cuda::gpu_test;
using models::Phase;

TEST_CASE("CudaBackend passes the backend conformance checks", "[gpu]") {
  if (no_gpu()) return;
  const models::DeviceSpec device = gpu_device();
  CudaBackend backend(device, {});
  testing::ConformanceCase c;
  c.items = {{&workload("resnet50"), Phase::training, 32, mode()},
             {&workload("resnet50"), Phase::inference, 64, mode()}};
  // Measured: durations and energies vary from run to run.
  c.repeat_tolerance = 0.5;
  c.module_tolerance = 1e-6;
  testing::check_backend_conformance(backend, c);
  // The idle power was metered once, after the power settled (or 15 s at most), and says how.
  const std::optional<IdleMetering> idle = backend.idle_metering();
  REQUIRE(idle.has_value());
  CHECK(idle->windows >= 1);
  CHECK(idle->metered_s <= 16);
  CHECK(idle->power_w == Approx(backend.idle_power(mode()).module_w()).epsilon(1e-6));
  CHECK_FALSE(idle->note.empty());
}

TEST_CASE("CudaBackend runs one workload of every family, every planned launch", "[gpu]") {
  if (no_gpu()) return;
  const models::DeviceSpec device = gpu_device();
  CudaBackend backend(device, {.layer_timing = true});
  for (const char* name : {"resnet18", "mobilenetv3-large", "yolov8n", "bert-base", "lstm"}) {
    for (Phase phase : {Phase::inference, Phase::training}) {
      INFO(name << " " << models::to_string(phase));
      const models::Workload& w = workload(name);
      const Completion& done = backend.execute({&w, phase, 2, mode()});
      CHECK(done.duration.count() > 0);
      CHECK(done.provenance == models::Provenance::measured);
      const ExecutionPlan plan =
          make_execution_plan(dynamic_cast<const models::GraphWorkload&>(w), phase, 2);
      CHECK(backend.last_launches() == plan.launches());
      std::cout << name << " " << models::to_string(phase) << " batch 2: wall "
                << static_cast<double>(done.duration.count()) / 1e6 << " ms, GPU "
                << backend.last_gpu_ms() << " ms, " << plan.launches() << " launches, "
                << done.module_energy_j << " J\n";
      double layers_ms = 0;
      for (const LayerTime& t : backend.last_layer_times())
        layers_ms += t.forward_ms + t.backward_ms;
      CHECK(layers_ms > 0);
      CHECK(layers_ms <= static_cast<double>(done.duration.count()) * 1e-6 * 1.01);
    }
  }
}

TEST_CASE("CudaBackend replays a captured CUDA graph", "[gpu]") {
  if (no_gpu()) return;
  const models::DeviceSpec device = gpu_device();
  CudaBackend eager(device, {});
  CudaBackend graphs(device, {.cuda_graphs = true});
  const WorkItem item{&workload("mobilenetv3-large"), Phase::inference, 1, mode()};
  for (int i = 0; i < 3; ++i) {
    eager.execute(item);
    graphs.execute(item);
  }
  const double eager_ns = static_cast<double>(eager.execute(item).duration.count());
  const double graph_ns = static_cast<double>(graphs.execute(item).duration.count());
  std::cout << "mobilenetv3-large inference batch 1: eager " << eager_ns / 1e6 << " ms, graph "
            << graph_ns / 1e6 << " ms\n";
  CHECK(graph_ns > 0);
  CHECK(graphs.last_launches() == eager.last_launches());
}

// The meter's calls (NVML's take milliseconds) all fall in an item's warm-up, which a run on a
// device makes before its clock starts: from the first timed item on, execute() returns within a
// fraction of a millisecond of the item's own duration. A short item (ResNet-18 inference at
// batch 1, replayed as a CUDA graph, about 0.5 ms on an H200) would otherwise spend its first
// second of runs, about 2,000 items, paying a meter window each.
TEST_CASE("CudaBackend's timed items pay no meter calls", "[gpu]") {
  if (no_gpu()) return;
  const models::DeviceSpec device = gpu_device();
  CudaBackend backend(device, {.cuda_graphs = true});
  const WorkItem item{&workload("resnet18"), Phase::inference, 1, mode()};
  const auto warm_start = std::chrono::steady_clock::now();
  backend.execute(item);  // warm-up: at least 3 runs and, with a meter, 1 s of metered runs
  const double warm_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - warm_start).count();
  std::vector<double> overhead_ms;
  for (int i = 0; i < 200; ++i) {
    const auto start = std::chrono::steady_clock::now();
    const Completion& done = backend.execute(item);
    const double call_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    overhead_ms.push_back(call_ms - static_cast<double>(done.duration.count()) * 1e-6);
  }
  std::sort(overhead_ms.begin(), overhead_ms.end());
  const double median = overhead_ms[overhead_ms.size() / 2];
  const double p90 = overhead_ms[overhead_ms.size() * 9 / 10];
  std::cout << "resnet18 inference batch 1 (graph): warm-up " << warm_s << " s; execute() beyond "
            << "the item: median " << median << " ms, p90 " << p90 << " ms, max "
            << overhead_ms.back() << " ms\n";
  CHECK(median < 0.5);
  CHECK(p90 < 1.0);
}

TEST_CASE("probe_gpu describes the GPU", "[gpu]") {
  if (no_gpu()) return;
  const GpuProperties g = probe_gpu(0);
  CHECK_FALSE(g.name.empty());
  CHECK(g.sms > 0);
  CHECK(g.memory_bytes > 1e9);
  CHECK(g.compute_major >= 7);
  CHECK_THROWS_AS(probe_gpu(gpu_count()), Error);
}
