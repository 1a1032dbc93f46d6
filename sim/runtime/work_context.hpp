// WorkContext: one GPU context of a run -- the training job or an inference stream -- as the
// runtime drives it. The runtime knows contexts only through this interface: which has an item
// ready, the item to execute, and what follows when it completes.
#pragma once

#include <cstdint>

#include "backends/work_item.hpp"
#include "sim/engine/time.hpp"
#include "sim/runtime/gpu_host.hpp"
#include "sim/runtime/run_observer.hpp"

namespace fulcrum::sim {

// An item a context hands to the GPU.
struct StartedItem {
  backends::WorkItem item;
  std::uint64_t id = 0;  // per context, from 0 (minibatch index or batch id)
  Time fetch_stall = 0;  // training: how long it waited for its data after the GPU could take it
  MinibatchData data;    // training: what the data pipeline did for it
};

class WorkContext {
 public:
  virtual ~WorkContext() = default;

  virtual ContextKind kind() const = 0;

  // See GpuHost: an item could start now / since when it has been ready.
  virtual bool has_ready_work() const = 0;
  virtual Time ready_since() const = 0;

  // Takes the ready item, marks it running from `now` and describes it in `started`: its
  // workload, phase, batch size, id and stall (the runtime has set the power mode, which is the
  // run's; filled in place, the runtime keeps it for the item's whole run). Precondition:
  // has_ready_work().
  virtual void start(Time now, StartedItem& started) = 0;

  // The running item completed at `now`; `standalone` is its execution time alone on the GPU (the
  // backend's). Work this makes ready is visible through has_ready_work() at once; work that
  // becomes ready later is announced by an event of its own.
  virtual void finish(Time now, Time standalone) = 0;
};

}  // namespace fulcrum::sim
