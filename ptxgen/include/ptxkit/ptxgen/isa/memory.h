// isa/memory.h: kernel parameters, arrays, and the memory instructions: ld, st (scalar, .v2/.v4,
// predicated, .nc, cache operators), atom, red, cvta.
//
// The state space comes from the pointer's type, so `ld.shared` through a Ptr<Global, ...> or a
// store through a Ptr<..., const T> does not compile. Parameters are typed handles: param<U32>
// loads the value (ld.param) where it is declared, param<Ptr<Global, const F32>> loads the
// address and converts it to the global window (cvta.to.global), so the kernel body never names
// a parameter by string again.
#pragma once

#include "ptxkit/ptxgen/isa/common.h"
#include "ptxkit/ptxgen/isa/modifiers.h"

#include <array>
#include <cstdint>
#include <string_view>
#include <type_traits>
#include <vector>

namespace ptxkit::ptxgen {

namespace detail {
template <class S, class T, class I>
Ptr<S, T> index_ptr(const Ptr<S, T>& p, Reg<I> index, const Loc& loc);

template <class X>
struct ParamResult {
  using type = Reg<X>;
};
template <class S, class T>
struct ParamResult<Ptr<S, T>> {
  using type = Ptr<S, T>;
};
} // namespace detail

template <class B>
class MemoryOps {
public:
  // A kernel parameter: param<U32>("n") -> Reg<U32>; param<Ptr<Global, const F32>>("x") -> Ptr.
  // Parameters appear in the .entry signature in declaration order.
  template <class X>
  typename detail::ParamResult<X>::type param(std::string_view name, Loc loc = Loc::current()) {
    if constexpr (PtrType<X>) {
      return param_ptr<typename X::space, std::conditional_t<X::is_const, const typename X::element,
                                                             typename X::element>>(name, loc);
    } else {
      static_assert(PtxType<X> && !PredType<X>, "PTX: a parameter is a non-.pred type or a Ptr");
      TypeId t = detail::storage_type(X::id);
      std::string sym = self().declare_param(name, t, loc);
      Reg<X> r = self().template new_reg<X>();
      self().emit_op(Op::kLd, {Mod::kParam}, {t},
                     {Emitter::reg_op(r), Emitter::sym_addr_op(sym, 0)}, loc);
      return r;
    }
  }
  // A pointer parameter (a .u64 address): param_ptr<Global, const F32>("x").
  template <StateSpace S, PointeeType T>
  Ptr<S, T> param_ptr(std::string_view name, Loc loc = Loc::current()) {
    static_assert(std::is_same_v<S, Global> || std::is_same_v<S, Generic>,
                  "ptxgen: pointer parameters point into global or generic memory");
    std::string sym = self().declare_param(name, TypeId::kU64, loc);
    Reg<U64> raw = self().template new_reg<U64>();
    self().emit_op(Op::kLd, {Mod::kParam}, {TypeId::kU64},
                   {Emitter::reg_op(raw), Emitter::sym_addr_op(sym, 0)}, loc);
    if constexpr (std::is_same_v<S, Global>) {
      Reg<U64> g = self().template new_reg<U64>();
      self().emit_op(Op::kCvta, {Mod::kTo, Mod::kGlobal}, {TypeId::kU64},
                     {Emitter::reg_op(g), Emitter::reg_op(raw)}, loc);
      return Ptr<S, T>(&self(), g, 0);
    } else {
      return Ptr<S, T>(&self(), raw, 0);
    }
  }

