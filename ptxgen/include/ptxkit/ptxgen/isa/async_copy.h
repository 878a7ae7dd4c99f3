// isa/async_copy.h: asynchronous copies from global into shared memory and what completes them:
// cp.async (sm_80: 4, 8 or 16 bytes per thread, completed in commit groups), cp.async.bulk (sm_90:
// one contiguous block per instruction, completed on an mbarrier by byte count), the mbarrier
// operations (init, arrive, arrive.expect_tx, test_wait/try_wait.parity) and fence.proxy.async.
//
// The state spaces are the pointers' types, so a copy from shared memory, into global memory, or
// an mbarrier outside shared memory does not compile. The copy size of cp.async is a template
// argument because PTX fixes it per instruction (`.cg` only moves 16 bytes).
#pragma once

#include "ptxkit/ptxgen/isa/common.h"
#include "ptxkit/ptxgen/isa/convert.h"
#include "ptxkit/ptxgen/isa/modifiers.h"

#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

namespace ptxkit::ptxgen {

// The sink `_` in place of an mbarrier.arrive's state result: `b.mbarrier_arrive(bar, sink)` for
// a thread that waits by phase parity and has no use for the state.
struct Sink {};
inline constexpr Sink sink{};

template <class B>
class AsyncCopyOps {
public:
  // cp.async.{ca,cg}.shared.global [dst], [src], Bytes: copies Bytes (4, 8 or 16; .cg: 16 only)
  // without holding a register; complete after a commit_group and a wait_group that covers it.
  // Both addresses must be aligned to Bytes.
  template <unsigned Bytes, class S1, class T1, class S2, class T2,
            CacheOperator C = std::remove_cvref_t<decltype(cache::ca)>>
  void cp_async(Ptr<S1, T1> dst, Ptr<S2, T2> src, C cop = {}, Loc loc = Loc::current()) {
    check_cp_async<Bytes, S1, T1, S2, T2, C>(cop);
    self().emit_op(Op::kCp, {Mod::kAsync, C::mod, Mod::kShared, Mod::kGlobal}, {},
                   {addr(dst), addr(src), Emitter::imm_op(imm<U32>(Bytes))}, loc);
  }
  // cp.async ... [dst], [src], Bytes, src_size: reads src_size (u32, at most Bytes) bytes and
  // fills the rest of the Bytes with zeros (a partial tile at the edge of a matrix).
  template <unsigned Bytes, class S1, class T1, class S2, class T2, SourceOperand Z,
            CacheOperator C = std::remove_cvref_t<decltype(cache::ca)>>
  void cp_async(Ptr<S1, T1> dst, Ptr<S2, T2> src, const Z& src_size, C cop = {},
                Loc loc = Loc::current()) {
    check_cp_async<Bytes, S1, T1, S2, T2, C>(cop);
    check_u32<Z>();
    self().emit_op(Op::kCp, {Mod::kAsync, C::mod, Mod::kShared, Mod::kGlobal}, {},
                   {addr(dst), addr(src), Emitter::imm_op(imm<U32>(Bytes)), Emitter::op(src_size)},
                   loc);
  }
  // cp.async.commit_group: the thread's cp.async since the last commit form one group.
  void cp_async_commit_group(Loc loc = Loc::current()) {
    self().emit_op(Op::kCp, {Mod::kAsync, Mod::kCommitGroup}, {}, {}, loc);
  }
  // cp.async.wait_group n: waits until at most n of the thread's groups are pending (0: all).
  // The copied data is visible to the thread itself; other threads need a bar.sync after it.
  void cp_async_wait_group(std::uint32_t n, Loc loc = Loc::current()) {
    self().emit_op(Op::kCp, {Mod::kAsync, Mod::kWaitGroup}, {}, {Emitter::imm_op(imm<U32>(n))},
                   loc);
  }
  // cp.async.wait_all: commit_group then wait_group 0.
  void cp_async_wait_all(Loc loc = Loc::current()) {
    self().emit_op(Op::kCp, {Mod::kAsync, Mod::kWaitAll}, {}, {}, loc);
  }

  // cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [dst], [src], bytes, [bar]
  // (sm_90): one thread copies `bytes` (u32, a multiple of 16; both addresses 16-byte aligned)
  // and the copy completes its byte count on the mbarrier `bar` (see mbarrier_arrive_expect_tx).
  // A shared address of this CTA is a valid shared::cluster address.
  template <class S1, class T1, class S2, class T2, class Z, class S3, class T3>
  void cp_async_bulk(Ptr<S1, T1> dst, Ptr<S2, T2> src, const Z& bytes, Ptr<S3, T3> bar,
                     Loc loc = Loc::current()) {
    check_copy_spaces<S1, T1, S2, T2>();
    check_u32<Z>();
    check_mbarrier<S3, T3>();
    if constexpr (IsImm<Z>::value) {
      if (bytes.bits() == 0 || bytes.bits() % 16 != 0) {
        self().error("cp.async.bulk copies a positive multiple of 16 bytes (size " +
                         std::to_string(bytes.bits()) + ")",
                     loc);
      }
    }
    self().require(isa::Form::kCpAsyncBulk, loc);
    self().emit_op(
        Op::kCp,
        {Mod::kAsync, Mod::kBulk, Mod::kSharedCluster, Mod::kGlobal, Mod::kCompleteTxBytes}, {},
        {addr(dst), addr(src), Emitter::op(bytes), addr(bar)}, loc);
  }

  // mbarrier.init.shared.b64 [bar], count: a barrier whose phase completes after `count` (u32)
  // arrivals (and, on sm_90, once its expected transaction bytes have arrived).
  template <class S, class T, class Z>
  void mbarrier_init(Ptr<S, T> bar, const Z& count, Loc loc = Loc::current()) {
    check_mbarrier<S, T>();
    check_u32<Z>();
    self().emit_op(Op::kMbarrier, {Mod::kInit, Mod::kShared}, {TypeId::kB64},
                   {addr(bar), Emitter::op(count)}, loc);
  }
  // mbarrier.arrive.shared.b64 state, [bar]: one arrival; the state identifies the phase.
  template <class S, class T>
  Reg<B64> mbarrier_arrive(Ptr<S, T> bar, Loc loc = Loc::current()) {
    return arrive<S, T, Imm<U32>, true>(bar, nullptr, loc);
  }
  // mbarrier.arrive.shared.b64 _, [bar]
  template <class S, class T>
  void mbarrier_arrive(Ptr<S, T> bar, Sink, Loc loc = Loc::current()) {
    arrive<S, T, Imm<U32>, false>(bar, nullptr, loc);
  }
  // mbarrier.arrive.expect_tx.shared.b64 state, [bar], tx_bytes (sm_90): one arrival that also
  // raises the phase's expected transaction count by tx_bytes (u32), the bytes that
  // cp.async.bulk copies will complete on this barrier.
  template <class S, class T, class Z>
  Reg<B64> mbarrier_arrive_expect_tx(Ptr<S, T> bar, const Z& tx_bytes, Loc loc = Loc::current()) {
    return arrive(bar, &tx_bytes, loc);
  }
  // mbarrier.arrive.expect_tx.shared.b64 _, [bar], tx_bytes
  template <class S, class T, class Z>
  void mbarrier_arrive_expect_tx(Ptr<S, T> bar, const Z& tx_bytes, Sink, Loc loc = Loc::current()) {
    arrive<S, T, Z, false>(bar, &tx_bytes, loc);
  }
  // mbarrier.test_wait.parity.shared.b64 p, [bar], parity: p is true once the phase of the given
  // parity (u32: 0 for the first phase, 1 for the next, alternating) has completed. Does not
  // block.
  template <class S, class T, class Z>
  Reg<Pred> mbarrier_test_wait_parity(Ptr<S, T> bar, const Z& parity, Loc loc = Loc::current()) {
    self().require(isa::Form::kMbarrierTestWaitParity, loc);
    return wait(Mod::kTestWait, bar, parity, loc);
  }
  // mbarrier.try_wait.parity.shared.b64 p, [bar], parity (sm_90): as test_wait, but the thread
  // may be suspended for a while (a time the hardware chooses) until the phase completes.
  template <class S, class T, class Z>
  Reg<Pred> mbarrier_try_wait_parity(Ptr<S, T> bar, const Z& parity, Loc loc = Loc::current()) {
    self().require(isa::Form::kMbarrierTryWait, loc);
    return wait(Mod::kTryWait, bar, parity, loc);
  }
  // Waits for the phase of the given parity: try_wait.parity in a loop until it is true
  // (sm_90). A loop because try_wait gives up after a bounded time.
  template <class S, class T, class Z>
  void mbarrier_wait_parity(Ptr<S, T> bar, const Z& parity, Loc loc = Loc::current()) {
    Label again = self().new_label("mbarrier_wait");
    self().place(again, loc);
    Reg<Pred> done = mbarrier_try_wait_parity(bar, parity, loc);
    self().bra_if(!done, again, loc);
  }

