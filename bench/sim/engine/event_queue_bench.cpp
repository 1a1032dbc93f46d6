// Engine throughput on the classic hold model: N events pending; each event, when run, schedules
// one new event an exponentially distributed delay later, so the queue size stays N.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <vector>

#include "models/random/rng_streams.hpp"
#include "sim/engine/event_queue.hpp"
#include "sim/engine/simulator.hpp"

namespace {

using fulcrum::models::Rng;
using fulcrum::sim::EventQueue;
using fulcrum::sim::Simulator;
using fulcrum::sim::Time;

constexpr double kMeanDelayNs = 1000.0;
constexpr std::int64_t kEventsPerIteration = 1000;

// Pre-drawn delays (cycled through a table), so a benchmark can measure the engine alone.
std::vector<Time> exponential_delays(std::size_t n) {
  Rng rng(1);
  std::vector<Time> delays(n);
  for (Time& d : delays) d = static_cast<Time>(rng.exponential(1.0 / kMeanDelayNs));
  return delays;
}

struct HoldState {
  Simulator* sim;
  const std::vector<Time>* delays;
  std::size_t next_delay = 0;
  std::int64_t left_in_batch = 0;
};

// The action: 8 bytes of capture, like a typical `[this]` lambda.
struct HoldEvent {
  HoldState* state;
  void operator()() const {
    HoldState& s = *state;
    const Time delay = (*s.delays)[s.next_delay];
    s.next_delay = (s.next_delay + 1) & (s.delays->size() - 1);
    s.sim->schedule_after(delay, HoldEvent{state});
    if (--s.left_in_batch == 0) s.sim->stop();
  }
};

void BM_Simulator_hold_predrawn(benchmark::State& state) {
  const auto pending = static_cast<std::size_t>(state.range(0));
  const std::vector<Time> delays = exponential_delays(1 << 16);
  Simulator sim;
  HoldState hold{&sim, &delays};
  for (std::size_t i = 0; i < pending; ++i) {
    sim.schedule_after(delays[i], HoldEvent{&hold});
  }
  hold.next_delay = pending & (delays.size() - 1);
  for (auto _ : state) {
    hold.left_in_batch = kEventsPerIteration;
    sim.run();
  }
  if (sim.pending() != pending) state.SkipWithError("queue size drifted");
  state.SetItemsProcessed(state.iterations() * kEventsPerIteration);
}
BENCHMARK(BM_Simulator_hold_predrawn)->Arg(10)->Arg(100)->Arg(10000);

// The hold model as specified: each event draws its successor's exponential delay (xoshiro256**
// plus one log) and schedules it. The _predrawn variant below isolates the engine's share.
void BM_Simulator_hold(benchmark::State& state) {
  const auto pending = static_cast<std::size_t>(state.range(0));
  Simulator sim;
  Rng rng(1);
  std::int64_t left = 0;
  struct Event {
    Simulator* sim;
    Rng* rng;
    std::int64_t* left;
    void operator()() const {
      sim->schedule_after(static_cast<Time>(rng->exponential(1.0 / kMeanDelayNs)), *this);
      if (--*left == 0) sim->stop();
    }
  };
  for (std::size_t i = 0; i < pending; ++i) {
    sim.schedule_after(static_cast<Time>(rng.exponential(1.0 / kMeanDelayNs)),
                       Event{&sim, &rng, &left});
  }
  for (auto _ : state) {
    left = kEventsPerIteration;
    sim.run();
  }
  state.SetItemsProcessed(state.iterations() * kEventsPerIteration);
}
BENCHMARK(BM_Simulator_hold)->Arg(10)->Arg(100)->Arg(10000);

// The bare queue: one push and one pop per item, N pending, no Simulator around it.
void BM_EventQueue_push_pop(benchmark::State& state) {
  const auto pending = static_cast<std::size_t>(state.range(0));
  const std::vector<Time> delays = exponential_delays(1 << 16);
  EventQueue queue;
  std::size_t next = 0;
  for (std::size_t i = 0; i < pending; ++i) queue.push(delays[next++], [] {});
  for (auto _ : state) {
    for (std::int64_t i = 0; i < kEventsPerIteration; ++i) {
      EventQueue::Event e = queue.pop();
      queue.push(e.time + delays[next], [] {});
      next = (next + 1) & (delays.size() - 1);
    }
  }
  state.SetItemsProcessed(state.iterations() * kEventsPerIteration);
}
BENCHMARK(BM_EventQueue_push_pop)->Arg(10)->Arg(100)->Arg(10000);

// Cancellation-heavy load: schedule two, cancel one (like a timeout that usually does not fire).
void BM_Simulator_schedule_cancel(benchmark::State& state) {
  const auto pending = static_cast<std::size_t>(state.range(0));
  const std::vector<Time> delays = exponential_delays(1 << 16);
  Simulator sim;
  HoldState hold{&sim, &delays};
  for (std::size_t i = 0; i < pending; ++i) sim.schedule_after(delays[i], HoldEvent{&hold});
  for (auto _ : state) {
    for (std::int64_t i = 0; i < kEventsPerIteration; ++i) {
      const auto timeout = sim.schedule_after(100 * kMeanDelayNs, [] {});
      sim.cancel(timeout);
    }
    hold.left_in_batch = kEventsPerIteration;
    sim.run();
  }
  state.SetItemsProcessed(state.iterations() * kEventsPerIteration);
}
BENCHMARK(BM_Simulator_schedule_cancel)->Arg(10)->Arg(10000);

}  // namespace
