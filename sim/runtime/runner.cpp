#include "sim/runtime/runner.hpp"

#include <algorithm>
#include <optional>
#include <utility>

#include "sim/runtime/budgets.hpp"
#include "sim/runtime/data_pipeline.hpp"
#include "sim/runtime/runtime.hpp"
#include "sim/runtime/training_job.hpp"

namespace fulcrum::sim {

RunResult run(const RunSetup& setup, backends::Backend& backend, RunObserver* observer,
              ProgressFn progress, const GpuSharingPolicyFactory& policy) {
  std::unique_ptr<DataPipeline> pipeline;
  if (setup.scenario != nullptr && setup.scenario->training) {
    pipeline = make_data_pipeline(setup);
  } else {
    pipeline = std::make_unique<ComputeOnlyPipeline>();  // no training job asks it anything
  }
  Runtime runtime(setup, backend, observer, *pipeline, policy);
  runtime.set_progress(std::move(progress));
  RunResult result = runtime.run();
  result.budgets = judge_budgets(result, setup.scenario->budgets);
  return result;
}

std::vector<ContextItem> distinct_items(const RunSetup& setup) {
  std::vector<ContextItem> items;
  if (setup.scenario == nullptr) return items;
  const Scenario& sc = *setup.scenario;
  int context = 0;
  if (sc.training && setup.training_workload != nullptr) {
    const int batch = sc.training->batch_size;
    items.push_back(
        {context, {setup.training_workload, models::Phase::training, batch, setup.mode}});
    const std::optional<std::size_t> last = last_minibatch_size(
        setup.training_dataset_samples, static_cast<std::size_t>(std::max(batch, 1)));
    if (last && static_cast<int>(*last) != batch) {
      items.push_back({context,
                       {setup.training_workload, models::Phase::training, static_cast<int>(*last),
                        setup.mode}});
    }
    ++context;
  }
  for (std::size_t i = 0; i < sc.inference.size() && i < setup.inference_workloads.size(); ++i) {
    const InferenceStreamSpec& s = sc.inference[i];
    const models::Workload* w = setup.inference_workloads[i];
    items.push_back({context, {w, models::Phase::inference, s.batch_size, setup.mode}});
    if (s.max_wait_ms) {
      for (int b = s.batch_size - 1; b >= 1; --b) {
        items.push_back({context, {w, models::Phase::inference, b, setup.mode}});
      }
    }
    ++context;
  }
  return items;
}

}  // namespace fulcrum::sim