  // `.shared .align A .T name[count];` and a pointer to its first element.
  template <PtxType T>
  Ptr<Shared, T> shared_array(std::string_view name, std::uint64_t count, std::uint32_t align = 0,
                              Loc loc = Loc::current()) {
    return array<Shared, T>(Mod::kShared, name, count, align, {}, loc);
  }
  // `.extern .shared .align A .T <kernel>_name[];` (module scope): the dynamic shared memory
  // whose size the launch gives; a pointer to its first element.
  template <PtxType T>
  Ptr<Shared, T> dynamic_shared(std::string_view name, std::uint32_t align = 16,
                                Loc loc = Loc::current()) {
    static_assert(!PredType<T>, "PTX: arrays hold non-.pred types");
    std::string sym = self().declare_dynamic_shared(name, detail::storage_type(T::id), align, loc);
    Reg<U32> base = self().template new_reg<U32>();
    self().emit_op(Op::kMov, {}, {TypeId::kU32}, {Emitter::reg_op(base), Emitter::symbol_op(sym)},
                   loc);
    return Ptr<Shared, T>(&self(), base, 0);
  }
  // `.local .align A .T name[count];` (per-thread scratch) and a pointer to it.
  template <PtxType T>
  Ptr<Local, T> local_array(std::string_view name, std::uint64_t count, std::uint32_t align = 0,
                            Loc loc = Loc::current()) {
    return array<Local, T>(Mod::kLocal, name, count, align, {}, loc);
  }
  // `.const .align A .T <kernel>_name[n] = {...};` (module scope) and a read-only pointer to it.
  template <PtxType T>
  Ptr<Const, const T> const_array(std::string_view name, const std::vector<Imm<T>>& values,
                                  std::uint32_t align = 0, Loc loc = Loc::current()) {
    std::vector<std::uint64_t> init;
    std::vector<std::int32_t> baked;
    for (const Imm<T>& v : values) {
      init.push_back(v.bits());
      baked.push_back(v.baked_index());
    }
    Ptr<Const, T> p = array<Const, T>(Mod::kConst, name, values.size(), align, std::move(init), loc,
                                      std::move(baked));
    return p;
  }

  // ld{.space}{.cop}.type d, [p]
  template <class S, class T, class C = NoCache>
  Reg<std::remove_const_t<T>> ld(Ptr<S, T> p, C cop = {}, Loc loc = Loc::current()) {
    return std::get<0>(load<1, false>(p, cop, loc));
  }
  // ld.global.nc.type d, [p]: read-only data path (the data must not change during the kernel).
  template <class T>
  Reg<std::remove_const_t<T>> ld_nc(Ptr<Global, T> p, Loc loc = Loc::current()) {
    return std::get<0>(load<1, true>(p, NoCache{}, loc));
  }
  // ld{.space}{.cop}.v2/.v4.type {a, b, ...}, [p] (p must be aligned to the vector's size)
  template <class S, class T, class C = NoCache>
  std::array<Reg<std::remove_const_t<T>>, 2> ld_v2(Ptr<S, T> p, C cop = {},
                                                   Loc loc = Loc::current()) {
    return load<2, false>(p, cop, loc);
  }
  template <class S, class T, class C = NoCache>
  std::array<Reg<std::remove_const_t<T>>, 4> ld_v4(Ptr<S, T> p, C cop = {},
                                                   Loc loc = Loc::current()) {
    return load<4, false>(p, cop, loc);
  }
  template <class T>
  std::array<Reg<std::remove_const_t<T>>, 2> ld_nc_v2(Ptr<Global, T> p, Loc loc = Loc::current()) {
    return load<2, true>(p, NoCache{}, loc);
  }
  template <class T>
  std::array<Reg<std::remove_const_t<T>>, 4> ld_nc_v4(Ptr<Global, T> p, Loc loc = Loc::current()) {
    return load<4, true>(p, NoCache{}, loc);
  }
  // Predicated load with a defined result: `mov d, fallback; @g ld d, [p];`
  template <class S, class T, class F>
  Reg<std::remove_const_t<T>> ld_or(Ptr<S, T> p, Guard g, const F& fallback,
                                    Loc loc = Loc::current()) {
    using E = std::remove_const_t<T>;
    detail::check_operand<F>();
    static_assert(std::is_same_v<detail::operand_or_void_t<F>, E>,
                  "ptxgen: the fallback of ld_or has the loaded element's type");
    Reg<E> d = self().template new_reg<E>();
    self().emit_mov(d.id(), E::id, Emitter::op(fallback), loc);
    auto scope = self().guard(g);
    emit_load<1, false, S, E>({d.id()}, p, NoCache{}, loc);
    return d;
  }

