#include "models/workload/dataset_catalog.hpp"

#include <algorithm>
#include <catch2/catch.hpp>
#include <string>

#include "models/error.hpp"

using namespace fulcrum;
using namespace fulcrum::models;

TEST_CASE("datasets carry the reference sheet's sample counts and sizes", "[dataset]") {
  // reference/workloads.yaml
  CHECK(dataset("mnist").samples == 60000);
  CHECK(dataset("mnist").bytes == 46e6);
  CHECK(dataset("cifar10").samples == 50000);
  CHECK(dataset("gld23k").samples == 23080);
  CHECK(dataset("gld23k").bytes == 2.8e9);
  CHECK(dataset("imagenet-val").samples == 50000);
  CHECK(dataset("coco-minitrain").samples == 25000);
  CHECK(dataset("squad").samples == 87599);
  CHECK_FALSE(dataset("squad").bytes.has_value());
  // ImageNet-1k training split (ILSVRC-2012).
  CHECK(dataset("imagenet").samples == 1281167);
  CHECK(dataset("wikitext").samples > 0);
}

TEST_CASE("image datasets carry their published mean image size", "[dataset]") {
  // GLD-23k: the reference sheet's 800x600; ImageNet: 469x387 on average (ILSVRC pages).
  CHECK(dataset("gld23k").image_pixels == 480000);
  CHECK(dataset("imagenet").image_pixels == 181503);
  CHECK(dataset("imagenet-val").image_pixels == 181503);
  CHECK_FALSE(dataset("squad").image_pixels.has_value());
  CHECK_FALSE(dataset("wikitext").image_pixels.has_value());
}

TEST_CASE("every dataset has a name, samples and a note", "[dataset]") {
  const auto names = dataset_names();
  CHECK(names.size() == 8);
  CHECK(std::is_sorted(names.begin(), names.end()));
  for (const auto& n : names) {
    INFO(n);
    CHECK(dataset(n).name == n);
    CHECK(dataset(n).samples > 0);
    CHECK_FALSE(dataset(n).note.empty());
    if (dataset(n).bytes) CHECK(*dataset(n).bytes > 0);
  }
}

TEST_CASE("an unknown dataset is an input error naming the known ones", "[dataset]") {
  try {
    dataset("imagenet-21k");
    FAIL("no exception");
  } catch (const InputError& e) {
    const std::string what = e.what();
    CHECK(what.find("unknown dataset 'imagenet-21k'") != std::string::npos);
    CHECK(what.find("gld23k") != std::string::npos);
  }
}
