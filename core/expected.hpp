#pragma once

// Expected<T, E>: a value or an error, the result type of every fallible call in core/
// and kube/. std::expected is C++23; this is the small subset we need on C++20.

#include <cassert>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>

namespace kueuepp {

/// The default error: a message that says what failed, on which object, and what to do.
struct Error {
  std::string message;
};

template <class E>
struct Unexpected {
  E error;
};

template <class E>
Unexpected<std::decay_t<E>> unexpected(E&& e) {
  return {std::forward<E>(e)};
}

/// Shorthand for the common case: `return fail("quantity \"x\" is not a number");`
inline Unexpected<Error> fail(std::string message) { return {Error{std::move(message)}}; }

template <class T, class E = Error>
class Expected {
 public:
  using value_type = T;
  using error_type = E;

  Expected()
    requires std::is_default_constructible_v<T>
      : v_(std::in_place_index<0>) {}
  Expected(const T& v) : v_(std::in_place_index<0>, v) {}  // NOLINT(implicit)
  Expected(T&& v) : v_(std::in_place_index<0>, std::move(v)) {}  // NOLINT(implicit)
  template <class U>
    requires(std::is_constructible_v<T, U&&> && !std::is_same_v<std::decay_t<U>, Expected> &&
             !std::is_same_v<std::decay_t<U>, T>)
  Expected(U&& v) : v_(std::in_place_index<0>, std::forward<U>(v)) {}  // NOLINT(implicit)
  template <class G>
    requires std::is_constructible_v<E, G&&>
  Expected(Unexpected<G>&& u) : v_(std::in_place_index<1>, std::move(u.error)) {}  // NOLINT
  template <class G>
    requires std::is_constructible_v<E, const G&>
  Expected(const Unexpected<G>& u) : v_(std::in_place_index<1>, u.error) {}  // NOLINT

  bool has_value() const noexcept { return v_.index() == 0; }
  explicit operator bool() const noexcept { return has_value(); }

  T& value() & { assert(has_value()); return std::get<0>(v_); }
  const T& value() const& { assert(has_value()); return std::get<0>(v_); }
  T&& value() && { assert(has_value()); return std::get<0>(std::move(v_)); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T&& operator*() && { return std::move(*this).value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

  E& error() & { assert(!has_value()); return std::get<1>(v_); }
  const E& error() const& { assert(!has_value()); return std::get<1>(v_); }
  E&& error() && { assert(!has_value()); return std::get<1>(std::move(v_)); }

  template <class U>
  T value_or(U&& fallback) const& {
    return has_value() ? value() : static_cast<T>(std::forward<U>(fallback));
  }

 private:
  std::variant<T, E> v_;
};

template <class E>
class Expected<void, E> {
 public:
  using value_type = void;
  using error_type = E;

  Expected() = default;
  template <class G>
    requires std::is_constructible_v<E, G&&>
  Expected(Unexpected<G>&& u) : err_(std::move(u.error)), ok_(false) {}  // NOLINT
  template <class G>
    requires std::is_constructible_v<E, const G&>
  Expected(const Unexpected<G>& u) : err_(u.error), ok_(false) {}  // NOLINT

  bool has_value() const noexcept { return ok_; }
  explicit operator bool() const noexcept { return ok_; }
  void value() const { assert(ok_); }
  const E& error() const& { assert(!ok_); return err_; }
  E&& error() && { assert(!ok_); return std::move(err_); }

 private:
  E err_{};
  bool ok_ = true;
};

using Status = Expected<void, Error>;

}  // namespace kueuepp
