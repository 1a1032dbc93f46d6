// EpochsCsv: epochs.csv, one row per completed epoch of the training job, written as each epoch
// completes (summary.json keeps only a digest of the epoch times). Columns (docs/METRICS.md):
// epoch,end_s,time_s,minibatches,samples,fetch_stall_s,cache_hit_ratio,storage_bytes,
// cache_bytes -- times are exact decimals of the integer-nanosecond clock; the last three
// are the data pipeline's, empty without a dataloader.
#pragma once

#include <string_view>

#include "sim/report/file_observer.hpp"

namespace fulcrum::sim {

class EpochsCsv final : public FileObserver {
 public:
  static constexpr std::string_view kHeader =
      "epoch,end_s,time_s,minibatches,samples,fetch_stall_s,cache_hit_ratio,storage_bytes,"
      "cache_bytes\n";

  explicit EpochsCsv(std::filesystem::path final_path);
  void on_epoch(const EpochRecord& epoch) override;
};

}  // namespace fulcrum::sim
