#include "sim/runtime/runner.hpp"

#include "sim/runtime/data_pipeline.hpp"
#include "sim/runtime/runtime.hpp"

namespace fulcrum::sim {

RunResult run(const RunSetup& setup, backends::Backend& backend, RunObserver* observer) {
  ComputeOnlyPipeline pipeline;
  Runtime runtime(setup, backend, observer, pipeline);
  return runtime.run();
}

}  // namespace fulcrum::sim
