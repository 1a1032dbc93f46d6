// RequestsCsv: requests.csv, one row per completed inference request, in completion order.
// Columns (docs/METRICS.md): stream,request_id,batch_id,arrival_s,dispatch_s,start_s,
// completion_s,latency_ms -- times are exact decimals of the integer-nanosecond clock.
#pragma once

#include <string_view>

#include "sim/report/file_observer.hpp"

namespace fulcrum::sim {

class RequestsCsv final : public FileObserver {
 public:
  static constexpr std::string_view kHeader =
      "stream,request_id,batch_id,arrival_s,dispatch_s,start_s,completion_s,latency_ms\n";

  explicit RequestsCsv(std::filesystem::path final_path);
  void on_request(const RequestRecord& r) override;
};

}  // namespace fulcrum::sim
