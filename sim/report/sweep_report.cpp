#include "sim/report/sweep_report.hpp"

#include <optional>

#include "sim/report/json_writer.hpp"

namespace fulcrum::sim {

std::string sweep_json(const sweep::SweepSummary& summary, const std::filesystem::path& csv,
                       std::size_t shard, std::size_t shards) {
  JsonWriter j;
  j.begin_object();
  j.key("sweep").value(summary.name);
  j.key("configurations").value(static_cast<std::uint64_t>(summary.configurations));
  j.key("shard").value(static_cast<std::uint64_t>(shard));
  j.key("shards").value(static_cast<std::uint64_t>(shards));
  j.key("csv").value(csv.string());
  j.key("strategies").begin_array();
  for (const sweep::StrategySummary& s : summary.strategies) {
    j.begin_object();
    j.key("strategy").value(s.strategy);
    j.key("configurations").value(static_cast<std::uint64_t>(s.configurations));
    j.key("feasible").value(static_cast<std::uint64_t>(s.feasible));
    j.key("met").value(static_cast<std::uint64_t>(s.met));
    j.key("met_pct").value(s.feasible > 0
                               ? std::optional<double>(100.0 * static_cast<double>(s.met) /
                                                       static_cast<double>(s.feasible))
                               : std::nullopt);
    j.key("mean_ratio").value(s.mean_ratio);
    j.key("p5_ratio").value(s.p5_ratio);
    j.key("mean_modes").value(s.mean_modes);
    j.key("profiling_hours").value(s.profiling_hours);
    j.key("mode_switches").value(static_cast<std::uint64_t>(s.mode_switches));
    j.end_object();
  }
  j.end_array();
  j.end_object();
  return j.take();
}

}  // namespace fulcrum::sim
