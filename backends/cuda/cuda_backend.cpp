#include "backends/cuda/cuda_backend.hpp"

#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cudnn.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <optional>
#include <thread>

#include "backends/cuda/execution_plan.hpp"
#include "backends/cuda/kernels.hpp"
#include "backends/cuda/ops/op_context.hpp"
#include "backends/cuda/ops/op_table.hpp"
#include "backends/hardware/rail_attribution.hpp"
#include "backends/hardware/settled_idle.hpp"
#include "models/error.hpp"
#include "models/workload/graph_workload.hpp"

namespace fulcrum::backends::cuda {

namespace {

using models::OpKind;
using ops::check;
using ops::ConvState;
using ops::i64;
using ops::Site;

// The first of cuDNN's ranked algorithms (`perf[0..found)`) whose workspace fits `limit`, as
// PyTorch without cudnn.benchmark; grows `workspace` to it. Error naming `what` when none fits.
template <typename Perf, typename Algo>
void choose_algorithm(const Perf* perf, int found, std::size_t limit, Algo* algo,
                      std::size_t* workspace, const Site& site, const char* what) {
  for (int k = 0; k < found; ++k) {
    if (perf[k].status == CUDNN_STATUS_SUCCESS && perf[k].memory <= limit) {
      *algo = perf[k].algo;
      *workspace = std::max(*workspace, perf[k].memory);
      return;
    }
  }
  throw Error(site.text() + ": cuDNN offers no " + what + " algorithm within the workspace limit");
}

int cores_per_sm(int major, int minor) {
  // FP32 lanes per SM (CUDA C++ Programming Guide, "Compute Capabilities", arithmetic
  // instruction throughput table).
  if (major == 7) return 64;
  if (major == 8) return minor == 0 ? 64 : 128;
  if (major == 9) return 128;
  if (major >= 10) return 128;
  if (major == 6) return minor == 0 ? 64 : 128;
  return 0;
}

int tensor_cores_per_sm(int major) { return major >= 7 ? 4 : 0; }

}  // namespace

struct CudaBackend::Context {
  cudaStream_t stream = nullptr;
  cudnnHandle_t cudnn = nullptr;
  cublasHandle_t cublas = nullptr;
  cudaEvent_t start = nullptr, stop = nullptr;
  void* cublas_workspace = nullptr;
  std::string name;

  ~Context() {
    if (cublas != nullptr) cublasDestroy(cublas);
    if (cudnn != nullptr) cudnnDestroy(cudnn);
    if (start != nullptr) cudaEventDestroy(start);
    if (stop != nullptr) cudaEventDestroy(stop);
    if (cublas_workspace != nullptr) cudaFree(cublas_workspace);
    if (stream != nullptr) cudaStreamDestroy(stream);
  }
};

// The buffers the operators use (ops::PreparedBuffers), owned here: allocated by prepared(),
// freed by the destructor.
struct CudaBackend::Prepared : ops::PreparedBuffers {
  ExecutionPlan plan;
  const models::GraphWorkload* workload = nullptr;
  std::vector<cudaEvent_t> layer_events;  // 2 per layer (forward) + 2 per layer (backward)
  cudaGraphExec_t graph = nullptr;
  int launches = 0;
  bool warmed = false;
  // What the meter measured over every window of this item so far (warm-up included): the
  // item's power is their ratio, so that a counter coarser than one item still averages out.
  double metered_j = 0, metered_s = 0, sampled_j = 0;
  std::vector<double> metered_rail_j;

  ~Prepared() {
    if (graph != nullptr) cudaGraphExecDestroy(graph);
    for (cudaEvent_t e : layer_events) cudaEventDestroy(e);
    for (float* a : arena) cudaFree(a);
    if (workspace != nullptr) cudaFree(workspace);
    if (host_input != nullptr) cudaFreeHost(host_input);
  }
};

int gpu_count() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  return count;
}

