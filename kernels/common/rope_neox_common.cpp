// rope_neox_common.cpp: the RoPE NeoX emitter shared by rope_neox, rope_neox_batched and
// rope_neox_backward, their launch geometry and their double-precision reference.
//
// One thread per group of pairs (4 when head_dim/2 % 4 == 0, so both halves move as .v4; else 1):
//   g     = %ctaid.x * threads + %tid.x;   g >= groups_per_row -> exit (the only tail guard: the
//                                          last block of a row is partial, nothing else is)
//   head  = g / (half / V);  i = (g % (half / V)) * V
//   off   = token * row + head * head_dim + i;  x1 = x[off .. off+V), x2 = x[off+half .. +V)
//   per pair: inv_freq = theta^(-2i/head_dim) in f64 (a product of baked powers of
//   theta^(-2/head_dim)), angle = pos * inv_freq reduced to [-pi, pi] in f64, sin.approx /
//   cos.approx in f32, then the rotation (forward or inverse) with fma.
// f16/bf16 heads are widened on load (common/dtype_access.h: 4 halves as one .v2.b32, or one
// .b16), rotated in the same f32 arithmetic and rounded once on store (cvt.rn).
// Plain ld.global (not .nc) so that input == output (in place) is allowed: each element is read
// and written by the same thread.
#include "rope_neox_common.h"

#include "dtype_access.h"
#include "error_p.h"
#include "ptxkit/kernels/field.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <optional>
#include <ptxkit/kernels/build_support.h>
#include <ptxkit/ptxgen/ptxgen.h>

