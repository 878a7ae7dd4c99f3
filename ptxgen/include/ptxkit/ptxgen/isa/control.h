// isa/control.h: control flow, synchronisation, warp-level and special-register instructions:
// bra (plain, .uni, predicated), ret, exit, bar.sync, membar, fence, shfl.sync, vote.sync, and
// reads of %tid/%ntid/%ctaid/%nctaid/%laneid/%warpid.
//
// Labels are checked when the kernel is finished: one used but never placed, or placed twice, is
// an error naming the label and the C++ line (Emitter::finish), never a ptxas surprise.
// After a shfl.down reduction only lane 0 holds the full result: use shfl_bfly
// (butterfly) when every lane needs it, or broadcast with shfl_idx from lane 0.
#pragma once

#include "ptxkit/ptxgen/isa/common.h"
#include "ptxkit/ptxgen/isa/convert.h"
#include "ptxkit/ptxgen/isa/modifiers.h"

#include <cstdint>
#include <type_traits>

namespace ptxkit::ptxgen {

inline constexpr std::uint32_t kFullWarpMask = 0xffffffffu;

template <class B>
class ControlOps {
public:
  // bra l
  void bra(Label l, Loc loc = Loc::current()) { branch(l, false, loc); }
  // bra.uni l: the branch is known warp-uniform
  void bra_uni(Label l, Loc loc = Loc::current()) { branch(l, true, loc); }
  // @p bra l / @!p bra l (pass `!p`)
  void bra_if(Guard g, Label l, Loc loc = Loc::current()) {
    auto scope = self().guard(g);
    branch(l, false, loc);
  }
  void ret(Loc loc = Loc::current()) { self().emit_op(Op::kRet, {}, {}, {}, loc); }
  void exit(Loc loc = Loc::current()) { self().emit_op(Op::kExit, {}, {}, {}, loc); }

  // bar.sync id; / bar.sync id, nthreads; (CTA barrier; every thread of the CTA must reach it)
  void bar_sync(std::uint32_t id = 0, Loc loc = Loc::current()) {
    self().emit_op(Op::kBar, {Mod::kSync}, {}, {Emitter::imm_op(imm<U32>(id))}, loc);
  }
  void bar_sync(std::uint32_t id, std::uint32_t nthreads, Loc loc = Loc::current()) {
    self().emit_op(Op::kBar, {Mod::kSync}, {},
                   {Emitter::imm_op(imm<U32>(id)), Emitter::imm_op(imm<U32>(nthreads))}, loc);
  }
  // bar.warp.sync mask: the lanes in mask wait for each other (warp-synchronous code)
  void bar_warp_sync(std::uint32_t mask = kFullWarpMask, Loc loc = Loc::current()) {
    self().emit_op(Op::kBar, {Mod::kWarp, Mod::kSync}, {}, {Emitter::imm_op(imm<U32>(mask))}, loc);
  }
  // membar.cta / membar.gl / membar.sys
  template <class S>
  void membar(S, Loc loc = Loc::current()) {
    static_assert(S::form == isa::Form::kNone,
                  "PTX: membar levels are .cta, .gl (scope::gpu) and .sys");
    self().emit_op(Op::kMembar, {S::membar_mod}, {}, {}, loc);
  }
  // fence.sc.scope / fence.acq_rel.scope
  template <class Sem, class S>
  void fence(Sem, S, Loc loc = Loc::current()) {
    if constexpr (S::form != isa::Form::kNone) self().require(S::form, loc);
    self().emit_op(Op::kFence, {Sem::mod, S::mod}, {}, {}, loc);
  }

  // shfl.sync.mode.b32 d, a, b, c, mask. b: lane delta/mask/index (u32 register or imm);
  // c: clamp/segment value (31 for down/bfly/idx over a full warp, 0 for up).
  template <class A, class L>
  auto shfl_down(const A& a, const L& b, std::uint32_t c = 31, std::uint32_t mask = kFullWarpMask,
                 Loc loc = Loc::current()) {
    return shfl(Mod::kDown, a, b, c, mask, loc);
  }
  template <class A, class L>
  auto shfl_up(const A& a, const L& b, std::uint32_t c = 0, std::uint32_t mask = kFullWarpMask,
               Loc loc = Loc::current()) {
    return shfl(Mod::kUp, a, b, c, mask, loc);
  }
  template <class A, class L>
  auto shfl_bfly(const A& a, const L& b, std::uint32_t c = 31, std::uint32_t mask = kFullWarpMask,
                 Loc loc = Loc::current()) {
    return shfl(Mod::kBfly, a, b, c, mask, loc);
  }
  template <class A, class L>
  auto shfl_idx(const A& a, const L& b, std::uint32_t c = 31, std::uint32_t mask = kFullWarpMask,
                Loc loc = Loc::current()) {
    return shfl(Mod::kIdx, a, b, c, mask, loc);
  }

