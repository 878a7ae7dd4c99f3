// isa/modifiers.h: PTX modifiers as tag values: rounding, approx/full, ftz, sat, cache operators,
// comparisons, memory scopes and fence semantics.
//
// Modifiers combine with `|` into one Mods<...> type (`rn | ftz`), so an instruction has a single
// template parameter for them and can check the combination with a static_assert that names the
// PTX rule (CCCL cuda::ptx style). Spellings come from the ISA table (ptxkit/isa/modifiers.def)
// through the Mod enum.
#pragma once

#include "ptxkit/ptxgen/isa/table.h"

#include <cstdint>
#include <vector>

namespace ptxkit::ptxgen {

enum class Rnd : std::uint8_t { kNone, kRn, kRz, kRm, kRp, kRni, kRzi, kRmi, kRpi };
enum class Precision : std::uint8_t { kDefault, kApprox, kFull };

constexpr bool is_float_rounding(Rnd r) {
  return r == Rnd::kRn || r == Rnd::kRz || r == Rnd::kRm || r == Rnd::kRp;
}
constexpr bool is_int_rounding(Rnd r) {
  return r == Rnd::kRni || r == Rnd::kRzi || r == Rnd::kRmi || r == Rnd::kRpi;
}

// A set of arithmetic modifiers. Build with the constants below and `|`.
template <Rnd R = Rnd::kNone, Precision P = Precision::kDefault, bool Ftz = false, bool Sat = false>
struct Mods {
  static constexpr Rnd rnd = R;
  static constexpr Precision precision = P;
  static constexpr bool ftz = Ftz;
  static constexpr bool sat = Sat;
  static constexpr bool none = R == Rnd::kNone && P == Precision::kDefault && !Ftz && !Sat;
};
using NoMods = Mods<>;

template <class X>
struct IsMods : std::false_type {};
template <Rnd R, Precision P, bool F, bool S>
struct IsMods<Mods<R, P, F, S>> : std::true_type {};
template <class X>
concept ModSet = IsMods<X>::value;

template <Rnd R1, Precision P1, bool F1, bool S1, Rnd R2, Precision P2, bool F2, bool S2>
constexpr auto operator|(Mods<R1, P1, F1, S1>, Mods<R2, P2, F2, S2>) {
  static_assert(R1 == Rnd::kNone || R2 == Rnd::kNone,
                "PTX: an instruction takes at most one rounding modifier");
  static_assert(P1 == Precision::kDefault || P2 == Precision::kDefault,
                "PTX: .approx and .full are mutually exclusive and given at most once");
  static_assert(!(F1 && F2), "PTX: .ftz given twice");
  static_assert(!(S1 && S2), "PTX: .sat given twice");
  return Mods < (R1 != Rnd::kNone ? R1 : R2), (P1 != Precision::kDefault ? P1 : P2), F1 || F2,
         S1 || S2 > {};
}

inline constexpr Mods<Rnd::kRn> rn{};
inline constexpr Mods<Rnd::kRz> rz{};
inline constexpr Mods<Rnd::kRm> rm{};
inline constexpr Mods<Rnd::kRp> rp{};
inline constexpr Mods<Rnd::kRni> rni{};
inline constexpr Mods<Rnd::kRzi> rzi{};
inline constexpr Mods<Rnd::kRmi> rmi{};
inline constexpr Mods<Rnd::kRpi> rpi{};
inline constexpr Mods<Rnd::kNone, Precision::kApprox> approx{};
inline constexpr Mods<Rnd::kNone, Precision::kFull> full{};
inline constexpr Mods<Rnd::kNone, Precision::kDefault, true> ftz{};
inline constexpr Mods<Rnd::kNone, Precision::kDefault, false, true> sat{};

// Appends the modifiers of M in PTX order: rounding/approx/full, .ftz, .sat.
template <ModSet M>
void append_mods(std::vector<Mod>& out) {
  constexpr Mod kRndMods[] = {Mod::kRn,  Mod::kRn,  Mod::kRz,  Mod::kRm, Mod::kRp,
                              Mod::kRni, Mod::kRzi, Mod::kRmi, Mod::kRpi};
  if constexpr (M::rnd != Rnd::kNone) out.push_back(kRndMods[static_cast<int>(M::rnd)]);
  if constexpr (M::precision == Precision::kApprox) out.push_back(Mod::kApprox);
  if constexpr (M::precision == Precision::kFull) out.push_back(Mod::kFull);
  if constexpr (M::ftz) out.push_back(Mod::kFtz);
  if constexpr (M::sat) out.push_back(Mod::kSat);
}

// Cache operators. Load: .ca .cg .cs .lu .cv; store: .wb .cg .cs .wt.
template <Mod M, bool Load, bool Store>
struct CacheOp {
  static constexpr Mod mod = M;
  static constexpr bool on_load = Load;
  static constexpr bool on_store = Store;
};
struct NoCache {};
namespace cache {
inline constexpr CacheOp<Mod::kCa, true, false> ca{};
inline constexpr CacheOp<Mod::kCg, true, true> cg{};
inline constexpr CacheOp<Mod::kCs, true, true> cs{};
inline constexpr CacheOp<Mod::kLu, true, false> lu{};
inline constexpr CacheOp<Mod::kCv, true, false> cv{};
inline constexpr CacheOp<Mod::kWb, false, true> wb{};
inline constexpr CacheOp<Mod::kWt, false, true> wt{};
} // namespace cache
template <class X>
struct IsCacheOp : std::false_type {};
template <Mod M, bool L, bool S>
struct IsCacheOp<CacheOp<M, L, S>> : std::true_type {};
template <class X>
concept CacheOperator = IsCacheOp<X>::value || std::is_same_v<X, NoCache>;

// Comparisons for setp. Ordered: lt/le/gt/ge need a signed, unsigned or float type (not b*).
// Unordered (equ.. nan, num) exist for floats only.
template <Mod M, bool Ordering, bool FloatOnly>
struct Cmp {
  static constexpr Mod mod = M;
  static constexpr bool ordering = Ordering;
  static constexpr bool float_only = FloatOnly;
};
namespace cmp {
inline constexpr Cmp<Mod::kEq, false, false> eq{};
inline constexpr Cmp<Mod::kNe, false, false> ne{};
inline constexpr Cmp<Mod::kLt, true, false> lt{};
inline constexpr Cmp<Mod::kLe, true, false> le{};
inline constexpr Cmp<Mod::kGt, true, false> gt{};
inline constexpr Cmp<Mod::kGe, true, false> ge{};
inline constexpr Cmp<Mod::kEqu, true, true> equ{};
inline constexpr Cmp<Mod::kNeu, true, true> neu{};
inline constexpr Cmp<Mod::kLtu, true, true> ltu{};
inline constexpr Cmp<Mod::kLeu, true, true> leu{};
inline constexpr Cmp<Mod::kGtu, true, true> gtu{};
inline constexpr Cmp<Mod::kGeu, true, true> geu{};
inline constexpr Cmp<Mod::kNum, true, true> num{};
inline constexpr Cmp<Mod::kNan, true, true> nan{};
} // namespace cmp
template <class X>
struct IsCmp : std::false_type {};
template <Mod M, bool O, bool F>
struct IsCmp<Cmp<M, O, F>> : std::true_type {};
template <class X>
concept Comparison = IsCmp<X>::value;

// Memory scopes (membar spells gpu as .gl) and fence semantics.
// `form`: the ISA table's record of a scope newer than fence itself (kNone: none).
template <Mod M, Mod MembarM, isa::Form F = isa::Form::kNone>
struct Scope {
  static constexpr Mod mod = M;
  static constexpr Mod membar_mod = MembarM;
  static constexpr isa::Form form = F;
};
namespace scope {
inline constexpr Scope<Mod::kCta, Mod::kCta> cta{};
inline constexpr Scope<Mod::kGpu, Mod::kGl> gpu{};
inline constexpr Scope<Mod::kSys, Mod::kSys> sys{};
inline constexpr Scope<Mod::kCluster, Mod::kCluster, isa::Form::kFenceCluster> cluster{};
} // namespace scope
template <Mod M>
struct FenceSem {
  static constexpr Mod mod = M;
};
namespace sem {
inline constexpr FenceSem<Mod::kSc> sc{};
inline constexpr FenceSem<Mod::kAcqRel> acq_rel{};
} // namespace sem

} // namespace ptxkit::ptxgen
