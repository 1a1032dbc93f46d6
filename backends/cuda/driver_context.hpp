// DriverContext: a CUDA context of its own on one GPU, created through the driver API, for a
// CudaBackend opened by open_context() (native sharing: the driver time-slices the GPU between
// contexts as between processes). The driver's entry points are looked up at run time through the
// CUDA runtime (cudaGetDriverEntryPointByVersion), so that the build links no libcuda and needs no
// driver; they are looked up when a context is created, never at static initialisation.
//
// The runtime API, cuDNN and cuBLAS work in whichever context is current on the calling thread, so
// every call on behalf of this context runs inside a Scope:
//
//   DriverContext context(0);   // created, and not left current anywhere
//   {
//     DriverContext::Scope current(context);   // pushed onto this thread's context stack
//     cudaStreamCreate(&stream);               // ... belongs to `context`
//   }                                          // popped: what was current before is again
//
// This header includes no CUDA header (the host tests use it).
#pragma once

#include <memory>

namespace fulcrum::backends::cuda {

class DriverContext {
 public:
  // Creates a context on CUDA device `device` (the runtime's index), with the default scheduling
  // flags, as the runtime's primary context has. Error naming the entry point or call when the
  // driver is missing, too old, or refuses.
  explicit DriverContext(int device);
  // Destroys the context: everything still allocated in it is freed with it. Call it only when no
  // thread has it current (every Scope has ended).
  ~DriverContext();
  DriverContext(const DriverContext&) = delete;
  DriverContext& operator=(const DriverContext&) = delete;

  // Makes the context current on the calling thread for the scope's lifetime (cuCtxPushCurrent),
  // then restores whatever the thread had current before (cuCtxPopCurrent). Error when the push
  // fails. Scopes nest; each belongs to the thread that made it.
  class Scope {
   public:
    explicit Scope(DriverContext& context);
    ~Scope();
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;

   private:
    DriverContext& context_;
  };

 private:
  struct Api;  // the driver entry points (driver_context.cpp)
  std::unique_ptr<Api> api_;
  void* context_ = nullptr;  // CUcontext
};

}  // namespace fulcrum::backends::cuda