GpuProperties probe_gpu(int device) {
  const Site site;
  int count = 0;
  check(cudaGetDeviceCount(&count), "cudaGetDeviceCount", site);
  if (device < 0 || device >= count) {
    throw Error("cuda backend: no GPU " + std::to_string(device) + " (" + std::to_string(count) +
                " found)");
  }
  cudaDeviceProp p{};
  check(cudaGetDeviceProperties(&p, device), "cudaGetDeviceProperties", site);
  GpuProperties g;
  g.name = p.name;
  g.compute_major = p.major;
  g.compute_minor = p.minor;
  g.sms = p.multiProcessorCount;
  g.cuda_cores = g.sms * cores_per_sm(p.major, p.minor);
  g.tensor_cores = g.sms * tensor_cores_per_sm(p.major);
  g.memory_bytes = static_cast<double>(p.totalGlobalMem);
  g.memory_bus_bits = p.memoryBusWidth;
  g.l2_bytes = p.l2CacheSize;
  int v = 0;
  if (cudaDeviceGetAttribute(&v, cudaDevAttrClockRate, device) == cudaSuccess && v > 0) {
    g.sm_clock_khz = v;
  }
  if (cudaDeviceGetAttribute(&v, cudaDevAttrMemoryClockRate, device) == cudaSuccess && v > 0) {
    g.memory_clock_khz = v;
  }
  cudaGetLastError();  // an attribute this runtime lacks is not an error of the next call
  cudaRuntimeGetVersion(&g.runtime_version);
  cudaDriverGetVersion(&g.driver_version);
  return g;
}

// Makes a backend's context current on the calling thread for one call. Its own context is pushed
// and popped again at the end of the call (cuCtxPushCurrent/cuCtxPopCurrent rather than
// cuCtxSetCurrent), so that the thread's other CUDA work, another backend's included, finds the
// context it had. The primary context is made current by cudaSetDevice: the runtime's device is
// per thread, and a thread other than the constructor's may call.
struct CudaBackend::Current {
  std::optional<DriverContext::Scope> scope;
  explicit Current(CudaBackend& b) {
    if (b.own_context_ != nullptr) {
      scope.emplace(*b.own_context_);
    } else {
      check(cudaSetDevice(b.options_.device), "cudaSetDevice", Site{});
    }
  }
};

CudaBackend::CudaBackend(const models::DeviceSpec& device, Options options)
    : device_(device), options_(options), ctx_(std::make_unique<Context>()) {
  const Site site;
  int count = 0;
  const cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess || count == 0) {
    throw Error(std::string("cuda backend: no usable GPU (") +
                (e != cudaSuccess ? cudaGetErrorString(e) : "no CUDA device found") + ")");
  }
  check(cudaSetDevice(options_.device), "cudaSetDevice", site);
  open_handles();
  ctx_->name = probe_gpu(options_.device).name;
}

CudaBackend::CudaBackend(const CudaBackend& parent, std::unique_ptr<DriverContext> context)
    : device_(parent.device_),
      options_(parent.options_),
      own_context_(std::move(context)),
      ctx_(std::make_unique<Context>()) {
  const Current current(*this);
  try {
    open_handles();
    ctx_->name = parent.ctx_->name;
  } catch (...) {
    ctx_.reset();  // freed in its context, before the context goes
    throw;
  }
}

