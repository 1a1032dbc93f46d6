// What the search tests share: the Orin AGX device from the catalog and the measured ground
// truth, loaded once per test binary (nullptr, with the skip marker printed, when the reference
// is absent).
#pragma once

#include <memory>
#include <string>

#include "models/device/device_catalog.hpp"
#include "sim/config/device_catalog_loader.hpp"
#include "sim/search/ground_truth.hpp"
#include "tests/reference_data.hpp"

namespace fulcrum::sim::search::testing {

inline const models::DeviceSpec& orin() {
  static const models::DeviceCatalog catalog =
      load_device_catalog(std::string(FULCRUM_DATA_DIR) + "/devices");
  return catalog.get("orin-agx-64gb");
}

// The measured table, or nullptr (skip) without the reference.
inline const TableGroundTruth* table_truth() {
  static const std::unique_ptr<TableGroundTruth> truth = []() -> std::unique_ptr<TableGroundTruth> {
    const std::optional<std::string> dir = fulcrum::testing::reference_path("measurements");
    if (!dir) return nullptr;
    return TableGroundTruth::load(*dir, orin());
  }();
  if (!truth) fulcrum::testing::reference_path("measurements");  // prints the skip marker
  return truth.get();
}

}  // namespace fulcrum::sim::search::testing