  // st{.space}{.cop}.type [p], a
  template <class S, class T, class A, class C = NoCache>
  void st(Ptr<S, T> p, const A& a, C cop = {}, Loc loc = Loc::current()) {
    detail::check_operand<A>();
    static_assert(std::is_same_v<detail::operand_or_void_t<A>, std::remove_const_t<T>>,
                  "PTX: the stored value has the pointer's element type (use cvt first)");
    store<1>(p, std::vector<Operand>{detail::source(self(), a, loc)}, cop, loc);
  }
  // st{.space}{.cop}.v2/.v4.type [p], {a, b, ...}
  template <class S, class T, class C = NoCache>
  void st_v2(Ptr<S, T> p, std::array<Reg<std::remove_const_t<T>>, 2> v, C cop = {},
             Loc loc = Loc::current()) {
    store<2>(p, {Emitter::vec_op({v[0].id(), v[1].id()})}, cop, loc);
  }
  template <class S, class T, class C = NoCache>
  void st_v4(Ptr<S, T> p, std::array<Reg<std::remove_const_t<T>>, 4> v, C cop = {},
             Loc loc = Loc::current()) {
    store<4>(p, {Emitter::vec_op({v[0].id(), v[1].id(), v[2].id(), v[3].id()})}, cop, loc);
  }

  // Explicit-space spellings, as in PTX: `ld.shared`/`st.global`. The space must be the
  // pointer's own: ld_shared through a Ptr<Global, ...> does not compile.
  template <StateSpace Want, class S, class T, class C = NoCache>
  Reg<std::remove_const_t<T>> ld_in(Ptr<S, T> p, C cop = {}, Loc loc = Loc::current()) {
    static_assert(std::is_same_v<Want, S>,
                  "PTX: ld.<space> needs a pointer of that state space (the pointer's type names "
                  "another space; a generic address would need cvta)");
    return ld(p, cop, loc);
  }
  template <StateSpace Want, class S, class T, class A, class C = NoCache>
  void st_in(Ptr<S, T> p, const A& a, C cop = {}, Loc loc = Loc::current()) {
    static_assert(std::is_same_v<Want, S>,
                  "PTX: st.<space> needs a pointer of that state space (the pointer's type names "
                  "another space; a generic address would need cvta)");
    st(p, a, cop, loc);
  }
  template <class S, class T>
  Reg<std::remove_const_t<T>> ld_shared(Ptr<S, T> p, Loc loc = Loc::current()) {
    return ld_in<Shared>(p, NoCache{}, loc);
  }
  template <class S, class T>
  Reg<std::remove_const_t<T>> ld_global(Ptr<S, T> p, Loc loc = Loc::current()) {
    return ld_in<Global>(p, NoCache{}, loc);
  }
  template <class S, class T, class A>
  void st_shared(Ptr<S, T> p, const A& a, Loc loc = Loc::current()) {
    st_in<Shared>(p, a, NoCache{}, loc);
  }
  template <class S, class T, class A>
  void st_global(Ptr<S, T> p, const A& a, Loc loc = Loc::current()) {
    st_in<Global>(p, a, NoCache{}, loc);
  }

