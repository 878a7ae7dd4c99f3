// vector_access.h: loads and stores of 1, 2 or 4 consecutive floats as one vector access, the
// registers handed around as a list whose length is the width.
//
// Wide accesses are what make the memory-bound kernels fast: one 16-byte ld/st per thread moves
// four floats in one transaction. The caller guarantees the alignment (width * 4 bytes).
#pragma once

#include <cstdint>
#include <ptxkit/ptxgen/ptxgen.h>
#include <vector>

namespace ptxkit::kernels::common {

using namespace ptxkit::ptxgen;

// Which load instruction: ld (plain), or ld.global.nc (read-only path: only for buffers the
// kernel does not write, so not for an input an output may alias).
enum class LoadPath { kPlain, kReadOnly };

// `width` (4, 2 or 1) consecutive floats at p.
template <class S>
std::vector<Reg<F32>> load_vector(KernelBuilder& b, Ptr<S, const F32> p, std::uint32_t width,
                                  LoadPath path) {
  const bool nc = path == LoadPath::kReadOnly;
  if (width == 4) {
    auto v = nc ? b.ld_nc_v4(p) : b.ld_v4(p);
    return {v.begin(), v.end()};
  }
  if (width == 2) {
    auto v = nc ? b.ld_nc_v2(p) : b.ld_v2(p);
    return {v.begin(), v.end()};
  }
  return {nc ? b.ld_nc(p) : b.ld(p)};
}

// v.size() (4, 2 or 1) consecutive floats at p.
template <class S>
void store_vector(KernelBuilder& b, Ptr<S, F32> p, const std::vector<Reg<F32>>& v) {
  if (v.size() == 4)
    b.st_v4(p, {v[0], v[1], v[2], v[3]});
  else if (v.size() == 2)
    b.st_v2(p, {v[0], v[1]});
  else
    b.st(p, v[0]);
}

// Unit `unit` of a row of units that are .v4 groups (`vec4`) or single floats.
inline std::vector<Reg<F32>> load_unit(KernelBuilder& b, Ptr<Global, const F32> row, Reg<U32> unit,
                                       bool vec4, LoadPath path) {
  if (!vec4) return load_vector(b, row + unit, 1, path);
  return load_vector(b, row + b.shl(unit, b.imm<U32>(2)), 4, path);
}

inline void store_unit(KernelBuilder& b, Ptr<Global, F32> row, Reg<U32> unit,
                       const std::vector<Reg<F32>>& v) {
  if (v.size() == 1) {
    store_vector(b, row + unit, v);
    return;
  }
  store_vector(b, row + b.shl(unit, b.imm<U32>(2)), v);
}

} // namespace ptxkit::kernels::common
