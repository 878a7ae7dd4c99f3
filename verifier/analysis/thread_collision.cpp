// thread_collision.cpp: the bounded integer search of thread_collision.h.
#include "ptxkit/verifier/analysis/thread_collision.h"

#include <algorithm>
#include <cstdlib>
#include <numeric>

namespace ptxkit::verifier::analysis {

namespace {

std::int64_t floor_div(std::int64_t a, std::int64_t b) {
  std::int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}
std::int64_t ceil_div(std::int64_t a, std::int64_t b) {
  return -floor_div(-a, b);
}

struct Search {
  const std::vector<SearchVar>& vars;
  const std::vector<SearchConstraint>& cons;
  bool other_warp;
  bool need_distinct;
  std::uint32_t budget;
  std::vector<std::uint32_t> order; // equation variables, then constrained zero-coef ones
  std::vector<std::int64_t> rest_min, rest_max, rest_gcd; // of order[k..]
  std::vector<std::vector<std::uint32_t>> check_at;       // constraints complete after level k
  std::vector<std::uint8_t> assigned;
  std::vector<std::int64_t> x;
  bool exhausted = false;

  bool differs_ok() {
    // Fix the free (unassigned) variables so that the threads differ, if they can.
    for (std::size_t i = 0; i < vars.size(); ++i) {
      const SearchVar& v = vars[i];
      if (v.twin < 0 || (other_warp && !v.warp_field)) continue;
      const auto j = static_cast<std::size_t>(v.twin);
      // A variable of one value is as good as assigned (leaf() gave it that value).
      auto fixed = [&](std::size_t k) { return assigned[k] || vars[k].hi == vars[k].lo; };
      if (fixed(i) && fixed(j)) {
        if (x[i] != x[j]) return true;
      } else if (!assigned[i] && v.hi > v.lo) {
        if (!assigned[j]) x[j] = vars[j].lo;
        x[i] = x[j] == v.lo ? v.lo + 1 : v.lo;
        if (x[i] != x[j]) return true;
      } else if (!assigned[j] && vars[j].hi > vars[j].lo) {
        x[j] = x[i] == vars[j].lo ? vars[j].lo + 1 : vars[j].lo;
        if (x[j] != x[i]) return true;
      }
    }
    return false;
  }

  bool leaf() {
    for (std::size_t i = 0; i < vars.size(); ++i)
      if (!assigned[i]) x[i] = vars[i].lo;
    for (const SearchConstraint& c : cons)
      if (!c.holds(x)) return false;
    return !need_distinct || differs_ok();
  }

