// CudaBackend::open_context on a real GPU (CTest label `gpu`; each test skips when no GPU answers):
// native sharing as the runtime drives it, a training item in the primary context on one thread
// and an inference item in a second context on another, both at once; then the same items one
// after the other. And the second context on its own: the options carried over, the conformance
// checks, calls from a thread other than its creator's, a context opened from a context, and the
// first context going on after the second is gone.
#include <algorithm>
#include <atomic>
#include <catch2/catch.hpp>
#include <chrono>
#include <cmath>
#include <exception>
#include <iostream>
#include <latch>
#include <memory>
#include <numeric>
#include <thread>
#include <vector>

#include "backends/cuda/cuda_backend.hpp"
#include "backends/cuda/execution_plan.hpp"
#include "models/workload/graph_workload.hpp"
#include "tests/backends/backend_conformance.hpp"
#include "tests/backends/cuda/gpu/gpu_fixtures.hpp"

using namespace fulcrum;
using namespace fulcrum::backends;
using namespace fulcrum::backends::cuda;
using namespace fulcrum::backends::cuda::gpu_test;
using models::Phase;

namespace {

double ms(std::chrono::nanoseconds d) { return static_cast<double>(d.count()) / 1e6; }

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

double sum(const std::vector<double>& v) { return std::accumulate(v.begin(), v.end(), 0.0); }

int planned_launches(const WorkItem& item) {
  return make_execution_plan(dynamic_cast<const models::GraphWorkload&>(*item.workload), item.phase,
                             item.batch_size)
      .launches();
}

// An item's standalone cost on `backend` (nothing else running): the medians of its wall duration
// and of its GPU time over `runs` executions, after the warm-up its first execution does.
struct Standalone {
  double wall_ms = 0;
  double gpu_ms = 0;
};
Standalone standalone(CudaBackend& backend, const WorkItem& item, int runs) {
  backend.execute(item);
  std::vector<double> wall, gpu;
  for (int k = 0; k < runs; ++k) {
    wall.push_back(ms(backend.execute(item).duration));
    gpu.push_back(backend.last_gpu_ms());
  }
  return {median(wall), median(gpu)};
}

}  // namespace

