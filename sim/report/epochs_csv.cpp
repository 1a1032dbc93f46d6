#include "sim/report/epochs_csv.hpp"

#include "sim/report/number_format.hpp"

namespace fulcrum::sim {

EpochsCsv::EpochsCsv(std::filesystem::path final_path) : FileObserver(std::move(final_path)) {
  file_.write(kHeader);
}

void EpochsCsv::on_epoch(const EpochRecord& e) {
  char* p = file_.reserve(std::size_t{9} * (kMaxNumberChars + 1));
  p = put_integer(p, e.epoch);
  *p++ = ',';
  p = put_fixed_decimal(p, e.end, 9);
  *p++ = ',';
  p = put_fixed_decimal(p, e.time, 9);
  *p++ = ',';
  p = put_integer(p, e.minibatches);
  *p++ = ',';
  p = put_integer(p, e.samples);
  *p++ = ',';
  p = put_fixed_decimal(p, e.fetch_stall, 9);
  *p++ = ',';
  if (e.data) {
    p = put_double(p, e.data->cache_hit_ratio());
    *p++ = ',';
    p = put_double(p, e.data->bytes_from_storage);
    *p++ = ',';
    p = put_double(p, e.data->bytes_from_cache);
  } else {
    *p++ = ',';
    *p++ = ',';
  }
  *p++ = '\n';
  file_.commit(p);
}

}  // namespace fulcrum::sim