  bool go(std::size_t k, std::int64_t lo, std::int64_t hi) {
    if (budget == 0) {
      exhausted = true;
      return false;
    }
    --budget;
    if (k == order.size()) return lo <= 0 && 0 <= hi && leaf();
    if (lo - rest_max[k] > 0 || hi - rest_min[k] < 0) return false;
    const std::int64_t g = rest_gcd[k];
    if (g > 1 && floor_div(hi, g) < ceil_div(lo, g)) return false;
    const std::uint32_t i = order[k];
    const SearchVar& v = vars[i];
    std::int64_t from = v.lo, to = v.hi;
    if (v.coef != 0) {
      // coef*x in [lo - rest_max, hi - rest_min] of the levels below.
      const std::int64_t a = lo - rest_max[k + 1], b = hi - rest_min[k + 1];
      std::int64_t l2 = v.coef > 0 ? ceil_div(a, v.coef) : ceil_div(b, v.coef);
      std::int64_t h2 = v.coef > 0 ? floor_div(b, v.coef) : floor_div(a, v.coef);
      from = std::max(from, l2), to = std::min(to, h2);
    }
    assigned[i] = 1;
    for (std::int64_t val = from; val <= to; ++val) {
      x[i] = val;
      bool ok = true;
      for (std::uint32_t c : check_at[k])
        ok = ok && cons[c].holds(x);
      if (ok && go(k + 1, lo - v.coef * val, hi - v.coef * val)) return true;
      if (exhausted) break;
    }
    assigned[i] = 0;
    return false;
  }
};

} // namespace

bool SearchConstraint::holds(const std::vector<std::int64_t>& x) const {
  std::int64_t s = constant;
  for (auto [i, c] : terms)
    s += c * x[i];
  switch (cmp) {
  case Cmp::kEq:
    return s == 0;
  case Cmp::kNe:
    return s != 0;
  case Cmp::kLt:
    return s < 0;
  case Cmp::kLe:
    return s <= 0;
  case Cmp::kGt:
    return s > 0;
  case Cmp::kGe:
    return s >= 0;
  }
  return false;
}

namespace {

SearchResult run_search(const std::vector<SearchVar>& vars,
                        const std::vector<SearchConstraint>& constraints, std::int64_t lo,
                        std::int64_t hi, bool other_warp, bool need_distinct,
                        std::uint32_t budget) {
  Search s{vars, constraints, other_warp, need_distinct, budget, {}, {}, {}, {}, {}, {}, {}};
  std::vector<std::uint8_t> constrained(vars.size(), 0);
  for (const SearchConstraint& c : constraints)
    for (auto [i, coef] : c.terms)
      constrained[i] = 1;
  for (std::uint32_t i = 0; i < vars.size(); ++i)
    if (vars[i].coef != 0) s.order.push_back(i);
  std::stable_sort(s.order.begin(), s.order.end(), [&](std::uint32_t a, std::uint32_t b) {
    return std::abs(vars[a].coef) > std::abs(vars[b].coef);
  });
  for (std::uint32_t i = 0; i < vars.size(); ++i)
    if (vars[i].coef == 0 && constrained[i]) s.order.push_back(i);
  const std::size_t n = s.order.size();
  s.rest_min.assign(n + 1, 0);
  s.rest_max.assign(n + 1, 0);
  s.rest_gcd.assign(n + 1, 0);
  for (std::size_t k = n; k-- > 0;) {
    const SearchVar& v = vars[s.order[k]];
    const std::int64_t a = v.coef * v.lo, b = v.coef * v.hi;
    s.rest_min[k] = s.rest_min[k + 1] + std::min(a, b);
    s.rest_max[k] = s.rest_max[k + 1] + std::max(a, b);
    // The gcd test needs the exact set of reachable sums' lattice: coef * x over a single value
    // is a constant shift, so only variables with a range take part.
    s.rest_gcd[k] = (v.hi > v.lo && v.coef != 0) ? std::gcd(s.rest_gcd[k + 1], std::abs(v.coef))
                                                 : s.rest_gcd[k + 1];
  }
  for (std::size_t k = 0; k <= n; ++k) {
    // Recompute the gcd so that it is only used where every remaining variable has a range or
    // no fixed variable follows (a fixed one would shift the lattice).
    bool fixed_after = false;
    for (std::size_t j = k; j < n; ++j)
      if (vars[s.order[j]].hi == vars[s.order[j]].lo && vars[s.order[j]].coef != 0)
        fixed_after = true;
    if (fixed_after) s.rest_gcd[k] = 0;
  }
  // Prune a branch as soon as the variables of a condition are all assigned.
  s.check_at.assign(n, {});
  std::vector<std::size_t> pos(vars.size(), n);
  for (std::size_t k = 0; k < n; ++k)
    pos[s.order[k]] = k;
  for (std::uint32_t c = 0; c < constraints.size(); ++c) {
    std::size_t last = 0;
    bool all = true;
    for (auto [i, coef] : constraints[c].terms) {
      if (pos[i] == n)
        all = false;
      else
        last = std::max(last, pos[i]);
    }
    if (all && !constraints[c].terms.empty()) s.check_at[last].push_back(c);
  }
  s.assigned.assign(vars.size(), 0);
  s.x.assign(vars.size(), 0);
  SearchResult r;
  r.found = s.go(0, lo, hi);
  r.exhausted = s.exhausted;
  if (r.found) r.values = s.x;
  return r;
}

} // namespace

SearchResult search_collision(const std::vector<SearchVar>& vars,
                              const std::vector<SearchConstraint>& constraints, std::int64_t lo,
                              std::int64_t hi, bool other_warp, std::uint32_t budget) {
  return run_search(vars, constraints, lo, hi, other_warp, true, budget);
}

SearchResult search_assignment(const std::vector<SearchVar>& vars,
                               const std::vector<SearchConstraint>& constraints,
                               std::uint32_t budget) {
  return run_search(vars, constraints, 0, 0, false, false, budget);
}

} // namespace ptxkit::verifier::analysis
