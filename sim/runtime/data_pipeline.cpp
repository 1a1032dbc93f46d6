#include "sim/runtime/data_pipeline.hpp"

namespace fulcrum::sim {

std::unique_ptr<DataPipeline> make_data_pipeline(const TrainingSpec& training) {
  switch (training.data_pipeline) {
    case DataPipelineKind::none:
      return std::make_unique<ComputeOnlyPipeline>();
  }
  return std::make_unique<ComputeOnlyPipeline>();
}

}  // namespace fulcrum::sim
