// flat_lists.h: a list per node (its users, its children, its frontier) in one flat array.
//
// Why: the analyses keep such lists for every SSA value or block of a function, and a function
// can have millions of values; a std::vector per node costs an allocation and 24 bytes of header
// each, and made the largest inputs slow and several times their size in memory. Built in two
// passes over the same sequence of (node, item) pairs: one counts, one fills; each node's items
// keep the order of the sequence.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace ptxkit::verifier::analysis {

template <class T>
class FlatLists {
public:
  FlatLists() = default;

  // `for_each(emit)` must call `emit(node, item)` for every pair, the same pairs in the same
  // order each time it is called (it is called twice); nodes are < `nodes`.
  template <class ForEach>
  static FlatLists build(std::uint32_t nodes, ForEach&& for_each) {
    FlatLists f;
    f.begin_.assign(nodes + 1, 0);
    for_each([&](std::uint32_t node, const T&) { ++f.begin_[node + 1]; });
    for (std::uint32_t v = 0; v < nodes; ++v)
      f.begin_[v + 1] += f.begin_[v];
    f.items_.resize(f.begin_[nodes]);
    std::vector<std::uint32_t> next(f.begin_.begin(), f.begin_.end() - 1);
    for_each([&](std::uint32_t node, const T& item) { f.items_[next[node]++] = item; });
    return f;
  }

  std::span<const T> operator[](std::uint32_t node) const {
    return {items_.data() + begin_[node], items_.data() + begin_[node + 1]};
  }
  std::uint32_t nodes() const {
    return begin_.empty() ? 0 : static_cast<std::uint32_t>(begin_.size() - 1);
  }

private:
  std::vector<std::uint32_t> begin_; // node v's items: items_[begin_[v] .. begin_[v + 1])
  std::vector<T> items_;
};

} // namespace ptxkit::verifier::analysis
