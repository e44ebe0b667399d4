// SPDX-License-Identifier: Apache-2.0
#pragma once
// small_vector<T, N>: a vector of trivially copyable T that keeps up to N
// elements inline and moves to the heap beyond that.
//
// Used for linear-combination terms: most bellperson LCs have 1-3 terms, so
// building one costs no heap allocation. Invariants: T is trivially copyable
// (elements are moved with memcpy and never destroyed); size <= capacity;
// _heap == nullptr exactly when the elements live in the inline buffer.
// Growth doubles the capacity (amortized O(1) push_back).

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <new>
#include <type_traits>

namespace cuzk::r1cs::detail {

template <class T, std::size_t N>
class small_vector {
  static_assert(std::is_trivially_copyable_v<T>, "small_vector stores trivially copyable types");
  static_assert(N > 0);

 public:
  using value_type = T;
  using size_type = std::size_t;
  using iterator = T*;
  using const_iterator = const T*;

  small_vector() noexcept = default;
  small_vector(const small_vector& o) {
    if (!o.empty()) assign(o.data(), o.size());
  }
  small_vector(small_vector&& o) noexcept { steal(o); }
  small_vector& operator=(const small_vector& o) {
    if (this != &o) {
      _size = 0;
      if (!o.empty()) assign(o.data(), o.size());
    }
    return *this;
  }
  small_vector& operator=(small_vector&& o) noexcept {
    if (this != &o) {
      release();
      steal(o);
    }
    return *this;
  }
  ~small_vector() { release(); }

  T* data() noexcept { return _heap ? _heap : inline_data(); }
  const T* data() const noexcept { return _heap ? _heap : inline_data(); }
  size_type size() const noexcept { return _size; }
  size_type capacity() const noexcept { return _cap; }
  bool empty() const noexcept { return _size == 0; }
  bool is_inline() const noexcept { return _heap == nullptr; }

  T* begin() noexcept { return data(); }
  T* end() noexcept { return data() + _size; }
  const T* begin() const noexcept { return data(); }
  const T* end() const noexcept { return data() + _size; }
  T& operator[](size_type i) noexcept { return data()[i]; }
  const T& operator[](size_type i) const noexcept { return data()[i]; }
  T& back() noexcept { return data()[_size - 1]; }

  void clear() noexcept { _size = 0; }
  void resize(size_type n) {  // new elements are left uninitialized (T is trivial)
    reserve(n);
    _size = n;
  }
  void reserve(size_type n) {
    if (n > _cap) grow_to(n);
  }
  void push_back(const T& v) {
    if (_size == _cap) {
      const T copy = v;  // |v| may alias our storage
      grow_to(_cap * 2);
      data()[_size++] = copy;
      return;
    }
    data()[_size++] = v;
  }
  void append(const T* p, size_type n) {
    if (_size + n > _cap) grow_to(std::max(_size + n, _cap * 2));
    std::memmove(data() + _size, p, n * sizeof(T));
    _size += n;
  }

 private:
  T* inline_data() noexcept { return reinterpret_cast<T*>(_inline); }
  const T* inline_data() const noexcept { return reinterpret_cast<const T*>(_inline); }

  void assign(const T* p, size_type n) {
    reserve(n);
    if (n) std::memcpy(data(), p, n * sizeof(T));
    _size = n;
  }
  void steal(small_vector& o) noexcept {
    if (o._heap) {
      _heap = o._heap;
      _cap = o._cap;
    } else {
      _heap = nullptr;
      _cap = N;
      if (o._size) std::memcpy(_inline, o._inline, o._size * sizeof(T));
    }
    _size = o._size;
    o._heap = nullptr;
    o._cap = N;
    o._size = 0;
  }
  void release() noexcept {
    if (_heap) ::operator delete(_heap, std::align_val_t(alignof(T)));
    _heap = nullptr;
    _cap = N;
  }
  void grow_to(size_type n) {
    T* p = static_cast<T*>(::operator new(n * sizeof(T), std::align_val_t(alignof(T))));
    if (_size) std::memcpy(p, data(), _size * sizeof(T));
    if (_heap) ::operator delete(_heap, std::align_val_t(alignof(T)));
    _heap = p;
    _cap = n;
  }

  T* _heap = nullptr;
  size_type _size = 0;
  size_type _cap = N;
  alignas(T) unsigned char _inline[N * sizeof(T)];
};

}  // namespace cuzk::r1cs::detail
