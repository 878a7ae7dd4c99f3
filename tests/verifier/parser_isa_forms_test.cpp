// parser_isa_forms_test.cpp: the rarer operand and initializer forms of the PTX ISA: `.unified`
// addresses (9.7.10.8), video selectors and SIMD masks (9.7.20), constant expressions folded by
// the ISA's typing rules (4.5.4), `mask()` (5.4.4), array elements without brackets (6.4.2) and
// `.samplerref`/`.texref` field initializers (5.3). Each form: its tree, its canonical print
// (which re-parses to the same tree), and located errors for its malformed near misses.
//
// Why: each of these changes what an instruction reads or writes (a selector names the register
// the analyses must see, an array element is an address, an expression is a value); a form that
// parsed into the wrong tree would silently mislead every pass after the parser.
#include "parser_test_util.h"

namespace ptxkit::verifier::testing {
namespace {

std::string kernel_text(const std::string& body, const std::string& globals = "") {
  return std::string(kHeader) + globals + ".visible .entry k()\n{\n" + body + "\n}\n";
}

struct ErrorCase {
  std::string body;
  std::string message;
  std::uint32_t col;
};

void expect_errors(const std::vector<ErrorCase>& cases, const std::string& globals = "") {
  for (const ErrorCase& c : cases) {
    ParseError e = parse_error(kernel_text(c.body, globals));
    EXPECT_EQ(e.message, c.message) << c.body;
    EXPECT_EQ(e.loc.col, c.col) << c.body;
  }
}

// ---- ld [addr].unified --------------------------------------------------------------------------

TEST(ParserIsaForms, UnifiedAddressIsKeptAndPrinted) {
  Module m = parse_body("\t.reg .b32 %r<2>;\n\t.reg .b64 %rd<2>;\n"
                        "\tld.global.u32 %r1, [%rd1+8].unified;\n\tld.global.u32 %r1, [%rd1];\n");
  auto insts = instructions(m);
  ASSERT_EQ(insts.size(), 2u);
  const Operand& a = insts[0]->operands[1];
  EXPECT_EQ(a.kind, OperandKind::kAddress);
  EXPECT_EQ(a.text(), "%rd1");
  EXPECT_EQ(a.address_offset(), 8);
  EXPECT_TRUE(a.is_unified());
  EXPECT_FALSE(insts[1]->operands[1].is_unified()); // the near miss
  EXPECT_EQ(print_instruction(*insts[0]), "ld.global.u32 %r1, [%rd1+8].unified;");
  expect_round_trip(kernel_text("\t.reg .b32 %r1;\n\t.reg .b64 %rd1;\n"
                                "\tld.global.u32 %r1, [%rd1].unified;"));
  expect_errors({{"\tld.global.u32 %r1, [%rd1].unifed;", "expected ';', found '.unifed'", 27}});
}

// ---- video selectors and SIMD masks -------------------------------------------------------------

TEST(ParserIsaForms, VideoSelectorsKeepTheRegisterName) {
  Module m = parse_body("\t.reg .b32 %r<5>;\n"
                        "\tvadd.s32.u32.s32.sat %r1, %r2.b0, %r3.h1;\n"
                        "\tvadd2.s32.s32.s32.add %r1.h10, %r2.h00, %r3.h32, %r4;\n"
                        "\tvmax4.u32.u32.u32 %r1.b3210, %r2.b0123, %r3.b7654, %r4;\n"
                        "\tvshr.s32.s32.u32.wrap %r1.b2, %r2, %r3, %r4;\n");
  auto insts = instructions(m);
  ASSERT_EQ(insts.size(), 4u);
  const Operand& a = insts[0]->operands[1];
  EXPECT_EQ(a.kind, OperandKind::kRegister);
  EXPECT_EQ(a.text(), "%r2"); // the register the analyses resolve
  EXPECT_TRUE(a.has_selector());
  EXPECT_EQ(a.selector(), "b0");
  EXPECT_EQ(insts[0]->operands[2].selector(), "h1");
  EXPECT_FALSE(insts[0]->operands[0].has_selector());
  EXPECT_EQ(insts[1]->operands[0].text(), "%r1");
  EXPECT_EQ(insts[1]->operands[0].selector(), "h10");
  EXPECT_EQ(insts[2]->operands[0].selector(), "b3210");
  EXPECT_EQ(insts[2]->operands[1].selector(), "b0123");
  EXPECT_EQ(insts[3]->operands[0].selector(), "b2");
  EXPECT_EQ(print_instruction(*insts[1]), "vadd2.s32.s32.s32.add %r1.h10, %r2.h00, %r3.h32, %r4;");
  EXPECT_EQ(print_instruction(*insts[2]),
            "vmax4.u32.u32.u32 %r1.b3210, %r2.b0123, %r3.b7654, %r4;");
  // Two selectors of one register are different operands.
  Module n = parse_body("\t.reg .b32 %r<5>;\n\tvadd.s32.u32.s32 %r1, %r2.b0, %r2.b1;\n");
  const Instruction& v = *instructions(n)[0];
  EXPECT_NE(v.operands[1].bits, v.operands[2].bits);
  expect_round_trip(kernel_text("\t.reg .b32 %r<5>;\n"
                                "\tvmad.s32.s32.u32.sat %r1, %r2.h0, %r3.h1, %r4;\n"
                                "\tvsub4.s32.s32.s32.sat %r1.b10, %r2.b4567, %r3, %r4;"));
}

TEST(ParserIsaForms, BadVideoSelectorsAreLocated) {
  const std::string what = "': expected .b0-.b3 or .h0 .h1, a SIMD mask (.h10, .b3210 ...) or a "
                           "SIMD selector (.hXY with X, Y in 0-3; .bXYZW with X..W in 0-7)";
  expect_errors({
      {"\tvadd.s32.u32.s32 %r1, %r2.b9, %r3;", "invalid video selector '.b9" + what, 27},
      {"\tvadd.s32.u32.s32 %r1, %r2.h2, %r3;", "invalid video selector '.h2" + what, 27},
      {"\tvadd.s32.u32.s32 %r1, %r2.b4, %r3;", "invalid video selector '.b4" + what, 27},
      {"\tvadd2.s32.s32.s32 %r1.h01x, %r2, %r3, %r4;", "invalid video selector '.h01x" + what, 23},
      {"\tvadd2.s32.s32.s32 %r1, %r2.h04, %r3, %r4;", "invalid video selector '.h04" + what, 28},
      {"\tvadd4.s32.s32.s32 %r1.b01, %r2, %r3, %r4;", "invalid video selector '.b01" + what, 23},
      {"\tvadd4.s32.s32.s32 %r1.b32100, %r2, %r3, %r4;", "invalid video selector '.b32100" + what,
       23},
      {"\tvadd4.s32.s32.s32 %r1, %r2.b0128, %r3, %r4;", "invalid video selector '.b0128" + what,
       28},
  });
}

// ---- constant expressions -----------------------------------------------------------------------

// The values ptxas 13.0 gives these expressions (read back from an initialized .u64 in the
// cubin), with the ISA's signed/unsigned typing: the operand prints as that value.
TEST(ParserIsaForms, ConstantExpressionsFoldAsPtxasDoes) {
  struct Case {
    const char* expr;
    const char* printed;
    std::uint64_t bits;
  };
  const Case cases[] = {
      {"(1 + 2) * 3 - (8 >> 1)", "5", 5},
      {"~0 & (1 << 4) | !0", "17U", 17},
      {"1 > 0 ? 7 : 9", "7", 7},
      {"-1 >> 1", "-1", ~0ULL},
      {"-1U >> 1", "9223372036854775807U", 0x7fffffffffffffffULL},
      {"1 << 65", "2", 2},
      {"1 << -1", "-9223372036854775808", 0x8000000000000000ULL},
      {"-7 / 2", "-3", static_cast<std::uint64_t>(-3)},
      {"-7 % 3", "0U", 0},
      {"7 % -3", "7U", 7},
      {"(-8) % 3", "2U", 2},
      {"0x8000000000000000 / -1", "0U", 0},
      {"-1 < 0U", "0", 0},
      {"-1 < 0", "1", 1},
      {"(.u64)-1 >> 60", "15U", 15},
      {"(.s64)0xFFFFFFFFFFFFFFFF >> 60", "-1", ~0ULL},
      {"9223372036854775807 + 1", "-9223372036854775808", 0x8000000000000000ULL},
      {"!0U - 2 > 0", "0", 0},
      {"~0 > 0", "1", 1},
      {"1 ? -1 : 0U", "18446744073709551615U", ~0ULL},
      {"-9223372036854775808 / -1", "0U", 0},
      {"3 == 3U && 2 != 2 || 4 >= 4", "1", 1},
      {"WARP_SZ - 1", "31", 31},
      {"- (2 + 3)", "-5", static_cast<std::uint64_t>(-5)},
      {"+(4) ^ 6", "2", 2},
      {"1 ? 2 : 3 ? 4 : 5", "2", 2},
      {"0 ? 2 : 0 ? 4 : 5", "5", 5},
      {"10 - 4 - 3", "3", 3},
      {"2 + 3 * 4 << 1", "28", 28},
      {"1 | 6 & 3 ^ 1", "3", 3},
  };
  for (const Case& c : cases) {
    const std::string body = std::string("\t.reg .b64 %rd1;\n\tmov.u64 %rd1, ") + c.expr + ";";
    Module m = parse_body(body);
    auto insts = instructions(m);
    ASSERT_EQ(insts.size(), 1u) << c.expr;
    const Operand& o = insts[0]->operands[1];
    EXPECT_EQ(o.kind, OperandKind::kImmInt) << c.expr;
    EXPECT_EQ(o.bits, c.bits) << c.expr;
    EXPECT_EQ(o.text(), c.printed) << c.expr;
    EXPECT_EQ(o.loc.col, 16u) << c.expr;
    expect_round_trip(kernel_text(body));
  }
  // Plain literals stay as written (the near miss: nothing to fold).
  Module m = parse_body("\t.reg .b32 %r1;\n\tmov.u32 %r1, 0x10;\n\tmov.u32 %r1, -1;\n");
  EXPECT_EQ(instructions(m)[0]->operands[1].text(), "0x10");
  EXPECT_EQ(instructions(m)[1]->operands[1].text(), "-1");
}

TEST(ParserIsaForms, ExpressionsBesideOtherOperandForms) {
  // `!%p` is still a negated predicate; a call's parentheses are still its argument lists.
  Module m = parse_body("\t.reg .b32 %r<3>;\n\t.reg .pred %p<3>;\n"
                        "\tselp.b32 %r1, !0, (2 * 3), !%p1;\n"
                        "\tadd.s32 %r1, %r2, 4 * 4;\n");
  auto insts = instructions(m);
  ASSERT_EQ(insts.size(), 2u);
  EXPECT_EQ(insts[0]->operands[1].text(), "1");
  EXPECT_EQ(insts[0]->operands[2].text(), "6");
  EXPECT_TRUE(insts[0]->operands[3].negated());
  EXPECT_EQ(insts[0]->operands[3].kind, OperandKind::kRegister);
  EXPECT_EQ(insts[1]->operands[2].bits, 16u);
  auto r = parse(std::string(kHeader) + ".func (.param .b32 r) f(.param .b32 a)\n{\n\tret;\n}\n" +
                     ".visible .entry k()\n{\n\t.param .b32 x;\n\t.param .b32 y;\n"
                     "\tcall.uni (x), f, (y);\n\tret;\n}\n",
                 "c.ptx");
  ASSERT_TRUE(r.ok()) << r.error().format();
}

TEST(ParserIsaForms, BadConstantExpressionsAreLocated) {
  expect_errors({
      {"\tmov.u32 %r1, 1 / 0;", "division by zero in a constant expression", 17},
      {"\tmov.u32 %r1, 4 % (2 - 2);", "division by zero in a constant expression", 17},
      {"\tmov.u32 %r1, 1 ? 1 : 1 / 0;", "division by zero in a constant expression", 25},
      {"\tmov.u32 %r1, (1 + 2;", "expected ')', found ';'", 21},
      {"\tmov.u32 %r1, 1 +;", "expected a constant expression, found ';'", 18},
      {"\tmov.u32 %r1, 1 ? 2;", "expected ':' of a conditional expression, found ';'", 20},
      {"\tmov.u32 %r1, 2 * foo;", "'foo' in a constant expression: operands fold integers only",
       19},
      {"\tmov.f32 %f1, 1.5 + 2;",
       "'+' mixes a floating-point and an integer operand (write both as floats)", 19},
  });
}

// ---- floating-point constant expressions --------------------------------------------------------

TEST(ParserIsaForms, FloatExpressionsFoldInDoublePrecision) {
  Module m = parse_body("\t.reg .f32 %f<3>;\n\t.reg .f64 %fd<2>;\n\t.reg .b32 %r<2>;\n"
                        "\tmov.f32 %f1, 1.5 * 2.0;\n"
                        "\tmov.f32 %f2, 1e30 * 1e30 / 1e30;\n"
                        "\tmov.f64 %fd1, 0d3FF0000000000000 / 3.0 - -(0.5);\n"
                        "\tmov.u32 %r1, 1.5 > 1.0 ? 7 : 9;\n"
                        "\tmov.f32 %f1, 1.5;\n");
  auto insts = instructions(m);
  ASSERT_EQ(insts.size(), 5u);
  const Operand& a = insts[0]->operands[1];
  EXPECT_EQ(a.kind, OperandKind::kImmFloat);
  EXPECT_EQ(a.float_value(), 3.0);
  EXPECT_EQ(print_instruction(*insts[0]), "mov.f32 %f1, 0d4008000000000000;");
  // Evaluated in double (as ptxas does: it assembles 0x7149F2CA, where f32 arithmetic gives inf).
  EXPECT_EQ(insts[1]->operands[1].text(), "0d46293E5939A08CEB");
  EXPECT_EQ(insts[2]->operands[1].float_value(), 1.0 / 3.0 + 0.5);
  EXPECT_EQ(insts[3]->operands[1].kind, OperandKind::kImmInt); // a comparison is an integer
  EXPECT_EQ(insts[3]->operands[1].int_value(), 7);
  EXPECT_EQ(print_instruction(*insts[4]), "mov.f32 %f1, 1.5;"); // the near miss: no expression
  expect_round_trip(kernel_text("\t.reg .f32 %f<2>;\n\tadd.f32 %f1, %f1, (1.0 + 0.5) / 4.0;"));
  expect_errors({
      {"\tadd.f32 %f1, %f1, 0f3F800000 + 1.0;",
       "a 0f literal cannot take part in a constant expression (ptxas refuses it): write it as 0d "
       "or a decimal",
       20},
      {"\tmov.f32 %f1, 1.0 / 0.0;", "division by zero in a constant expression", 19},
      {"\tmov.f32 %f1, 1.5 % 1.0;",
       "'%' does not apply to floating-point operands (only * / + - and comparisons)", 19},
      {"\tmov.f32 %f1, 1.5 << 1;",
       "'<<' mixes a floating-point and an integer operand (write "
       "both as floats)",
       19},
      {"\tmov.f32 %f1, ~1.5;", "'~' does not apply to a floating-point operand", 15},
      {"\tmov.f32 %f1, (.s64)1.5;",
       "a cast applies to integer operands only (a floating-point operand here)", 15},
      {"\tmov.f32 %f1, 1 ? 1.5 : 2.5;",
       "'?:' takes integer operands only (a floating-point operand here)", 15},
      {"\tmov.f32 %f1, 1.5 *;", "expected a constant expression, found ';'", 20},
  });
}

// ---- mask() and initializer expressions ---------------------------------------------------------

TEST(ParserIsaForms, MaskInitializersKeepTheirText) {
  const std::string globals = ".global .u32 gbar[] = {2, 3, 5};\n"
                              ".global .u8 gbytes[] = {0xFF(gbar), 0xFF00(gbar + 4), "
                              "0xFF0000(generic(gbar)), 0xFF(1000 + 546)};\n"
                              ".global .u64 gsum = 7 % 3 + (1 << 4);\n";
  auto r = parse(kernel_text("\tret;", globals), "m.ptx");
  ASSERT_TRUE(r.ok()) << r.error().format();
  const VarDecl* bytes = nullptr;
  const VarDecl* sum = nullptr;
  for (const TopLevel& t : r->items)
    if (const auto* d = std::get_if<VarDecl>(&t)) (d->name == "gbytes" ? bytes : sum) = d;
  ASSERT_TRUE(bytes && bytes->init && sum && sum->init);
  const Span<InitValue> el = bytes->init->elements();
  ASSERT_EQ(el.size(), 4u);
  EXPECT_EQ(el[0].text(), "0xFF(gbar)");
  EXPECT_EQ(el[1].text(), "0xFF00(gbar+4)");
  EXPECT_EQ(el[2].text(), "0xFF0000(generic(gbar))");
  EXPECT_EQ(el[3].text(), "0xFF(1000+546)");
  EXPECT_EQ(sum->init->text(), "7 % 3+(1<<4)"); // `7%3` would read as 7 and a register %3
  expect_round_trip(kernel_text("\tret;", globals));
}

TEST(ParserIsaForms, BadMaskAndInitializerExpressionsAreLocated) {
  auto err = [](const std::string& decl) {
    return parse_error(std::string(kHeader) + ".global .u32 g;\n" + decl + "\n");
  };
  ParseError e = err(".global .u8 b[] = {0xF0(g)};");
  EXPECT_EQ(e.message, "mask() needs a byte mask 0xFF, 0xFF00, ... 0xFF00000000000000");
  EXPECT_EQ(e.loc.line, 5u);
  EXPECT_EQ(e.loc.col, 20u);
  e = err(".global .u8 b[] = {0xFF(};");
  EXPECT_EQ(e.message, "expected a constant expression, found '}'");
  EXPECT_EQ(e.loc.col, 25u);
  e = err(".global .u8 b[] = {0xFF(g};");
  EXPECT_EQ(e.message, "expected ')' closing mask(), found '}'");
  EXPECT_EQ(e.loc.col, 26u);
  e = err(".global .u32 c = 4 / (1 - 1);");
  EXPECT_EQ(e.message, "division by zero in a constant expression");
  EXPECT_EQ(e.loc.col, 20u);
}

// ---- array elements without brackets ------------------------------------------------------------

TEST(ParserIsaForms, ArrayElementsAreAddresses) {
  const std::string globals = ".global .u32 gmem[8];\n.global .v2.u16 gv[4];\n";
  auto r = parse(kernel_text("\t.reg .b32 %r<3>;\n\t.reg .b64 %rd<3>;\n"
                             "\tld.global.u32 %r1, [gmem+4];\n"
                             "\tld.global.u32 %r2, gmem[2];\n"
                             "\tmov.u64 %rd1, gmem[N_MINUS_ONE];\n",
                             globals),
                 "a.ptx");
  EXPECT_FALSE(r.ok()); // an index names no symbol...
  auto ok = parse(kernel_text("\t.reg .b32 %r<3>;\n\t.reg .b64 %rd<3>;\n"
                              "\tld.global.u32 %r2, gmem[2];\n"
                              "\tmov.u64 %rd1, gmem [ 8 - 5 ];\n"
                              "\tld.global.v2.u16 {%r1, %r2}, gv[3];\n"
                              "\tld.global.u32 %r2, gmem[0];\n",
                              globals),
                  "a.ptx");
  ASSERT_TRUE(ok.ok()) << ok.error().format();
  auto insts = instructions(*ok);
  ASSERT_EQ(insts.size(), 4u);
  const Operand& ld = insts[0]->operands[1];
  EXPECT_EQ(ld.kind, OperandKind::kAddress); // the memory at gmem + 2 x 4, as `[gmem+8]`
  EXPECT_EQ(ld.text(), "gmem");
  EXPECT_EQ(ld.address_offset(), 8);
  EXPECT_EQ(print_instruction(*insts[0]), "ld.global.u32 %r2, [gmem+8];");
  const Operand& mov = insts[1]->operands[1];
  EXPECT_EQ(mov.kind, OperandKind::kSymbol); // the address gmem + 3 x 4, as `gmem+12`
  EXPECT_EQ(mov.address_offset(), 12);
  EXPECT_EQ(print_instruction(*insts[1]), "mov.u64 %rd1, gmem+12;");
  EXPECT_EQ(insts[2]->operands[1].address_offset(), 6); // .v2.u16: the scalar size (ptxas)
  EXPECT_EQ(print_instruction(*insts[3]), "ld.global.u32 %r2, [gmem];");
  expect_round_trip(kernel_text("\t.reg .b32 %r<3>;\n\tld.global.u32 %r2, gmem[2];", globals));
  expect_errors(
      {
          {"\tld.global.u32 %r1, nope[2];",
           "'nope[...]' needs 'nope' declared before it (its "
           "element size)",
           25},
          {"\tld.global.u32 %r1, gmem[2;", "expected ']', found ';'", 27},
          {"\tld.global.u32 %r1, gmem[1.5];", "an array-element index must be an integer", 26},
      },
      globals);
}

TEST(ParserIsaForms, RegisterIndexedArrayElementsKeepTheirForm) {
  // ptxas: gmem + zext32(%r1 + K) x 4 (`LEA R, P, R_r1, gmem, 0x2`), so no [base+off] address.
  const std::string globals = ".global .u32 gmem[8];\n.global .v2.u16 gv[4];\n";
  auto r = parse(kernel_text("\t.reg .b32 %r<3>;\n\t.reg .b64 %rd<3>;\n"
                             "\tld.global.u32 %r2, gmem[%r1];\n"
                             "\tmov.u64 %rd1, gmem [ %r1 + 2 * 2 ];\n"
                             "\tst.global.u32 gmem[%r1+-1], %r2;\n"
                             "\tld.global.v2.u16 {%r1, %r2}, gv[3];\n",
                             globals),
                 "a.ptx");
  ASSERT_TRUE(r.ok()) << r.error().format();
  auto insts = instructions(*r);
  ASSERT_EQ(insts.size(), 4u);
  const Operand& ld = insts[0]->operands[1];
  EXPECT_EQ(ld.kind, OperandKind::kAddress);
  EXPECT_EQ(ld.text(), "gmem");
  EXPECT_TRUE(ld.has_register_index());
  EXPECT_FALSE(ld.has_offset());
  ASSERT_NE(ld.index_register(), nullptr);
  EXPECT_EQ(ld.index_register()->text(), "%r1");
  EXPECT_EQ(ld.index_constant(), 0);
  EXPECT_EQ(print_instruction(*insts[0]), "ld.global.u32 %r2, gmem[%r1];");
  const Operand& mov = insts[1]->operands[1];
  EXPECT_EQ(mov.kind, OperandKind::kSymbol);
  EXPECT_EQ(mov.index_constant(), 4);
  EXPECT_EQ(print_instruction(*insts[1]), "mov.u64 %rd1, gmem[%r1+4];");
  EXPECT_EQ(print_instruction(*insts[2]), "st.global.u32 gmem[%r1+-1], %r2;");
  // A vector array steps by its scalar size (ptxas: gv[3] of .v2.u16 is gv+6).
  EXPECT_EQ(insts[3]->operands[1].address_offset(), 6);
  expect_round_trip(kernel_text("\t.reg .b32 %r<3>;\n\t.reg .b64 %rd<3>;\n"
                                "\tld.global.u32 %r2, gmem[%r1];\n"
                                "\tmov.u64 %rd1, gmem[%r1+7];",
                                globals));
  expect_errors(
      {
          {"\tld.global.u32 %r1, gmem[%r2;",
           "expected '+' or ']' after an array-element index "
           "register, found ';'",
           29},
          {"\tld.global.u32 %r1, gmem[%r2-1];",
           "expected '+' or ']' after an array-element index register, found '-'", 29},
          {"\tld.global.u32 %r1, gmem[%tid.x];",
           "an array-element index must be a register or a constant expression", 26},
          {"\tld.global.u32 %r1, gmem[%r2+1.5];",
           "the constant term of a register index must be an integer", 30},
          {"\tld.global.u32 %r1, gmem[%r2+];", "expected a constant expression, found ']'", 30},
      },
      globals);
}

// ---- vmad's negated sources ---------------------------------------------------------------------

TEST(ParserIsaForms, VmadNegatedSourcesAreKept) {
  Module m = parse_body("\t.reg .b32 %r<5>;\n"
                        "\tvmad.s32.s32.u32.sat %r1, -%r2.h0, %r3.h1, %r4;\n"
                        "\tvmad.s32.s32.u32.shr7 %r1, %r2.b1, - %r3, -%r4;\n"
                        "\tvmad.s32.s32.u32.po %r1, %r2, %r3, %r4;\n");
  auto insts = instructions(m);
  ASSERT_EQ(insts.size(), 3u);
  const Operand& a = insts[0]->operands[1];
  EXPECT_EQ(a.kind, OperandKind::kRegister);
  EXPECT_EQ(a.text(), "%r2"); // the register the analyses read
  EXPECT_TRUE(a.minus());
  EXPECT_EQ(a.selector(), "h0");
  EXPECT_FALSE(insts[0]->operands[2].minus());
  EXPECT_EQ(print_instruction(*insts[0]), "vmad.s32.s32.u32.sat %r1, -%r2.h0, %r3.h1, %r4;");
  EXPECT_EQ(print_instruction(*insts[1]), "vmad.s32.s32.u32.shr7 %r1, %r2.b1, -%r3, -%r4;");
  EXPECT_FALSE(insts[2]->operands[1].minus()); // the near miss
  expect_round_trip(kernel_text("\t.reg .b32 %r<5>;\n\tvmad.s32.s32.u32 %r1, -%r2.h0, %r3, %r4;"));
  expect_errors({
      {"\tvmad.s32.s32.u32 %r1, -%r2.h9, %r3, %r4;",
       "invalid video selector '.h9': expected .b0-.b3 or .h0 .h1, a SIMD mask (.h10, .b3210 ...) "
       "or a SIMD selector (.hXY with X, Y in 0-3; .bXYZW with X..W in 0-7)",
       28},
      {"\tvmad.s32.s32.u32 %r1, -%tid.x, %r3, %r4;", "'-' negates only a register operand", 24},
      {"\tvadd.s32.s32.s32 %r1, -%r2, %r3;",
       "operand negation '-%reg' is allowed only on vmad's sources (PTX ISA 9.7.20.1)", 24},
      {"\tvmad.s32.s32.u32 -%r1, %r2, %r3, %r4;", "the destination operand cannot be negated", 19},
      {"\tvmad.s32.s32.u32 %r1, --%r2, %r3, %r4;",
       "'%r2' in a constant expression: operands fold integers only", 26},
  });
}

// ---- .samplerref / .texref field initializers ---------------------------------------------------

TEST(ParserIsaForms, OpaqueFieldInitializers) {
  const std::string text = ".version 6.3\n.target sm_75, texmode_independent\n.address_size 64\n"
                           ".global .samplerref smp = { addr_mode_0 = clamp_to_edge, "
                           "filter_mode = linear };\n"
                           ".global .texref tex = { width = 64, filter_mode = nearest };\n";
  auto r = parse(text, "s.ptx");
  ASSERT_TRUE(r.ok()) << r.error().format();
  const auto& smp = std::get<VarDecl>(r->items[0]);
  ASSERT_TRUE(smp.init);
  ASSERT_EQ(smp.init->kind, InitValue::Kind::kList);
  ASSERT_EQ(smp.init->elements().size(), 2u);
  EXPECT_EQ(smp.init->elements()[0].kind, InitValue::Kind::kField);
  EXPECT_EQ(smp.init->elements()[0].text(), "addr_mode_0 = clamp_to_edge");
  EXPECT_EQ(std::get<VarDecl>(r->items[1]).init->elements()[0].text(), "width = 64");
  expect_round_trip(text);
  EXPECT_NE(print(*r).find("{addr_mode_0 = clamp_to_edge, filter_mode = linear}"),
            std::string::npos);
  // Fields belong to opaque types only; a value is a name or a number.
  ParseError e = parse_error(std::string(kHeader) + ".global .u32 g[1] = { width = 4 };\n");
  EXPECT_EQ(e.message, "expected '}', found '='");
  e = parse_error(std::string(kHeader) + ".global .samplerref s = { filter_mode = };\n");
  EXPECT_EQ(e.message, "expected a field value (a name or a number), found '}'");
  EXPECT_EQ(e.loc.col, 41u);
}

} // namespace
} // namespace ptxkit::verifier::testing
