// interp_conformance.cpp: the case table, the GPU module and the interpreter runs of the
// conformance cases (interp_conformance.h).
#include "interp_conformance.h"

#include "ptxkit/verifier/analysis/function_analysis.h"
#include "ptxkit/verifier/interp/interpreter.h"
#include "ptxkit/verifier/parser.h"

#include <cstdio>
#include <fstream>
#include <sstream>

namespace ptxkit::verifier::conformance {
namespace {

// Operand types a body unpacks its inputs to and packs its result from.
enum class T { kU16, kU32, kU64, kF32, kF64, kPred };

// The register of type `t` for slot `i` (0..2: inputs, 3: the result). The wrapper declares them.
std::string reg(T t, int i) {
  const char* p = t == T::kU16   ? "%h"
                  : t == T::kU32 ? "%r"
                  : t == T::kU64 ? "%rd"
                  : t == T::kF32 ? "%f"
                  : t == T::kF64 ? "%fd"
                                 : "%p";
  return p + std::to_string(i);
}

// Moves input `i` (%ia/%ib/%ic, raw 64 bits) into its typed register (narrow types truncate).
std::string unpack(T t, int i) {
  const std::string src = std::string("%i") + "abc"[i], d = reg(t, i);
  switch (t) {
  case T::kU16:
    return "cvt.u16.u64 " + d + ", " + src + ";\n";
  case T::kU32:
    return "cvt.u32.u64 " + d + ", " + src + ";\n";
  case T::kU64:
    return "mov.b64 " + d + ", " + src + ";\n";
  case T::kF32: {
    const std::string s = "%r" + std::to_string(5 + i);
    return "cvt.u32.u64 " + s + ", " + src + ";\nmov.b32 " + d + ", " + s + ";\n";
  }
  case T::kF64:
    return "mov.b64 " + d + ", " + src + ";\n";
  case T::kPred:
    return "setp.ne.u64 " + d + ", " + src + ", 0;\n";
  }
  return "";
}

// Moves the result into %o, zero-extended (a predicate as 0/1).
std::string pack(T t) {
  const std::string s = reg(t, 3);
  switch (t) {
  case T::kU16:
    return "cvt.u64.u16 %o, " + s + ";\n";
  case T::kU32:
    return "cvt.u64.u32 %o, " + s + ";\n";
  case T::kU64:
    return "mov.b64 %o, " + s + ";\n";
  case T::kF32:
    return "mov.b32 %r4, " + s + ";\ncvt.u64.u32 %o, %r4;\n";
  case T::kF64:
    return "mov.b64 %o, " + s + ";\n";
  case T::kPred:
    return "selp.u64 %o, 1, 0, " + s + ";\n";
  }
  return "";
}

// `text` with $d, $0, $1, $2 replaced by the result and input registers.
std::string expand(std::string text, T d, const std::vector<T>& src) {
  auto put = [&](const std::string& key, const std::string& value) {
    for (std::size_t at = text.find(key); at != std::string::npos; at = text.find(key, at))
      text.replace(at, key.size(), value), at += value.size();
  };
  put("$d", reg(d, 3));
  for (std::size_t i = 0; i < src.size(); ++i)
    put("$" + std::to_string(i), reg(src[i], static_cast<int>(i)));
  return text;
}

// Edge values by width (raw bits; narrower unpacks truncate, so only the low bits matter).
const std::vector<std::uint64_t> k16 = {0, 1, 0xffff, 0x7fff, 0x8000, 15, 16, 0x1234};
const std::vector<std::uint64_t> k32 = {0,          1,  2,  0xffffffff, 0x7fffffff,
                                        0x80000000, 31, 32, 0x12345678, 0xfffffffe};
const std::vector<std::uint64_t> k32small = {0, 1, 0xffffffff, 0x7fffffff, 0x80000000, 0x1234567};
const std::vector<std::uint64_t> k64 = {0,
                                        1,
                                        ~std::uint64_t{0},
                                        std::uint64_t{1} << 63,
                                        ~std::uint64_t{0} >> 1,
                                        0x100000000,
                                        0xffffffff,
                                        63,
                                        64,
                                        0x123456789abcdef0};
const std::vector<std::uint64_t> kShift = {0, 1, 7, 15, 16, 31, 32, 33, 63, 64, 255, 0xffffffff};
const std::vector<std::uint64_t> kF32 = {
    0,          0x80000000, 0x3f800000, 0xbfc00000, 0x40200000, 0x3f000000, 0x7f800000, 0xff800000,
    0x7fc00000, 0x00000001, 0x807fffff, 0x7f7fffff, 0x4f32d05e, 0xcf32d05e, 0x4b800001, 0x3fc00000};
const std::vector<std::uint64_t> kF64 = {0,
                                         std::uint64_t{1} << 63,
                                         0x3ff0000000000000,
                                         0xbff8000000000000,
                                         0x4004000000000000,
                                         0x7ff0000000000000,
                                         0xfff0000000000000,
                                         0x7ff8000000000000,
                                         1,
                                         0x7fefffffffffffff,
                                         0x41e65a0bc0000000,
                                         0x41f2a05f20000000};
const std::vector<std::uint64_t> kF32pairs = {0,          0x80000000, 0x3f800000,
                                              0xbfc00000, 0x7f800000, 0xff800000,
                                              0x7fc00000, 0x00000001, 0x7f7fffff};

std::vector<Input> unary(const std::vector<std::uint64_t>& a) {
  std::vector<Input> out;
  for (auto x : a)
    out.push_back({x, 0, 0});
  return out;
}
std::vector<Input> binary(const std::vector<std::uint64_t>& a,
                          const std::vector<std::uint64_t>& b) {
  std::vector<Input> out;
  for (auto x : a)
    for (auto y : b)
      out.push_back({x, y, 0});
  return out;
}
std::vector<Input> ternary(const std::vector<std::uint64_t>& a, const std::vector<std::uint64_t>& b,
                           const std::vector<std::uint64_t>& c) {
  std::vector<Input> out;
  for (auto x : a)
    for (auto y : b)
      for (auto z : c)
        out.push_back({x, y, z});
  return out;
}
const std::vector<std::uint64_t>& edges(T t) {
  return t == T::kU16 ? k16 : t == T::kU32 ? k32 : t == T::kU64 ? k64 : t == T::kF32 ? kF32 : kF64;
}

std::vector<Case> build() {
  std::vector<Case> out;
  auto add = [&](std::string name, std::string text, T d, std::vector<T> src,
                 std::vector<Input> inputs, bool exact) {
    std::string body;
    for (std::size_t i = 0; i < src.size(); ++i)
      body += unpack(src[i], static_cast<int>(i));
    body += expand(std::move(text), d, src) + "\n" + pack(d);
    out.push_back({std::move(name), std::move(body), std::move(inputs), exact});
  };
  // One instruction "op.<suffix> $d, $0, $1" over the edge pairs of its type.
  auto bin = [&](const std::string& op, T t, bool exact) {
    add(op, op + " $d, $0, $1;", t, {t, t}, binary(edges(t), edges(t)), exact);
  };
  auto un = [&](const std::string& op, T d, T s, bool exact) {
    add(op, op + " $d, $0;", d, {s}, unary(edges(s)), exact);
  };
  // Integer arithmetic: wrap-around, saturation, hi/lo/wide, 24-bit, division.
  for (const char* op : {"add.u32", "sub.u32", "add.sat.s32", "sub.sat.s32", "mul.lo.u32",
                         "mul.hi.u32", "mul.hi.s32", "mul24.lo.u32", "mul24.hi.s32", "min.s32",
                         "max.u32", "and.b32", "or.b32", "xor.b32"})
    bin(op, T::kU32, true);
  for (const char* op :
       {"add.u64", "sub.s64", "mul.lo.u64", "mul.hi.u64", "mul.hi.s64", "min.u64", "max.s64"})
    bin(op, T::kU64, true);
  for (const char* op : {"add.u16", "mul.lo.s16", "mul.hi.u16", "max.s16"})
    bin(op, T::kU16, true);
  // Division: a zero divisor (and the signed minimum by -1) is the hardware's choice, which the
  // interpreter leaves unknown rather than guess; the other divisors are exact.
  for (const auto& [op, t] : {std::pair{"div.u32", T::kU32},
                              {"div.s32", T::kU32},
                              {"rem.u32", T::kU32},
                              {"rem.s32", T::kU32},
                              {"div.s64", T::kU64},
                              {"rem.u64", T::kU64},
                              {"div.s16", T::kU16}}) {
    const bool is_signed = std::string(op).find(".s") != std::string::npos;
    const std::uint64_t all_ones = t == T::kU16 ? 0xffff : t == T::kU32 ? 0xffffffff : ~0ull;
    std::vector<std::uint64_t> defined, undefined = {0};
    for (std::uint64_t v : edges(t))
      if (v != 0 && !(is_signed && v == all_ones)) defined.push_back(v);
    if (is_signed) undefined.push_back(all_ones);
    add(op, std::string(op) + " $d, $0, $1;", t, {t, t}, binary(edges(t), defined), true);
    add(std::string(op) + ".undefined", std::string(op) + " $d, $0, $1;", t, {t, t},
        binary(edges(t), undefined), false);
  }
  add("mul.wide.u32", "mul.wide.u32 $d, $0, $1;", T::kU64, {T::kU32, T::kU32}, binary(k32, k32),
      true);
  add("mul.wide.s32", "mul.wide.s32 $d, $0, $1;", T::kU64, {T::kU32, T::kU32}, binary(k32, k32),
      true);
  add("mul.wide.s16", "mul.wide.s16 $d, $0, $1;", T::kU32, {T::kU16, T::kU16}, binary(k16, k16),
      true);
  add("mad.lo.u32", "mad.lo.u32 $d, $0, $1, $2;", T::kU32, {T::kU32, T::kU32, T::kU32},
      ternary(k32small, k32small, k32small), true);
  add("mad.hi.s32", "mad.hi.s32 $d, $0, $1, $2;", T::kU32, {T::kU32, T::kU32, T::kU32},
      ternary(k32small, k32small, k32small), true);
  add("mad.wide.u32", "mad.wide.u32 $d, $0, $1, $2;", T::kU64, {T::kU32, T::kU32, T::kU64},
      ternary(k32small, k32small, {0, 1, ~std::uint64_t{0}, std::uint64_t{1} << 63}), true);
  add("add.cc+addc.u32", "add.cc.u32 %r4, $0, $1;\naddc.u32 $d, $0, 0;", T::kU32,
      {T::kU32, T::kU32}, binary(k32, k32), true);
  add("sub.cc+subc.u32", "sub.cc.u32 %r4, $0, $1;\nsubc.u32 $d, $1, 0;", T::kU32,
      {T::kU32, T::kU32}, binary(k32, k32), true);
  for (const char* op : {"abs.s32", "neg.s32", "not.b32", "cnot.b32", "popc.b32", "clz.b32",
                         "brev.b32", "bfind.u32", "bfind.s32", "bfind.shiftamt.u32"})
    un(op, T::kU32, T::kU32, true);
  for (const char* op : {"abs.s64", "neg.s64", "not.b64", "brev.b64"})
    un(op, T::kU64, T::kU64, true);
  un("popc.b64", T::kU32, T::kU64, true);
  un("clz.b64", T::kU32, T::kU64, true);
  un("abs.s16", T::kU16, T::kU16, true);
  // Shifts: amounts past the width clamp.
  for (const char* op : {"shl.b32", "shr.u32", "shr.s32"})
    add(op, std::string(op) + " $d, $0, $1;", T::kU32, {T::kU32, T::kU32}, binary(k32small, kShift),
        true);
  for (const char* op : {"shl.b64", "shr.u64", "shr.s64"})
    add(op, std::string(op) + " $d, $0, $1;", T::kU64, {T::kU64, T::kU32},
        binary({1, ~std::uint64_t{0}, std::uint64_t{1} << 63, 0x123456789abcdef0}, kShift), true);
  add("shl.b16", "shl.b16 $d, $0, $1;", T::kU16, {T::kU16, T::kU32}, binary(k16, kShift), true);
  add("shr.s16", "shr.s16 $d, $0, $1;", T::kU16, {T::kU16, T::kU32}, binary(k16, kShift), true);
  for (const char* op : {"shf.l.clamp.b32", "shf.r.wrap.b32", "shf.r.clamp.b32"})
    add(op, std::string(op) + " $d, $0, $1, $2;", T::kU32, {T::kU32, T::kU32, T::kU32},
        ternary({0x12345678, 0xffffffff}, {0x9abcdef0, 0}, kShift), true);
  // Bit fields and permutes.
  add("bfe.u32", "bfe.u32 $d, $0, $1, $2;", T::kU32, {T::kU32, T::kU32, T::kU32},
      ternary({0x87654321, 0xffffffff}, {0, 4, 28, 31, 32, 255}, {0, 1, 8, 31, 32, 33, 255}), true);
  add("bfe.s32", "bfe.s32 $d, $0, $1, $2;", T::kU32, {T::kU32, T::kU32, T::kU32},
      ternary({0x87654321, 0x7fffffff}, {0, 4, 28, 31, 32, 255}, {0, 1, 8, 31, 32, 33, 255}), true);
  add("bfe.s64", "bfe.s64 $d, $0, $1, $2;", T::kU64, {T::kU64, T::kU32, T::kU32},
      ternary({0x8765432112345678}, {0, 4, 60, 63, 64, 255}, {0, 1, 8, 63, 64, 65}), true);
  add("bfi.b32", "bfi.b32 $d, $0, $1, $2, 8;", T::kU32, {T::kU32, T::kU32, T::kU32},
      ternary({0xabcd, 0xffffffff}, {0x12345678}, {0, 4, 24, 28, 31, 32, 255}), true);
  add("bfi.b32.len", "bfi.b32 $d, $0, $1, 4, $2;", T::kU32, {T::kU32, T::kU32, T::kU32},
      ternary({0xabcd}, {0x12345678}, {0, 1, 8, 28, 29, 32, 255}), true);
  add("prmt.b32", "prmt.b32 $d, $0, $1, $2;", T::kU32, {T::kU32, T::kU32, T::kU32},
      ternary({0x33221100}, {0x77665544, 0x80ff7f01},
              {0x3210, 0x7654, 0x0123, 0x1111, 0x8888, 0xc0de, 0xffff, 0x12345678}),
      true);
  for (const char* m : {".f4e", ".b4e", ".rc8", ".ecl", ".ecr", ".rc16"})
    add(std::string("prmt.b32") + m, std::string("prmt.b32") + m + " $d, $0, $1, $2;", T::kU32,
        {T::kU32, T::kU32, T::kU32}, ternary({0x33221100}, {0x77665544}, {0, 1, 2, 3, 5, 7}), true);
  add("lop3.b32", "lop3.b32 $d, $0, $1, $2, 0xe8;", T::kU32, {T::kU32, T::kU32, T::kU32},
      ternary({0xf0f0f0f0}, {0xcccccccc}, {0xaaaaaaaa, 0}), true);
  // Comparisons (integer every mode; float ordered and unordered with NaN, -0, inf).
  for (const char* m : {"eq", "ne", "lt", "le", "gt", "ge"}) {
    add(std::string("setp.") + m + ".s32", std::string("setp.") + m + ".s32 $d, $0, $1;", T::kPred,
        {T::kU32, T::kU32}, binary(k32, k32), true);
  }
  for (const char* m : {"lt", "ge", "lo", "ls", "hi", "hs"})
    add(std::string("setp.") + m + ".u32", std::string("setp.") + m + ".u32 $d, $0, $1;", T::kPred,
        {T::kU32, T::kU32}, binary(k32, k32), true);
  add("setp.lt.s64", "setp.lt.s64 $d, $0, $1;", T::kPred, {T::kU64, T::kU64}, binary(k64, k64),
      true);
  add("setp.lt.u16", "setp.lt.u16 $d, $0, $1;", T::kPred, {T::kU16, T::kU16}, binary(k16, k16),
      true);
  add("setp.gt.s16", "setp.gt.s16 $d, $0, $1;", T::kPred, {T::kU16, T::kU16}, binary(k16, k16),
      true);
  add("setp.and", "setp.lt.u32 %p2, $0, $1;\nsetp.ne.and.u32 $d, $0, 0, %p2;", T::kPred,
      {T::kU32, T::kU32}, binary(k32small, k32small), true);
  add("setp.or.not", "setp.lt.u32 %p2, $0, $1;\nsetp.eq.or.u32 $d, $0, 1, !%p2;", T::kPred,
      {T::kU32, T::kU32}, binary(k32small, k32small), true);
  add("setp.pair",
      "setp.lt.s32 $d|%p2, $0, $1;\nselp.u32 %r4, 2, 0, %p2;\n"
      "selp.u32 %r3, 1, 0, $d;\nor.b32 %r3, %r3, %r4;\n"
      "setp.ne.u32 $d, %r3, 0;\nmov.b32 %r3, %r3;",
      T::kPred, {T::kU32, T::kU32}, binary(k32small, k32small), true);
  for (const char* m :
       {"eq", "ne", "lt", "le", "gt", "ge", "equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan"})
    add(std::string("setp.") + m + ".f32", std::string("setp.") + m + ".f32 $d, $0, $1;", T::kPred,
        {T::kF32, T::kF32}, binary(kF32pairs, kF32pairs), false);
  for (const char* m : {"lt", "neu", "nan"})
    add(std::string("setp.") + m + ".f64", std::string("setp.") + m + ".f64 $d, $0, $1;", T::kPred,
        {T::kF64, T::kF64}, binary(kF64, kF64), false);
  // selp, set, slct, predicated execution.
  add("selp.b32", "setp.ne.u32 %p2, $2, 0;\nselp.b32 $d, $0, $1, %p2;", T::kU32,
      {T::kU32, T::kU32, T::kU32}, ternary({5}, {0xffffffff}, {0, 1, 0x80000000}), true);
  add("set.lt.u32.s32", "set.lt.u32.s32 $d, $0, $1;", T::kU32, {T::kU32, T::kU32},
      binary(k32small, k32small), true);
  add("slct.s32.s32", "slct.s32.s32 $d, $0, $1, $2;", T::kU32, {T::kU32, T::kU32, T::kU32},
      ternary({5}, {7}, {0, 1, 0x7fffffff, 0x80000000, 0xffffffff}), true);
  add("guard",
      "mov.u32 $d, 7;\nsetp.lt.s32 %p2, $0, $1;\n@%p2 add.u32 $d, $0, $1;\n"
      "@!%p2 xor.b32 $d, $d, $1;",
      T::kU32, {T::kU32, T::kU32}, binary(k32small, k32small), true);
  // Integer conversions: truncation, extension, saturation.
  for (const char* op : {"cvt.s32.s16", "cvt.u32.u16", "cvt.s32.s8", "cvt.u32.u8"})
    un(op, T::kU32, T::kU16, true);
  for (const char* op : {"cvt.sat.s16.s32", "cvt.sat.u16.s32", "cvt.u16.u32", "cvt.s16.s32"})
    un(op, T::kU16, T::kU32, true);
  for (const char* op : {"cvt.s64.s32", "cvt.u64.u32", "cvt.u64.s32"})
    un(op, T::kU64, T::kU32, true);
  for (const char* op : {"cvt.sat.s32.s64", "cvt.sat.u32.s64", "cvt.sat.s32.u64", "cvt.u32.u64"})
    un(op, T::kU32, T::kU64, true);
  for (const char* op : {"cvt.sat.u8.s32", "cvt.sat.s8.s32"})
    un(op, T::kU32, T::kU32, true);
  // Float arithmetic and conversions with rounding modes and saturation.
  for (const char* op : {"add.rn.f32", "sub.rn.f32", "mul.rn.f32", "add.rz.f32", "min.f32",
                         "max.f32", "add.rn.ftz.f32", "mul.rn.sat.f32"})
    add(op, std::string(op) + " $d, $0, $1;", T::kF32, {T::kF32, T::kF32},
        binary(kF32pairs, kF32pairs), false);
  add("fma.rn.f32", "fma.rn.f32 $d, $0, $1, $2;", T::kF32, {T::kF32, T::kF32, T::kF32},
      ternary({0x3f800001, 0x7fc00000, 0x7f800000}, {0x3f7ffffe, 0}, {0xbf800000, 0x80000000}),
      false);
  for (const char* op : {"add.rn.f64", "mul.rn.f64"})
    add(op, std::string(op) + " $d, $0, $1;", T::kF64, {T::kF64, T::kF64}, binary(kF64, kF64),
        false);
  for (const char* op : {"abs.f32", "neg.f32"})
    un(op, T::kF32, T::kF32, false);
  for (const char* op : {"cvt.rni.s32.f32", "cvt.rzi.s32.f32", "cvt.rmi.s32.f32", "cvt.rpi.u32.f32",
                         "cvt.rzi.sat.u32.f32"})
    un(op, T::kU32, T::kF32, false);
  un("cvt.rzi.s64.f64", T::kU64, T::kF64, false);
  un("cvt.rni.s16.f32", T::kU16, T::kF32, false);
  for (const char* op : {"cvt.rn.f32.s32", "cvt.rz.f32.u32", "cvt.rn.f32.u32"})
    un(op, T::kF32, T::kU32, false);
  un("cvt.rn.f32.f64", T::kF32, T::kF64, false);
  un("cvt.f64.f32", T::kF64, T::kF32, false);
  un("cvt.rn.f64.s64", T::kF64, T::kU64, false);
  un("cvt.rni.f32.f32", T::kF32, T::kF32, false);
  un("cvt.sat.f32.f32", T::kF32, T::kF32, false);
  // Memory: [var+imm], [reg+imm] into .shared and .local; ld.param of a given value.
  add("st.ld.shared.var+imm", "st.shared.u32 [sbuf+4], $0;\nld.shared.u32 $d, [sbuf+4];", T::kU32,
      {T::kU32}, unary(k32small), false);
  add("st.ld.shared.reg+imm",
      "mov.u64 %rd4, sbuf;\nst.shared.u32 [%rd4+8], $0;\nst.shared.u16 [%rd4+12], $0;\n"
      "ld.shared.u32 %r4, [%rd4+8];\nld.shared.u16 %h4, [%rd4+12];\ncvt.u32.u16 %r5, %h4;\n"
      "add.u32 $d, %r4, %r5;",
      T::kU32, {T::kU32}, unary(k32small), false);
  add("st.ld.local.reg+imm",
      "mov.u64 %rd4, lbuf;\nst.local.u64 [%rd4+8], $0;\nld.local.u32 $d, [%rd4+12];", T::kU32,
      {T::kU64}, unary(k64), false);
  add("ld.param.u32", "ld.param.u32 %r4, [pk];\nadd.u32 $d, %r4, $0;", T::kU32, {T::kU32},
      unary(k32small), true);
  return out;
}

// Declarations every wrapper (GPU or interpreter) gives the bodies.
const char* kDecls = R"(	.reg .pred %p<4>;
	.reg .b16 %h<6>;
	.reg .b32 %r<8>;
	.reg .b64 %rd<6>;
	.reg .f32 %f<4>;
	.reg .f64 %fd<4>;
	.reg .b64 %ia, %ib, %ic, %o;
	.shared .align 8 .b8 sbuf[32];
	.local .align 8 .b8 lbuf[32];
)";

const char* kHeader = ".version 8.0\n.target sm_90\n.address_size 64\n\n";

std::string hex(std::uint64_t v) {
  char b[24];
  std::snprintf(b, sizeof b, "%llx", static_cast<unsigned long long>(v));
  return b;
}

} // namespace