  // atom{.space}.op.type d, [p], a: the old value. add: u32 s32 u64 f32 f64; min/max: u32 s32
  // u64 s64; and/or/xor/exch: b32 b64 (any 32/64-bit integer); inc/dec: u32.
  template <class S, class T, class A>
  auto atom_add(Ptr<S, T> p, const A& a, Loc loc = Loc::current()) {
    return atomic<Mod::kOpAdd, true>(p, a, loc);
  }
  template <class S, class T, class A>
  auto atom_min(Ptr<S, T> p, const A& a, Loc loc = Loc::current()) {
    return atomic<Mod::kOpMin, true>(p, a, loc);
  }
  template <class S, class T, class A>
  auto atom_max(Ptr<S, T> p, const A& a, Loc loc = Loc::current()) {
    return atomic<Mod::kOpMax, true>(p, a, loc);
  }
  template <class S, class T, class A>
  auto atom_and(Ptr<S, T> p, const A& a, Loc loc = Loc::current()) {
    return atomic<Mod::kOpAnd, true>(p, a, loc);
  }
  template <class S, class T, class A>
  auto atom_or(Ptr<S, T> p, const A& a, Loc loc = Loc::current()) {
    return atomic<Mod::kOpOr, true>(p, a, loc);
  }
  template <class S, class T, class A>
  auto atom_xor(Ptr<S, T> p, const A& a, Loc loc = Loc::current()) {
    return atomic<Mod::kOpXor, true>(p, a, loc);
  }
  template <class S, class T, class A>
  auto atom_exch(Ptr<S, T> p, const A& a, Loc loc = Loc::current()) {
    return atomic<Mod::kExch, true>(p, a, loc);
  }
  template <class S, class T, class A>
  auto atom_inc(Ptr<S, T> p, const A& a, Loc loc = Loc::current()) {
    return atomic<Mod::kOpInc, true>(p, a, loc);
  }
  // atom{.space}.cas.bN d, [p], compare, value
  template <class S, class T, class A, class C>
  auto atom_cas(Ptr<S, T> p, const A& compare, const C& value, Loc loc = Loc::current()) {
    using E = std::remove_const_t<T>;
    check_atomic_ptr<S, T>();
    detail::check_operand<A>();
    detail::check_operand<C>();
    static_assert(std::is_same_v<detail::operand_or_void_t<A>, E> &&
                      std::is_same_v<detail::operand_or_void_t<C>, E>,
                  "PTX: atom.cas operands have the pointer's element type");
    static_assert(IntegralType<E> && E::bits >= 32, "PTX: atom.cas takes .b32/.b64");
    Reg<E> d = self().template new_reg<E>();
    self().emit_op(Op::kAtom, space_mods<S>(Mod::kCas), {bits_of_t<E>::id},
                   {Emitter::reg_op(d), addr(p), Emitter::op(compare), Emitter::op(value)}, loc);
    return d;
  }
  // red{.space}.op.type [p], a: atomic update without a result.
  template <class S, class T, class A>
  void red_add(Ptr<S, T> p, const A& a, Loc loc = Loc::current()) {
    atomic<Mod::kOpAdd, false>(p, a, loc);
  }
  template <class S, class T, class A>
  void red_min(Ptr<S, T> p, const A& a, Loc loc = Loc::current()) {
    atomic<Mod::kOpMin, false>(p, a, loc);
  }
  template <class S, class T, class A>
  void red_max(Ptr<S, T> p, const A& a, Loc loc = Loc::current()) {
    atomic<Mod::kOpMax, false>(p, a, loc);
  }
  template <class S, class T, class A>
  void red_and(Ptr<S, T> p, const A& a, Loc loc = Loc::current()) {
    atomic<Mod::kOpAnd, false>(p, a, loc);
  }
  template <class S, class T, class A>
  void red_or(Ptr<S, T> p, const A& a, Loc loc = Loc::current()) {
    atomic<Mod::kOpOr, false>(p, a, loc);
  }

  // cvta.to.global.u64: a generic address held in a register (e.g. loaded from a pointer array
  // in memory) as a typed global pointer. The caller asserts that it points at T elements.
  template <PointeeType T>
  Ptr<Global, T> global_ptr(Reg<U64> generic_address, Loc loc = Loc::current()) {
    Reg<U64> g = self().template new_reg<U64>();
    self().emit_op(Op::kCvta, {Mod::kTo, Mod::kGlobal}, {TypeId::kU64},
                   {Emitter::reg_op(g), Emitter::reg_op(generic_address)}, loc);
    return Ptr<Global, T>(&self(), g, 0);
  }
  // The element `index` of p (a register), recording the caller's line for .loc (p + index
  // records builder.h). Same instructions as `p + index`.
  template <class S, class T, class I>
  Ptr<S, T> element(Ptr<S, T> p, Reg<I> index, Loc loc = Loc::current()) {
    return detail::index_ptr(p, index, loc);
  }