void CudaBackend::open_handles() {
  const Site site;
  check(cudaStreamCreateWithFlags(&ctx_->stream, cudaStreamNonBlocking), "cudaStreamCreate", site);
  check(cudnnCreate(&ctx_->cudnn), "cudnnCreate", site);
  check(cudnnSetStream(ctx_->cudnn, ctx_->stream), "cudnnSetStream", site);
  check(cublasCreate(&ctx_->cublas), "cublasCreate", site);
  check(cublasSetStream(ctx_->cublas, ctx_->stream), "cublasSetStream", site);
  // A workspace of our own, so that cuBLAS allocates nothing while a CUDA graph is captured.
  constexpr std::size_t kCublasWorkspace = std::size_t{32} << 20;
  check(cudaMalloc(&ctx_->cublas_workspace, kCublasWorkspace), "cudaMalloc(cublas workspace)",
        site);
  check(cublasSetWorkspace(ctx_->cublas, ctx_->cublas_workspace, kCublasWorkspace),
        "cublasSetWorkspace", site);
  check(cudaEventCreate(&ctx_->start), "cudaEventCreate", site);
  check(cudaEventCreate(&ctx_->stop), "cudaEventCreate", site);
  // A meter of its own per backend: a meter holds one window at a time and its sampling thread,
  // so two contexts metering at once must not share one.
  PowerMeterOptions meter_options;
  meter_options.kind = options_.power_meter;
  meter_options.summed_rails = device_.rails;
  meter_options.nvml_device = static_cast<unsigned>(options_.device);
  meter_ = make_power_meter(meter_options);
}

CudaBackend::~CudaBackend() {
  // Everything is freed in the context it was made in, and (members' order) before an own context
  // is destroyed.
  try {
    const Current current(*this);
    prepared_.clear();
    ctx_.reset();
  } catch (...) {
    // The context could not be made current: what is left is freed as the members go, and an
    // own context's memory with the context.
  }
}

std::unique_ptr<Backend> CudaBackend::open_context() {
  auto context = std::make_unique<DriverContext>(options_.device);
  return std::unique_ptr<Backend>(new CudaBackend(*this, std::move(context)));
}

std::string CudaBackend::gpu_name() const { return ctx_->name; }

