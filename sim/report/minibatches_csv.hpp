// MinibatchesCsv: minibatches.csv, one row per executed minibatch (training or inference), in
// completion order. Columns (docs/METRICS.md): context,kind,item_id,batch_size,start_s,end_s,
// duration_ms,standalone_ms,fetch_stall_ms,energy_j,provenance,fetch_ms,preprocess_ms,
// cache_hit_samples -- the last three are the data pipeline's (0 for inference rows and for a
// training job without a dataloader).
#pragma once

#include <string_view>

#include "sim/report/file_observer.hpp"

namespace fulcrum::sim {

class MinibatchesCsv final : public FileObserver {
 public:
  static constexpr std::string_view kHeader =
      "context,kind,item_id,batch_size,start_s,end_s,duration_ms,standalone_ms,fetch_stall_ms,"
      "energy_j,provenance,fetch_ms,preprocess_ms,cache_hit_samples\n";

  explicit MinibatchesCsv(std::filesystem::path final_path);
  void on_item(const ItemRecord& item) override;
};

}  // namespace fulcrum::sim
