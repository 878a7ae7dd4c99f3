// affine_rank.cpp: recognizing a thread's linear rank in its block among affine forms.
//
// Why: cooperative groups' thread_rank(), and hand-written flat indices, compute
// `(tid.z * ntid.y + tid.y) * ntid.x + tid.x`: products of thread values with %ntid, which the
// affine forms keep as opaque atoms. Yet with 0 <= tid.x < ntid.x (and 0 <= tid.y < ntid.y) the
// rank is different for any two threads of the block, whatever the block's shape: an address
// c * rank + U (U block-uniform) is touched by one thread only, and two accesses at U + k1 and
// U + k2 can meet only when a non-zero multiple of c is within their bytes' reach.
#include "ptxkit/verifier/analysis/affine_index.h"

namespace ptxkit::verifier::analysis {

// Whether the thread-dependent part of f is c * (tid.<dim> + ntid.<dim> * Y) with Y (the rest of
// the rank, dimensions dim + 1..) likewise, or c * tid.<dim> when the later dimensions have
// extent 1. Block-uniform terms are allowed anywhere (they are the same in both threads).
bool AffineIndex::rank_from(const AffineForm& f, int dim, std::int64_t c) const {
  if (dim > 2) return false;
  std::uint32_t fields = 0, seen = 0, product = 0;
  const AffineProduct* rest = nullptr;
  for (std::uint32_t id = 0; id < atoms_.size(); ++id)
    fields += atoms_[id].kind == AffineAtom::Kind::kTidField && atoms_[id].dim == dim;
  for (const AffineTerm& t : f.terms) {
    const AffineAtom& at = atoms_[t.atom];
    if (at.kind == AffineAtom::Kind::kTidField) {
      // Every field of tid.<dim> at c * 2^shift: the sum is c * tid.<dim>.
      if (at.dim != dim || t.coef != c * (std::int64_t{1} << at.shift)) return false;
      ++seen;
      continue;
    }
    if ((at.kind == AffineAtom::Kind::kSymbol || at.kind == AffineAtom::Kind::kOpaque) &&
        at.uniform)
      continue;
    if (at.kind != AffineAtom::Kind::kOpaque || t.coef != c || ++product > 1) return false;
    for (const AffineProduct& p : products_)
      if (p.atom == t.atom) rest = &p;
    if (rest == nullptr || rest->wide) return false;
  }
  // tid.<dim> whole, or absent where the dimension has extent 1 (tid.<dim> is 0).
  if (seen != fields && !(seen == 0 && max_tid_[dim] == 0)) return false;
  if (rest == nullptr) {
    for (int d = dim + 1; d < 3; ++d)
      if (max_tid_[d] != 0) return false;
    return true;
  }
  // The product ntid.<dim> * Y: Y the rank of the later dimensions, at scale 1.
  auto ntid = [&](const AffineForm& x) {
    return x.constant == 0 && x.terms.size() == 1 && x.terms[0].coef == 1 &&
           is_ntid(x.terms[0].atom, dim);
  };
  const AffineForm* y = ntid(rest->x) ? &rest->y : ntid(rest->y) ? &rest->x : nullptr;
  return y != nullptr && !uniform_form(*y) && rank_from(*y, dim + 1, 1);
}

std::int64_t AffineIndex::rank_scale(const AffineForm& f) const {
  std::int64_t c = 0;
  // The scale is tid.x's coefficient (its lowest field's), or the product's when tid.x is absent.
  for (const AffineTerm& t : f.terms) {
    const AffineAtom& at = atoms_[t.atom];
    if (at.kind == AffineAtom::Kind::kTidField && at.dim == 0) {
      if (t.coef % (std::int64_t{1} << at.shift) != 0) return 0;
      c = t.coef >> at.shift;
      break;
    }
  }
  if (c == 0) return 0;
  return rank_from(f, 0, c) ? c : 0;
}

} // namespace ptxkit::verifier::analysis