CudaBackend::Prepared& CudaBackend::prepared(const WorkItem& item) {
  const auto* graph_workload = item.workload->graph();
  if (graph_workload == nullptr) {
    throw InputError("cuda backend: workload '" + item.workload->name() +
                     "' has no layer graph to execute");
  }
  const Key key{item.workload, item.phase, item.batch_size};
  if (auto it = prepared_.find(key); it != prepared_.end()) return *it->second;

  auto p = std::make_unique<Prepared>();
  p->workload = graph_workload;
  p->plan = make_execution_plan(*graph_workload, item.phase, item.batch_size);
  Site site{&p->plan.workload, models::to_string(item.phase), item.batch_size, nullptr};
  // Allocate; when the GPU is full, give back what other items hold and try once more.
  const auto allocate = [&](void** ptr, std::size_t bytes, const char* what) {
    if (bytes == 0) return;
    cudaError_t e = cudaMalloc(ptr, bytes);
    if (e == cudaErrorMemoryAllocation && !prepared_.empty()) {
      cudaGetLastError();
      prepared_.clear();
      e = cudaMalloc(ptr, bytes);
    }
    check(e, what, site);
  };
  for (int a = 0; a < kArenas; ++a) {
    const std::size_t bytes = static_cast<std::size_t>(p->plan.arena_floats[a]) * sizeof(float);
    allocate(reinterpret_cast<void**>(&p->arena[a]), bytes, "cudaMalloc(arena)");
    if (bytes > 0) {
      check(cudaMemsetAsync(p->arena[a], 0, bytes, ctx_->stream), "cudaMemsetAsync", site);
    }
  }
  const cudnnDataType_t f32 = CUDNN_DATA_FLOAT;
  const auto b = static_cast<int>(item.batch_size);
  for (std::size_t i = 0; i < p->plan.layers.size(); ++i) {
    const PlannedLayer& l = p->plan.layers[i];
    site.layer = &l.layer->name;
    if (l.params.floats > 0) {
      kernels::fill_uniform(p->at(l.params), l.params.floats, 0.05f, static_cast<unsigned>(i + 1),
                            ctx_->stream);
      check(cudaGetLastError(), "fill_uniform", site);
    }
    if (l.layer->kind != OpKind::conv) continue;
    const models::Layer& in_layer =
        p->workload->layers().layer(static_cast<models::LayerId>(l.inputs.front()));
    const ImageDims x = image_dims(in_layer.out);
    const ImageDims y = image_dims(l.layer->out);
    const models::LayerGeometry& geo = l.layer->geometry;
    auto c = std::make_unique<ConvState>();
    check(cudnnCreateTensorDescriptor(&c->x), "cudnnCreateTensorDescriptor", site);
    check(cudnnCreateTensorDescriptor(&c->y), "cudnnCreateTensorDescriptor", site);
    check(cudnnCreateFilterDescriptor(&c->w), "cudnnCreateFilterDescriptor", site);
    check(cudnnCreateConvolutionDescriptor(&c->conv), "cudnnCreateConvolutionDescriptor", site);
    check(cudnnSetTensor4dDescriptor(c->x, CUDNN_TENSOR_NCHW, f32, b, static_cast<int>(x.c),
                                     static_cast<int>(x.h), static_cast<int>(x.w)),
          "cudnnSetTensor4dDescriptor(x)", site);
    check(cudnnSetTensor4dDescriptor(c->y, CUDNN_TENSOR_NCHW, f32, b, static_cast<int>(y.c),
                                     static_cast<int>(y.h), static_cast<int>(y.w)),
          "cudnnSetTensor4dDescriptor(y)", site);
    check(cudnnSetFilter4dDescriptor(c->w, f32, CUDNN_TENSOR_NCHW, static_cast<int>(y.c),
                                     static_cast<int>(x.c / geo.groups),
                                     static_cast<int>(geo.kernel), static_cast<int>(geo.kernel)),
          "cudnnSetFilter4dDescriptor", site);
    check(cudnnSetConvolution2dDescriptor(
              c->conv, static_cast<int>(geo.padding), static_cast<int>(geo.padding),
              static_cast<int>(geo.stride), static_cast<int>(geo.stride), 1, 1,
              CUDNN_CROSS_CORRELATION, f32),
          "cudnnSetConvolution2dDescriptor", site);
    check(cudnnSetConvolutionGroupCount(c->conv, static_cast<int>(geo.groups)),
          "cudnnSetConvolutionGroupCount", site);
    // As PyTorch without cudnn.benchmark: the first algorithm of cuDNN's heuristics whose
    // workspace fits.
    constexpr int kAlgos = 16;
    int found = 0;
    const std::size_t limit = options_.workspace_limit_bytes;
    {
      cudnnConvolutionFwdAlgoPerf_t perf[kAlgos];
      check(cudnnGetConvolutionForwardAlgorithm_v7(ctx_->cudnn, c->x, c->w, c->conv, c->y, kAlgos,
                                                   &found, perf),
            "cudnnGetConvolutionForwardAlgorithm_v7", site);
      choose_algorithm(perf, found, limit, &c->fwd, &c->workspace, site, "forward");
    }
    if (item.phase == models::Phase::training) {
      cudnnConvolutionBwdDataAlgoPerf_t perf[kAlgos];
      check(cudnnGetConvolutionBackwardDataAlgorithm_v7(ctx_->cudnn, c->w, c->y, c->conv, c->x,
                                                        kAlgos, &found, perf),
            "cudnnGetConvolutionBackwardDataAlgorithm_v7", site);
      choose_algorithm(perf, found, limit, &c->bwd_data, &c->workspace, site, "backward-data");
      cudnnConvolutionBwdFilterAlgoPerf_t fperf[kAlgos];
      check(cudnnGetConvolutionBackwardFilterAlgorithm_v7(ctx_->cudnn, c->x, c->y, c->conv, c->w,
                                                          kAlgos, &found, fperf),
            "cudnnGetConvolutionBackwardFilterAlgorithm_v7", site);
      choose_algorithm(fperf, found, limit, &c->bwd_filter, &c->workspace, site, "backward-filter");
    }
    p->workspace_bytes = std::max(p->workspace_bytes, c->workspace);
    p->convs[i] = std::move(c);
  }
  site.layer = nullptr;
  allocate(&p->workspace, p->workspace_bytes, "cudaMalloc(cudnn workspace)");
  // The input minibatch, random, in pinned host memory: copied to the GPU at every item.
  const std::size_t input_bytes =
      static_cast<std::size_t>(p->plan.layers.front().output.floats) * sizeof(float);
  check(cudaMallocHost(reinterpret_cast<void**>(&p->host_input), input_bytes), "cudaMallocHost",
        site);
  for (std::size_t k = 0; k < input_bytes / sizeof(float); ++k) {
    p->host_input[k] = static_cast<float>((k * 2654435761u) % 1000u) / 1000.f;
  }
  if (options_.layer_timing) {
    p->layer_events.resize(4 * p->plan.layers.size());
    for (cudaEvent_t& e : p->layer_events) check(cudaEventCreate(&e), "cudaEventCreate", site);
  }
  check(cudaStreamSynchronize(ctx_->stream), "cudaStreamSynchronize(prepare)", site);
  auto [it, inserted] = prepared_.emplace(key, std::move(p));
  (void)inserted;
  return *it->second;
}

