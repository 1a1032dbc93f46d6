#include "sim/runtime/context_lane.hpp"

#include <cassert>
#include <exception>
#include <utility>

#include "models/error.hpp"

namespace fulcrum::sim {

ContextLane::ContextLane(std::unique_ptr<backends::Backend> backend, Simulator& sim)
    : backend_(std::move(backend)), sim_(sim) {
  if (!backend_) throw Error("ContextLane: no backend context");
  thread_ = std::thread([this] { loop(); });
}

ContextLane::~ContextLane() {
  {
    const std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_one();
  thread_.join();
}

void ContextLane::submit(const backends::WorkItem& item, Done done) {
  {
    const std::lock_guard lock(mutex_);
    assert(!item_ && "a lane runs one item at a time");
    item_ = item;
    done_ = std::move(done);
  }
  wake_.notify_one();
}

void ContextLane::loop() {
  for (;;) {
    backends::WorkItem item;
    Done done;
    {
      std::unique_lock lock(mutex_);
      wake_.wait(lock, [this] { return stopping_ || item_.has_value(); });
      if (!item_) return;  // stopping, nothing handed over
      item = *item_;
      item_.reset();
      done = std::move(done_);
    }
    try {
      backends::Completion completion = backend_->execute(item);  // a copy: the next overwrites
      sim_.post([done = std::move(done), completion = std::move(completion)] { done(completion); });
    } catch (...) {
      sim_.post([error = std::current_exception()] { std::rethrow_exception(error); });
    }
  }
}

}  // namespace fulcrum::sim
