// argmax_builder.cpp: the PTX of argmax_partial and argmax_final, written on ptxgen, and their
// registrations.
//
// Both stages reduce packed u64 candidates (key(value) << 32) | ~index with max.u64, where key is
// the order-preserving map of argmax.h (NaN -> 0xffffffff, -0.0 -> +0.0). 0 is the identity: it
// loses to every element, even a -inf or a NaN. Block reduction: a shfl.bfly tree on the two
// 32-bit halves (every lane ends with its warp's maximum), lane 0 of each warp stores it to
// shared memory, bar.sync, warp 0 reduces the warps' maxima the same way and lane 0 writes the
// result. Only lane 0 of warp 0 writes, after a bfly tree, so the result it writes is the
// block's.
//
// Stage 1 on halves in words folds each group of loaded units with packed max.NaN first and
// looks for the maximum's first position only when the group beats the thread's best
// (argmax.h; fold_words below).
#include "argmax.h"
#include "common/dtype_access.h"
#include "common/row_units.h"
#include "common/strided_loop.h"
#include "common/warp_reduce.h"

#include <array>
#include <ptxkit/kernels/build_support.h>
#include <ptxkit/kernels/registry.h>
#include <ptxkit/ptxgen/ptxgen.h>
#include <vector>

namespace ptxkit::kernels {

namespace {
using namespace ptxkit::ptxgen;

constexpr std::uint32_t kWarps = kArgmaxThreads / 32;

// The order-preserving key of v: NaN -> 0xffffffff, -0.0 -> key(+0.0), negative -> ~bits,
// non-negative -> bits | 0x80000000. Five operations, since stage 1 spends them on every element:
// v + 0.0 turns -0.0 into +0.0 (and nothing else: IEEE round to nearest), then
// bits ^ ((bits >>s 31) | 0x80000000) flips all of a negative and the sign of a non-negative.
Reg<U32> order_key(KernelBuilder& b, Reg<F32> v) {
  Reg<F32> plus_zero = b.add(v, b.imm<F32>(0.0f));
  Reg<S32> sign = b.shr(b.bitcast<S32>(plus_zero), b.imm<U32>(31)); // 0 or -1
  Reg<U32> flip = b.or_(b.bitcast<U32>(sign), b.imm<U32>(0x80000000u));
  Reg<U32> key = b.xor_(b.bitcast<U32>(plus_zero), flip);
  return b.selp(b.imm<U32>(0xffffffffu), key, b.setp(cmp::nan, v, v));
}

// The value a key stands for (the inverse of order_key on canonical values).
Reg<F32> key_value(KernelBuilder& b, Reg<U32> key) {
  Reg<Pred> non_negative = b.setp(cmp::ge, key, b.imm<U32>(0x80000000u));
  Reg<U32> unmarked = b.and_(key, b.imm<U32>(0x7fffffffu));
  Reg<U32> unflipped = b.not_(key);
  Reg<U32> bits = b.selp(unmarked, unflipped, non_negative);
  return b.bitcast<F32>(bits);
}

// (key << 32) | ~index
Reg<U64> pack(KernelBuilder& b, Reg<U32> key, Reg<U32> index) {
  Reg<U64> hi = b.shl(b.cvt<U64>(key), b.imm<U32>(32));
  return b.or_(hi, b.cvt<U64>(b.not_(index)));
}

struct Unpacked {
  Reg<U32> key;
  Reg<U32> index;
};
Unpacked unpack(KernelBuilder& b, Reg<U64> p) {
  Reg<U32> lo = b.cvt<U32>(p);
  Reg<U32> hi = b.cvt<U32>(b.shr(p, b.imm<U32>(32)));
  return {hi, b.not_(lo)};
}

// max.u64 over the warp with a butterfly on both halves: every lane ends with the maximum.
Reg<U64> warp_max(KernelBuilder& b, Reg<U64> p) {
  return common::warp_all_reduce(b, p, [&b](Reg<U64> x, Reg<U64> y) { return b.max(x, y); });
}

// The block's maximum, valid in lane 0 of warp 0 (and in every lane of warp 0). `tid` is
// %tid.x; `after` is placed once warp 0 holds the result, and `write` emits the result's stores
// (run only by lane 0 of warp 0).
template <class Write>
void block_max_then(KernelBuilder& b, Reg<U32> tid, Reg<U64> mine, Write write) {
  auto warp_best = b.shared_array<U64>("warp_best", kWarps, 8);
  Reg<U64> w = warp_max(b, mine);
  Reg<U32> lane = b.and_(tid, b.imm<U32>(31));
  Reg<U32> warp = b.shr(tid, b.imm<U32>(5));
  Reg<Pred> is_lane0 = b.setp(cmp::eq, lane, b.imm<U32>(0));
  auto my_slot = warp_best + warp; // the address outside the guard: only the store predicated
  {
    auto only_lane0 = b.guard(is_lane0);
    b.st(my_slot, w);
  }
  b.bar_sync(0);
  Label done = b.new_label("done");
  b.bra_if(!b.setp(cmp::eq, warp, b.imm<U32>(0)), done);
  Reg<Pred> has_warp = b.setp(cmp::lt, lane, b.imm<U32>(kWarps));
  Reg<U64> stored = b.ld(warp_best + b.min(lane, b.imm<U32>(kWarps - 1)));
  Reg<U64> candidate = b.selp(stored, b.imm<U64>(0), has_warp);
  Reg<U64> best = warp_max(b, candidate);
  b.bra_if(!is_lane0, done);
  write(unpack(b, best));
  b.place(done);
  b.ret();
}

// Folds `values` (f32, in increasing index order; value e of unit k is element firsts[k] + e)
// into the thread's (best_key, best_index): a key, a compare, a max and a select per element.
void fold_exact(KernelBuilder& b, Var<U32>& best_key, Var<U32>& best_index,
                const std::vector<Reg<F32>>& values, const std::vector<Reg<U32>>& firsts,
                std::uint32_t width) {
  Reg<U32> key = best_key.read();
  Reg<U32> at = best_index.read();
  for (std::size_t i = 0; i < values.size(); ++i) {
    const auto e = static_cast<std::uint32_t>(i % width);
    Reg<U32> first = firsts[i / width];
    Reg<U32> candidate = order_key(b, values[i]);
    Reg<Pred> better = b.setp(cmp::gt, candidate, key);
    Reg<U32> index = e == 0 ? first : b.add(first, b.imm<U32>(e));
    key = b.max(candidate, key);
    at = b.selp(index, at, better);
  }
  best_key.assign(key);
  best_index.assign(at);
}

// The group search of the half path. `levels` is the max tree of a group's words (levels[0] the
// words, two halves each, in index order; levels[l][i] the .NaN max of levels[l - 1][2i, 2i + 1],
// lane by lane; levels.back() the root), `m2` the group's maximum m in both halves, neither NaN
// nor zero, so a half equals m exactly when its 16 bits are m's. Returns the element index of the
// group's first half equal to m: a descent that keeps, at each step, the half of the candidate
// words whose left part holds m (else the right part), then the word's low or high half.
// `word_weight(o)` is the element offset of the word o words after the first.
template <class H2, class Weight>
Reg<U32> first_of_max(KernelBuilder& b, const std::vector<std::vector<Reg<B32>>>& levels,
                      Reg<B32> m2, Reg<U32> first, Weight word_weight) {
  const auto as_pair = [&b](Reg<B32> w) { return b.bitcast<H2>(w); };
  // w holds m in one of its halves: max(lo, hi) is m (no NaN here, so plain max).
  const auto holds_m = [&](Reg<B32> w) {
    Reg<B32> swapped = b.prmt(w, w, b.imm<U32>(0x1032));
    Reg<B32> both = b.bitcast<B32>(b.max(as_pair(w), as_pair(swapped)));
    return b.setp(cmp::eq, both, m2);
  };
  std::vector<Reg<B32>> cand = levels[0];
  std::vector<Reg<Pred>> in_left; // one per step, the first step first
  Reg<U32> index = first;
  std::size_t level = levels.size() - 1; // cand is the subtree levels[level][chosen]
  while (cand.size() > 1) {
    const std::size_t half = cand.size() / 2;
    // The left part's maximum: the tree's node, selected by the steps so far (2^steps - 1
    // selects), or recomputed from the candidates (half - 1 max), whichever is shorter.
    const std::size_t options = std::size_t{1} << in_left.size();
    Reg<B32> left = [&] {
      if (options - 1 <= half - 1) {
        std::vector<Reg<B32>> nodes;
        for (std::size_t c = 0; c < options; ++c)
          nodes.push_back(levels[level - 1][2 * c]);
        for (std::size_t s = in_left.size(); s-- > 0;) { // the last step's choice first
          std::vector<Reg<B32>> chosen;
          for (std::size_t c = 0; c < nodes.size(); c += 2)
            chosen.push_back(b.selp(nodes[c], nodes[c + 1], in_left[s]));
          nodes = chosen;
        }
        return nodes[0];
      }
      Reg<H2> m = as_pair(cand[0]);
      for (std::size_t i = 1; i < half; ++i)
        m = b.max(m, as_pair(cand[i]));
      return b.bitcast<B32>(m);
    }();
    Reg<Pred> here = holds_m(left);
    std::vector<Reg<B32>> next;
    for (std::size_t i = 0; i < half; ++i)
      next.push_back(b.selp(cand[i], cand[half + i], here));
    index = b.add(index, b.selp(b.imm<U32>(0), word_weight(half), here));
    in_left.push_back(here);
    cand = next;
    --level;
  }
  // The low half (the lower index) when its bits are m's.
  Reg<Pred> low = b.setp(cmp::eq, b.shl(cand[0], b.imm<U32>(16)), b.shl(m2, b.imm<U32>(16)));
  return b.add(index, b.selp(b.imm<U32>(0), b.imm<U32>(1), low));
}

template <class E>
ptxkit::Expected<GeneratedPtx> build_partial(const ArgmaxPartialConfig& c,
                                             const ptxgen::Target& target,
                                             const GenOptions& options) {
  const std::uint32_t width = common::row_unit_elems(c.vocab, c.dtype);
  const std::uint32_t units = c.vocab / width;
  const std::uint32_t blocks = argmax_partial_blocks(c.vocab, c.dtype);
  const std::uint32_t stride = blocks * kArgmaxThreads;
  KernelBuilder b(std::string(ArgmaxPartial::kName), target);
  b.reqntid(kArgmaxThreads);
  auto in = b.param<Ptr<Global, const E>>("input");
  auto partial_value = b.param<Ptr<Global, F32>>("partial_value");
  auto partial_index = b.param<Ptr<Global, U32>>("partial_index");

  Reg<U32> tid = b.tid_x();
  Reg<U32> block = b.ctaid_x();
  Reg<U32> row = b.ctaid_y();
  auto x_row = in + b.mul_wide(row, b.baked<U32>("vocab", c.vocab)); // 64-bit offsets

  // Grid-stride loop over the row's units. While every one of kArgmaxUnitsPerThread strided units
  // is in the row they are loaded together (in flight at once), then folded as one group; the
  // rest one unit (one group) at a time. The bounds are the row's unit count: never past the row.
  // A thread meets its elements in increasing index order, so it keeps (key, index) as two u32
  // and replaces them only on a strictly greater key (ties keep the lower index). The packed u64
  // (key << 32 | ~index) is formed once, for the block's reduction. A thread without elements
  // holds key 0, below every element's key.
  Var<U32> best_key = b.var<U32>(b.imm<U32>(0), "best_key");
  Var<U32> best_index = b.var<U32>(b.imm<U32>(0), "best_index");
  Var<U32> unit = b.var<U32>(b.mad_lo(block, b.imm<U32>(kArgmaxThreads), tid), "unit");
  auto first_of = [&](Reg<U32> u) {
    return width == 1 ? u : b.shl(u, b.imm<U32>(common::row_unit_shift(width)));
  };
  // f32 (and single halves): every element through fold_exact.
  auto fold_each = [&](const std::vector<Reg<U32>>& us) {
    std::vector<Reg<F32>> values;
    std::vector<Reg<U32>> firsts;
    for (Reg<U32> u : us) {
      Reg<U32> first = first_of(u);
      for (Reg<F32> v : common::load_f32<E>(b, x_row + first, width, common::LoadPath::kReadOnly))
        values.push_back(v);
      firsts.push_back(first);
    }
    fold_exact(b, best_key, best_index, values, firsts, width);
  };
  // Halves in words (2, 4 or 8 per unit): the group's maximum m first, with packed .NaN max
  // (one per word), and its key against the best: a group that does not beat it is done (most
  // groups, once a thread has met a few), one that does finds m's first position by
  // first_of_max (every thread's first group: at 151936 bf16 a thread has ~one group per row). A
  // NaN m (its first position needs each element's NaN test) and a zero m (+0.0 and -0.0 are equal
  // but differ in bits) take fold_exact.
  auto fold_words = [&](const std::vector<Reg<U32>>& us) {
    if constexpr (common::HalfElement<E>) {
      using H2 = std::conditional_t<std::is_same_v<E, BF16>, BF16x2, F16x2>;
      const std::uint32_t unit_words = width / 2;
      std::vector<Reg<B32>> words;
      std::vector<Reg<U32>> firsts;
      for (Reg<U32> u : us) {
        Reg<U32> first = first_of(u);
        for (Reg<B32> w :
             common::load_words<E>(b, x_row + first, width, common::LoadPath::kReadOnly))
          words.push_back(w);
        firsts.push_back(first);
      }
      std::vector<std::vector<Reg<B32>>> levels{words};
      while (levels.back().size() > 1) {
        const auto& below = levels.back();
        std::vector<Reg<B32>> up;
        for (std::size_t i = 0; i < below.size(); i += 2)
          up.push_back(
              b.bitcast<B32>(b.max_nan(b.bitcast<H2>(below[i]), b.bitcast<H2>(below[i + 1]))));
        levels.push_back(std::move(up));
      }
      Reg<B32> root = levels.back()[0];
      Reg<B32> swapped = b.prmt(root, root, b.imm<U32>(0x1032));
      Reg<B32> m2 = b.bitcast<B32>(b.max_nan(b.bitcast<H2>(root), b.bitcast<H2>(swapped)));
      Reg<F32> m = [&] { // m widened exactly, from the low half
        if constexpr (std::is_same_v<E, BF16>)
          return b.bitcast<F32>(b.shl(m2, b.imm<U32>(16)));
        else
          return b.cvt<F32>(b.unpack<F16>(m2)[0]);
      }();
      Reg<U32> key = order_key(b, m);
      Label done = b.new_label("group_done");
      Label exact = b.new_label("group_exact");
      b.bra_if(!b.setp(cmp::gt, key, best_key.read()), done);
      Reg<Pred> zero = b.setp(cmp::eq, key, b.imm<U32>(0x80000000u)); // key(+0.0) = key(-0.0)
      b.bra_if(b.setp_or(cmp::eq, key, b.imm<U32>(0xffffffffu), zero), exact); // or NaN
      const auto word_weight = [&](std::size_t o) {
        const auto words_after = static_cast<std::uint32_t>(o);
        if (words_after < unit_words) return b.imm<U32>(2 * words_after);
        return b.baked<U32>("vocab", words_after / unit_words * stride * width);
      };
      best_index.assign(first_of_max<H2>(b, levels, m2, firsts[0], word_weight));
      best_key.assign(key);
      b.bra(done);
      b.place(exact);
      fold_exact(b, best_key, best_index, common::widen_words<E>(b, words), firsts, width);
      b.place(done);
    }
  };
  auto fold = [&](const std::vector<Reg<U32>>& us) {
    if (std::is_same_v<E, F32> || width == 1)
      fold_each(us);
    else
      fold_words(us);
  };
  constexpr std::uint32_t kU = kArgmaxUnitsPerThread;
  if (units > (kU - 1) * stride)
    common::strided_loop(b, unit, b.baked<U32>("vocab", units - (kU - 1) * stride),
                         b.baked<U32>("vocab", kU * stride), {"scan4_loop", "scan4_done"},
                         [&](Reg<U32> u) {
                           std::vector<Reg<U32>> us{u};
                           for (std::uint32_t k = 1; k < kU; ++k)
                             us.push_back(b.add(u, b.baked<U32>("vocab", k * stride)));
                           fold(us);
                         });
  common::strided_loop(b, unit, b.baked<U32>("vocab", units), b.baked<U32>("vocab", stride),
                       {"scan_loop", "scan_done"},
                       [&](Reg<U32> u) { fold(std::vector<Reg<U32>>{u}); });

  block_max_then(b, tid, pack(b, best_key.read(), best_index.read()), [&](Unpacked r) {
    Reg<U32> slot = b.mad_lo(row, b.baked<U32>("vocab", blocks), block);
    auto value_at = partial_value + slot;
    b.st(value_at, key_value(b, r.key));
    b.st(partial_index + slot, r.index);
  });
  return finish_and_print(b, options);
}

} // namespace

std::uint32_t argmax_partial_blocks(std::uint32_t vocab, DType dtype) {
  const std::uint32_t units = vocab / common::row_unit_elems(vocab, dtype);
  const std::uint32_t per_block = kArgmaxThreads * kArgmaxUnitsPerThread;
  const std::uint32_t blocks = (units + per_block - 1) / per_block;
  return blocks < kArgmaxMaxBlocks ? blocks : kArgmaxMaxBlocks;
}

ptxkit::Expected<GeneratedPtx> ArgmaxPartial::build(const Config& c, const ptxgen::Target& target,
                                                    const GenOptions& options) {
  return common::with_dtype(c.dtype,
                            [&]<class E>() { return build_partial<E>(c, target, options); });
}

ptxkit::Expected<GeneratedPtx> ArgmaxFinal::build(const Config& c, const ptxgen::Target& target,
                                                  const GenOptions& options) {
  KernelBuilder b(std::string(kName), target);
  b.reqntid(kArgmaxThreads);
  auto partial_value = b.param<Ptr<Global, const F32>>("partial_value");
  auto partial_index = b.param<Ptr<Global, const U32>>("partial_index");
  auto max_value = b.param<Ptr<Global, F32>>("max_value");
  auto index = b.param<Ptr<Global, U32>>("index");

  Reg<U32> tid = b.tid_x();
  Reg<U32> row = b.ctaid_x();
  Reg<U64> row_start = b.mul_wide(row, b.baked<U32>("num_partials", c.num_partials));
  auto values = partial_value + row_start;
  auto indices = partial_index + row_start;

  Var<U64> best = b.var<U64>(b.imm<U64>(0), "best");
  Var<U32> i = b.var<U32>(tid, "partial");
  common::strided_loop(b, i, b.baked<U32>("num_partials", c.num_partials),
                       b.imm<U32>(kArgmaxThreads), {"partials_loop", "partials_done"},
                       [&](Reg<U32> iv) {
                         Reg<U32> key = order_key(b, b.ld_nc(values + iv));
                         Reg<U64> p = pack(b, key, b.ld_nc(indices + iv));
                         best.assign(b.max(best.read(), p));
                       });

  block_max_then(b, tid, best.read(), [&](Unpacked r) {
    auto value_at = max_value + row;
    b.st(value_at, key_value(b, r.key));
    b.st(index + row, r.index);
  });
  return finish_and_print(b, options);
}

PTXKIT_REGISTER_KERNEL(ArgmaxPartial);
PTXKIT_REGISTER_KERNEL(ArgmaxFinal);

} // namespace ptxkit::kernels
