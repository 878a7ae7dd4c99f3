// analysis_vector_elements_test.cpp: an element of a vector register used as an ordinary operand
// (`max.f32 mx.x, %f1, %f2` of CUTLASS's inline asm, `%acc.r`, `%acc3.y` of a ranged vector) is
// that element's own register in FunctionIR, and so in every dataflow analysis: undefined-register
// and dead-value see the element that is written or read, uniformity the element's own value.
//
// Why: an element that resolved to the whole vector (or to nothing, or to a symbol's address)
// would make a write of mx.x define mx.y, or a lane-varying element look uniform.
#include "analysis_test_util.h"

namespace ptxkit::verifier::testing {
namespace {

using analysis::kNoId;
using analysis::RegId;

// The registers the instruction on `needle`'s line mentions, as "name:def" or "name:use".
std::vector<std::string> mentions(const Analyzed& t, const std::string& text,
                                  const std::string& needle) {
  const auto& ir = t.a->ir;
  const analysis::InstId i = inst_at(*t.a, line_of(text, needle));
  std::vector<std::string> out;
  for (const auto* m = ir.mentions_begin(i); m != ir.mentions_end(i); ++m)
    out.push_back(ir.reg_name(m->reg) + (m->is_def ? ":def" : ":use"));
  return out;
}

TEST(AnalysisVectorElements, AnElementOperandMentionsThatElementsRegister) {
  const std::string text = kernel("", "\t.reg .f32 %f<4>;\n"
                                      "\t.reg .pred p;\n"
                                      "\t.reg .v2 .f32 mx;\n"
                                      "\t.reg .v4 .f32 %acc<4>;\n"
                                      "\tmov.f32 %f1, 0f3F800000;\n"
                                      "\tmax.f32 mx.x, %f1, %f1;\n"
                                      "\tmov.f32 mx .y, %f1;\n"
                                      "\tsetp.gt.f32 p, mx.x, mx.y;\n"
                                      "\tselp.f32 %f3, mx.x, mx.y, p;\n"
                                      "\tmov.f32 %acc3.b, %f3;\n"
                                      "\tmov.v2.f32 {%f2, %acc3.a}, mx;\n"
                                      "\tret;\n");
  Analyzed t = analyze(text);
  ASSERT_TRUE(t.a);
  EXPECT_EQ(mentions(t, text, "max.f32"),
            (std::vector<std::string>{"mx.x:def", "%f1:use", "%f1:use"}));
  EXPECT_EQ(mentions(t, text, "mov.f32 mx .y"), (std::vector<std::string>{"mx.y:def", "%f1:use"}));
  EXPECT_EQ(mentions(t, text, "selp"),
            (std::vector<std::string>{"%f3:def", "mx.x:use", "mx.y:use", "p:use"}));
  // A ranged vector's element (`%acc3.b` is %acc3.z): the index counts though a suffix follows.
  EXPECT_EQ(mentions(t, text, "%acc3.b, %f3"),
            (std::vector<std::string>{"%acc3.z:def", "%f3:use"}));
  EXPECT_EQ(mentions(t, text, "mov.v2.f32"),
            (std::vector<std::string>{"%f2:def", "%acc3.w:def", "mx.x:use", "mx.y:use"}));
  const auto& ir = t.a->ir;
  const RegId whole = ir.resolve("mx", 0);
  ASSERT_NE(whole, kNoId);
  EXPECT_EQ(ir.resolve("mx.x", 0), whole);
  EXPECT_EQ(ir.resolve("mx.g", 0), whole + 1);
  EXPECT_EQ(ir.resolve("mx.z", 0), kNoId); // a .v2 has no third element
}

// The twin of the brief's defect: mx.x is written, mx.y never is.
const char* kUndefined = R"PTX(.version 8.0
.target sm_90
.address_size 64

.visible .entry k(.param .u64 p)
{
	.reg .f32 %f<4>;
	.reg .b64 %rd<2>;
	ld.param.u64 %rd1, [p];
	ld.global.f32 %f1, [%rd1];
	{
	.reg .v2 .f32 mx;
	mov.f32 mx.x, %f1;
	// the element written: defined (near miss)
	add.f32 %f2, mx.x, %f1;
	// the other element, never written
	add.f32 %f3, mx.y, %f2;  // [[undefined-register]]
	st.global.f32 [%rd1], %f3;
	}
	ret;
}
)PTX";

TEST(AnalysisVectorElements, ReadingTheUnwrittenElementIsUndefined) {
  expect_marked_lines_flagged(kUndefined, "undefined-register");
  FileReport r = verify_one(kUndefined, "undefined-register");
  ASSERT_EQ(r.findings.size(), 1u);
  EXPECT_EQ(r.findings[0].message, "mx.y is read but nothing writes it before this instruction");
}

const char* kDead = R"PTX(.version 8.0
.target sm_90
.address_size 64

.visible .entry k(.param .u64 p)
{
	.reg .f32 %f<4>;
	.reg .b64 %rd<2>;
	.reg .v2 .f32 mx;
	ld.param.u64 %rd1, [p];
	ld.global.f32 %f1, [%rd1];
	// mx.y is written and never read
	mov.f32 mx.y, %f1;  // [[dead-value]]
	// mx.x is written and stored (near miss)
	mov.f32 mx.x, %f1;
	st.global.f32 [%rd1], mx.x;
	ret;
}
)PTX";

TEST(AnalysisVectorElements, AnUnreadElementIsDeadTheReadOneIsNot) {
  expect_marked_lines_flagged(kDead, "dead-value");
}

TEST(AnalysisVectorElements, EachElementHasItsOwnUniformity) {
  const std::string text = kernel("", "\t.reg .v2 .b32 tv;\n"
                                      "\tmov.u32 tv.x, %tid.x;\n"
                                      "\tmov.u32 tv.y, %ctaid.x;\n"
                                      "\tadd.u32 tv.y, tv.y, 1;\n"
                                      "\tadd.u32 tv.x, tv.x, tv.y;\n"
                                      "\tret;\n");
  Analyzed t = analyze(text);
  ASSERT_TRUE(t.a);
  const auto& a = *t.a;
  auto def_uniform = [&](const std::string& needle) {
    return a.uniformity.is_uniform(a.values.defined_value(inst_at(a, line_of(text, needle)), 0));
  };
  EXPECT_FALSE(def_uniform("mov.u32 tv.x, %tid.x"));
  EXPECT_TRUE(def_uniform("mov.u32 tv.y, %ctaid.x"));
  EXPECT_TRUE(def_uniform("add.u32 tv.y, tv.y, 1")); // reads tv.y, not the lane-varying tv.x
  EXPECT_FALSE(def_uniform("add.u32 tv.x, tv.x, tv.y"));
}

} // namespace
} // namespace ptxkit::verifier::testing