void CudaBackend::enqueue(Prepared& p) {
  const ExecutionPlan& plan = p.plan;
  const bool training = plan.phase == models::Phase::training;
  cudaStream_t s = ctx_->stream;
  Site site{&plan.workload, models::to_string(plan.phase), plan.batch_size, nullptr};
  int launches = 0;
  const bool timing = options_.layer_timing && p.graph == nullptr && !p.layer_events.empty();
  const auto mark = [&](std::size_t slot) {
    if (timing) check(cudaEventRecord(p.layer_events[slot], s), "cudaEventRecord", site);
  };
  const std::size_t n_layers = plan.layers.size();
  ops::Launch k{plan, p, 0, s, ctx_->cublas, ctx_->cudnn, site, launches};

  // ---- forward: each layer's operator (backends/cuda/ops/) ----
  for (std::size_t i = 0; i < n_layers; ++i) {
    const PlannedLayer& l = plan.layers[i];
    if (l.is_view) continue;
    site.layer = &l.layer->name;
    mark(2 * i);
    k.index = i;
    ops::op(l.layer->kind).forward(k);
    mark(2 * i + 1);
  }
  site.layer = nullptr;

  if (training) {
    // ---- loss and backward ----
    const auto memset_arena = [&](Arena a, const char* what) {
      const std::size_t bytes = static_cast<std::size_t>(plan.floats(a)) * sizeof(float);
      if (bytes > 0) check(cudaMemsetAsync(p.arena[static_cast<int>(a)], 0, bytes, s), what, site);
      ++launches;
    };
    memset_arena(Arena::gradients, "cudaMemsetAsync(gradients)");
    memset_arena(Arena::parameter_gradients, "cudaMemsetAsync(parameter gradients)");
    for (const PlannedLayer& l : plan.layers) {
      if (!l.is_output) continue;
      site.layer = &l.layer->name;
      kernels::mse_loss_grad(p.at(l.gradient), p.at(l.output), l.output.floats, s);
      k.launched("mse_loss_grad");
    }
    for (std::size_t i = n_layers; i-- > 0;) {
      const PlannedLayer& l = plan.layers[i];
      if (l.is_view || l.layer->kind == OpKind::input) continue;
      site.layer = &l.layer->name;
      mark(2 * n_layers + 2 * i);
      k.index = i;
      ops::op(l.layer->kind).backward(k);
      // The optimizer update of this layer's parameters (PyTorch's per-tensor loop).
      i64 offset = 0;
      for (i64 size : l.param_tensors) {
        kernels::sgd_momentum(p.at(l.params) + offset, p.momentum(l.params) + offset,
                              p.param_grad(l.params) + offset, size, 0.01f, 0.9f, s);
        k.launched("sgd_momentum");
        offset += size;
      }
      mark(2 * n_layers + 2 * i + 1);
    }
  }
  p.launches = launches;
}

