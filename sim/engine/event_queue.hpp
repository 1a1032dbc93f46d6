// EventQueue: pending actions ordered by (time, insertion sequence), so equal-time events come
// out in the order they were pushed; any pending event can be cancelled by its EventId.
//
//   EventQueue q;
//   EventId id = q.push(5 * kMillisecond, [] { ... });
//   q.cancel(id);                         // true: it will never come out
//   while (!q.empty()) { EventQueue::Event e = q.pop(); e.action(); }
//
// Cost: push and pop are O(log n) on a 4-ary heap of 24-byte entries; actions sit still in a
// slot pool (recycled through an intrusive free list), so the heap never moves them. cancel is
// O(1): the entry stays in the heap as a tombstone and is dropped when it reaches the top, or in
// one sweep once tombstones outnumber live events (memory stays proportional to live events).
#pragma once

#include <cassert>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <type_traits>
#include <utility>
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
  EventId push(Time time, Action&& action) {
    assert(action && "scheduling an empty Action");
    const std::uint32_t slot = allocate_slot();
    Slot& s = slot_at(slot);
    s.action = std::move(action);
    return enqueue(time, slot, s);
  }

  // The same for any `void()` callable, built directly in its slot: no temporary Action and no
  // 48-byte relocation per event (the hot path of every scheduler).
  template <typename F>
  requires(!std::same_as<std::remove_cvref_t<F>, Action> &&
           std::is_invocable_r_v<void, std::decay_t<F>&>) EventId emplace(Time time, F&& f) {
    const std::uint32_t slot = allocate_slot();
    Slot& s = slot_at(slot);
    s.action.emplace(std::forward<F>(f));
    return enqueue(time, slot, s);
  }

  // Removes a pending event. Returns false (and does nothing) if `id` already came out of the
  // queue, was cancelled, or never named an event of this queue.
  bool cancel(EventId id);

  // Removes and returns the earliest live event. Precondition: !empty().
  Event pop();

  // Removes the earliest live event, calls `before(time)` and then runs the event's action where
  // it lies, without moving it out (slots never move, so the action may push events freely while
  // it runs). The event counts as gone before `before` is called: it is not pending, and
  // cancelling it returns false. Precondition: !empty(); the action must not call clear().
  template <typename Before>
  void run_next(Before&& before) {
    assert(!heap_.empty() && "run_next() on an empty EventQueue");
    const Entry top = heap_.front();
    Slot& s = slot_at(top.slot);
    assert(s.action && "the heap's top must be a live event");
    bump_generation(s);
    --live_;
    remove_top();
    // Most runs cancel little: skip the look at the new top's slot when no tombstone exists.
    if (tombstones_ != 0) drop_cancelled_top();
    // Frees the slot after the action, also if it throws, so the pool stays consistent.
    struct Release {
      EventQueue& queue;
      Slot& slot;
      std::uint32_t index;
      ~Release() {
        slot.action.reset();
        queue.push_free(slot, index);
      }
    } release{*this, s, top.slot};
    before(time_of(top));
    s.action();
  }

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
  static constexpr std::size_t kArity = 4;

  static std::uint64_t time_key(Time t) { return static_cast<std::uint64_t>(t) ^ kSignBit; }
  static Time time_of(const Entry& e) { return static_cast<Time>(e.time_key ^ kSignBit); }
  static SortKey sort_key(const Entry& e) {
    return (static_cast<SortKey>(e.time_key) << 64) | e.seq;
  }

  // A slot's state is read from its action and generation, which keeps a slot at 64 bytes (one
  // cache line): the action is non-empty exactly while its event is pending or running; a heap
  // entry whose slot holds no action is a cancelled event (a tombstone). The generation moves on
  // when the event runs or is cancelled, so its id stops matching at once.
  struct Slot {
    Action action;
    std::uint32_t generation = 1;
    std::uint32_t next_free = 0;  // meaningful only while the slot is on the free list
  };

  // Slots live in fixed-size blocks that are allocated once and never move, so an action can
  // run in its slot while it schedules events that grow the pool.
  static constexpr std::uint32_t kBlockShift = 8;
  static constexpr std::uint32_t kBlockSlots = std::uint32_t{1} << kBlockShift;
  static constexpr std::uint32_t kNoSlot = std::numeric_limits<std::uint32_t>::max();

  Slot& slot_at(std::uint32_t slot) {
    return blocks_[slot >> kBlockShift][slot & (kBlockSlots - 1)];
  }
  const Slot& slot_at(std::uint32_t slot) const {
    return blocks_[slot >> kBlockShift][slot & (kBlockSlots - 1)];
  }

  static void bump_generation(Slot& s) {
    // Generation 0 is never handed out, so the default EventId{} can never match a slot.
    if (++s.generation == 0) s.generation = 1;
  }

  // The free list is intrusive (each free slot names the next), so taking and returning a slot
  // touches only the slot itself and one index, with no vector to grow.
  std::uint32_t allocate_slot() {
    if (free_head_ != kNoSlot) {
      const std::uint32_t slot = free_head_;
      free_head_ = slot_at(slot).next_free;
      return slot;
    }
    return grow();
  }
  void push_free(Slot& s, std::uint32_t slot) {
    s.next_free = free_head_;
    free_head_ = slot;
  }
  // Takes a never-used slot, adding a block when the last one is full.
  std::uint32_t grow();

  EventId enqueue(Time time, std::uint32_t slot, const Slot& s) {
    heap_.push_back(Entry{});  // grow first; sift_up fills the hole
    sift_up(heap_.size() - 1, Entry{next_seq_++, time_key(time), slot});
    ++live_;
    return EventId{(static_cast<std::uint64_t>(s.generation) << 32) | slot};
  }

  // One branch-free 128-bit comparison, so the compiler can use conditional moves: which child
  // of a heap node is earliest is close to a coin flip, and mispredicted branches dominated pops.
  static bool earlier(const Entry& a, const Entry& b) { return sort_key(a) < sort_key(b); }

  void sift_up(std::size_t hole, Entry entry) {
    while (hole > 0) {
      const std::size_t parent = (hole - 1) / kArity;
      if (!earlier(entry, heap_[parent])) break;
      heap_[hole] = heap_[parent];
      hole = parent;
    }
    heap_[hole] = entry;
  }
  void sift_down(std::size_t hole, Entry entry);
  // Index of the earliest child of `node`. Precondition: node has at least one child.
  std::size_t earliest_child(std::size_t node) const;
  void remove_top();
  // Keeps the invariant that the top of the heap, if any, is a live event.
  void drop_cancelled_top();
  void sweep_tombstones();

  std::vector<Entry> heap_;
  std::vector<std::unique_ptr<Slot[]>> blocks_;
  std::uint32_t slot_count_ = 0;  // slots ever used; all below it are in blocks_
  std::uint32_t free_head_ = kNoSlot;
  std::uint64_t next_seq_ = 0;
  std::size_t live_ = 0;
  std::size_t tombstones_ = 0;
};

}  // namespace fulcrum::sim
