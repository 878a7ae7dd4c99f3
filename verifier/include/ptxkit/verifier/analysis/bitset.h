// bitset.h: a dense, dynamically sized bitset, the lattice element of the block-level analyses.
//
// Why not std::vector<bool> or std::bitset: the dataflow analyses need word-wise join (|=, &=)
// that reports whether anything changed, and the sizes (registers, blocks) are only known at run
// time. Dense indices + word operations are what keep a multi-megabyte kernel linear-ish.
#pragma once

#include <bit>
#include <cassert>
#include <cstdint>
#include <ostream>
#include <vector>

namespace ptxkit::verifier::analysis {

class DenseBitset {
public:
  DenseBitset() = default;
  explicit DenseBitset(std::uint32_t size, bool value = false)
      : words_((size + 63) / 64, value ? ~std::uint64_t{0} : 0), size_(size) {
    clear_tail();
  }

  std::uint32_t size() const { return size_; }
  bool test(std::uint32_t i) const {
    assert(i < size_);
    return (words_[i / 64] >> (i % 64)) & 1;
  }
  void set(std::uint32_t i) {
    assert(i < size_);
    words_[i / 64] |= std::uint64_t{1} << (i % 64);
  }
  void reset(std::uint32_t i) {
    assert(i < size_);
    words_[i / 64] &= ~(std::uint64_t{1} << (i % 64));
  }
  void set_all() {
    for (auto& w : words_)
      w = ~std::uint64_t{0};
    clear_tail();
  }
  void reset_all() {
    for (auto& w : words_)
      w = 0;
  }
  bool any() const {
    for (auto w : words_)
      if (w) return true;
    return false;
  }
  std::uint32_t count() const {
    std::uint32_t n = 0;
    for (auto w : words_)
      n += static_cast<std::uint32_t>(std::popcount(w));
    return n;
  }
  // this |= o; returns whether a bit changed.
  bool union_with(const DenseBitset& o) {
    assert(o.size_ == size_);
    std::uint64_t changed = 0;
    for (std::size_t i = 0; i < words_.size(); ++i) {
      std::uint64_t n = words_[i] | o.words_[i];
      changed |= n ^ words_[i];
      words_[i] = n;
    }
    return changed != 0;
  }
  // this &= o; returns whether a bit changed.
  bool intersect_with(const DenseBitset& o) {
    assert(o.size_ == size_);
    std::uint64_t changed = 0;
    for (std::size_t i = 0; i < words_.size(); ++i) {
      std::uint64_t n = words_[i] & o.words_[i];
      changed |= n ^ words_[i];
      words_[i] = n;
    }
    return changed != 0;
  }
  // this &= ~o.
  void subtract(const DenseBitset& o) {
    assert(o.size_ == size_);
    for (std::size_t i = 0; i < words_.size(); ++i)
      words_[i] &= ~o.words_[i];
  }
  // Calls f(i) for every set bit, in increasing order.
  template <class F>
  void for_each(F&& f) const {
    for (std::size_t w = 0; w < words_.size(); ++w) {
      std::uint64_t bits = words_[w];
      while (bits) {
        int b = std::countr_zero(bits);
        f(static_cast<std::uint32_t>(w * 64 + static_cast<std::size_t>(b)));
        bits &= bits - 1;
      }
    }
  }
  friend bool operator==(const DenseBitset&, const DenseBitset&) = default;

  void print(std::ostream& os) const {
    os << '{';
    bool first = true;
    for_each([&](std::uint32_t i) {
      os << (first ? "" : ",") << i;
      first = false;
    });
    os << '}';
  }

private:
  void clear_tail() {
    if (size_ % 64 && !words_.empty()) words_.back() &= (std::uint64_t{1} << (size_ % 64)) - 1;
  }
  std::vector<std::uint64_t> words_;
  std::uint32_t size_ = 0;
};

} // namespace ptxkit::verifier::analysis
