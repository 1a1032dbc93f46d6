#include "models/workload/dataset_catalog.hpp"

#include <algorithm>
#include <array>

#include "models/error.hpp"

namespace fulcrum::models {

namespace {

// Sample counts and sizes from the project's reference sheet (reference/workloads.yaml), which
// takes them from the datasets' own publications; imagenet and wikitext are added from the
// ILSVRC-2012 and WikiText (Merity et al. 2016) releases. Mean image sizes: gld23k's from the
// reference sheet's note; ImageNet's 469x387 average as the ILSVRC pages give it
// (image-net.org/challenges/LSVRC/2014). Kept sorted by name.
const std::array<DatasetSpec, 8>& datasets() {
  static const std::array<DatasetSpec, 8> table = {{
      {"cifar10", 50000, 150e6, "CIFAR-10 training split, 32x32 RGB"},
      {"coco-minitrain", 25000, 3.9e9, "COCO minitrain subset of train2017"},
      {"gld23k", 23080, 2.8e9,
       "Google Landmarks v2 subset, 203 classes, 800x600 JPEG, ~100 kB each", 800.0 * 600},
      {"imagenet", 1281167, 140e9,
       "ImageNet-1k (ILSVRC-2012) training split, ~140 GB of JPEG, 469x387 pixels on average",
       469.0 * 387},
      {"imagenet-val", 50000, 6.7e9, "ImageNet-1k (ILSVRC-2012) validation split", 469.0 * 387},
      {"mnist", 60000, 46e6, "MNIST training split, 28x28 grey"},
      {"squad", 87599, std::nullopt, "SQuAD v1.1 training question-answer pairs", std::nullopt,
       true},
      {"wikitext", 59675, std::nullopt,
       "WikiText-2 training token stream (2,088,628 tokens) cut into 35-token sequences, the "
       "lstm workload's sample",
       std::nullopt, true},
  }};
  return table;
}

}  // namespace

const DatasetSpec& dataset(std::string_view name) {
  for (const auto& d : datasets())
    if (d.name == name) return d;
  std::string known;
  for (const auto& n : dataset_names()) known += (known.empty() ? "" : ", ") + n;
  throw InputError("unknown dataset '" + std::string(name) + "' (known: " + known + ")");
}

std::vector<std::string> dataset_names() {
  std::vector<std::string> out;
  for (const auto& d : datasets()) out.push_back(d.name);
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace fulcrum::models
