// Reading the data-pipeline model's data: storage media (models/data/storage/<name>.yaml, one
// file per medium, layout at the top of sd-card.yaml) and the dataloader coefficients
// (models/data/pipeline/dataloader.yaml). Errors are InputError "file:line:col: key: problem".
//
//   models::PipelineData d = load_pipeline_data(default_data_dir(), "sd-card");
#pragma once

#include <string>
#include <vector>

#include "models/pipeline/dataloader_model.hpp"
#include "models/pipeline/storage_medium.hpp"
#include "sim/config/yaml_support.hpp"

namespace fulcrum::sim {

models::StorageMedium parse_storage_medium(const YamlNode& root);
models::StorageMedium load_storage_medium(const std::string& path);
models::DataloaderModel parse_dataloader_model(const YamlNode& root);
models::DataloaderModel load_dataloader_model(const std::string& path);

// Names of <data_dir>/storage/*.yaml, sorted.
std::vector<std::string> storage_names(const std::string& data_dir);

// The medium `storage` (a name of storage_names(); InputError "unknown storage 'x' (known:
// ...)" otherwise, without a location: the caller places it at its key) and the dataloader
// coefficients.
models::PipelineData load_pipeline_data(const std::string& data_dir, const std::string& storage);

}  // namespace fulcrum::sim
