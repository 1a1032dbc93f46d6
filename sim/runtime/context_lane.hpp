// ContextLane: the thread of one GPU-sharing context in a run whose contexts execute at once
// (native sharing on a real-time backend that opens a context per GPU-sharing context). It
// executes the context's items on the context's own backend and posts each completion back to
// the paced simulator, so that the contexts' items overlap on the device as separate processes'
// items would, and the simulator learns of each at the real time it ended.
//
//   ContextLane lane(backend.open_context(), sim);       // sim paced by a wall clock
//   lane.submit(item, [](const Completion& c) { ... });  // runs as an event when it completes
#pragma once

#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>

#include "backends/backend.hpp"
#include "sim/engine/simulator.hpp"

namespace fulcrum::sim {

class ContextLane {
 public:
  using Done = std::function<void(const backends::Completion&)>;

  // `backend`: the context's own (Backend::open_context()), not null; `sim` must be paced and
  // outlive the lane.
  ContextLane(std::unique_ptr<backends::Backend> backend, Simulator& sim);
  // Lets the item in flight finish (its completion is posted but never taken), then ends the
  // thread.
  ~ContextLane();
  ContextLane(const ContextLane&) = delete;
  ContextLane& operator=(const ContextLane&) = delete;

  // The context's backend, for executing items on the caller's thread while the lane is idle
  // (warming the context up before a run).
  backends::Backend& backend() { return *backend_; }

  // Hands `item` to the lane's thread. When the backend has executed it, `done` is posted to the
  // simulator with the completion; if execute() throws, an action that rethrows the exception
  // there is posted instead. Precondition: no item in flight (the previous `done` has run).
  void submit(const backends::WorkItem& item, Done done);

 private:
  void loop();

  std::unique_ptr<backends::Backend> backend_;
  Simulator& sim_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::optional<backends::WorkItem> item_;  // handed over, not yet taken by the thread
  Done done_;
  bool stopping_ = false;
  std::thread thread_;  // last: started once everything above is in place
};

}  // namespace fulcrum::sim
