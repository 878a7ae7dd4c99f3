// rule_softmax_rescale_test.cpp: rule `softmax-rescale-saved-max` (the stale running maximum
// in the online-softmax rescale). Lines ending in `// [[softmax-rescale-saved-max]]` must be
// flagged and every other line must stay quiet; each case opens with a comment saying what it
// tests. Then the real inputs: nvcc's online-softmax decode
// (tests/verifier/inputs/softmax_nvcc_decode.*) and a Triton-shaped decode loop.
#include "analysis_planted_util.h"
#include "analysis_test_util.h"

#include <regex>

namespace ptxkit::verifier::testing {
namespace {

const std::string kRule = "softmax-rescale-saved-max";

// One online-softmax loop whose body is `body`: %f8 is the running maximum (in place, -inf
// initially), %f30 the running sum, %f10 = log2(e), %f23 the current score.
std::string loop_kernel(const std::string& name, const std::string& body) {
  return ".visible .entry " + name +
         "(.param .u64 p, .param .u32 n)\n{\n"
         "\t.reg .pred %p<4>;\n\t.reg .b32 %r<8>;\n\t.reg .f32 %f<64>;\n\t.reg .b64 %rd<4>;\n"
         "\tld.param.u64 %rd1, [p];\n\tld.param.u32 %r2, [n];\n"
         "\tmov.f32 %f8, 0fFF800000;\n\tmov.f32 %f30, 0f00000000;\n"
         "\tmov.f32 %f10, 0f3FB8AA3B;\n\tmov.u32 %r1, 0;\n"
         "$L_loop:\n\tld.global.f32 %f23, [%rd1];\n" +
         body +
         "\tadd.u32 %r1, %r1, 1;\n\tsetp.lt.u32 %p1, %r1, %r2;\n\t@%p1 bra $L_loop;\n"
         "\tst.global.f32 [%rd1], %f30;\n\tret;\n}\n";
}

const std::string kHeader = ".version 8.0\n.target sm_90\n.address_size 64\n\n";

std::string cases() {
  return kHeader +
         // The stale maximum: in-place max, then `sub x, m', m'`; the score exponent is quiet.
         loop_kernel("stale_max_defect",
                     "\tmax.f32 %f8, %f8, %f23;\n\tsub.f32 %f24, %f23, %f8;\n"
                     "\tmul.f32 %f25, %f24, %f10;\n\tex2.approx.f32 %f26, %f25;\n"
                     "\tsub.f32 %f27, %f8, %f8;  // [[softmax-rescale-saved-max]]\n"
                     "\tmul.f32 %f28, %f27, %f10;\n\tex2.approx.f32 %f29, %f28;\n"
                     "\tfma.rn.f32 %f30, %f30, %f29, %f26;\n") +
         // Its fix (near miss): the old maximum is copied before the in-place update.
         loop_kernel("stale_max_fixed",
                     "\tmov.f32 %f24, %f8;\n\tmax.f32 %f8, %f8, %f23;\n"
                     "\tsub.f32 %f25, %f23, %f8;\n\tmul.f32 %f26, %f25, %f10;\n"
                     "\tex2.approx.f32 %f27, %f26;\n\tsub.f32 %f28, %f24, %f8;\n"
                     "\tmul.f32 %f29, %f28, %f10;\n\tex2.approx.f32 %f31, %f29;\n"
                     "\tfma.rn.f32 %f30, %f30, %f31, %f27;\n") +
         // fma-folded (old - new) * c = fma(old, c, -(new * c)): correct (near miss) ...
         loop_kernel("fma_folded_ok",
                     "\tmax.f32 %f40, %f8, %f23;\n\tmul.f32 %f41, %f40, %f10;\n"
                     "\tneg.f32 %f42, %f41;\n\tfma.rn.f32 %f43, %f8, %f10, %f42;\n"
                     "\tex2.approx.ftz.f32 %f44, %f43;\n\tfma.rn.f32 %f45, %f23, %f10, %f42;\n"
                     "\tex2.approx.ftz.f32 %f46, %f45;\n\tfma.rn.f32 %f30, %f30, %f44, %f46;\n"
                     "\tmov.f32 %f8, %f40;\n") +
         // ... and with the new maximum as the minuend; also -c folded into the product.
         loop_kernel(
             "fma_folded_defect",
             "\tmax.f32 %f40, %f8, %f23;\n\tmul.f32 %f41, %f40, %f10;\n"
             "\tneg.f32 %f42, %f41;\n"
             "\tfma.rn.f32 %f43, %f40, %f10, %f42;  // [[softmax-rescale-saved-max]]\n"
             "\tex2.approx.ftz.f32 %f44, %f43;\n"
             "\tmul.f32 %f47, %f40, 0fBFB8AA3B;\n"
             "\tfma.rn.f32 %f48, %f40, 0f3FB8AA3B, %f47;  // [[softmax-rescale-saved-max]]\n"
             "\tex2.approx.ftz.f32 %f49, %f48;\n\tmul.f32 %f50, %f44, %f49;\n"
             "\tfma.rn.f32 %f45, %f23, %f10, %f42;\n"
             "\tex2.approx.ftz.f32 %f46, %f45;\n\tfma.rn.f32 %f30, %f30, %f50, %f46;\n"
             "\tmov.f32 %f8, %f40;\n") +
         // Two updates per iteration (an unrolled loop): each rescale reads the maximum from
         // before its own update (near miss); exp(later - earlier), a valid rescale when divided
         // by, is not reported (near miss); a rescale of m2 from itself is a defect.
         loop_kernel("unrolled_chain",
                     "\tld.global.f32 %f24, [%rd1+4];\n"
                     "\tmax.f32 %f40, %f8, %f23;\n\tsub.f32 %f41, %f8, %f40;\n"
                     "\tex2.approx.f32 %f42, %f41;\n\tsub.f32 %f43, %f23, %f40;\n"
                     "\tex2.approx.f32 %f44, %f43;\n\tfma.rn.f32 %f45, %f30, %f42, %f44;\n"
                     "\tmax.f32 %f50, %f40, %f24;\n\tsub.f32 %f51, %f40, %f50;\n"
                     "\tex2.approx.f32 %f52, %f51;\n\tsub.f32 %f53, %f24, %f50;\n"
                     "\tex2.approx.f32 %f54, %f53;\n"
                     "\tsub.f32 %f55, %f50, %f40;\n"
                     "\tex2.approx.f32 %f56, %f55;\n\tdiv.rn.f32 %f57, %f52, %f56;\n"
                     "\tmov.f32 %f58, %f50;\n"
                     "\tsub.f32 %f59, %f58, %f50;  // [[softmax-rescale-saved-max]]\n"
                     "\tex2.approx.f32 %f60, %f59;\n\tmul.f32 %f57, %f57, %f60;\n"
                     "\tfma.rn.f32 %f30, %f45, %f57, %f54;\n\tmov.f32 %f8, %f50;\n") +
         // No rescale at all: exp(s - m') accumulates onto a sum kept on the old scale.
         loop_kernel("missing_rescale",
                     "\tmax.f32 %f8, %f8, %f23;  // [[softmax-rescale-saved-max]]\n"
                     "\tsub.f32 %f24, %f23, %f8;\n\tmul.f32 %f25, %f24, %f10;\n"
                     "\tex2.approx.f32 %f26, %f25;\n\tadd.f32 %f30, %f30, %f26;\n") +
         // A -inf-safe maximum (`selp 0 when m' == -inf`) read through a copy of m'.
         loop_kernel("safe_max_copy",
                     "\tmax.f32 %f40, %f8, %f23;\n\tsetp.eq.f32 %p2, %f40, 0fFF800000;\n"
                     "\tselp.f32 %f41, 0f00000000, %f40, %p2;\n\tmov.f32 %f42, %f40;\n"
                     "\tsub.f32 %f43, %f42, %f41;  // [[softmax-rescale-saved-max]]\n"
                     "\tmul.f32 %f44, %f43, %f10;\n\tex2.approx.f32 %f45, %f44;\n"
                     "\tsub.f32 %f46, %f23, %f41;\n\tmul.f32 %f47, %f46, %f10;\n"
                     "\tex2.approx.f32 %f48, %f47;\n\tfma.rn.f32 %f30, %f30, %f45, %f48;\n"
                     "\tmov.f32 %f8, %f40;\n");
}

TEST(RuleSoftmaxRescale, MarkedLinesAreFlaggedAndOnlyThose) {
  expect_marked_lines_flagged(cases(), kRule);
}

TEST(RuleSoftmaxRescale, SitesAreRescalesAndScoreExponents) {
  FileReport r = verify_one(cases(), kRule);
  ASSERT_EQ(r.rules.size(), 1u);
  EXPECT_EQ(r.rules[0].outcome, RuleOutcome::kFail);
  // defect 2 + fixed 2 + fma ok 2 + fma defect 3 + chain 6 + missing 1 + safe 2.
  EXPECT_EQ(r.rules[0].sites, 18u);
}

TEST(RuleSoftmaxRescale, FindingNamesBothSides) {
  const std::string text = cases();
  FileReport r = verify_one(text, kRule);
  std::uint32_t line = line_of(text, "sub.f32 %f27, %f8, %f8;");
  auto it = std::find_if(r.findings.begin(), r.findings.end(),
                         [&](const Finding& f) { return f.location.line == line; });
  ASSERT_NE(it, r.findings.end());
  EXPECT_EQ(it->kernel, "stale_max_defect");
  EXPECT_NE(it->message.find("from itself"), std::string::npos) << it->message;
  ASSERT_GE(it->related.size(), 2u);
  EXPECT_EQ(it->related[0].instruction, "max.f32 %f8, %f8, %f23;");
  EXPECT_EQ(it->related.back().instruction, "ex2.approx.f32 %f29, %f28;");
}

TEST(RuleSoftmaxRescale, NoLoopMaximumIsNotApplicable) {
  // A maximum outside any loop, and a loop maximum feeding no exponent (pass one of a two-pass
  // softmax): the rule applies to neither.
  const std::string straight =
      "\t.reg .f32 %f<8>;\n\t.reg .b64 %rd<2>;\n\tld.param.u64 %rd1, [p];\n"
      "\tld.global.f32 %f1, [%rd1];\n\tld.global.f32 %f2, [%rd1+4];\n"
      "\tmax.f32 %f3, %f1, %f2;\n\tsub.f32 %f4, %f1, %f3;\n\tex2.approx.f32 %f5, %f4;\n"
      "\tst.global.f32 [%rd1], %f5;\n\tret;\n";
  const std::string max_only =
      "\t.reg .pred %p<2>;\n\t.reg .b32 %r<4>;\n\t.reg .f32 %f<8>;\n\t.reg .b64 %rd<2>;\n"
      "\tld.param.u64 %rd1, [p];\n\tmov.f32 %f1, 0fFF800000;\n\tmov.u32 %r1, 0;\n"
      "$L:\n\tld.global.f32 %f2, [%rd1];\n\tmax.f32 %f1, %f1, %f2;\n\tadd.u32 %r1, %r1, 1;\n"
      "\tsetp.lt.u32 %p1, %r1, 8;\n\t@%p1 bra $L;\n\tst.global.f32 [%rd1], %f1;\n\tret;\n";
  for (const std::string& body : {straight, max_only}) {
    FileReport r = verify_one(kernel(".param .u64 p", body), kRule);
    ASSERT_EQ(r.rules.size(), 1u);
    EXPECT_EQ(r.rules[0].outcome, RuleOutcome::kNotApplicable) << body;
    EXPECT_EQ(r.rules[0].sites, 0u);
    EXPECT_TRUE(r.findings.empty());
  }
}

TEST(RuleSoftmaxRescale, TritonShapedDecodeMarkedLines) {
  const std::string text = read_source_file("tests/verifier/inputs/softmax_triton_decode.ptx");
  ASSERT_FALSE(text.empty());
  EXPECT_EQ(marked_lines(text, kRule).size(), 3u);
  expect_marked_lines_flagged(text, kRule);
}

// nvcc -O3: the defect kernel's self-subtractions (4 unrolled copies and the remainder loop)
// are the findings, exactly; the correct kernels (exp2f and precise expf) have rescale sites.
TEST(RuleSoftmaxRescale, NvccDecodeLoops) {
  const std::string path = "tests/verifier/inputs/softmax_nvcc_decode.sm_90.ptx";
  const std::string text = read_source_file(path);
  ASSERT_FALSE(text.empty());
  std::set<std::uint32_t> self_subs;
  std::uint32_t n = 0;
  const std::regex self_sub(R"(^\s*sub\.f32\s+%f\d+,\s*(%f\d+),\s*(%f\d+);)");
  for (const std::string& l : split_lines(text)) {
    ++n;
    std::smatch m;
    if (std::regex_search(l, m, self_sub) && m[1] == m[2]) self_subs.insert(n);
  }
  EXPECT_EQ(self_subs.size(), 5u);
  FileReport r = verify_one(text, kRule, path);
  std::set<std::uint32_t> bug_lines;
  std::uint32_t missing = 0;
  for (const Finding& f : r.findings) {
    if (f.kernel == "_Z10decode_bugPKfS0_S0_Pfif") {
      bug_lines.insert(f.location.line);
    } else {
      // decode_no_rescale: no rescale at all, reported at a running-maximum update of the
      // unrolled loop and of the remainder loop.
      EXPECT_EQ(f.kernel, "_Z17decode_no_rescalePKfS0_S0_Pfif");
      EXPECT_EQ(f.instruction.rfind("max.f32", 0), 0u) << f.instruction;
      EXPECT_NE(f.message.find("nothing rescales"), std::string::npos) << f.message;
      ++missing;
    }
  }
  EXPECT_EQ(bug_lines, self_subs);
  EXPECT_EQ(missing, 2u);
  ASSERT_EQ(r.rules.size(), 1u);
  EXPECT_GE(r.rules[0].sites, 25u); // 5 rescales + 5 score exponents per kernel, 3 kernels, + 5
}

} // namespace
} // namespace ptxkit::verifier::testing
