#include "sim/runtime/runner.hpp"

#include <utility>

#include "sim/runtime/data_pipeline.hpp"
#include "sim/runtime/runtime.hpp"

namespace fulcrum::sim {

RunResult run(const RunSetup& setup, backends::Backend& backend, RunObserver* observer,
              ProgressFn progress) {
  ComputeOnlyPipeline pipeline;
  Runtime runtime(setup, backend, observer, pipeline);
  runtime.set_progress(std::move(progress));
  return runtime.run();
}

}  // namespace fulcrum::sim