  // cvta.shared.u64: a shared pointer as a generic address.
  template <class T>
  Ptr<Generic, T> to_generic(Ptr<Shared, T> p, Loc loc = Loc::current()) {
    Reg<U64> wide = self().template new_reg<U64>();
    self().emit_op(Op::kCvt, {}, {TypeId::kU64, TypeId::kU32},
                   {Emitter::reg_op(wide), Emitter::reg_op(p.base())}, loc);
    Reg<U64> g = self().template new_reg<U64>();
    self().emit_op(Op::kCvta, {Mod::kShared}, {TypeId::kU64},
                   {Emitter::reg_op(g), Emitter::reg_op(wide)}, loc);
    return Ptr<Generic, T>(&self(), g, p.offset());
  }

private:
  B& self() { return static_cast<B&>(*this); }

  template <class S>
  static std::vector<Mod> space_mods(Mod tail) {
    std::vector<Mod> mods;
    if constexpr (S::has_mod) mods.push_back(S::mod);
    mods.push_back(tail);
    return mods;
  }

  template <class S, class T>
  static Operand addr(Ptr<S, T> p) {
    return Emitter::addr_op(p.base().id(), p.offset());
  }

  template <class S, class T>
  Ptr<S, T> array(Mod space, std::string_view name, std::uint64_t count, std::uint32_t align,
                  std::vector<std::uint64_t> init, const Loc& loc,
                  std::vector<std::int32_t> baked = {}) {
    static_assert(PtxType<T> && !PredType<T>, "PTX: arrays hold non-.pred types");
    std::uint32_t natural = T::bits / 8;
    std::string sym =
        self().declare_array(space, name, detail::storage_type(T::id), count,
                             align == 0 ? natural : align, std::move(init), loc, std::move(baked));
    using A = typename S::addr_type;
    Reg<A> base = self().template new_reg<A>();
    self().emit_op(Op::kMov, {}, {A::id}, {Emitter::reg_op(base), Emitter::symbol_op(sym)}, loc);
    return Ptr<S, T>(&self(), base, 0);
  }

  template <int N, bool Nc, class S, class T, class C>
  std::array<Reg<std::remove_const_t<T>>, N> load(Ptr<S, T> p, C cop, const Loc& loc) {
    using E = std::remove_const_t<T>;
    std::array<Reg<E>, N> out = make_regs<E, N>(std::make_integer_sequence<int, N>{});
    std::vector<std::uint32_t> ids;
    for (const Reg<E>& r : out)
      ids.push_back(r.id());
    emit_load<N, Nc, S, E>(std::move(ids), p, cop, loc);
    return out;
  }
  template <class E, int N, int... I>
  std::array<Reg<E>, N> make_regs(std::integer_sequence<int, I...>) {
    return {((void)I, self().template new_reg<E>())...};
  }

  // ld/st modifiers in PTX order: .space .nc .cop .v2/.v4
  template <int N, bool Nc, class S, class E, class C>
  static std::vector<Mod> access_mods() {
    if constexpr (!std::is_same_v<C, NoCache>) {
      static_assert(std::is_same_v<S, Global> || std::is_same_v<S, Local> ||
                        std::is_same_v<S, Generic>,
                    "PTX: cache operators apply to global, local and generic accesses");
    }
    static_assert(N == 1 || E::bits * N <= 128, "PTX: a vector access moves at most 128 bits");
    std::vector<Mod> mods;
    if constexpr (S::has_mod) mods.push_back(S::mod);
    if constexpr (Nc) mods.push_back(Mod::kNc);
    if constexpr (!std::is_same_v<C, NoCache>) mods.push_back(C::mod);
    if constexpr (N == 2) mods.push_back(Mod::kV2);
    if constexpr (N == 4) mods.push_back(Mod::kV4);
    return mods;
  }

