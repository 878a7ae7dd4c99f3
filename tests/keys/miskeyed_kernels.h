// miskeyed_kernels.h: the keying schemes of the key-lint negative controls (the bugs of
// hand-written keys).
//
// The mis-keyed TEST kernels themselves register in miskeyed_kernels.cpp (test binary only):
// test_rmsnorm_eps_exempt / test_rmsnorm_eps_keyed, test_rmsnorm_batch_keyed /
// test_rmsnorm_batch_exempt. The hand-written RoPE keys below are aimed at the library's
// rope_neox.
#pragma once

#include <cstring>
#include <ptxkit/kernels/kernel.h>
#include <rmsnorm/rmsnorm.h>
#include <string>
#include <string_view>

namespace ptxkit::kernels::keytest {

// The hand-written RoPE key: head_dim and num_heads, no theta.
std::string handwritten_rope_key(const Kernel& k, const ConfigValues& v, std::string_view target);
// theta printed with %g: neighbouring floats share a key.
std::string rounded_theta_rope_key(const Kernel& k, const ConfigValues& v, std::string_view target);
// theta's exact bits: the repaired twin.
std::string repaired_rope_key(const Kernel& k, const ConfigValues& v, std::string_view target);

} // namespace ptxkit::kernels::keytest
