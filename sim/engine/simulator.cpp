#include "sim/engine/simulator.hpp"

#include <algorithm>
#include <cassert>
#include <condition_variable>
#include <mutex>
#include <utility>
#include <vector>

namespace fulcrum::sim {

bool Simulator::cancel(EventId id) { return queue_.cancel(id); }

void Simulator::run() {
  stop_requested_ = false;
  while (!stop_requested_ && !queue_.empty()) run_next();
  stop_requested_ = false;
}

void Simulator::run_until(Time horizon) {
  assert(horizon >= now() && "run_until() into the past");
  stop_requested_ = false;
  for (;;) {
    if (stop_requested_) {
      stop_requested_ = false;
      return;
    }
    if (inbox_) take_posted();
    const std::optional<Time> next = queue_.next_time();
    const bool due = next && *next <= horizon;
    // Paced: wait for the next event's time (or the horizon), unless an action is posted first.
    if (wall_ != nullptr && !wait_or_posted(due ? *next : horizon)) continue;
    if (!due) break;
    run_next();
  }
  clock_.advance_to(horizon);
}

struct Simulator::Inbox {
  std::mutex mutex;
  std::condition_variable posted;
  std::vector<std::pair<Time, Action>> actions;  // in the order they were posted
};

Simulator::Simulator() = default;
Simulator::~Simulator() = default;
Simulator::Simulator(Simulator&&) noexcept = default;
Simulator& Simulator::operator=(Simulator&&) noexcept = default;

void Simulator::pace_with(const WallClock* wall) {
  wall_ = wall;
  if (wall_ != nullptr && !inbox_) inbox_ = std::make_unique<Inbox>();
}

void Simulator::post(Action action) {
  assert(inbox_ && wall_ != nullptr && "post() needs a paced simulator");
  const Time t = wall_->now();
  {
    const std::lock_guard lock(inbox_->mutex);
    inbox_->actions.emplace_back(t, std::move(action));
  }
  inbox_->posted.notify_one();
}

void Simulator::take_posted() {
  std::vector<std::pair<Time, Action>> taken;
  {
    const std::lock_guard lock(inbox_->mutex);
    if (inbox_->actions.empty()) return;
    taken.swap(inbox_->actions);
  }
  // Posts from several threads may come a little out of order: by their times, then by order.
  std::stable_sort(taken.begin(), taken.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  for (auto& [t, action] : taken) queue_.push(std::max(t, now()), std::move(action));
}

bool Simulator::wait_or_posted(Time t) {
  assert(inbox_ && "pace_with() makes the inbox of a paced simulator");
  std::unique_lock lock(inbox_->mutex);
  return !inbox_->posted.wait_until(lock, wall_->at(t),
                                    [this] { return !inbox_->actions.empty(); });
}

void Simulator::wait_for_wall_clock(Time t) {
  wall_->sleep_until(t);
  const Time late = wall_->now() - t;
  ++lateness_.events;
  lateness_.total += late;
  if (late > lateness_.max) lateness_.max = late;
  if (late > Lateness::kTolerance) ++lateness_.late_events;
}

}  // namespace fulcrum::sim
