// libFuzzer target: profile CSV text -> models::parse_profile_csv from an istringstream. An
// accepted table must keep the header's promises: batch_size 0 exactly for idle rows, a time for
// every other row, one rail entry per rail column.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <sstream>

#include "models/perf/profile_csv.hpp"
#include "tests/fuzz/fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace fulcrum;
  std::istringstream in(fuzz::to_text(data, size));
  models::ProfileTable table;
  if (!fuzz::accepts([&] { table = models::parse_profile_csv(in, "fuzz.csv"); })) return 0;
  for (const models::ProfileRow& row : table.rows) {
    const bool idle = row.phase == models::ProfilePhase::idle;
    if (idle != (row.batch_size == 0)) fuzz::broken("batch_size 0 does not match the idle phase");
    if (!idle && !row.time_ms.has_value()) fuzz::broken("non-idle row without time_ms");
    if (row.rail_power_w.size() != table.rail_names.size()) fuzz::broken("rail count mismatch");
    if (!std::isfinite(row.power_w)) fuzz::broken("non-finite power_w");
  }
  return 0;
}
