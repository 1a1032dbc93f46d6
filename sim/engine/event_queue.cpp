#include "sim/engine/event_queue.hpp"

#include <cassert>
#include <limits>
#include <utility>

namespace fulcrum::sim {
namespace {

// Below this many tombstones a sweep is not worth its O(n); above it, sweep once they outnumber
// the live events.
constexpr std::size_t kMinTombstonesToSweep = 64;

std::uint32_t slot_of(EventId id) { return static_cast<std::uint32_t>(id.value); }
std::uint32_t generation_of(EventId id) { return static_cast<std::uint32_t>(id.value >> 32); }

}  // namespace

std::uint32_t EventQueue::grow() {
  assert(slot_count_ < kNoSlot);
  if ((slot_count_ & (kBlockSlots - 1)) == 0) {
    blocks_.push_back(std::make_unique<Slot[]>(kBlockSlots));
  }
  return slot_count_++;
}

bool EventQueue::is_pending(EventId id) const {
  const std::uint32_t slot = slot_of(id);
  if (slot >= slot_count_) return false;
  const Slot& s = slot_at(slot);
  return s.action && s.generation == generation_of(id);
}

bool EventQueue::cancel(EventId id) {
  if (!is_pending(id)) return false;
  Slot& s = slot_at(slot_of(id));
  s.action.reset();  // the empty action marks the heap entry as a tombstone
  // The generation moves on now so the id stops matching at once; the slot itself is recycled
  // only when its heap entry leaves.
  bump_generation(s);
  --live_;
  ++tombstones_;
  drop_cancelled_top();
  if (tombstones_ >= kMinTombstonesToSweep && tombstones_ > live_) sweep_tombstones();
  return true;
}

EventQueue::Event EventQueue::pop() {
  assert(!heap_.empty() && "pop() on an empty EventQueue");
  const Entry top = heap_.front();
  Slot& s = slot_at(top.slot);
  assert(s.action && "the heap's top must be a live event");
  Event event{time_of(top), EventId{(static_cast<std::uint64_t>(s.generation) << 32) | top.slot},
              std::move(s.action)};
  bump_generation(s);
  push_free(s, top.slot);
  --live_;
  remove_top();
  if (tombstones_ != 0) drop_cancelled_top();
  return event;
}

void EventQueue::clear() {
  // Slots are kept (not discarded) so their generations keep counting: an id from before the
  // clear must not match an event pushed after it.
  heap_.clear();
  free_head_ = kNoSlot;
  for (std::uint32_t i = slot_count_; i-- > 0;) {
    Slot& s = slot_at(i);
    if (s.action) {
      s.action.reset();
      bump_generation(s);
    }
    push_free(s, i);
  }
  live_ = 0;
  tombstones_ = 0;
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
  while (!heap_.empty() && !slot_at(heap_.front().slot).action) {
    const std::uint32_t slot = heap_.front().slot;
    remove_top();
    // The generation was already bumped at cancel time; only the free list remains.
    push_free(slot_at(slot), slot);
    --tombstones_;
  }
}

void EventQueue::sweep_tombstones() {
  std::size_t kept = 0;
  for (const Entry& e : heap_) {
    Slot& s = slot_at(e.slot);
    if (!s.action) {
      push_free(s, e.slot);
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
