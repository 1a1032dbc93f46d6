#include "sim/app/available.hpp"

#include <filesystem>

#include "backends/backend_factory.hpp"
#include "sim/config/device_catalog_loader.hpp"

namespace fulcrum::sim::app {

std::string backends_text() { return backends::available_backends_text(); }

void require_backend(std::string_view name) { backends::require_available(name); }

bool takes_cuda_options(std::string_view name) { return backends::takes_cuda_options(name); }

models::DeviceCatalog devices_from(const std::string& data_dir) {
  return load_device_catalog((std::filesystem::path(data_dir) / "devices").string());
}

}  // namespace fulcrum::sim::app
