#include "sim/runtime/data_pipeline.hpp"

#include "models/error.hpp"
#include "sim/runtime/dataloader_pipeline.hpp"

namespace fulcrum::sim {

std::unique_ptr<DataPipeline> make_data_pipeline(const RunSetup& setup) {
  switch (setup.scenario->training->data_pipeline) {
    case DataPipelineKind::none:
      return std::make_unique<ComputeOnlyPipeline>();
    case DataPipelineKind::dataloader:
      if (setup.pipeline == nullptr) {
        throw Error("run(): training.data_pipeline: dataloader needs the pipeline data");
      }
      return std::make_unique<DataloaderPipeline>(setup, *setup.pipeline);
  }
  return std::make_unique<ComputeOnlyPipeline>();
}

}  // namespace fulcrum::sim
