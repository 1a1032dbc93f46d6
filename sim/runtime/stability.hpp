// Stability of an inference stream: whether service kept up with arrivals over a run, and, when
// it did not, one sentence saying why (docs/METRICS.md, "stable"). A stream is unstable when its
// backlog hit the memory cap, grew clearly over the second half of the run, or -- under a steady
// rate -- a full batch takes at least as long alone as it takes to fill (it can never catch up,
// however slowly its backlog grows within one run), or when requests arrived but no batch was
// ever dispatched (too few to fill one, and no max_wait_ms to send a partial one), or when the
// run ends with more requests still queued than it completed, beyond the same noise floor as
// growth (a burst that service never caught up with, whatever the backlog did over the run).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "sim/engine/time.hpp"

namespace fulcrum::sim {

struct StreamBacklog {
  std::size_t batch_size = 1;
  double rate_per_s = 0;                // the arrival process's nominal rate
  bool steady_rate = false;             // fixed or Poisson arrivals
  std::optional<Time> full_batch_time;  // a full batch alone on the GPU, when predictable
  std::size_t backlog_mid = 0;          // requests not completed at half the run
  std::size_t backlog_end = 0;          // ... and at the end
  std::size_t cap = 0;                  // backlog at which arrivals are dropped
  std::optional<Time> overflow_at;      // when the backlog first hit the cap
  std::uint64_t dropped = 0;
  std::uint64_t arrived = 0;
  std::uint64_t batches_dispatched = 0;
  bool dispatches_partial = false;  // max_wait_ms is set
  double duration_s = 0;            // of the run
};

bool is_stable(const StreamBacklog& s);

// Why an unstable stream fell behind. `starvation` is the sharing policy's own explanation, if
// it has one (GpuSharingPolicy::starvation_reason); `policy` the policy's name.
std::string instability_reason(const StreamBacklog& s, const std::optional<std::string>& starvation,
                               const std::string& policy);

}  // namespace fulcrum::sim
