#include "sim/report/minibatches_csv.hpp"

#include "sim/report/number_format.hpp"

namespace fulcrum::sim {

MinibatchesCsv::MinibatchesCsv(std::filesystem::path final_path)
    : FileObserver(std::move(final_path)) {
  file_.write(kHeader);
}

void MinibatchesCsv::on_item(const ItemRecord& item) {
  const double energy_j = item.rail_energy_j.sum();
  char* p = file_.reserve(std::size_t{14} * kMaxNumberChars);
  p = put_integer(p, static_cast<std::int64_t>(item.context));
  *p++ = ',';
  for (const char* k = models::to_string(item.phase); *k != '\0'; ++k) *p++ = *k;
  *p++ = ',';
  p = put_integer(p, item.item_id);
  *p++ = ',';
  p = put_integer(p, static_cast<std::int64_t>(item.batch_size));
  *p++ = ',';
  p = put_fixed_decimal(p, item.start, 9);
  *p++ = ',';
  p = put_fixed_decimal(p, item.end, 9);
  *p++ = ',';
  p = put_fixed_decimal(p, item.end - item.start, 6);
  *p++ = ',';
  p = put_fixed_decimal(p, item.standalone, 6);
  *p++ = ',';
  p = put_fixed_decimal(p, item.fetch_stall, 6);
  *p++ = ',';
  p = put_double(p, energy_j);
  *p++ = ',';
  for (const char* k = models::to_string(item.provenance); *k != '\0'; ++k) *p++ = *k;
  *p++ = ',';
  p = put_fixed_decimal(p, item.data.fetch, 6);
  *p++ = ',';
  p = put_fixed_decimal(p, item.data.preprocess, 6);
  *p++ = ',';
  p = put_integer(p, item.data.cache_hit_samples);
  *p++ = '\n';
  file_.commit(p);
}

}  // namespace fulcrum::sim