namespace ptxkit::kernels {

namespace {
using namespace ptxkit::ptxgen;

constexpr std::uint32_t kMaxThreads = 128;

// theta^(-2 e / head_dim) for an integer e, in long double (for the f64 immediates).
double inv_freq_power(const RopeGeometry& g, std::uint32_t e) {
  return static_cast<double>(std::pow(static_cast<long double>(g.theta),
                                      -2.0L * e / static_cast<long double>(g.head_dim)));
}

// sin and cos of the angle pos * f, both f64: the angle is reduced modulo 2pi in f64
// (k = rint(angle / 2pi), two-constant Cody-Waite with fma), then rounded to f32 in [-pi, pi],
// where sin.approx/cos.approx are accurate to 2^-20.9.
std::array<Reg<F32>, 2> sincos_f64(KernelBuilder& b, Reg<F64> pos, Reg<F64> f) {
  const long double two_pi = 6.283185307179586476925286766559L;
  const double hi = static_cast<double>(two_pi);
  const double lo = static_cast<double>(two_pi - static_cast<long double>(hi));
  Reg<F64> angle = b.mul(pos, f, rn);
  Reg<F64> turns =
      b.cvt<F64>(b.mul(angle, b.imm<F64>(static_cast<double>(1.0L / two_pi)), rn), rni);
  Reg<F64> nk = b.neg(turns);
  Reg<F64> r = b.fma(nk, b.imm<F64>(hi), angle, rn);
  r = b.fma(nk, b.imm<F64>(lo), r, rn);
  Reg<F32> r32 = b.cvt<F32>(r, rn);
  return {b.sin(r32, approx), b.cos(r32, approx)};
}

} // namespace

std::uint32_t rope_pairs_per_thread(const RopeGeometry& g) {
  return (g.head_dim / 2) % 4 == 0 ? 4 : 1;
}
std::uint32_t rope_groups_per_row(const RopeGeometry& g) {
  return g.num_heads * (g.head_dim / 2) / rope_pairs_per_thread(g);
}
std::uint32_t rope_threads(const RopeGeometry& g) {
  std::uint32_t groups = rope_groups_per_row(g);
  std::uint32_t warps = (groups + 31) / 32;
  return std::min(kMaxThreads, warps * 32);
}
std::uint32_t rope_blocks_per_row(const RopeGeometry& g) {
  std::uint32_t t = rope_threads(g);
  return (rope_groups_per_row(g) + t - 1) / t;
}

ptxkit::Expected<void> validate_rope(const RopeGeometry& g) {
  if (g.head_dim % 2 != 0)
    return fail("field 'head_dim' = " + std::to_string(g.head_dim) +
                " must be even (NeoX rotates pairs (i, i + head_dim/2))");
  std::uint64_t row = std::uint64_t{g.num_heads} * g.head_dim;
  if (row >= (std::uint64_t{1} << 31))
    return fail("num_heads * head_dim = " + std::to_string(row) +
                " must be < 2^31 (offsets inside a token row are 32-bit)");
  if (!(g.theta > 1.0f) || !std::isfinite(g.theta))
    return fail("field 'theta' = " + number_text(g.theta) +
                " must be finite and > 1 (inv_freq = theta^(-2i/head_dim) must decrease)");
  return {};
}

ptxgen::Reg<ptxgen::F64> rope_inv_freq(ptxgen::KernelBuilder& b, const RopeGeometry& g,
                                       ptxgen::Reg<ptxgen::U32> pair0) {
  // inv_freq(pair0) = r^pair0 with r = theta^(-2/head_dim), as a product of the baked f64
  // powers r^(2^b) over the set bits b of pair0 (pair0 is a multiple of V, so the bits below
  // log2(V) are zero). Every power is an immediate derived from theta (so theta reaches the
  // key); in f64 the product is exact to ~1e-15, so the angle error no longer grows with pos.
  const std::uint32_t V = rope_pairs_per_thread(g);
  const std::uint32_t half = g.head_dim / 2;
  Reg<F64> inv_freq0 = b.mov(b.imm<F64>(1.0));
  for (std::uint32_t bit = V == 4 ? 2 : 0; (1u << bit) < half; ++bit) {
    const Imm<F64> power = b.baked<F64>("theta", inv_freq_power(g, 1u << bit));
    Reg<Pred> set = b.setp(cmp::ne, b.and_(pair0, b.imm<U32>(1u << bit)), b.imm<U32>(0));
    Reg<F64> times = b.mul(inv_freq0, power, rn);
    inv_freq0 = b.selp(times, inv_freq0, set);
  }

  return inv_freq0;
}

std::array<std::vector<ptxgen::Reg<ptxgen::F32>>, 2>
rope_rotate(ptxgen::KernelBuilder& b, const RopeGeometry& g, ptxgen::Reg<ptxgen::F64> pos_d,
            ptxgen::Reg<ptxgen::F64> inv_freq0, const std::vector<ptxgen::Reg<ptxgen::F32>>& x1,
            const std::vector<ptxgen::Reg<ptxgen::F32>>& x2, RopeDirection direction) {
  std::vector<Reg<F32>> y1, y2;
  for (std::size_t k = 0; k < x1.size(); ++k) {
    // inv_freq(pair0 + k) = inv_freq(pair0) * r^k
    Reg<F64> inv_freq =
        k == 0 ? inv_freq0
               : b.mul(inv_freq0,
                       b.baked<F64>("theta", inv_freq_power(g, static_cast<std::uint32_t>(k))), rn);
    auto [sn, cs] = sincos_f64(b, pos_d, inv_freq);
    if (direction == RopeDirection::kForward) {
      y1.push_back(b.fma(x1[k], cs, b.neg(b.mul(x2[k], sn, rn)), rn)); // x1 cos - x2 sin
      y2.push_back(b.fma(x1[k], sn, b.mul(x2[k], cs, rn), rn));        // x1 sin + x2 cos
    } else {
      y1.push_back(b.fma(x2[k], sn, b.mul(x1[k], cs, rn), rn));        // x1 cos + x2 sin
      y2.push_back(b.fma(x2[k], cs, b.neg(b.mul(x1[k], sn, rn)), rn)); // x2 cos - x1 sin
    }
  }
  return {y1, y2};
}

namespace {

template <class E>
ptxkit::Expected<GeneratedPtx>
build_rope_of(std::string_view kernel_name, const RopeGeometry& g, bool batched,
              RopeDirection direction, const ptxgen::Target& target, const GenOptions& options) {
  const std::uint32_t V = rope_pairs_per_thread(g);
  const std::uint32_t half = g.head_dim / 2;
  const std::uint32_t threads = rope_threads(g);

  KernelBuilder b(std::string(kernel_name), target);
  b.reqntid(threads);
  auto in = b.param<Ptr<Global, const E>>("input");
  auto out = b.param<Ptr<Global, E>>("output");
  auto positions = b.param<Ptr<Global, const U32>>(batched ? "positions" : "pos");

  // The group of pairs this thread owns; the last block of a row may be partial.
  // (One emitting call per statement where the order matters: C++ leaves the order in which
  // function arguments are evaluated unspecified, and g++ and clang would emit different PTX.)
  Reg<U32> block = b.ctaid_x();
  Reg<U32> group = b.mad_lo(block, b.imm<U32>(threads), b.tid_x());
  Label done = b.new_label("done");
  b.bra_if(!b.setp(cmp::lt, group, b.baked<U32>("num_heads", rope_groups_per_row(g))), done);

  // Batched: token = %ctaid.y and its position positions[token]; else one token at pos[0].
  std::optional<Reg<U32>> token;
  if (batched) token = b.ctaid_y();
  Reg<U32> pos = b.ld_nc(token ? positions + *token : positions);
  Reg<F64> pos_d = b.cvt<F64>(pos, rn); // exact for every u32

  const Imm<U32> groups_per_head = b.baked<U32>("head_dim", half / V);
  Reg<U32> head = b.div(group, groups_per_head);
  Reg<U32> pair0 = b.mul_lo(b.sub(group, b.mul_lo(head, groups_per_head)), b.imm<U32>(V));
  Reg<U32> in_row = b.mad_lo(head, b.baked<U32>("head_dim", g.head_dim), pair0);
  Reg<U64> off = b.cvt<U64>(in_row);
  if (token) // 64-bit: tokens * row may exceed 2^32
    off = b.add(b.mul_wide(*token, b.baked<U32>("num_heads", g.num_heads * g.head_dim)), off);
  auto x1p = in + off;
  auto y1p = out + off;
  auto x2p = x1p + static_cast<std::int64_t>(half);
  auto y2p = y1p + static_cast<std::int64_t>(half);

  Reg<F64> inv_freq0 = rope_inv_freq(b, g, pair0);

  // Plain loads: out may alias x.
  std::vector<Reg<F32>> x1 = common::load_f32<E>(b, x1p, V, common::LoadPath::kPlain);
  std::vector<Reg<F32>> x2 = common::load_f32<E>(b, x2p, V, common::LoadPath::kPlain);
  auto [y1, y2] = rope_rotate(b, g, pos_d, inv_freq0, x1, x2, direction);
  common::store_f32<E>(b, y1p, y1);
  common::store_f32<E>(b, y2p, y2);
  b.place(done);
  b.ret();
  return finish_and_print(b, options);
}

} // namespace

ptxkit::Expected<GeneratedPtx> build_rope(std::string_view kernel_name, const RopeGeometry& g,
                                          bool batched, RopeDirection direction,
                                          const ptxgen::Target& target, const GenOptions& options) {
  return common::with_dtype(g.dtype, [&]<class E>() {
    return build_rope_of<E>(kernel_name, g, batched, direction, target, options);
  });
}

std::vector<float> rope_reference(const RopeGeometry& g, const std::vector<float>& x,
                                  const std::vector<std::uint32_t>& positions,
                                  RopeDirection direction) {
  const std::size_t half = g.head_dim / 2;
  const std::size_t row = std::size_t{g.num_heads} * g.head_dim;
  std::vector<float> out(x.size());
  const double sign = direction == RopeDirection::kForward ? 1.0 : -1.0;
  for (std::size_t t = 0; t < positions.size(); ++t)
    for (std::size_t h = 0; h < g.num_heads; ++h)
      for (std::size_t i = 0; i < half; ++i) {
        double inv_freq = std::pow(double{g.theta}, -2.0 * static_cast<double>(i) / g.head_dim);
        double angle = sign * static_cast<double>(positions[t]) * inv_freq;
        double c = std::cos(angle), s = std::sin(angle);
        std::size_t o = t * row + h * g.head_dim + i;
        double a = x[o], bb = x[o + half];
        out[o] = round_to(g.dtype, a * c - bb * s);
        out[o + half] = round_to(g.dtype, a * s + bb * c);
      }
  return out;
}

HostTensors rope_inputs(const RopeGeometry& g, std::uint32_t tokens, std::uint32_t max_pos,
                        std::uint64_t seed) {
  InputRng rng(seed);
  HostTensors t;
  t.f32["x"] = rng.uniform_vector(std::size_t{tokens} * g.num_heads * g.head_dim, -1.0f, 1.0f);
  round_all(g.dtype, t.f32["x"]);
  auto& pos = t.u32["positions"];
  pos.resize(tokens);
  for (auto& p : pos)
    p = static_cast<std::uint32_t>(rng.next_u64() % max_pos);
  return t;
}

Tolerance rope_tolerance(const RopeGeometry& g, const HostTensors& in, std::string_view why) {
  double max_pos = 0;
  if (auto p = in.u32.find("positions"); p != in.u32.end())
    for (auto v : p->second)
      max_pos = std::max(max_pos, static_cast<double>(v));
  const double abs = (1e-5 + 1.5e-7 * max_pos) * std::sqrt(2.0);
  switch (g.dtype) {
  case DType::kBF16:
    return {abs, 2 * unit_roundoff(g.dtype),
            "the f32 RoPE bound (1e-5 + 1.5e-7 * max position) * sqrt(2), plus one rounding "
            "boundary of the bf16 output (rel 2^-7)"};
  case DType::kF16:
    return {abs, 2 * unit_roundoff(g.dtype),
            "the f32 RoPE bound (1e-5 + 1.5e-7 * max position) * sqrt(2), plus one rounding "
            "boundary of the f16 output (rel 2^-10)"};
  case DType::kF32:
    break;
  }
  return {abs, 0, why};
}

std::vector<ParamSpec> rope_params(const RopeGeometry& g, std::uint32_t tokens,
                                   const char* positions_param) {
  const std::size_t n = std::size_t{tokens} * g.num_heads * g.head_dim;
  const ElemType e = elem_type(g.dtype);
  return {
      {.name = "input", .kind = ParamKind::kInput, .buffer = "x", .elem = e, .elems = n},
      {.name = "output", .kind = ParamKind::kOutput, .buffer = "out", .elem = e, .elems = n},
      {.name = positions_param,
       .kind = ParamKind::kInput,
       .buffer = "positions",
       .elem = ElemType::kU32,
       .elems = tokens},
  };
}

ptxkit::Expected<HostTensors> rope_reference_tensors(const RopeGeometry& g, std::uint32_t tokens,
                                                     const HostTensors& in, RopeDirection direction,
                                                     std::string_view kernel_name) {
  auto x = in.f32.find("x");
  auto p = in.u32.find("positions");
  const std::string who(kernel_name);
  if (x == in.f32.end() || p == in.u32.end())
    return fail(who + " reference: inputs 'x' (f32) and 'positions' (u32) are required");
  const std::size_t n = std::size_t{tokens} * g.num_heads * g.head_dim;
  if (x->second.size() != n || p->second.size() != tokens)
    return fail(who + " reference: x has " + std::to_string(x->second.size()) +
                " elements and positions " + std::to_string(p->second.size()) +
                "; expected tokens * num_heads * head_dim = " + std::to_string(n) +
                " and tokens = " + std::to_string(tokens));
  HostTensors out;
  out.f32["out"] = rope_reference(g, x->second, p->second, direction);
  return out;
}

} // namespace ptxkit::kernels
