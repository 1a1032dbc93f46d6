#include "sim/runtime/runner.hpp"

#include <utility>

#include "sim/runtime/budgets.hpp"
#include "sim/runtime/data_pipeline.hpp"
#include "sim/runtime/runtime.hpp"

namespace fulcrum::sim {

RunResult run(const RunSetup& setup, backends::Backend& backend, RunObserver* observer,
              ProgressFn progress) {
  std::unique_ptr<DataPipeline> pipeline;
  if (setup.scenario != nullptr && setup.scenario->training) {
    pipeline = make_data_pipeline(setup);
  } else {
    pipeline = std::make_unique<ComputeOnlyPipeline>();  // no training job asks it anything
  }
  Runtime runtime(setup, backend, observer, *pipeline);
  runtime.set_progress(std::move(progress));
  RunResult result = runtime.run();
  result.budgets = judge_budgets(result, setup.scenario->budgets);
  return result;
}

}  // namespace fulcrum::sim
