#include "backends/cuda/driver_context.hpp"

#include <cudaTypedefs.h>
#include <cuda_runtime_api.h>

#include <string>

#include "models/error.hpp"

namespace fulcrum::backends::cuda {

namespace {

// "CUDA 12.5" for the runtime's version number 12050.
std::string cuda_version_text(unsigned version) {
  return std::to_string(version / 1000) + "." + std::to_string(version % 1000 / 10);
}

// The driver's `symbol` in the ABI of CUDA `version`, typed `Fn` (cudaTypedefs.h's PFN_ type of
// that version). Error naming the symbol when the driver is absent or lacks it.
template <typename Fn>
Fn entry_point(const char* symbol, unsigned version) {
  void* fn = nullptr;
  cudaDriverEntryPointQueryResult found = cudaDriverEntryPointSymbolNotFound;
  const cudaError_t e =
      cudaGetDriverEntryPointByVersion(symbol, &fn, version, cudaEnableDefault, &found);
  if (e == cudaSuccess && found == cudaDriverEntryPointSuccess && fn != nullptr) {
    return reinterpret_cast<Fn>(fn);
  }
  cudaGetLastError();  // not an error of the next runtime call
  std::string why;
  if (e != cudaSuccess) {
    why = std::string(cudaGetErrorName(e)) + ": " + cudaGetErrorString(e);
  } else if (found == cudaDriverEntryPointVersionNotSufficent) {
    why = "the driver is older than CUDA " + cuda_version_text(version);
  } else {
    why = "the driver has no such entry point";
  }
  throw Error(std::string("cuda backend: cannot open a CUDA context: driver entry point ") +
              symbol + " (CUDA " + cuda_version_text(version) + ") not found (" + why + ")");
}

}  // namespace

// The entry points in the ABI versions that cudaTypedefs.h of this toolkit names. cuCtxCreate is
// taken in its CUDA 12.5 form (cuCtxCreate_v4, the one cuda.h of CUDA 13 maps cuCtxCreate to),
// whose parameters (execution affinity under MPS, CIG) an ordinary context leaves out. The CUDA 13
// runtime this backend links needs a CUDA 13 driver anyway, which has it.
struct DriverContext::Api {
  PFN_cuGetErrorName_v6000 error_name = nullptr;
  PFN_cuInit_v2000 init = nullptr;
  PFN_cuDeviceGet_v2000 device_get = nullptr;
  PFN_cuCtxCreate_v12050 create = nullptr;
  PFN_cuCtxDestroy_v4000 destroy = nullptr;
  PFN_cuCtxPushCurrent_v4000 push = nullptr;
  PFN_cuCtxPopCurrent_v4000 pop = nullptr;

  // Throws, naming `call` and the driver's name for `r`, unless it is success.
  void check(CUresult r, const char* call) const {
    if (r == CUDA_SUCCESS) return;
    const char* name = nullptr;
    if (error_name == nullptr || error_name(r, &name) != CUDA_SUCCESS || name == nullptr) {
      name = "unknown CUDA driver error";
    }
    throw Error(std::string("cuda backend: ") + call + " failed: " + name + " (" +
                std::to_string(static_cast<int>(r)) + ")");
  }
};

DriverContext::DriverContext(int device) : api_(std::make_unique<Api>()) {
  Api& a = *api_;
  a.error_name = entry_point<PFN_cuGetErrorName_v6000>("cuGetErrorName", 6000);
  a.init = entry_point<PFN_cuInit_v2000>("cuInit", 2000);
  a.device_get = entry_point<PFN_cuDeviceGet_v2000>("cuDeviceGet", 2000);
  a.create = entry_point<PFN_cuCtxCreate_v12050>("cuCtxCreate", 12050);
  a.destroy = entry_point<PFN_cuCtxDestroy_v4000>("cuCtxDestroy", 4000);
  a.push = entry_point<PFN_cuCtxPushCurrent_v4000>("cuCtxPushCurrent", 4000);
  a.pop = entry_point<PFN_cuCtxPopCurrent_v4000>("cuCtxPopCurrent", 4000);
  a.check(a.init(0), "cuInit");  // done already where the runtime has run; cheap then
  CUdevice dev = 0;
  a.check(a.device_get(&dev, device), ("cuDeviceGet(" + std::to_string(device) + ")").c_str());
  // Flags 0: CU_CTX_SCHED_AUTO, as the primary context of a runtime that was given no flags, so
  // that an item waits for the GPU in the same way in either context. No parameters (NULL): an
  // ordinary context. A CUctxCreateParams is for execution affinity or CIG only: cuda.h requires
  // exactly one of its two pointers to be non-NULL, so a zeroed one is no ordinary context but an
  // invalid value.
  CUcontext ctx = nullptr;
  a.check(a.create(&ctx, nullptr, 0, dev), "cuCtxCreate");
  context_ = ctx;
  // cuCtxCreate left the new context current on this thread: give the thread back what it had.
  CUcontext popped = nullptr;
  const CUresult r = a.pop(&popped);
  if (r != CUDA_SUCCESS) {
    a.destroy(ctx);
    a.check(r, "cuCtxPopCurrent");
  }
}

DriverContext::~DriverContext() {
  if (context_ != nullptr) api_->destroy(static_cast<CUcontext>(context_));
}

DriverContext::Scope::Scope(DriverContext& context) : context_(context) {
  context_.api_->check(context_.api_->push(static_cast<CUcontext>(context_.context_)),
                       "cuCtxPushCurrent");
}

DriverContext::Scope::~Scope() {
  // Pops what the constructor pushed: the scope's thread has pushed nothing else since (scopes
  // nest), so this cannot fail but for a corrupted stack, which a destructor cannot report.
  CUcontext popped = nullptr;
  context_.api_->pop(&popped);
}

}  // namespace fulcrum::backends::cuda
