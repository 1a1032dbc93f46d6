// libFuzzer target: arrival-trace CSV text -> parse_arrival_trace. An accepted trace must keep
// the header's promise: at least one row, every time finite, in 0..1e7 and non-decreasing; an
// error is one printable line.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "sim/config/trace_loader.hpp"
#include "tests/fuzz/fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace fulcrum;
  std::vector<double> times;
  if (!fuzz::accepts(
          [&] { times = sim::parse_arrival_trace(fuzz::to_text(data, size), "fuzz.csv"); },
          fuzz::ErrorLines::one_printable)) {
    return 0;
  }
  if (times.empty()) fuzz::broken("empty trace accepted");
  for (std::size_t i = 0; i < times.size(); ++i) {
    if (!(times[i] >= 0 && times[i] <= 1e7)) fuzz::broken("arrival time out of 0..1e7");
    if (i > 0 && times[i] < times[i - 1]) fuzz::broken("arrival times decrease");
  }
  return 0;
}
