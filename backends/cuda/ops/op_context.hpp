// What the cuda backend's operators work with: the buffers and cuDNN state of one prepared item
// (PreparedBuffers), the layer an operator launches for (Launch), the checks that turn a failed
// CUDA, cuDNN or cuBLAS call into an Error naming where it was (Site, check), and the operator
// table itself (op_table.hpp). Each operator kind has a forward and a backward function in this
// folder; CudaBackend::enqueue walks the layers and calls them.
//
//   Launch k{plan, buffers, i, stream, cublas, cudnn, site, launches};
//   op(k.op().kind).forward(k);
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cudnn.h>

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>

#include "backends/cuda/execution_plan.hpp"
#include "models/error.hpp"
#include "models/workload/phase_cost.hpp"

namespace fulcrum::backends::cuda::ops {

using i64 = std::int64_t;

// cuBLAS and cuDNN take their scaling factors by address.
inline constexpr float kOne = 1.f;
inline constexpr float kZero = 0.f;

// Where a call was made, for error messages: "workload 'resnet50' training batch 16, layer
// 'layer1.0.conv1'".
struct Site {
  const std::string* workload = nullptr;
  const char* phase = "";
  int batch = 0;
  const std::string* layer = nullptr;
  std::string text() const {
    std::string s = "cuda backend";
    if (workload != nullptr) {
      s += ": workload '" + *workload + "' " + phase + " batch " + std::to_string(batch);
    }
    if (layer != nullptr) s += ", layer '" + *layer + "'";
    return s;
  }
};

// Error naming the site and the call when `e` is a failure.
inline void check(cudaError_t e, const char* call, const Site& site) {
  if (e != cudaSuccess) {
    throw Error(site.text() + ": " + call + " failed: " + cudaGetErrorName(e) + " (" +
                cudaGetErrorString(e) + ")");
  }
}
inline void check(cudnnStatus_t e, const char* call, const Site& site) {
  if (e != CUDNN_STATUS_SUCCESS) {
    throw Error(site.text() + ": " + call + " failed: " + cudnnGetErrorString(e));
  }
}
inline void check(cublasStatus_t e, const char* call, const Site& site) {
  if (e != CUBLAS_STATUS_SUCCESS) {
    throw Error(site.text() + ": " + call + " failed: " + cublasGetStatusString(e));
  }
}

// cuDNN state of one convolution layer.
struct ConvState {
  cudnnTensorDescriptor_t x = nullptr, y = nullptr;
  cudnnFilterDescriptor_t w = nullptr;
  cudnnConvolutionDescriptor_t conv = nullptr;
  cudnnConvolutionFwdAlgo_t fwd{};
  cudnnConvolutionBwdDataAlgo_t bwd_data{};
  cudnnConvolutionBwdFilterAlgo_t bwd_filter{};
  std::size_t workspace = 0;
  ConvState() = default;
  ConvState(const ConvState&) = delete;
  ConvState& operator=(const ConvState&) = delete;
  ~ConvState() {
    if (x != nullptr) cudnnDestroyTensorDescriptor(x);
    if (y != nullptr) cudnnDestroyTensorDescriptor(y);
    if (w != nullptr) cudnnDestroyFilterDescriptor(w);
    if (conv != nullptr) cudnnDestroyConvolutionDescriptor(conv);
  }
};

// The device memory and cuDNN state of one prepared (workload, phase, batch): the six arenas of
// its execution plan, the pinned input, the cuDNN workspace and each convolution's state. The
// cuda backend allocates and frees them (CudaBackend::Prepared); the operators only use them.
struct PreparedBuffers {
  float* arena[kArenas] = {};
  float* host_input = nullptr;  // pinned
  void* workspace = nullptr;
  std::size_t workspace_bytes = 0;
  std::map<std::size_t, std::unique_ptr<ConvState>> convs;  // by plan index

  float* at(const BufferRef& r) const { return arena[static_cast<int>(r.arena)] + r.offset; }
  float* param_grad(const BufferRef& r) const {
    return arena[static_cast<int>(Arena::parameter_gradients)] + r.offset;
  }
  float* momentum(const BufferRef& r) const {
    return arena[static_cast<int>(Arena::momenta)] + r.offset;
  }
};

// One operator's launches for layer `index` of `plan`: what it reads and writes, where it
// launches, and the count of launches it adds to (each kernel, library call and copy).
struct Launch {
  const ExecutionPlan& plan;
  const PreparedBuffers& item;
  std::size_t index = 0;
  cudaStream_t stream = nullptr;
  cublasHandle_t blas = nullptr;
  cudnnHandle_t dnn = nullptr;
  const Site& site;
  int& launches;

  const PlannedLayer& layer() const { return plan.layers[index]; }
  const models::Layer& op() const { return *layer().layer; }
  i64 batch() const { return plan.batch_size; }
  bool training() const { return plan.phase == models::Phase::training; }
  // Input `k` of the layer, and its shape.
  const PlannedLayer& input(std::size_t k = 0) const {
    return plan.layers[static_cast<std::size_t>(layer().inputs[k])];
  }
  const models::Shape& input_shape(std::size_t k = 0) const { return input(k).layer->out; }
  // The layer's output and its gradient, and the first input and its gradient (nullptr for the
  // input layer, which has none).
  float* y() const { return item.at(layer().output); }
  float* dy() const { return item.at(layer().gradient); }
  float* x() const { return layer().inputs.empty() ? nullptr : item.at(input().output); }
  float* dx() const { return layer().inputs.empty() ? nullptr : item.at(input().gradient); }
  i64 out_n() const { return layer().output.floats; }
  float* params() const { return item.at(layer().params); }
  float* param_grad() const { return item.param_grad(layer().params); }

  // A library call or copy was enqueued.
  void called() const { ++launches; }
  // A kernel of ours was launched: counts it and checks its launch.
  void launched(const char* what) const {
    ++launches;
    check(cudaGetLastError(), what, site);
  }
};

}  // namespace fulcrum::backends::cuda::ops
