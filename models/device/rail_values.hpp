// RailValues: one number per power rail of a device (DeviceSpec::rails order), stored inline so
// that a value per work item costs no allocation. A device has a handful of summed rails (Orin
// AGX 3; an INA3221 pair at most 6; a data-centre GPU's NVML meter 1).
//
//   RailValues energy_j(device.rails.size());   // zeros
//   energy_j[0] += 1.5;
//   double module_j = energy_j.sum();
#pragma once

#include <array>
#include <cassert>
#include <cstddef>
#include <initializer_list>
#include <span>

namespace fulcrum::models {

class RailValues {
 public:
  static constexpr std::size_t kCapacity = 8;  // the device loader refuses more summed rails

  RailValues() = default;
  // `rails` zeros. Precondition: rails <= kCapacity.
  explicit RailValues(std::size_t rails) : size_(rails) { assert(rails <= kCapacity); }
  RailValues(std::initializer_list<double> values) : size_(values.size()) {
    assert(values.size() <= kCapacity);
    std::size_t i = 0;
    for (double v : values) values_[i++] = v;
  }
  // A copy of `values`. Precondition: values.size() <= kCapacity.
  static RailValues from(std::span<const double> values) {
    assert(values.size() <= kCapacity);
    RailValues r(values.size());
    for (std::size_t i = 0; i < values.size(); ++i) r.values_[i] = values[i];
    return r;
  }

  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  double& operator[](std::size_t i) {
    assert(i < size_);
    return values_[i];
  }
  double operator[](std::size_t i) const {
    assert(i < size_);
    return values_[i];
  }
  const double* begin() const { return values_.data(); }
  const double* end() const { return values_.data() + size_; }
  double* begin() { return values_.data(); }
  double* end() { return values_.data() + size_; }
  operator std::span<const double>() const { return {values_.data(), size_}; }  // NOLINT

  // The module total: rails summed in order.
  double sum() const {
    double s = 0;
    for (std::size_t i = 0; i < size_; ++i) s += values_[i];
    return s;
  }

  friend bool operator==(const RailValues& a, const RailValues& b) {
    if (a.size_ != b.size_) return false;
    for (std::size_t i = 0; i < a.size_; ++i) {
      if (a.values_[i] != b.values_[i]) return false;
    }
    return true;
  }

 private:
  std::array<double, kCapacity> values_{};
  std::size_t size_ = 0;
};

}  // namespace fulcrum::models
