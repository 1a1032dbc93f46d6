// Action: a move-only `void()` callable with inline storage, so scheduling an event whose
// captures fit in kInlineBytes never allocates (std::function may, and must be copyable).
//
//   Action a = [this, id] { finish(id); };   // stored inline: no heap allocation
//   a();
#pragma once

#include <cassert>
#include <concepts>
#include <cstddef>
#include <cstring>
#include <memory>
#include <new>
#include <type_traits>
#include <utility>

namespace fulcrum::sim {

class Action {
 public:
  // Captures up to this size (and alignment <= 8, nothrow-movable) live inside the Action.
  // 48 bytes holds a `this` pointer plus a few ids, or a whole std::function; larger callables
  // are moved to the heap.
  static constexpr std::size_t kInlineBytes = 48;
  static constexpr std::size_t kInlineAlign = alignof(void*);

  // An empty Action; calling it is a broken invariant.
  Action() noexcept = default;

  template <typename F>
  requires(!std::same_as<std::remove_cvref_t<F>, Action> &&
           std::is_invocable_r_v<void, std::decay_t<F>&>)
      Action(F&& f) {  // NOLINT(google-explicit-constructor): lambdas convert implicitly by design
    emplace(std::forward<F>(f));
  }

  // Builds the callable directly in this Action, so a caller that owns the Action's storage (the
  // event queue's slots) pays no temporary Action and no relocation. Precondition: empty.
  template <typename F>
  requires(!std::same_as<std::remove_cvref_t<F>, Action> &&
           std::is_invocable_r_v<void, std::decay_t<F>&>) void emplace(F&& f) {
    assert(ops_ == nullptr && "emplace() into a non-empty Action");
    using Fn = std::decay_t<F>;
    if constexpr (fits_inline<Fn>()) {
      ::new (static_cast<void*>(buffer_)) Fn(std::forward<F>(f));
      ops_ = &inline_ops<Fn>;
    } else {
      Fn* heap = new Fn(std::forward<F>(f));
      std::memcpy(buffer_, &heap, sizeof(heap));
      ops_ = &heap_ops<Fn>;
    }
  }

  Action(Action&& other) noexcept { take(other); }

  Action& operator=(Action&& other) noexcept {
    if (this != &other) {
      reset();
      take(other);
    }
    return *this;
  }

  Action(const Action&) = delete;
  Action& operator=(const Action&) = delete;

  ~Action() { reset(); }

  explicit operator bool() const noexcept { return ops_ != nullptr; }

  void operator()() {
    assert(ops_ != nullptr && "calling an empty Action");
    ops_->invoke(buffer_);
  }

  // Destroys the held callable (and whatever it captured); the Action becomes empty.
  void reset() noexcept {
    if (ops_ != nullptr) {
      if (ops_->destroy != nullptr) ops_->destroy(buffer_);
      ops_ = nullptr;
    }
  }

 private:
  // relocate == nullptr: bytes may be copied with memcpy; destroy == nullptr: nothing to destroy.
  // Trivial lambdas (the common case) therefore move and die without an indirect call.
  struct Ops {
    void (*invoke)(void* self);
    void (*relocate)(void* dst, void* src) noexcept;  // move-construct into dst, destroy src
    void (*destroy)(void* self) noexcept;
  };

  template <typename Fn>
  static constexpr bool fits_inline() {
    return sizeof(Fn) <= kInlineBytes && alignof(Fn) <= kInlineAlign &&
           std::is_nothrow_move_constructible_v<Fn>;
  }

  template <typename Fn>
  static constexpr Ops make_inline_ops() {
    Ops ops{};
    ops.invoke = [](void* self) { (*std::launder(static_cast<Fn*>(self)))(); };
    if constexpr (!std::is_trivially_copyable_v<Fn>) {
      ops.relocate = [](void* dst, void* src) noexcept {
        Fn* from = std::launder(static_cast<Fn*>(src));
        ::new (dst) Fn(std::move(*from));
        from->~Fn();
      };
    }
    if constexpr (!std::is_trivially_destructible_v<Fn>) {
      ops.destroy = [](void* self) noexcept { std::launder(static_cast<Fn*>(self))->~Fn(); };
    }
    return ops;
  }

  template <typename Fn>
  static Fn* heap_pointer(void* self) {
    Fn* p = nullptr;
    std::memcpy(&p, self, sizeof(p));
    return p;
  }

  template <typename Fn>
  static constexpr Ops make_heap_ops() {
    Ops ops{};
    ops.invoke = [](void* self) { (*heap_pointer<Fn>(self))(); };
    ops.destroy = [](void* self) noexcept { delete heap_pointer<Fn>(self); };
    return ops;  // relocate stays null: moving a heap Action copies its pointer
  }

  template <typename Fn>
  static constexpr Ops inline_ops = make_inline_ops<Fn>();
  template <typename Fn>
  static constexpr Ops heap_ops = make_heap_ops<Fn>();

  void take(Action& other) noexcept {
    ops_ = other.ops_;
    if (ops_ == nullptr) return;
    if (ops_->relocate != nullptr) {
      ops_->relocate(buffer_, other.buffer_);
    } else {
      std::memcpy(buffer_, other.buffer_, kInlineBytes);
    }
    other.ops_ = nullptr;
  }

  const Ops* ops_ = nullptr;
  alignas(kInlineAlign) unsigned char buffer_[kInlineBytes];
};

}  // namespace fulcrum::sim
