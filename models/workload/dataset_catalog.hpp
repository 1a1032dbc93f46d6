// Datasets a training job can iterate over: how many samples an epoch has and how many bytes sit
// on storage (what the data-pipeline model needs to size fetches and the page cache).
//
//   const DatasetSpec& d = dataset("gld23k");   // InputError if unknown
//   double epoch_minibatches = d.samples / batch_size;
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fulcrum::models {

struct DatasetSpec {
  std::string name;
  double samples = 0;           // samples in one epoch (training split unless the name says so)
  std::optional<double> bytes;  // size on storage, when known
  std::string note;
  // Mean stored image size in pixels per sample (image datasets whose size is published): what a
  // decoder has to produce, the CPU work of reading one sample.
  std::optional<double> image_pixels = std::nullopt;
  // A sample is a sequence of token ids (text), not an image.
  bool tokens = false;
};

// Throws InputError "unknown dataset 'x' (known: ...)".
const DatasetSpec& dataset(std::string_view name);
// Sorted.
std::vector<std::string> dataset_names();

}  // namespace fulcrum::models