  // vote.sync.all/any/uni.pred d, p, mask
  Reg<Pred> vote_all(Reg<Pred> p, std::uint32_t mask = kFullWarpMask, Loc loc = Loc::current()) {
    return vote(Mod::kAll, p, mask, loc);
  }
  Reg<Pred> vote_any(Reg<Pred> p, std::uint32_t mask = kFullWarpMask, Loc loc = Loc::current()) {
    return vote(Mod::kAny, p, mask, loc);
  }
  Reg<Pred> vote_uni(Reg<Pred> p, std::uint32_t mask = kFullWarpMask, Loc loc = Loc::current()) {
    return vote(Mod::kUni, p, mask, loc);
  }
  // vote.sync.ballot.b32 d, p, mask: bit i set when lane i's p is true
  Reg<B32> vote_ballot(Reg<Pred> p, std::uint32_t mask = kFullWarpMask, Loc loc = Loc::current()) {
    Reg<B32> d = self().template new_reg<B32>();
    self().emit_op(Op::kVote, {Mod::kSync, Mod::kBallot}, {TypeId::kB32},
                   {Emitter::reg_op(d), Emitter::reg_op(p), Emitter::imm_op(imm<U32>(mask))}, loc);
    return d;
  }

  // mov.u32 d, %sreg
  Reg<U32> sreg(Sreg r, Loc loc = Loc::current()) {
    Reg<U32> d = self().template new_reg<U32>();
    self().emit_op(Op::kMov, {}, {TypeId::kU32}, {Emitter::reg_op(d), Emitter::sreg_op(r)}, loc);
    return d;
  }
  Reg<U32> tid_x(Loc loc = Loc::current()) { return sreg(Sreg::kTidX, loc); }
  Reg<U32> tid_y(Loc loc = Loc::current()) { return sreg(Sreg::kTidY, loc); }
  Reg<U32> tid_z(Loc loc = Loc::current()) { return sreg(Sreg::kTidZ, loc); }
  Reg<U32> ntid_x(Loc loc = Loc::current()) { return sreg(Sreg::kNtidX, loc); }
  Reg<U32> ntid_y(Loc loc = Loc::current()) { return sreg(Sreg::kNtidY, loc); }
  Reg<U32> ntid_z(Loc loc = Loc::current()) { return sreg(Sreg::kNtidZ, loc); }
  Reg<U32> ctaid_x(Loc loc = Loc::current()) { return sreg(Sreg::kCtaidX, loc); }
  Reg<U32> ctaid_y(Loc loc = Loc::current()) { return sreg(Sreg::kCtaidY, loc); }
  Reg<U32> ctaid_z(Loc loc = Loc::current()) { return sreg(Sreg::kCtaidZ, loc); }
  Reg<U32> nctaid_x(Loc loc = Loc::current()) { return sreg(Sreg::kNctaidX, loc); }
  Reg<U32> nctaid_y(Loc loc = Loc::current()) { return sreg(Sreg::kNctaidY, loc); }
  Reg<U32> nctaid_z(Loc loc = Loc::current()) { return sreg(Sreg::kNctaidZ, loc); }
  Reg<U32> laneid(Loc loc = Loc::current()) { return sreg(Sreg::kLaneid, loc); }
  Reg<U32> warpid(Loc loc = Loc::current()) { return sreg(Sreg::kWarpid, loc); }

private:
  B& self() { return static_cast<B&>(*this); }

  void branch(Label l, bool uni, const Loc& loc) {
    self().note_label_use(l, loc);
    std::vector<Mod> mods;
    if (uni) mods.push_back(Mod::kUni);
    self().emit_op(Op::kBra, std::move(mods), {}, {Emitter::label_op(l)}, loc);
  }

  template <class A, class L>
  auto shfl(Mod mode, const A& a, const L& b, std::uint32_t c, std::uint32_t mask, const Loc& loc) {
    detail::check_operand<A>();
    detail::check_operand<L>();
    using T = detail::operand_or_void_t<A>;
    static_assert(T::bits == 32 && !PredType<T>,
                  "PTX: shfl.sync moves 32-bit values (b32 u32 s32 f32; bitcast others)");
    static_assert(std::is_same_v<detail::operand_or_void_t<L>, U32>,
                  "PTX: the shfl lane operand (delta/mask/index) is a u32");
    Reg<T> d = self().template new_reg<T>();
    self().emit_op(Op::kShfl, {Mod::kSync, mode}, {TypeId::kB32},
                   {Emitter::reg_op(d), Emitter::op(a), Emitter::op(b),
                    Emitter::imm_op(imm<U32>(c)), Emitter::imm_op(imm<U32>(mask))},
                   loc);
    return d;
  }

  Reg<Pred> vote(Mod mode, Reg<Pred> p, std::uint32_t mask, const Loc& loc) {
    Reg<Pred> d = self().template new_reg<Pred>();
    self().emit_op(Op::kVote, {Mod::kSync, mode}, {TypeId::kPred},
                   {Emitter::reg_op(d), Emitter::reg_op(p), Emitter::imm_op(imm<U32>(mask))}, loc);
    return d;
  }
};

} // namespace ptxkit::ptxgen
