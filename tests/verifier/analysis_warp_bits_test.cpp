// analysis_warp_bits_test.cpp: WarpBits (warp_bits.h), the uniform-high-bits / known-bits facts:
// transfer functions on straight-line code (lane = tid.x & 31, warp = tid.x >> 5), comparisons
// that are and are not warp-uniform, and the tid.x alignment assumption.
#include "analysis_test_util.h"
#include "ptxkit/verifier/analysis/warp_bits.h"

namespace ptxkit::verifier::testing {
namespace {

using namespace analysis;

const char* kBody = R"PTX(
	.reg .pred %p<20>;
	.reg .b32 %r<60>;
	.reg .b64 %rd<8>;
	ld.param.u32 %r30, [n];
	mov.u32 %r1, %tid.x;
	and.b32 %r2, %r1, 31;
	shr.u32 %r3, %r1, 5;
	shr.u32 %r4, %r2, 3;
	and.b32 %r18, %r3, 1;
	mad.lo.u32 %r42, %r18, 4, %r4;
	mad.lo.u32 %r43, %r18, 2, %r4;
	shr.u32 %r5, %r2, 2;
	mul.lo.u32 %r7, %r30, 12;
	add.u32 %r8, %r7, %r4;
	sub.u32 %r9, %r8, 8;
	sub.u32 %r10, 8, %r4;
	or.b32 %r11, %r7, %r4;
	and.b32 %r12, %r2, 24;
	shl.b32 %r13, %r30, 3;
	add.u32 %r14, %r13, %r5;
	add.u32 %r15, %r42, %r4;
	cvt.u64.u32 %rd2, %r42;
	mul.wide.u32 %rd3, %r42, 16;
	mov.u32 %r16, %laneid;
	shr.u32 %r17, %r16, 4;
	add.u32 %r19, %r17, 7;
	setp.lt.u32 %p1, %r42, 12;
	setp.lt.u32 %p2, %r42, 6;
	setp.eq.u32 %p3, %r42, 4;
	setp.le.u32 %p4, %r42, 11;
	setp.lt.s32 %p5, %r42, -4;
	setp.lt.u32 %p6, %r43, 12;
	setp.ge.u32 %p7, %r8, %r7;
	setp.lt.u32 %p8, %r14, %r13;
	setp.gt.u32 %p9, 16, %r42;
	setp.lt.u32 %p10, %r19, 8;
	setp.lt.u32 %p11, %r2, 32;
	setp.lt.f32 %p12, 0f00000000, 0f3F800000;
	st.global.u32 [%rd1], %r42;
	ret;
)PTX";

std::string text(const std::string& reqntid) {
  return ".version 8.0\n.target sm_90\n.address_size 64\n\n.visible .entry k(.param .u64 p, "
         ".param .u32 n)\n" +
         reqntid + "\n{\n\tld.param.u64 %rd1, [p];" + kBody + "}\n";
}

struct Bits {
  Analyzed t;
  std::string src;
  std::vector<char> none;
  std::unique_ptr<WarpBits> wb;
  explicit Bits(const std::string& reqntid, bool aligned)
      : t(analyze(text(reqntid))), src(text(reqntid)), none(t.a->cfg.size(), 0) {
    WarpBitsInput in;
    in.divergent = &none; // straight-line code: no branches
    in.merge_varying = &none;
    in.tid_x_warp_aligned = aligned;
    wb = std::make_unique<WarpBits>(*t.a, in);
  }
  LaneBits def(const std::string& needle) const {
    return wb->value(t.a->values.defined_value(inst_at(*t.a, line_of(src, needle))));
  }
  bool cmp(const std::string& needle) const {
    return wb->compare_uniform(inst_at(*t.a, line_of(src, needle)));
  }
};

TEST(AnalysisWarpBits, LaneAndWarpArithmetic) {
  Bits b(".reqntid 256, 1, 1", true);
  LaneBits lane = b.def("and.b32 %r2,");
  EXPECT_EQ(lane.width, 32);
  EXPECT_EQ(lane.uniform_from, 5);
  EXPECT_EQ(lane.max, 31u);
  EXPECT_TRUE(b.def("shr.u32 %r3,").uniform()); // the warp index
  LaneBits q = b.def("shr.u32 %r4,");           // lane >> 3
  EXPECT_EQ(q.uniform_from, 2);
  EXPECT_EQ(q.max, 3u);
  LaneBits s = b.def("mad.lo.u32 %r42,"); // (warp & 1) * 4 + (lane >> 3)
  EXPECT_EQ(s.uniform_from, 2);
  EXPECT_EQ(s.max, 7u);
  // * 2: carries into bit 2 in some lanes; only the bound (<= 5, so below 8) is left.
  EXPECT_EQ(b.def("mad.lo.u32 %r43,").uniform_from, 3);
  LaneBits m = b.def("mul.lo.u32 %r7,"); // n * 12
  EXPECT_TRUE(m.uniform());
  EXPECT_EQ(m.low_zero, 2);
  EXPECT_EQ(b.def("add.u32 %r8,").uniform_from, 2);
  EXPECT_EQ(b.def("sub.u32 %r9,").uniform_from, 2);   // - 8: no lane borrows
  EXPECT_EQ(b.def("sub.u32 %r10,").uniform_from, 32); // 8 - (lane >> 3): borrows vary
  EXPECT_EQ(b.def("or.b32 %r11,").uniform_from, 2);
  LaneBits msk = b.def("and.b32 %r12,"); // lane & 24: bits 3 and 4
  EXPECT_EQ(msk.uniform_from, 5);
  EXPECT_EQ(msk.low_zero, 3);
  EXPECT_EQ(b.def("add.u32 %r14,").uniform_from, 3); // n * 8 + (lane >> 2)
  EXPECT_EQ(b.def("add.u32 %r15,").uniform_from, 4); // 7 + 3 may carry into bit 2; <= 10
  LaneBits wide = b.def("cvt.u64.u32");
  EXPECT_EQ(wide.width, 64);
  EXPECT_EQ(wide.uniform_from, 2);
  LaneBits mw = b.def("mul.wide.u32");
  EXPECT_EQ(mw.width, 64);
  EXPECT_EQ(mw.uniform_from, 6);
  EXPECT_EQ(mw.low_zero, 4);
  EXPECT_EQ(mw.max, 112u);
  EXPECT_EQ(b.def("%laneid").max, 31u);
  EXPECT_EQ(b.def("add.u32 %r19,").uniform_from, 4); // (laneid >> 4) + 7: 7 or 8
}

TEST(AnalysisWarpBits, Comparisons) {
  Bits b(".reqntid 256, 1, 1", true);
  EXPECT_TRUE(b.cmp("setp.lt.u32 %p1,"));  // < 12: a multiple of 4
  EXPECT_FALSE(b.cmp("setp.lt.u32 %p2,")); // < 6
  EXPECT_FALSE(b.cmp("setp.eq.u32 %p3,")); // == 4 depends on the lane's low bits
  EXPECT_TRUE(b.cmp("setp.le.u32 %p4,"));  // <= 11 is < 12
  EXPECT_TRUE(b.cmp("setp.lt.s32 %p5,"));  // signed, -4 = ...1100
  EXPECT_FALSE(b.cmp("setp.lt.u32 %p6,")); // start * 2 + (lane >> 3)
  EXPECT_TRUE(b.cmp("setp.ge.u32 %p7,"));  // a uniform register bound with low bits zero
  EXPECT_TRUE(b.cmp("setp.lt.u32 %p8,"));  // n * 8 + (lane >> 2) < n * 8
  EXPECT_TRUE(b.cmp("setp.gt.u32 %p9,"));  // 16 > x is x < 16
  EXPECT_FALSE(b.cmp("setp.lt.u32 %p10,"));
  EXPECT_TRUE(b.cmp("setp.lt.u32 %p11,")); // lane < 32: always
  EXPECT_FALSE(b.cmp("setp.lt.f32"));      // floating point is not refined (beyond uniform)
  EXPECT_TRUE(b.def("setp.lt.u32 %p1,").uniform());
  EXPECT_FALSE(b.def("setp.lt.u32 %p2,").uniform());
}

TEST(AnalysisWarpBits, TidXOnlyAlignedWhenWarpsAreRunsOfTidX) {
  // 48 x 2 threads: a warp holds tid.x 0..47 of row 0 and 0..15 of row 1 (tid.x >> 5 differs).
  Bits b(".reqntid 48, 2, 1", false);
  EXPECT_FALSE(b.def("shr.u32 %r3,").uniform());
  EXPECT_EQ(b.def("and.b32 %r2,").max, 31u); // the lane part is still below 32
  EXPECT_EQ(b.def("and.b32 %r2,").uniform_from, 5);
  // (warp & 1) * 4 is 0 or 4 in different lanes: only "below 8" is left.
  EXPECT_EQ(b.def("mad.lo.u32 %r42,").uniform_from, 3);
  EXPECT_FALSE(b.cmp("setp.lt.u32 %p1,"));
  EXPECT_TRUE(b.cmp("setp.lt.u32 %p11,"));
}

} // namespace
} // namespace ptxkit::verifier::testing
