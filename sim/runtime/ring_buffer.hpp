// RingBuffer: a growable FIFO in one contiguous block. Queued requests live here, so the hot path
// (push an arrival, pop a completed request) never allocates once the buffer has grown.
#pragma once

#include <cassert>
#include <cstddef>
#include <vector>

namespace fulcrum::sim {

template <typename T>
class RingBuffer {
 public:
  explicit RingBuffer(std::size_t initial_capacity = 16) { grow_to(round_up(initial_capacity)); }

  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }

  void push_back(const T& value) {
    if (size_ == slots_.size()) grow_to(slots_.size() * 2);
    slots_[(head_ + size_) & mask_] = value;
    ++size_;
  }

  void pop_front() {
    assert(size_ > 0 && "pop_front on an empty RingBuffer");
    head_ = (head_ + 1) & mask_;
    --size_;
  }

  // Drops the `count` oldest elements at once.
  void pop_front(std::size_t count) {
    assert(count <= size_ && "pop_front past the end of a RingBuffer");
    head_ = (head_ + count) & mask_;
    size_ -= count;
  }

  // index 0 is the front (oldest).
  T& operator[](std::size_t index) {
    assert(index < size_);
    return slots_[(head_ + index) & mask_];
  }
  const T& operator[](std::size_t index) const {
    assert(index < size_);
    return slots_[(head_ + index) & mask_];
  }
  T& front() { return (*this)[0]; }
  const T& front() const { return (*this)[0]; }
  T& back() { return (*this)[size_ - 1]; }

 private:
  static std::size_t round_up(std::size_t n) {
    std::size_t c = 4;
    while (c < n) c *= 2;
    return c;
  }

  // Capacity stays a power of two so that wrapping is a mask, not a division.
  void grow_to(std::size_t capacity) {
    std::vector<T> bigger(capacity);
    for (std::size_t i = 0; i < size_; ++i) bigger[i] = slots_[(head_ + i) & mask_];
    slots_.swap(bigger);
    head_ = 0;
    mask_ = capacity - 1;
  }

  std::vector<T> slots_;
  std::size_t head_ = 0;
  std::size_t size_ = 0;
  std::size_t mask_ = 0;
};

}  // namespace fulcrum::sim
