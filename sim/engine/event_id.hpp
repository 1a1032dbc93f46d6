// EventId: names one scheduled event so it can be cancelled. A small value type; the default
// value names no event, and an id stays harmless after its event ran or was cancelled.
#pragma once

#include <cstdint>

namespace fulcrum::sim {

struct EventId {
  // Slot in the low 32 bits, that slot's generation (>= 1) in the high 32 bits.
  std::uint64_t value = 0;

  friend constexpr bool operator==(EventId, EventId) = default;
};

}  // namespace fulcrum::sim
