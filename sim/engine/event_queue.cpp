#include "sim/engine/event_queue.hpp"

#include <cassert>
#include <limits>
#include <utility>

namespace fulcrum::sim {
namespace {

constexpr std::size_t kArity = 4;
// Below this many tombstones a sweep is not worth its O(n); above it, sweep once they outnumber
// the live events.
constexpr std::size_t kMinTombstonesToSweep = 64;

EventId make_id(std::uint32_t slot, std::uint32_t generation) {
  return EventId{(static_cast<std::uint64_t>(generation) << 32) | slot};
}

std::uint32_t slot_of(EventId id) { return static_cast<std::uint32_t>(id.value); }
std::uint32_t generation_of(EventId id) { return static_cast<std::uint32_t>(id.value >> 32); }

}  // namespace

std::uint32_t EventQueue::allocate_slot() {
  if (!free_slots_.empty()) {
    const std::uint32_t slot = free_slots_.back();
    free_slots_.pop_back();
    return slot;
  }
  assert(slots_.size() < std::numeric_limits<std::uint32_t>::max());
  slots_.emplace_back();
  return static_cast<std::uint32_t>(slots_.size() - 1);
}

void EventQueue::release_slot(std::uint32_t slot) {
  Slot& s = slots_[slot];
  s.state = SlotState::kFree;
  // Generation 0 is never handed out, so the default EventId{} can never match a slot.
  if (++s.generation == 0) s.generation = 1;
  free_slots_.push_back(slot);
}

EventId EventQueue::push(Time time, Action&& action) {
  assert(action && "scheduling an empty Action");
  const std::uint32_t slot = allocate_slot();
  Slot& s = slots_[slot];
  s.action = std::move(action);
  s.state = SlotState::kPending;
  heap_.push_back(Entry{});  // grow first; sift_up fills the hole
  sift_up(heap_.size() - 1, Entry{next_seq_++, time_key(time), slot});
  ++live_;
  return make_id(slot, s.generation);
}

bool EventQueue::is_pending(EventId id) const {
  const std::uint32_t slot = slot_of(id);
  return slot < slots_.size() && slots_[slot].state == SlotState::kPending &&
         slots_[slot].generation == generation_of(id);
}

bool EventQueue::cancel(EventId id) {
  if (!is_pending(id)) return false;
  Slot& s = slots_[slot_of(id)];
  s.action.reset();
  s.state = SlotState::kCancelled;
  // The generation moves on now so the id stops matching at once; the slot itself is recycled
  // only when its heap entry leaves.
  if (++s.generation == 0) s.generation = 1;
  --live_;
  ++tombstones_;
  drop_cancelled_top();
  if (tombstones_ >= kMinTombstonesToSweep && tombstones_ > live_) sweep_tombstones();
  return true;
}

EventQueue::Event EventQueue::pop() {
  assert(!heap_.empty() && "pop() on an empty EventQueue");
  const Entry top = heap_.front();
  Slot& s = slots_[top.slot];
  assert(s.state == SlotState::kPending);
  Event event{time_of(top), make_id(top.slot, s.generation), std::move(s.action)};
  release_slot(top.slot);
  --live_;
  remove_top();
  // Most runs cancel little: skip the look at the new top's slot when no tombstone exists.
  if (tombstones_ != 0) drop_cancelled_top();
  return event;
}

void EventQueue::clear() {
  // Slots are kept (not discarded) so their generations keep counting: an id from before the
  // clear must not match an event pushed after it.
  heap_.clear();
  free_slots_.clear();
  for (std::uint32_t i = 0; i < slots_.size(); ++i) {
    Slot& s = slots_[i];
    if (s.state == SlotState::kPending) {
      s.action.reset();
      if (++s.generation == 0) s.generation = 1;
    }
    s.state = SlotState::kFree;
    free_slots_.push_back(i);
  }
  live_ = 0;
  tombstones_ = 0;
}

void EventQueue::sift_up(std::size_t hole, Entry entry) {
  while (hole > 0) {
    const std::size_t parent = (hole - 1) / kArity;
    if (!earlier(entry, heap_[parent])) break;
    heap_[hole] = heap_[parent];
    hole = parent;
  }
  heap_[hole] = entry;
}

std::size_t EventQueue::earliest_child(std::size_t node) const {
  const std::size_t first = node * kArity + 1;
  const std::size_t n = heap_.size();
  if (first + kArity <= n) {
    // All four children exist (the common case): a branch-free tournament.
    const std::size_t a = earlier(heap_[first + 1], heap_[first]) ? first + 1 : first;
    const std::size_t b = earlier(heap_[first + 3], heap_[first + 2]) ? first + 3 : first + 2;
    return earlier(heap_[b], heap_[a]) ? b : a;
  }
  std::size_t best = first;
  for (std::size_t c = first + 1; c < n; ++c) {
    if (earlier(heap_[c], heap_[best])) best = c;
  }
  return best;
}

void EventQueue::sift_down(std::size_t hole, Entry entry) {
  const std::size_t n = heap_.size();
  while (hole * kArity + 1 < n) {
    const std::size_t best = earliest_child(hole);
    if (!earlier(heap_[best], entry)) break;
    heap_[hole] = heap_[best];
    hole = best;
  }
  heap_[hole] = entry;
}

void EventQueue::remove_top() {
  const Entry last = heap_.back();
  heap_.pop_back();
  const std::size_t n = heap_.size();
  if (n == 0) return;
  // Bottom-up deletion: walk the hole down along earliest children to a leaf without comparing
  // against `last`, then sift `last` up from there. `last` came from the bottom and is usually
  // late, so the climb is short and each level costs only the child tournament.
  std::size_t hole = 0;
  while (hole * kArity + 1 < n) {
    const std::size_t best = earliest_child(hole);
    heap_[hole] = heap_[best];
    hole = best;
  }
  sift_up(hole, last);
}

void EventQueue::drop_cancelled_top() {
  while (!heap_.empty() && slots_[heap_.front().slot].state == SlotState::kCancelled) {
    const std::uint32_t slot = heap_.front().slot;
    remove_top();
    // The generation was already bumped at cancel time; only the state and free list remain.
    slots_[slot].state = SlotState::kFree;
    free_slots_.push_back(slot);
    --tombstones_;
  }
}

void EventQueue::sweep_tombstones() {
  std::size_t kept = 0;
  for (const Entry& e : heap_) {
    if (slots_[e.slot].state == SlotState::kCancelled) {
      slots_[e.slot].state = SlotState::kFree;
      free_slots_.push_back(e.slot);
    } else {
      heap_[kept++] = e;
    }
  }
  heap_.resize(kept);
  tombstones_ = 0;
  // Floyd's heap construction: sift every internal node down, last first.
  if (heap_.size() > 1) {
    for (std::size_t i = (heap_.size() - 2) / kArity + 1; i-- > 0;) sift_down(i, heap_[i]);
  }
}

}  // namespace fulcrum::sim
