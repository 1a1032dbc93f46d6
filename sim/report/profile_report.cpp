#include "sim/report/profile_report.hpp"

#include <cstdint>

#include "sim/report/json_writer.hpp"

namespace fulcrum::sim {

std::string profile_json(const ProfileReport& report) {
  JsonWriter j;
  j.begin_object();
  j.key("rows").value(static_cast<std::uint64_t>(report.rows));
  j.key("profile_csv").value(report.out_csv.string());
  j.key("layers_csv");
  if (report.layers_csv) {
    j.value(report.layers_csv->string());
  } else {
    j.null();
  }
  j.end_object();
  return j.take();
}

}  // namespace fulcrum::sim
