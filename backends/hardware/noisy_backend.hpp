// NoisyBackend: wraps another backend and perturbs each minibatch's duration by a seeded
// log-normal factor (energies scale with it, so power is unchanged), optionally taking the
// perturbed duration in real time. It stands in for a device's run-to-run variation where no
// device is at hand: `fulcrum validate --backend sim --noise 0.05` compares a simulation with such
// a "measured" run. Same seed -> same sequence of durations.
//
//   NoisyBackend device(std::move(sim_backend), {.sigma = 0.05, .seed = 7, .real_time = true});
#pragma once

#include <cstdint>
#include <memory>
#include <random>

#include "backends/backend.hpp"
#include "backends/time_slicer.hpp"

namespace fulcrum::backends {

class NoisyBackend final : public Backend {
 public:
  struct Options {
    // In [0, kMaxSigma]: standard deviation of the log of the factor (0.05 ~ 5%).
    double sigma = 0;
    std::uint64_t seed = 1;
    bool real_time = false;  // execute() sleeps for the perturbed duration
    // Real time: how open_context()'s contexts share the emulated GPU (time_slicer.hpp).
    TimeSlicer::Options slicing{};
  };

  // The largest sigma: a factor of e^1 per standard deviation, already a device whose minibatch
  // times vary by a factor of 7 either way between the 2.5th and 97.5th percentile.
  static constexpr double kMaxSigma = 1.0;
  // The factor is kept within e^(+-kMaxDeviations sigma), so that no draw, however rare, turns a
  // minibatch into hours (or its energy into infinity).
  static constexpr double kMaxDeviations = 6.0;

  // `inner` should not itself run in real time (the sleep is this backend's). InputError (key
  // "--noise") for a sigma outside [0, kMaxSigma].
  NoisyBackend(std::unique_ptr<Backend> inner, Options options);

  const models::DeviceSpec& device() const override { return inner_->device(); }
  const Completion& execute(const WorkItem& item) override;
  models::RailPower idle_power(const models::PowerMode& mode) override {
    return inner_->idle_power(mode);
  }
  bool runs_in_real_time() const override { return options_.real_time; }
  void limit_real_time(std::shared_ptr<const RealTimeLimit> limit) override {
    seat_.limit(std::move(limit));
  }
  // A context over the inner backend's own open_context() (nullptr where it has none), with a
  // noise sequence of its own; in real time, sharing this backend's emulated GPU, each completion
  // reporting the time the item took in its context.
  std::unique_ptr<Backend> open_context() override;

 private:
  std::unique_ptr<Backend> inner_;
  Options options_;
  std::mt19937_64 rng_;
  std::normal_distribution<double> normal_{0.0, 1.0};
  Completion last_;
  EmulatedGpuSeat seat_;  // real time: where it takes the items' time
  std::uint64_t contexts_opened_ = 0;
};

}  // namespace fulcrum::backends
