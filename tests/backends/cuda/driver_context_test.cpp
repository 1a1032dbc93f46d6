// DriverContext on the host: without a GPU (or without a driver at all) creating a context is an
// Error naming the entry point or driver call that failed, thrown from the constructor, not a
// crash; and this binary, which links the cuda backend, starting at all shows that nothing of it
// reaches for the driver at static initialisation. Where a GPU answers, the GPU tests
// (tests/backends/cuda/gpu/) create contexts for real.
#include "backends/cuda/driver_context.hpp"

#include <catch2/catch.hpp>
#include <iostream>
#include <string>

#include "backends/cuda/cuda_backend.hpp"
#include "models/error.hpp"

using namespace fulcrum;
using namespace fulcrum::backends::cuda;

TEST_CASE("DriverContext without a GPU is an Error naming the failed driver step") {
  if (gpu_count() > 0) {
    std::cout << FULCRUM_SKIP_MARKER << " a GPU answers: the GPU tests open contexts for real\n";
    return;
  }
  try {
    DriverContext context(0);
    FAIL("a CUDA context was created without a GPU");
  } catch (const Error& e) {
    const std::string what = e.what();
    INFO(what);
    CHECK(what.rfind("cuda backend: ", 0) == 0);
    // Either the runtime found no driver to look the entry point up in, or the driver had no
    // device: the message names which step failed.
    bool names_step = what.find("driver entry point") != std::string::npos;
    for (const char* call : {"cuInit", "cuDeviceGet", "cuCtxCreate"}) {
      names_step = names_step || what.find(std::string(call) + " failed") != std::string::npos;
    }
    CHECK(names_step);
  }
  // The failed lookup leaves the runtime answering as before.
  CHECK(gpu_count() == 0);
}