const std::vector<Case>& cases() {
  static const std::vector<Case> all = build();
  return all;
}

std::string entry_name(std::size_t i) {
  return "case_" + std::to_string(i);
}

std::string device_module() {
  std::ostringstream s;
  s << kHeader;
  for (std::size_t i = 0; i < cases().size(); ++i) {
    s << "// " << cases()[i].name << "\n.visible .entry " << entry_name(i)
      << "(.param .u64 pin, .param .u64 pout, .param .u32 pn, .param .u32 pk)\n{\n"
      << kDecls << R"(	.reg .pred %gp;
	.reg .b32 %gt;
	.reg .b64 %ga<4>;
	mov.u32 %gt, %tid.x;
	ld.param.u32 %r0, [pn];
	setp.ge.u32 %gp, %gt, %r0;
	@%gp bra DONE;
	ld.param.u64 %ga0, [pin];
	cvta.to.global.u64 %ga0, %ga0;
	mul.wide.u32 %ga1, %gt, 24;
	add.u64 %ga1, %ga0, %ga1;
	ld.global.u64 %ia, [%ga1];
	ld.global.u64 %ib, [%ga1+8];
	ld.global.u64 %ic, [%ga1+16];
)" << cases()[i].body
      << R"(	ld.param.u64 %ga2, [pout];
	cvta.to.global.u64 %ga2, %ga2;
	mul.wide.u32 %ga3, %gt, 8;
	add.u64 %ga3, %ga2, %ga3;
	st.global.u64 [%ga3], %o;
DONE:
	ret;
}

)";
  }
  return s.str();
}

