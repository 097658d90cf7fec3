#pragma once

// An owning pointer that copies what it points to when it is copied: lets a record that
// keeps rarely-present parts out of line (WorkloadRecord's extras and flavor scan) be
// copied whole, as the what-if question's copy of the engine needs, while every other
// use stays std::unique_ptr's.

#include <memory>
#include <utility>

namespace kueuepp::core {

template <class T>
class CopyingPtr : public std::unique_ptr<T> {
 public:
  CopyingPtr() = default;
  CopyingPtr(std::nullptr_t) {}
  CopyingPtr(std::unique_ptr<T> p) : std::unique_ptr<T>(std::move(p)) {}
  CopyingPtr(const CopyingPtr& o) : std::unique_ptr<T>(o ? std::make_unique<T>(*o) : nullptr) {}
  CopyingPtr(CopyingPtr&&) noexcept = default;
  CopyingPtr& operator=(const CopyingPtr& o) {
    if (this != &o) std::unique_ptr<T>::operator=(o ? std::make_unique<T>(*o) : nullptr);
    return *this;
  }
  CopyingPtr& operator=(CopyingPtr&&) noexcept = default;
  CopyingPtr& operator=(std::unique_ptr<T>&& p) noexcept {
    std::unique_ptr<T>::operator=(std::move(p));
    return *this;
  }
  CopyingPtr& operator=(std::nullptr_t) noexcept {
    std::unique_ptr<T>::reset();
    return *this;
  }
  ~CopyingPtr() = default;
};

}  // namespace kueuepp::core
