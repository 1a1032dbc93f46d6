// EventQueue: pending actions ordered by (time, insertion sequence), so equal-time events come
// out in the order they were pushed; any pending event can be cancelled by its EventId.
//
//   EventQueue q;
//   EventId id = q.push(5 * kMillisecond, [] { ... });
//   q.cancel(id);                         // true: it will never come out
//   while (!q.empty()) { EventQueue::Event e = q.pop(); e.action(); }
//
// Cost: push and pop are O(log n) on a 4-ary heap of 24-byte entries; actions sit still in a
// slot pool (recycled through a free list), so the heap never moves them. cancel is O(1): the
// entry stays in the heap as a tombstone and is dropped when it reaches the top, or in one sweep
// once tombstones outnumber live events (memory stays proportional to live events).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "sim/engine/action.hpp"
#include "sim/engine/event_id.hpp"
#include "sim/engine/time.hpp"

namespace fulcrum::sim {

class EventQueue {
 public:
  struct Event {
    Time time = 0;
    EventId id;
    Action action;
  };

  EventQueue() = default;
  EventQueue(EventQueue&&) noexcept = default;
  EventQueue& operator=(EventQueue&&) noexcept = default;
  EventQueue(const EventQueue&) = delete;
  EventQueue& operator=(const EventQueue&) = delete;

  // Adds an event; `action` must not be empty.
  EventId push(Time time, Action&& action);

  // Removes a pending event. Returns false (and does nothing) if `id` already came out of the
  // queue, was cancelled, or never named an event of this queue.
  bool cancel(EventId id);

  // Removes and returns the earliest live event. Precondition: !empty().
  Event pop();

  // Time of the earliest live event, or nullopt if none.
  std::optional<Time> next_time() const {
    if (heap_.empty()) return std::nullopt;
    return time_of(heap_.front());
  }

  // Live events only: cancelled ones are not counted.
  std::size_t size() const { return live_; }
  bool empty() const { return live_ == 0; }

  // Whether `id` names an event that is still pending.
  bool is_pending(EventId id) const;

  // Drops every pending event (their actions are destroyed, not run).
  void clear();

 private:
  // Heap entries are small and trivially copyable so sifting is cheap; `seq` breaks time ties.
  // The time is stored with its sign bit flipped, so that (time_key, seq) read as one unsigned
  // 128-bit number orders exactly like (time, seq) and each comparison is a cmp/sbb pair.
  struct Entry {
    std::uint64_t seq;
    std::uint64_t time_key;
    std::uint32_t slot;
  };

  __extension__ using SortKey = unsigned __int128;  // __extension__: a GCC/Clang builtin type
  static constexpr std::uint64_t kSignBit = std::uint64_t{1} << 63;

  static std::uint64_t time_key(Time t) { return static_cast<std::uint64_t>(t) ^ kSignBit; }
  static Time time_of(const Entry& e) { return static_cast<Time>(e.time_key ^ kSignBit); }
  static SortKey sort_key(const Entry& e) {
    return (static_cast<SortKey>(e.time_key) << 64) | e.seq;
  }

  enum class SlotState : std::uint8_t { kFree, kPending, kCancelled };

  struct Slot {
    Action action;
    std::uint32_t generation = 1;  // bumped when the slot's event runs or is cancelled
    SlotState state = SlotState::kFree;
  };

  // One branch-free 128-bit comparison, so the compiler can use conditional moves: which child
  // of a heap node is earliest is close to a coin flip, and mispredicted branches dominated pops.
  static bool earlier(const Entry& a, const Entry& b) { return sort_key(a) < sort_key(b); }

  std::uint32_t allocate_slot();
  void release_slot(std::uint32_t slot);
  void sift_up(std::size_t hole, Entry entry);
  void sift_down(std::size_t hole, Entry entry);
  // Index of the earliest child of `node`. Precondition: node has at least one child.
  std::size_t earliest_child(std::size_t node) const;
  void remove_top();
  // Keeps the invariant that the top of the heap, if any, is a live event.
  void drop_cancelled_top();
  void sweep_tombstones();

  std::vector<Entry> heap_;
  std::vector<Slot> slots_;
  std::vector<std::uint32_t> free_slots_;
  std::uint64_t next_seq_ = 0;
  std::size_t live_ = 0;
  std::size_t tombstones_ = 0;
};

}  // namespace fulcrum::sim