std::optional<std::uint64_t> interpret(const Case& c, const Input& in) {
  // One parse and analysis per case would do; a case's inputs are few and the parse is cheap.
  const std::string text = std::string(kHeader) +
                           ".visible .entry k(.param .u64 pa, .param .u64 pb, .param .u64 pc, "
                           ".param .u32 pk)\n{\n" +
                           kDecls +
                           "\tld.param.u64 %ia, [pa];\n\tld.param.u64 %ib, [pb];\n"
                           "\tld.param.u64 %ic, [pc];\n" +
                           c.body + "\tret;\n}\n";
  auto parsed = parse(text, c.name + ".ptx");
  if (!parsed.ok()) return std::nullopt;
  const Module module = std::move(parsed).value();
  const Function* f = nullptr;
  for (const Function* g : module.functions())
    if (g->has_body) f = g;
  if (f == nullptr) return std::nullopt;
  const analysis::FunctionAnalysis a(*f);
  const interp::Interpreter interp(module, a);
  interp::ThreadLaunch launch;
  launch.params = {{"pa", static_cast<std::int64_t>(in[0])},
                   {"pb", static_cast<std::int64_t>(in[1])},
                   {"pc", static_cast<std::int64_t>(in[2])},
                   {"pk", static_cast<std::int64_t>(kParamK)}};
  // Stop at the final `ret` (the last instruction) so the registers are those after the body.
  interp::RunOptions opt;
  opt.target = static_cast<analysis::InstId>(a.ir.size() - 1);
  const interp::RunResult r = interp.run(launch, opt);
  if (r.stop != interp::Stop::kReached) return std::nullopt;
  const analysis::RegId o = a.ir.resolve("%o", 0);
  if (o == analysis::kNoId || !r.registers[o].known) return std::nullopt;
  return r.registers[o].bits;
}

std::optional<Expected> read_expected(const std::string& path) {
  std::ifstream f(path);
  if (!f) return std::nullopt;
  Expected out;
  std::string line;
  while (std::getline(f, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream row(line);
    std::string name, a, b, c, o;
    if (!std::getline(row, name, '\t') || !std::getline(row, a, '\t') ||
        !std::getline(row, b, '\t') || !std::getline(row, c, '\t') || !std::getline(row, o))
      continue;
    out[{name, std::stoull(a, nullptr, 16), std::stoull(b, nullptr, 16),
         std::stoull(c, nullptr, 16)}] = std::stoull(o, nullptr, 16);
  }
  return out;
}

std::string format_row(const Case& c, const Input& in, std::uint64_t out) {
  return c.name + "\t" + hex(in[0]) + "\t" + hex(in[1]) + "\t" + hex(in[2]) + "\t" + hex(out);
}

} // namespace ptxkit::verifier::conformance
