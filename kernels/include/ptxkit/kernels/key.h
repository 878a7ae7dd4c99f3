// key.h: the cache key of a kernel instance, derived from the reflected config.
//
// The hand-written-key bugs (RMSNorm eps and RoPE theta baked into PTX but missing from the cache
// key) cannot recur: the key is computed from EVERY baked field, by the same reflection that
// drives `--set` and `list`, never written by hand. Non-baked fields are excluded, each with the
// reason its FieldSpec declares.
//
// Scheme (docs/kernels.md, "The cache key"): the key material is the text
//
//   ptxkit-key-v1\n
//   kernel=NAME\n
//   target=sm_XX\n
//   generator=VERSION\n
//   FIELD:TYPE=VALUE\n          one line per baked field, in declaration order
//
// where VALUE is decimal for u32/i32, 0/1 for bool, the enum's value name, and for f32 the exact
// bit pattern as 0x%08x (so 1e-6 and its neighbour 1 ulp away differ, and -0.0 differs from 0.0).
// The key is NAME-XXXXXXXXXXXXXXXX: the 64-bit FNV-1a hash of the material in 16 lower-case hex
// digits.
#pragma once

#include <cstdint>
#include <ptxkit/kernels/kernel.h>
#include <string>
#include <string_view>

namespace ptxkit::kernels {

// The generator version that enters every key and golden header.
[[nodiscard]] std::string_view generator_version();

// The key material text above (values must be valid for `kernel`).
[[nodiscard]] std::string key_material(const Kernel& kernel, const ConfigValues& values,
                                       std::string_view target);

// NAME-<16 hex>.
[[nodiscard]] std::string cache_key(const Kernel& kernel, const ConfigValues& values,
                                    std::string_view target);

// 64-bit FNV-1a.
[[nodiscard]] std::uint64_t fnv1a64(std::string_view data);

} // namespace ptxkit::kernels
