#include "sim/report/requests_csv.hpp"

#include "sim/report/json_writer.hpp"

namespace fulcrum::sim {

RequestsCsv::RequestsCsv(std::filesystem::path final_path) : FileObserver(std::move(final_path)) {
  file_.write(kHeader);
}

void RequestsCsv::on_request(const RequestRecord& r) {
  std::string& b = file_.buffer();
  append_integer(b, static_cast<std::int64_t>(r.stream));
  b.push_back(',');
  append_integer(b, r.request_id);
  b.push_back(',');
  append_integer(b, r.batch_id);
  b.push_back(',');
  append_fixed_decimal(b, r.arrival, 9);
  b.push_back(',');
  append_fixed_decimal(b, r.dispatch, 9);
  b.push_back(',');
  append_fixed_decimal(b, r.start, 9);
  b.push_back(',');
  append_fixed_decimal(b, r.completion, 9);
  b.push_back(',');
  append_fixed_decimal(b, r.completion - r.arrival, 6);
  b.push_back('\n');
  file_.maybe_flush();
}

}  // namespace fulcrum::sim