  // fence.proxy.async.shared::cta (sm_90): orders this thread's generic-proxy accesses of
  // shared memory (ld/st, mbarrier.init) before later async-proxy ones (cp.async.bulk), and
  // the other way round.
  void fence_proxy_async_shared(Loc loc = Loc::current()) {
    self().require(isa::Form::kFenceProxyAsync, loc);
    self().emit_op(Op::kFence, {Mod::kProxy, Mod::kAsync, Mod::kSharedCta}, {}, {}, loc);
  }

private:
  B& self() { return static_cast<B&>(*this); }

  template <class S, class T>
  static Operand addr(Ptr<S, T> p) {
    return Emitter::addr_op(p.base().id(), p.offset());
  }

  template <class X>
  static constexpr void check_u32() {
    detail::check_operand<X>();
    static_assert(std::is_same_v<detail::operand_or_void_t<X>, U32>,
                  "PTX: copy sizes, byte and arrival counts and phase parities are .u32 operands");
  }

  template <class S1, class T1, class S2, class T2>
  static constexpr void check_copy_spaces() {
    static_assert(std::is_same_v<S1, Shared> && !std::is_const_v<T1>,
                  "PTX: cp.async writes shared memory: the destination is a Ptr<Shared, T>");
    static_assert(std::is_same_v<S2, Global>,
                  "PTX: cp.async and cp.async.bulk copy from global memory: the source is a "
                  "Ptr<Global, ...>");
    static_assert(std::is_same_v<std::remove_const_t<T1>, std::remove_const_t<T2>>,
                  "ptxgen: an async copy moves elements of one type: both pointers point at it");
  }

  template <unsigned Bytes, class S1, class T1, class S2, class T2, class C>
  static constexpr void check_cp_async(C) {
    check_copy_spaces<S1, T1, S2, T2>();
    static_assert(Bytes == 4 || Bytes == 8 || Bytes == 16, "PTX: cp.async copies 4, 8 or 16 bytes");
    static_assert(IsCacheOp<C>::value, "PTX: cp.async takes the cache operator .ca or .cg");
    if constexpr (IsCacheOp<C>::value) {
      static_assert(C::mod == Mod::kCa || C::mod == Mod::kCg,
                    "PTX: cp.async takes the cache operator .ca or .cg");
      static_assert(C::mod != Mod::kCg || Bytes == 16,
                    "PTX: cp.async.cg copies 16 bytes only (use cache::ca for 4 or 8)");
    }
  }

  template <class S, class T>
  static constexpr void check_mbarrier() {
    static_assert(std::is_same_v<S, Shared> && !std::is_const_v<T> &&
                      (std::is_same_v<std::remove_const_t<T>, B64> ||
                       std::is_same_v<std::remove_const_t<T>, U64>),
                  "PTX: an mbarrier is a .b64 object in shared memory: a Ptr<Shared, B64>");
  }

  // mbarrier.arrive{.expect_tx}.shared.b64 state, [bar]{, tx}: the state register, or with
  // State false the sink `_` and no result.
  template <class S, class T, class Z = Imm<U32>, bool State = true>
  auto arrive(Ptr<S, T> bar, const Z* tx, const Loc& loc) {
    check_mbarrier<S, T>();
    check_u32<Z>();
    std::vector<Mod> mods{Mod::kArrive};
    if (tx) {
      self().require(isa::Form::kMbarrierExpectTx, loc);
      mods.push_back(Mod::kExpectTx);
    }
    mods.push_back(Mod::kShared);
    auto emit = [&](Operand state) {
      std::vector<Operand> ops{std::move(state), addr(bar)};
      if (tx) ops.push_back(Emitter::op(*tx));
      self().emit_op(Op::kMbarrier, std::move(mods), {TypeId::kB64}, std::move(ops), loc);
    };
    if constexpr (State) {
      Reg<B64> state = self().template new_reg<B64>();
      emit(Emitter::reg_op(state));
      return state;
    } else {
      emit(Emitter::symbol_op("_"));
    }
  }

  template <class S, class T, class Z>
  Reg<Pred> wait(Mod kind, Ptr<S, T> bar, const Z& parity, const Loc& loc) {
    check_mbarrier<S, T>();
    check_u32<Z>();
    Reg<Pred> p = self().template new_reg<Pred>();
    self().emit_op(Op::kMbarrier, {kind, Mod::kParity, Mod::kShared}, {TypeId::kB64},
                   {Emitter::reg_op(p), addr(bar), Emitter::op(parity)}, loc);
    return p;
  }
};

} // namespace ptxkit::ptxgen