TEST_CASE("Two contexts run a training and an inference item at once, each from its own thread",
          "[gpu]") {
  if (no_gpu()) return;
  const models::DeviceSpec device = gpu_device();
  // CUDA graphs: a replayed item keeps the GPU busy from its first kernel to its last, so that its
  // GPU time is the GPU's work and the bounds below hold (an eager item's GPU time also counts the
  // gaps its host launches leave, which the other context may fill). Metered over the warm-up
  // only, so that no meter call sits between the items timed below.
  CudaBackend parent(device, {.cuda_graphs = true, .metered_seconds = 0.5});
  std::unique_ptr<Backend> opened = parent.open_context();
  REQUIRE(opened != nullptr);
  auto& child = dynamic_cast<CudaBackend&>(*opened);
  REQUIRE(child.owns_context());
  REQUIRE_FALSE(parent.owns_context());
  CHECK(child.options().cuda_graphs);

  const WorkItem train{&workload("resnet50"), Phase::training, 32, mode()};
  const WorkItem infer{&workload("resnet50"), Phase::inference, 32, mode()};
  constexpr int kRuns = 7;
  const Standalone t = standalone(parent, train, kRuns);
  const Standalone i = standalone(child, infer, kRuns);
  std::cout << "standalone: resnet50 training batch 32 " << t.wall_ms << " ms (GPU " << t.gpu_ms
            << " ms), inference batch 32 " << i.wall_ms << " ms (GPU " << i.gpu_ms << " ms)\n";
  REQUIRE(t.wall_ms > 0);
  REQUIRE(i.wall_ms > 0);

  // At once: the training thread runs kTrainingItems items in the primary context; the inference
  // thread runs items in the second context until training is done (two at least), so that every
  // training item shares the GPU for its whole duration. Neither thread is the one that made its
  // backend. Catch's assertions are not thread-safe: the threads only record.
  constexpr int kTrainingItems = 8;
  std::vector<Completion> trained, inferred;
  std::atomic<bool> training_done{false};
  std::exception_ptr train_error, infer_error;
  std::latch go(3);
  std::thread trainer([&] {
    try {
      go.arrive_and_wait();
      for (int k = 0; k < kTrainingItems; ++k) trained.push_back(parent.execute(train));
    } catch (...) {
      train_error = std::current_exception();
    }
    training_done = true;
  });
  std::thread inferencer([&] {
    try {
      go.arrive_and_wait();
      while (inferred.size() < 2 || !training_done) inferred.push_back(child.execute(infer));
    } catch (...) {
      infer_error = std::current_exception();
    }
  });
  go.arrive_and_wait();
  const auto start = std::chrono::steady_clock::now();
  trainer.join();
  inferencer.join();
  const double wall_ms = ms(std::chrono::steady_clock::now() - start);
  if (train_error) std::rethrow_exception(train_error);
  if (infer_error) std::rethrow_exception(infer_error);
  REQUIRE(trained.size() == kTrainingItems);
  REQUIRE(inferred.size() >= 2);

  std::vector<double> train_ms, infer_ms;
  for (const Completion& c : trained) train_ms.push_back(ms(c.duration));
  for (const Completion& c : inferred) infer_ms.push_back(ms(c.duration));
  const auto n_infer = static_cast<double>(inferred.size());
  const double work_ms = kTrainingItems * t.wall_ms + n_infer * i.wall_ms;
  const double gpu_work_ms = kTrainingItems * t.gpu_ms + n_infer * i.gpu_ms;
  const double busy_ms = sum(train_ms) + sum(infer_ms);
  std::cout << "at once: " << kTrainingItems << " training items, mean "
            << sum(train_ms) / kTrainingItems << " ms (x"
            << sum(train_ms) / kTrainingItems / t.wall_ms << " standalone); " << inferred.size()
            << " inference items, mean " << sum(infer_ms) / n_infer << " ms (x"
            << sum(infer_ms) / n_infer / i.wall_ms << "); wall " << wall_ms
            << " ms for standalone work of " << work_ms << " ms (GPU " << gpu_work_ms
            << " ms); threads in an item " << busy_ms << " ms\n";

  // Every item completes, and none is faster for sharing the GPU: each takes at least its
  // standalone median, less 10 % for run-to-run noise (the standalone runs vary by a few %).
  for (const Completion& c : trained) {
    CHECK(c.duration.count() > 0);
    CHECK(ms(c.duration) >= 0.9 * t.wall_ms);
    CHECK(std::isfinite(c.module_energy_j));
    CHECK(c.module_energy_j >= 0);
  }
  for (const Completion& c : inferred) {
    CHECK(c.duration.count() > 0);
    CHECK(ms(c.duration) >= 0.9 * i.wall_ms);
    CHECK(std::isfinite(c.module_energy_j));
    CHECK(c.module_energy_j >= 0);
  }
  // Time-slicing: kernels of two contexts never run at the same time (CUDA C++ Programming Guide,
  // "Concurrent Kernel Execution": kernels from different contexts cannot execute concurrently;
  // no MPS here), so the wall holds at least the GPU work of both, less 25 % for clock and
  // measurement noise ...
  {
    INFO("a shorter wall means kernels of the two contexts overlapped (is MPS running?)");
    CHECK(wall_ms >= 0.75 * gpu_work_ms);
  }
  // ... and at worst the two ran one after the other: the wall is at most their standalone work,
  // plus 50 % for the driver's context switches and the clocks of a GPU busier than before, plus
  // 20 ms for starting and joining the threads.
  CHECK(wall_ms <= 1.5 * work_ms + 20);
  // They did run at once: both threads were inside an item almost all the wall long (not one
  // waiting for the other's call to return), so their items' durations add up to nearly twice the
  // wall. What is left out: the last inference item's run after training ended, and the host time
  // between items, together well under 60 % of the wall.
  CHECK(busy_ms >= 1.4 * wall_ms);

  // One after the other on this thread, afterwards: each item is back to its standalone time and
  // makes every planned launch, whichever context ran last.
  const int train_launches = planned_launches(train);
  const int infer_launches = planned_launches(infer);
  for (int k = 0; k < 3; ++k) {
    INFO("sequential round " << k);
    const double dt = ms(parent.execute(train).duration);
    CHECK(parent.last_launches() == train_launches);
    const double di = ms(child.execute(infer).duration);
    CHECK(child.last_launches() == infer_launches);
    CHECK(dt >= 0.9 * t.wall_ms);
    CHECK(dt <= 1.5 * t.wall_ms + 2);
    CHECK(di >= 0.9 * i.wall_ms);
    CHECK(di <= 1.5 * i.wall_ms + 2);
  }
}

