// SimulatedBackend: executes a WorkItem by asking a PerfModel. Deterministic, so it memoises one
// Completion per (workload, phase, batch size, mode): the tens of thousands of minibatches of a
// run cost one model evaluation per distinct item. A repeat of one of the last few distinct items
// (a run alternates between a handful) is found by comparing keys, without hashing.
//
//   SimulatedBackend backend(orin, analytic_model);
//   const Completion& c = backend.execute({&workload, Phase::training, 16, mode});
//
// With Options::real_time, execute() also sleeps for the predicted duration: an emulated device
// for exercising the wall-clock path of the engine without hardware. Its open_context() contexts
// then share one emulated GPU that time-slices them (time_slicer.hpp), and report the
// time each item took in its context.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <unordered_map>

#include "backends/backend.hpp"
#include "backends/time_slicer.hpp"

namespace fulcrum::backends {

class SimulatedBackend final : public Backend {
 public:
  struct Options {
    bool real_time = false;         // execute() sleeps for each item's duration
    TimeSlicer::Options slicing{};  // real time: how open_context()'s contexts share the GPU
  };

  // Both must outlive the backend.
  SimulatedBackend(const models::DeviceSpec& device, const models::PerfModel& model)
      : SimulatedBackend(device, model, Options{}) {}
  SimulatedBackend(const models::DeviceSpec& device, const models::PerfModel& model,
                   Options options);

  const models::DeviceSpec& device() const override { return device_; }
  // Duration = predicted time rounded to integer ns (at least 1 ns); energy per rail =
  // predicted rail power x that duration. InputError for a batch size < 1 or what the model
  // cannot predict (a table model without rows for the workload).
  const Completion& execute(const WorkItem& item) override;
  models::RailPower idle_power(const models::PowerMode& mode) override;
  bool runs_in_real_time() const override { return options_.real_time; }
  void limit_real_time(std::shared_ptr<const RealTimeLimit> limit) override {
    seat_.limit(std::move(limit));
  }
  // A context of its own memo; in real time, sharing this backend's emulated GPU.
  std::unique_ptr<Backend> open_context() override;

  // Distinct items predicted so far (for tests and reports).
  std::size_t cached_items() const { return completions_.size(); }

 private:
  struct ItemKey {
    const models::Workload* workload;
    models::Phase phase;
    int batch_size;
    models::PowerMode mode;
    double host_share = 1.0;
    bool operator==(const ItemKey&) const = default;
  };
  struct ItemKeyHash {
    std::size_t operator()(const ItemKey& k) const;
  };

  Completion predict(const WorkItem& item) const;
  const Completion& lookup(const ItemKey& key, const WorkItem& item);

  // The last few distinct items looked up, most recent first; they point into completions_,
  // whose nodes never move.
  struct Recent {
    ItemKey key;
    const Completion* completion;
  };
  static constexpr std::size_t kRecent = 4;

  const models::DeviceSpec& device_;
  const models::PerfModel& model_;
  Options options_;
  std::unordered_map<ItemKey, Completion, ItemKeyHash> completions_;
  std::array<Recent, kRecent> recent_{};
  std::size_t recent_count_ = 0;
  std::map<models::PowerMode, models::RailPower> idle_;
  // Real time: where it takes the items' time (shared once a context is opened), and the last
  // completion with the time the item took in its context when shared.
  EmulatedGpuSeat seat_;
  Completion shared_last_;
};

// The longest minibatch a backend reports: 1e16 ns, the longest run a scenario may ask for
// (sim/scenario/scenario_limits.hpp), so that a run's times stay far inside int64 nanoseconds.
inline constexpr double kMaxItemNs = 1e16;

// The duration a backend reports for a predicted minibatch time: rounded to integer ns, at least
// 1 ns (a minibatch always takes time: a zero duration would let the engine spin at one instant).
// Error for a time that is negative or not finite; InputError for one beyond kMaxItemNs.
std::chrono::nanoseconds duration_of_prediction(double time_ms, const std::string& model_name,
                                                const std::string& workload_name);

}  // namespace fulcrum::backends
