// interp_test_util.h: helpers for the interpreter's tests: wrap a body in a kernel with a fixed
// set of registers and shared variables, run one thread of it, read its registers by name.
//
// Why: the semantics tests are written as PTX instructions and the values the ISA gives them;
// the kernel around them and the lookups are the same for every case.
#pragma once

#include "analysis_test_util.h"
#include "ptxkit/verifier/interp/interpreter.h"

namespace ptxkit::verifier::testing {

// Layout of the wrapper's shared variables: `a` (64 bytes) at offset 0, `b` (256) at 64.
inline std::string interp_kernel(const std::string& body) {
  return R"(.version 8.0
.target sm_90
.address_size 64

.visible .entry k(.param .u64 p, .param .u32 n)
{
	.reg .pred %p<8>;
	.reg .b16 %h<8>;
	.reg .b32 %r<40>;
	.reg .b64 %rd<20>;
	.shared .align 4 .b8 a[64];
	.shared .align 16 .b8 b[256];
)" + body +
         R"(
	ret;
}
)";
}

struct Ran {
  Analyzed an;
  std::unique_ptr<interp::Interpreter> in;
  interp::RunResult r;

  interp::Value value(const std::string& reg) const {
    const analysis::RegId id = an.a->ir.resolve(reg, 0);
    EXPECT_NE(id, analysis::kNoId) << reg;
    return id == analysis::kNoId ? interp::Value{} : r.registers[id];
  }
  // The register's low `bits` bits; fails the test when it is unknown.
  std::uint64_t u(const std::string& reg, unsigned bits = 32) const {
    const interp::Value v = value(reg);
    EXPECT_TRUE(v.known) << reg << " is unknown";
    return bits >= 64 ? v.bits : v.bits & ((std::uint64_t{1} << bits) - 1);
  }
  std::int64_t s(const std::string& reg, unsigned bits = 32) const {
    const std::uint64_t x = u(reg, bits);
    if (bits >= 64) return static_cast<std::int64_t>(x);
    const std::uint64_t sign = std::uint64_t{1} << (bits - 1);
    return static_cast<std::int64_t>((x ^ sign) - sign);
  }
  bool known(const std::string& reg) const { return value(reg).known; }
  // The instruction on the first line containing `needle`.
  analysis::InstId at(const std::string& needle) const {
    return inst_at(*an.a, line_of(text, needle));
  }
  std::string text;
};

// Runs one thread of `interp_kernel(body)` (or of `text` as is, when `wrap` is false).
inline std::unique_ptr<Ran> run_thread(const std::string& body, interp::ThreadLaunch launch = {},
                                       interp::RunOptions opt = {},
                                       const std::string& target_needle = "", bool wrap = true) {
  auto out = std::make_unique<Ran>();
  out->text = wrap ? interp_kernel(body) : body;
  out->an = analyze(out->text);
  out->in = std::make_unique<interp::Interpreter>(out->an.module, *out->an.a);
  if (!target_needle.empty()) opt.target = out->at(target_needle);
  out->r = out->in->run(launch, opt);
  return out;
}

} // namespace ptxkit::verifier::testing
