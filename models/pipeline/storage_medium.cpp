#include "models/pipeline/storage_medium.hpp"

namespace fulcrum::models {

double StorageMedium::read_time_s(double bytes, std::uint64_t requests) const {
  if (requests == 0) return 0;
  return static_cast<double>(requests) * request_latency_ms.value * 1e-3 +
         bytes / (random_read_mb_s.value * 1e6);
}

}  // namespace fulcrum::models
