#include "sim/report/minibatches_csv.hpp"

#include "sim/report/json_writer.hpp"

namespace fulcrum::sim {

MinibatchesCsv::MinibatchesCsv(std::filesystem::path final_path)
    : FileObserver(std::move(final_path)) {
  file_.write(kHeader);
}

void MinibatchesCsv::on_item(const ItemRecord& item) {
  double energy_j = 0;
  for (double e : item.rail_energy_j) energy_j += e;
  std::string& b = file_.buffer();
  append_integer(b, static_cast<std::int64_t>(item.context));
  b.push_back(',');
  b += models::to_string(item.phase);
  b.push_back(',');
  append_integer(b, item.item_id);
  b.push_back(',');
  append_integer(b, static_cast<std::int64_t>(item.batch_size));
  b.push_back(',');
  append_fixed_decimal(b, item.start, 9);
  b.push_back(',');
  append_fixed_decimal(b, item.end, 9);
  b.push_back(',');
  append_fixed_decimal(b, item.end - item.start, 6);
  b.push_back(',');
  append_fixed_decimal(b, item.standalone, 6);
  b.push_back(',');
  append_fixed_decimal(b, item.fetch_stall, 6);
  b.push_back(',');
  append_csv_number(b, energy_j);
  b.push_back('\n');
  file_.maybe_flush();
}

}  // namespace fulcrum::sim
