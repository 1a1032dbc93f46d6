#include "sim/report/requests_csv.hpp"

#include "sim/report/number_format.hpp"

namespace fulcrum::sim {

RequestsCsv::RequestsCsv(std::filesystem::path final_path) : FileObserver(std::move(final_path)) {
  file_.write(kHeader);
}

void RequestsCsv::on_request(const RequestRecord& r) {
  char* p = file_.reserve(std::size_t{8} * kMaxNumberChars);
  p = put_integer(p, static_cast<std::int64_t>(r.stream));
  *p++ = ',';
  p = put_integer(p, r.request_id);
  *p++ = ',';
  p = put_integer(p, r.batch_id);
  *p++ = ',';
  p = put_fixed_decimal(p, r.arrival, 9);
  *p++ = ',';
  p = put_fixed_decimal(p, r.dispatch, 9);
  *p++ = ',';
  p = put_fixed_decimal(p, r.start, 9);
  *p++ = ',';
  p = put_fixed_decimal(p, r.completion, 9);
  *p++ = ',';
  p = put_fixed_decimal(p, r.completion - r.arrival, 6);
  *p++ = '\n';
  file_.commit(p);
}

}  // namespace fulcrum::sim