CudaBackend::RunTimes CudaBackend::run_once(Prepared& p) {
  const Site site{&p.plan.workload, models::to_string(p.plan.phase), p.plan.batch_size, nullptr};
  cudaStream_t s = ctx_->stream;
  // Meter the item until its average power rests on options_.metered_seconds of windows; after
  // that the meter's own calls (NVML takes milliseconds per call) would cost more host time
  // between items than they add knowledge.
  const bool metered = p.metered_s < options_.metered_seconds;
  if (metered) meter_->start();
  const auto wall_start = std::chrono::steady_clock::now();
  check(cudaEventRecord(ctx_->start, s), "cudaEventRecord", site);
  if (p.graph != nullptr) {
    check(cudaGraphLaunch(p.graph, s), "cudaGraphLaunch", site);
  } else {
    enqueue(p);
  }
  check(cudaEventRecord(ctx_->stop, s), "cudaEventRecord", site);
  check(cudaEventSynchronize(ctx_->stop), "cudaEventSynchronize", site);
  const auto wall_end = std::chrono::steady_clock::now();
  RunTimes t;
  check(cudaEventElapsedTime(&t.gpu_ms, ctx_->start, ctx_->stop), "cudaEventElapsedTime", site);
  t.wall = std::chrono::duration_cast<std::chrono::nanoseconds>(wall_end - wall_start);
  if (!metered) return t;
  const EnergyReading reading = meter_->stop();
  // Accumulate the meter's window: the meter's energy (0 where a coarse counter did not tick in
  // it) and, as a stand-in until the counter has ticked at all, the sampled power.
  p.metered_j += reading.module_energy_j;
  p.metered_s += reading.duration_s;
  p.metered_rail_j.resize(reading.rail_energy_j.size(), 0);
  for (std::size_t r = 0; r < reading.rail_energy_j.size(); ++r) {
    p.metered_rail_j[r] += reading.rail_energy_j[r];
  }
  if (!reading.series.module_power_w.empty()) {
    double sum = 0;
    for (double w : reading.series.module_power_w) sum += w;
    p.sampled_j +=
        sum / static_cast<double>(reading.series.module_power_w.size()) * reading.duration_s;
  }
  return t;
}

