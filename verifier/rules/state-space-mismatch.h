// state-space-mismatch.h: rule `state-space-mismatch`: an address of one state space used by an
// access (or conversion) of another.
//
// What it proves: for every ld/ldu/st/atom/red/ldmatrix/stmatrix/cp.async address whose
// provenance is known (address_provenance.h: traced through mov, cvt, add/sub, mad/mad.wide,
// masks, phis), that the address is in the form the access needs: an explicit-space access
// (`ld.shared`) gets an address in that space's window (`mov %r, smem`, `cvta.to.shared`), and
// a generic access (`ld`) gets a generic address (`cvta.shared`) or a global one. Reported: a
// shared/local/const/param window address in a generic or `.global` access (the missing `cvta`),
// a window address of another space (`ld.shared` of a `cvta.to.global` pointer), a generic
// address in an explicit-space access (missing `cvta.to.<space>`), and every `cvta`/`cvta.to`
// whose input is known to be in the wrong form or space (the wrong `cvta.to.*` for where a
// generic pointer points, converting an address that is already converted).
//
// Assumptions and limits: the global window and generic global addresses are treated as
// interchangeable (they are on every NVIDIA GPU), so `ld.global` of an unconverted kernel pointer
// is not reported; values read from memory or passed by a caller have unknown provenance and are
// never reported. A 64-bit generic offset added to a 32-bit shared address is reported only when
// the 64-bit value is itself a known address (Addr + Addr is "mixed", never reported). Severity:
// error.
#pragma once

#include "ptxkit/verifier/rule.h"

#include <memory>

namespace ptxkit::verifier {

std::unique_ptr<Rule> make_state_space_mismatch_rule();

} // namespace ptxkit::verifier