TEST_CASE("A context opened from a CudaBackend carries its options and runs from any thread",
          "[gpu]") {
  if (no_gpu()) return;
  const models::DeviceSpec device = gpu_device();
  CudaBackend parent(device, {.layer_timing = true, .metered_seconds = 0.5});
  std::unique_ptr<Backend> opened = parent.open_context();
  REQUIRE(opened != nullptr);
  auto& child = dynamic_cast<CudaBackend&>(*opened);
  CHECK(child.owns_context());
  CHECK(child.options().layer_timing);
  CHECK_FALSE(child.options().cuda_graphs);
  CHECK(child.options().metered_seconds == 0.5);
  CHECK(child.options().device == parent.options().device);
  CHECK(&child.device() == &parent.device());
  CHECK(child.gpu_name() == parent.gpu_name());
  CHECK(child.runs_in_real_time());

  // The conformance checks, in the second context (idle power included).
  testing::ConformanceCase c;
  c.items = {{&workload("resnet50"), Phase::training, 32, mode()},
             {&workload("resnet50"), Phase::inference, 64, mode()}};
  c.repeat_tolerance = 0.5;
  c.module_tolerance = 1e-6;
  testing::check_backend_conformance(child, c);

  // From a thread that did not make it, with per-layer times (the carried-over option).
  const WorkItem lstm{&workload("lstm"), Phase::training, 2, mode()};
  Completion done;
  int launches = 0;
  std::size_t layers = 0;
  double layers_ms = 0;
  std::exception_ptr error;
  std::thread worker([&] {
    try {
      done = child.execute(lstm);
      launches = child.last_launches();
      for (const LayerTime& l : child.last_layer_times()) {
        ++layers;
        layers_ms += l.forward_ms + l.backward_ms;
      }
    } catch (...) {
      error = std::current_exception();
    }
  });
  worker.join();
  if (error) std::rethrow_exception(error);
  CHECK(done.duration.count() > 0);
  CHECK(launches == planned_launches(lstm));
  CHECK(layers > 0);
  CHECK(layers_ms > 0);
  CHECK(layers_ms <= ms(done.duration) * 1.01);

  // A context opened from a context, then closed while both others go on.
  const WorkItem mobilenet{&workload("mobilenetv3-large"), Phase::inference, 1, mode()};
  {
    std::unique_ptr<Backend> third = child.open_context();
    REQUIRE(third != nullptr);
    CHECK(dynamic_cast<CudaBackend&>(*third).owns_context());
    CHECK(third->execute(mobilenet).duration.count() > 0);
  }
  CHECK(child.execute(mobilenet).duration.count() > 0);
  CHECK(child.last_launches() == planned_launches(mobilenet));

  // The first context goes on after the second is destroyed.
  opened.reset();
  CHECK(parent.execute(mobilenet).duration.count() > 0);
  CHECK(parent.last_launches() == planned_launches(mobilenet));
}
