// thread_collision.cpp: the bounded integer search of thread_collision.h.
#include "ptxkit/verifier/analysis/thread_collision.h"

#include <algorithm>
#include <cstdlib>
#include <limits>
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

// Tightens [from, to] of variable i by every constraint that mentions it, the other variables
// taking any value in their bounds [lo, hi] (an assigned one: its value): sum(rest) + a*x_i + k
// cmp 0 leaves x_i in an interval (kNe is skipped). Sums in 128 bits: coefficients reach 2^40.
// false when the interval is empty.
bool tighten(const std::vector<SearchConstraint>& cons, const std::vector<std::uint32_t>& of_var,
             std::uint32_t i, const std::vector<std::int64_t>& lo,
             const std::vector<std::int64_t>& hi, std::int64_t& from, std::int64_t& to) {
  using Wide = __int128;
  constexpr Wide kHuge = Wide{1} << 100;
  for (std::uint32_t ci : of_var) {
    const SearchConstraint& c = cons[ci];
    if (c.cmp == SearchConstraint::Cmp::kNe) continue;
    Wide a = 0, rmin = c.constant, rmax = c.constant;
    for (auto [v, k] : c.terms) {
      if (v == i) {
        a += k;
        continue;
      }
      const Wide x = Wide{k} * lo[v], y = Wide{k} * hi[v];
      rmin += std::min(x, y), rmax += std::max(x, y);
    }
    if (a == 0) continue;
    // a*x + r cmp 0 for some r in [rmin, rmax]: a*x in [lower, upper].
    Wide lower = -kHuge, upper = kHuge;
    switch (c.cmp) {
    case SearchConstraint::Cmp::kEq:
      lower = -rmax, upper = -rmin;
      break;
    case SearchConstraint::Cmp::kLt:
      upper = -rmin - 1;
      break;
    case SearchConstraint::Cmp::kLe:
      upper = -rmin;
      break;
    case SearchConstraint::Cmp::kGt:
      lower = -rmax + 1;
      break;
    case SearchConstraint::Cmp::kGe:
      lower = -rmax;
      break;
    case SearchConstraint::Cmp::kNe:
      break;
    }
    if (a < 0) a = -a, std::swap(lower, upper), lower = -lower, upper = -upper;
    auto fdiv = [](Wide n, Wide d) { return n / d - ((n % d != 0 && n < 0) ? 1 : 0); };
    auto cdiv = [&](Wide n, Wide d) { return -fdiv(-n, d); };
    const Wide f = cdiv(lower, a), t = fdiv(upper, a);
    if (f > from) from = f > Wide{to} ? to + 1 : static_cast<std::int64_t>(f);
    if (from > to) return false;
    if (t < to) to = t < Wide{from} ? from - 1 : static_cast<std::int64_t>(t);
    if (from > to) return false;
  }
  return true;
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
  std::vector<std::int64_t> lo_, hi_;             // current bounds (assigned: the value)
  std::vector<std::vector<std::uint32_t>> of_var; // constraints mentioning each variable
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
    // Forward checking: the conditions bound this variable given the values so far.
    if (from <= to && !tighten(cons, of_var[i], i, lo_, hi_, from, to)) return false;
    assigned[i] = 1;
    const std::int64_t keep_lo = lo_[i], keep_hi = hi_[i];
    for (std::int64_t val = from; val <= to; ++val) {
      x[i] = val;
      lo_[i] = hi_[i] = val;
      bool ok = true;
      for (std::uint32_t c : check_at[k])
        ok = ok && cons[c].holds(x);
      if (ok && go(k + 1, lo - v.coef * val, hi - v.coef * val)) return true;
      if (exhausted) break;
    }
    lo_[i] = keep_lo, hi_[i] = keep_hi;
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

// Bounds propagation before any enumeration: each condition (and the equation, as
// lo <= sum <= hi) narrows every variable's range given the ranges of the others, to a fixpoint
// (a few rounds). Exact reasoning on intervals: no value it removes can be part of a solution.
// false when some range becomes empty (no solution at all).
bool propagate(std::vector<SearchVar>& vars, const std::vector<SearchConstraint>& cons,
               std::int64_t lo, std::int64_t hi) {
  std::vector<SearchConstraint> all = cons;
  SearchConstraint sum_lo, sum_hi;
  for (std::uint32_t i = 0; i < vars.size(); ++i)
    if (vars[i].coef != 0) sum_lo.terms.push_back({i, vars[i].coef});
  sum_hi.terms = sum_lo.terms;
  sum_lo.constant = -lo, sum_lo.cmp = SearchConstraint::Cmp::kGe;
  sum_hi.constant = -hi, sum_hi.cmp = SearchConstraint::Cmp::kLe;
  all.push_back(std::move(sum_lo));
  all.push_back(std::move(sum_hi));
  std::vector<std::vector<std::uint32_t>> of_var(vars.size());
  for (std::uint32_t c = 0; c < all.size(); ++c)
    for (auto [i, k] : all[c].terms)
      if (of_var[i].empty() || of_var[i].back() != c) of_var[i].push_back(c);
  std::vector<std::int64_t> l(vars.size()), h(vars.size());
  for (std::size_t i = 0; i < vars.size(); ++i)
    l[i] = vars[i].lo, h[i] = vars[i].hi;
  for (int round = 0; round < 8; ++round) {
    bool changed = false;
    for (std::uint32_t i = 0; i < vars.size(); ++i) {
      if (of_var[i].empty()) continue;
      std::int64_t from = l[i], to = h[i];
      if (!tighten(all, of_var[i], i, l, h, from, to)) return false;
      if (from != l[i] || to != h[i]) changed = true, l[i] = from, h[i] = to;
    }
    if (!changed) break;
  }
  for (std::size_t i = 0; i < vars.size(); ++i)
    vars[i].lo = l[i], vars[i].hi = h[i];
  return true;
}

SearchResult run_search(const std::vector<SearchVar>& in_vars,
                        const std::vector<SearchConstraint>& constraints, std::int64_t lo,
                        std::int64_t hi, bool other_warp, bool need_distinct,
                        std::uint32_t budget) {
  std::vector<SearchVar> vars = in_vars;
  if (!propagate(vars, constraints, lo, hi)) return {};
  Search s{vars, constraints, other_warp, need_distinct, budget, {}, {}, {}, {}, {}, {}, {},
           {},   {},          {}};
  s.of_var.assign(vars.size(), {});
  for (std::uint32_t c = 0; c < constraints.size(); ++c)
    for (auto [i, k] : constraints[c].terms)
      if (s.of_var[i].empty() || s.of_var[i].back() != c) s.of_var[i].push_back(c);
  s.lo_.resize(vars.size());
  s.hi_.resize(vars.size());
  for (std::size_t i = 0; i < vars.size(); ++i)
    s.lo_[i] = vars[i].lo, s.hi_[i] = vars[i].hi;
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

SearchResult CollisionSearches::find(const std::vector<SearchVar>& vars,
                                     const std::vector<SearchConstraint>& constraints,
                                     std::int64_t lo, std::int64_t hi, bool other_warp) {
  // Every input as bytes: the answer depends on nothing else.
  key_.clear();
  auto put = [&](std::int64_t v) { key_.append(reinterpret_cast<const char*>(&v), sizeof v); };
  put(lo);
  put(hi);
  put(other_warp);
  put(static_cast<std::int64_t>(vars.size()));
  for (const SearchVar& v : vars) {
    put(v.lo);
    put(v.hi);
    put(v.coef);
    put(v.twin);
    put(v.warp_field);
  }
  for (const SearchConstraint& c : constraints) {
    put(c.constant);
    put(static_cast<std::int64_t>(c.cmp));
    put(static_cast<std::int64_t>(c.terms.size()));
    for (auto [i, k] : c.terms) {
      put(i);
      put(k);
    }
  }
  auto it = answers_.find(key_);
  if (it == answers_.end())
    it = answers_.emplace(key_, search_collision(vars, constraints, lo, hi, other_warp)).first;
  return it->second;
}

} // namespace ptxkit::verifier::analysis
