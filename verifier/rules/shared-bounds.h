// shared-bounds.h: rule `shared-bounds`: a shared-memory access whose byte range, known as a
// constant or a constant range, falls outside the declared `.shared` variable.
//
// What it proves: for every shared access (ld/st/atom/red/ldmatrix/stmatrix .shared, or a
// generic access of a `cvta.shared` address) whose address derives from a `.shared` variable of
// known size with a known offset range [lo, hi] (address_provenance.h: immediates, %laneid,
// %tid bounded by .reqntid/.maxntid, arithmetic on those, hulls at phis), that
// lo >= 0 and hi + width <= size, where width is the access's bytes including the vector
// (`ld.shared.v4.f32` at size-8 reads 8 bytes past the end). Accesses with an unknown offset
// (a %tid without .reqntid/.maxntid, a loop induction variable, a loaded index) are not sites.
// Dynamic `.extern .shared` arrays (size unknown) are not-applicable for their accesses.
//
// Assumptions and limits: offsets are interval hulls without branch refinement: a loop counter
// bounded only by its exit test has no range (widened away), so loop-carried accesses are not
// checked; an access under `if (tid < k)` is checked against tid's full launch bound, which can
// over-approximate (a finding then names the bound it used). Severity: error.
#pragma once

#include "ptxkit/verifier/rule.h"

#include <memory>

namespace ptxkit::verifier {

std::unique_ptr<Rule> make_shared_bounds_rule();

} // namespace ptxkit::verifier