  template <int N, bool Nc, class S, class E, class T, class C>
  void emit_load(std::vector<std::uint32_t> ids, Ptr<S, T> p, C, const Loc& loc) {
    static_assert(CacheOperator<C>, "ptxgen: the third ld argument is a cache operator "
                                    "(cache::ca, cg, cs, lu, cv)");
    if constexpr (!std::is_same_v<C, NoCache>) {
      static_assert(C::on_load, "PTX: loads take the cache operators .ca .cg .cs .lu .cv "
                                "(.wb and .wt are for stores)");
    }
    std::vector<Mod> mods = access_mods<N, Nc, S, E, C>();
    Operand dst = N == 1 ? Operand{} : Emitter::vec_op(ids);
    if constexpr (N == 1) {
      dst.kind = OperandKind::kReg;
      dst.reg = ids[0];
    }
    self().emit_op(Op::kLd, std::move(mods), {detail::storage_type(E::id)}, {dst, addr(p)}, loc);
  }

  template <int N, class S, class T, class C>
  void store(Ptr<S, T> p, std::vector<Operand> value, C, const Loc& loc) {
    using E = std::remove_const_t<T>;
    static_assert(!std::is_const_v<T>, "PTX: cannot store through a pointer to const data "
                                       "(Ptr<Space, const T>)");
    static_assert(!std::is_same_v<S, Const> && !std::is_same_v<S, Param>,
                  "PTX: the .const and kernel .param spaces are read-only");
    static_assert(CacheOperator<C>, "ptxgen: the last st argument is a cache operator "
                                    "(cache::wb, cg, cs, wt)");
    if constexpr (!std::is_same_v<C, NoCache>) {
      static_assert(C::on_store, "PTX: stores take the cache operators .wb .cg .cs .wt");
    }
    std::vector<Mod> mods = access_mods<N, false, S, E, C>();
    std::vector<Operand> ops{addr(p)};
    for (Operand& o : value)
      ops.push_back(std::move(o));
    self().emit_op(Op::kSt, std::move(mods), {detail::storage_type(E::id)}, std::move(ops), loc);
  }

  template <class S, class T>
  static constexpr void check_atomic_ptr() {
    static_assert(std::is_same_v<S, Global> || std::is_same_v<S, Shared> ||
                      std::is_same_v<S, Generic>,
                  "PTX: atom/red work on global, shared or generic addresses");
    static_assert(!std::is_const_v<T>, "PTX: atom/red write memory: not through a const pointer");
  }

  template <Mod M, bool Result, class S, class T, class A>
  auto atomic(Ptr<S, T> p, const A& a, const Loc& loc) {
    using E = std::remove_const_t<T>;
    check_atomic_ptr<S, T>();
    detail::check_operand<A>();
    static_assert(std::is_same_v<detail::operand_or_void_t<A>, E>,
                  "PTX: the atom/red operand has the pointer's element type");
    TypeId t = E::id;
    if constexpr (M == Mod::kOpAdd) {
      static_assert(std::is_same_v<E, U32> || std::is_same_v<E, S32> || std::is_same_v<E, U64> ||
                        std::is_same_v<E, F32> || std::is_same_v<E, F64>,
                    "PTX: atom/red.add take u32 s32 u64 f32 f64");
    } else if constexpr (M == Mod::kOpMin || M == Mod::kOpMax) {
      static_assert(IntType<E> && E::bits >= 32, "PTX: atom/red.min/max take u32 s32 u64 s64");
    } else if constexpr (M == Mod::kOpInc || M == Mod::kOpDec) {
      static_assert(std::is_same_v<E, U32>, "PTX: atom.inc/dec take u32");
    } else {
      static_assert(IntegralType<E> && E::bits >= 32,
                    "PTX: atom/red and/or/xor/exch take .b32/.b64");
      t = bits_of_t<E>::id;
    }
    if constexpr (Result) {
      Reg<E> d = self().template new_reg<E>();
      self().emit_op(Op::kAtom, space_mods<S>(M), {t},
                     {Emitter::reg_op(d), addr(p), Emitter::op(a)}, loc);
      return d;
    } else {
      self().emit_op(Op::kRed, space_mods<S>(M), {t}, {addr(p), Emitter::op(a)}, loc);
    }
  }
};

} // namespace ptxkit::ptxgen
