// libFuzzer target: workload-file text -> sim::parse_workload_file (docs/SCENARIOS.md, "The
// workload file"). An error is one printable line. An accepted file keeps the format's promises:
// every output dimension in 1..2^30, finite non-negative work, a minibatch that launches a
// kernel, and write_workload_file of it reads back as the same text (the writer's round trip).
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "models/workload/workload_file.hpp"
#include "sim/config/workload_file_loader.hpp"
#include "tests/fuzz/fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace fulcrum;
  std::optional<sim::WorkloadFile> file;
  if (!fuzz::accepts(
          [&] { file.emplace(sim::parse_workload_file(fuzz::to_text(data, size), "fuzz.yaml")); },
          fuzz::ErrorLines::one_printable)) {
    return 0;
  }
  const models::LayerGraph& g = file->workload.layers();
  for (models::LayerId v = 0; v < g.size(); ++v) {
    for (auto d : g.shape(v).dims) {
      if (d < 1 || d > (std::int64_t{1} << 30)) fuzz::broken("output dimension out of 1..2^30");
    }
  }
  for (models::Phase phase : {models::Phase::inference, models::Phase::training}) {
    const models::PhaseCost c = file->workload.cost(phase, 1);
    if (!(std::isfinite(c.flops) && c.flops >= 0 && std::isfinite(c.bytes) && c.bytes >= 0))
      fuzz::broken("work not finite and non-negative");
    if (!(c.kernels > 0)) fuzz::broken("accepted a minibatch that launches nothing");
  }
  const std::string text = models::write_workload_file(file->workload);
  if (models::write_workload_file(sim::parse_workload_file(text, "rewritten.yaml").workload) !=
      text) {
    fuzz::broken("the written file does not read back as itself");
  }
  return 0;
}