const Completion& CudaBackend::execute(const WorkItem& item) {
  if (item.workload == nullptr) throw Error("cuda backend: a work item without a workload");
  if (item.batch_size < 1) {
    throw InputError("cuda backend: workload '" + item.workload->name() +
                     "': batch size must be >= 1, got " + std::to_string(item.batch_size));
  }
  const Current current(*this);
  Prepared& p = prepared(item);
  const Site site{&p.plan.workload, models::to_string(item.phase), item.batch_size, nullptr};
  cudaStream_t s = ctx_->stream;
  if (options_.cuda_graphs && p.graph == nullptr) {
    cudaGraph_t graph = nullptr;
    check(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal), "cudaStreamBeginCapture",
          site);
    try {
      enqueue(p);
    } catch (...) {
      cudaStreamEndCapture(s, &graph);
      if (graph != nullptr) cudaGraphDestroy(graph);
      throw;
    }
    check(cudaStreamEndCapture(s, &graph), "cudaStreamEndCapture", site);
    const cudaError_t e = cudaGraphInstantiate(&p.graph, graph, 0);
    cudaGraphDestroy(graph);
    check(e, "cudaGraphInstantiate", site);
  }
  // Warm-up, untimed: the first runs load kernels lazily and let the clocks and the power rise.
  // At least kWarmupRuns runs, and the item's whole metered time (Options::metered_seconds):
  // the meter's calls (NVML's take milliseconds) then all fall in the warm-up, which a run on a
  // device does before its clock starts (Runtime::warm_up), and none between its timed items.
  constexpr int kWarmupRuns = 3;
  if (!p.warmed) {
    for (int k = 0;
         k < kWarmupRuns || (meter_->measures() && p.metered_s < options_.metered_seconds); ++k) {
      run_once(p);
    }
    p.warmed = true;
  }
  const RunTimes times = run_once(p);
  float ms = times.gpu_ms;
  last_gpu_ms_ = ms;
  last_launches_ = p.launches;

  layer_times_.clear();
  if (options_.layer_timing && p.graph == nullptr && !p.layer_events.empty()) {
    const std::size_t n = p.plan.layers.size();
    for (std::size_t i = 0; i < n; ++i) {
      const PlannedLayer& l = p.plan.layers[i];
      if (l.is_view) continue;
      LayerTime t;
      t.layer = l.layer->name;
      check(cudaEventElapsedTime(&ms, p.layer_events[2 * i], p.layer_events[2 * i + 1]),
            "cudaEventElapsedTime(layer)", site);
      t.forward_ms = ms;
      if (p.plan.phase == models::Phase::training && l.layer->kind != OpKind::input) {
        float b = 0;
        check(cudaEventElapsedTime(&b, p.layer_events[2 * n + 2 * i],
                                   p.layer_events[2 * n + 2 * i + 1]),
              "cudaEventElapsedTime(layer)", site);
        t.backward_ms = b;
      }
      layer_times_.push_back(std::move(t));
    }
  }

  // The item's duration is the wall time from its first launch to its completion: the GPU time
  // plus whatever the host's launches leave the GPU waiting, which is part of what a minibatch
  // costs (and what the engine's wall-clock mode must see, so that virtual and real time agree).
  const double seconds = static_cast<double>(times.wall.count()) * 1e-9;
  completion_ = {};
  completion_.duration = std::max(std::chrono::nanoseconds(1), times.wall);
  // Energy: the item's average power over all its metered windows so far, times its duration.
  // NVML's energy counter ticks more slowly than a short minibatch takes; averaging over the
  // item's metered history (its warm-up, Options::metered_seconds) makes each figure unbiased
  // instead of 0 or a whole tick.
  const bool ticked = p.metered_j > 0;
  const double power_w = p.metered_s > 0 ? (ticked ? p.metered_j : p.sampled_j) / p.metered_s : 0;
  const double item_j = power_w * seconds;
  EnergyReading scaled;
  scaled.duration_s = seconds;
  scaled.module_energy_j = item_j;
  for (std::size_t r = 0; r < p.metered_rail_j.size(); ++r) {
    scaled.rail_energy_j.push_back(ticked ? p.metered_rail_j[r] / p.metered_j * item_j
                                          : (r == 0 ? item_j : 0));
  }
  completion_.rail_energy_j = device_rail_energy_j(scaled, meter_->rail_names(), device_.rails);
  completion_.module_energy_j = item_j;
  completion_.provenance = models::Provenance::measured;
  return completion_;
}

models::RailPower CudaBackend::idle_power(const models::PowerMode& /*mode*/) {
  // The clocks of this GPU are never changed, so one reading serves every mode. Metered once the
  // power has settled after whatever ran before (settled_idle.hpp): a GPU's power decays for
  // seconds after a load, and a window right after it would charge every idle gap of a run at
  // near-load power.
  if (!idle_) {
    const Current current(*this);
    const Site site;
    check(cudaStreamSynchronize(ctx_->stream), "cudaStreamSynchronize", site);
    const SettledIdle settled = measure_settled_idle(*meter_);
    const EnergyReading& r = settled.last;
    const models::RailValues rails = device_rail_energy_j(r, meter_->rail_names(), device_.rails);
    models::RailPower idle;
    for (std::size_t k = 0; k < device_.rails.size(); ++k) {
      idle.power_w.push_back(r.duration_s > 0 ? rails[k] / r.duration_s : 0);
    }
    idle_ = idle;
    idle_metering_ = settled.metering;
  }
  return *idle_;
}

}  // namespace fulcrum::backends::cuda
