// parser_vector_elements_test.cpp: an element of a `.v2`/`.v4` vector register (PTX ISA 5.4.2)
// as an instruction operand: `mx.x` of a register named without '%' (CUTLASS's inline asm),
// `%acc.y`, the color spellings `.r .g .b .a`, a blank before the dot (`mx .x`), in sources,
// destinations, vector operands and texture coordinates; and, located, the places ptxas takes
// only a scalar register (address base, array index, call lists, `p|q`, `!`, guard), a video
// selector after an element, and the malformed selectors ptxas refuses (`.q`, `.xy`, `.X`).
//
// Why: an element that failed to parse made a whole CUTLASS kernel unverifiable; one that parsed
// as a symbol would read as an address to every analysis. Each accepted and each refused form
// here was checked with ptxas 13.0.
#include "parser_test_util.h"

namespace ptxkit::verifier::testing {
namespace {

const char* kDecls = "\t.reg .f32 %f<4>;\n\t.reg .b32 %r<4>;\n\t.reg .b64 %rd<2>;\n"
                     "\t.reg .pred p;\n\t.reg .pred %p<3>;\n\t.reg .v2 .f32 mx;\n"
                     "\t.reg .v4 .f32 %acc;\n\t.reg .v4 .b32 %rv<2>;\n";

std::string kernel_text(const std::string& body) {
  return std::string(kHeader) + ".func (.reg .f32 fr) fn(.reg .f32 fa) { mov.f32 fr, fa; ret; }\n" +
         ".global .texref t;\n.shared .u32 arr[8];\n.visible .entry k()\n{\n" + kDecls + body +
         "\n}\n";
}

std::vector<const Instruction*> body_instructions(const Module& m) {
  std::vector<const Instruction*> out;
  for (const Function* f : m.functions())
    if (f->name == "k")
      for (const Statement& s : f->body.statements)
        if (const auto* i = std::get_if<Instruction>(&s.node)) out.push_back(i);
  return out;
}

Module parse_kernel(const std::string& body) {
  auto r = parse(kernel_text(body), "t.ptx");
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().format());
  if (!r.ok()) return Module{};
  return std::move(r).value();
}

void expect_register_element(const Operand& o, std::string_view text, int element) {
  EXPECT_EQ(o.kind, OperandKind::kRegister) << text;
  EXPECT_EQ(o.text(), text);
  EXPECT_EQ(o.vector_element(), element) << text;
  EXPECT_FALSE(o.has_selector()) << text;
}

TEST(ParserVectorElements, ElementsAreRegistersHoweverTheVectorIsNamed) {
  Module m = parse_kernel("\tmax.f32 mx.x, %f1, %f2;\n"
                          "\tselp.f32 %f3, mx.x, mx.y, p;\n"
                          "\tmov.f32 %acc.r, mx.g;\n"
                          "\tmov.f32 %acc.b, %acc.a;\n"
                          "\tmov.f32 mx .y, %f1;\n"
                          "\tadd.s32 %rv1.w, %rv0.z, 1;\n"
                          "\tmov.u32 %r1, %tid.r;\n"
                          "\tmov.u32 %r1, %ntid .y;\n");
  auto in = body_instructions(m);
  ASSERT_EQ(in.size(), 8u);
  expect_register_element(in[0]->operands[0], "mx.x", 0);
  EXPECT_EQ(in[0]->operands[1].vector_element(), -1); // %f1: a scalar
  expect_register_element(in[1]->operands[1], "mx.x", 0);
  expect_register_element(in[1]->operands[2], "mx.y", 1);
  EXPECT_EQ(in[1]->operands[3].kind, OperandKind::kSymbol); // `p`, a scalar named without '%'
  expect_register_element(in[2]->operands[0], "%acc.r", 0); // kept as written
  expect_register_element(in[2]->operands[1], "mx.g", 1);
  expect_register_element(in[3]->operands[0], "%acc.b", 2); // blue, not a video byte .b0
  expect_register_element(in[3]->operands[1], "%acc.a", 3);
  expect_register_element(in[4]->operands[0], "mx.y", 1); // the blank dropped
  expect_register_element(in[5]->operands[0], "%rv1.w", 3);
  expect_register_element(in[5]->operands[1], "%rv0.z", 2);
  // A special register's component is spelled as its analyses know it.
  EXPECT_EQ(in[6]->operands[1].kind, OperandKind::kSpecialReg);
  EXPECT_EQ(in[6]->operands[1].text(), "%tid.x");
  EXPECT_EQ(in[6]->operands[1].vector_element(), -1);
  EXPECT_EQ(in[7]->operands[1].text(), "%ntid.y");
  EXPECT_EQ(print_instruction(*in[1]), "selp.f32 %f3, mx.x, mx.y, p;");
  EXPECT_EQ(print_instruction(*in[4]), "mov.f32 mx.y, %f1;");
  EXPECT_EQ(print_instruction(*in[6]), "mov.u32 %r1, %tid.x;");
}

TEST(ParserVectorElements, ElementsInVectorOperandsAndCoordinates) {
  Module m = parse_kernel("\tmov.v2.f32 {mx.x, mx.y}, {%f1, %f2};\n"
                          "\tmov.v2.f32 mx, {%acc.x, %f2};\n"
                          "\tld.global.v2.f32 {mx.y, %acc.w}, [%rd1];\n"
                          "\ttex.2d.v4.f32.s32 %acc, [t, {%rv0.x, %rv0.y}];\n"
                          "\tsetp.lt.f32 %p1|%p2, mx.x, mx.y;\n");
  auto in = body_instructions(m);
  ASSERT_EQ(in.size(), 5u);
  ASSERT_EQ(in[0]->operands[0].kind, OperandKind::kVector);
  expect_register_element(in[0]->operands[0].elements()[1], "mx.y", 1);
  EXPECT_EQ(in[1]->operands[0].kind, OperandKind::kSymbol); // the whole vector `mx`
  expect_register_element(in[1]->operands[1].elements()[0], "%acc.x", 0);
  expect_register_element(in[2]->operands[0].elements()[1], "%acc.w", 3);
  const Operand& coords = in[3]->operands[1].elements()[0];
  ASSERT_EQ(coords.kind, OperandKind::kVector);
  expect_register_element(coords.elements()[1], "%rv0.y", 1);
  EXPECT_EQ(print_instruction(*in[2]), "ld.global.v2.f32 {mx.y, %acc.w}, [%rd1];");
}

TEST(ParserVectorElements, RoundTrip) {
  expect_round_trip(kernel_text("\tmax.f32 mx.x, %f1, %f2;\n"
                                "\tmov.f32 mx .y, mx.x;\n"
                                "\tselp.f32 %f3, mx.x, mx.y, p;\n"
                                "\tmov.f32 %acc.r, mx.g;\n"
                                "\tmov.f32 %acc.b, %acc.a;\n"
                                "\tmov.v2.f32 {mx.x, mx.y}, {%acc.z, %f2};\n"
                                "\tcvt.rzi.s32.f32 %rv1.x, mx.y;\n"
                                "\tmov.u32 %r1, %tid .z;\n"
                                "\t{\n\t.reg .v2 .f32 inner;\n\tmov.f32 inner.y, mx.x;\n\t}"));
}

struct ErrorCase {
  std::string body;
  std::string message;
  std::uint32_t col;
};

void expect_errors(const std::vector<ErrorCase>& cases) {
  for (const ErrorCase& c : cases) {
    ParseError e = parse_error(kernel_text(c.body));
    EXPECT_EQ(e.message, c.message) << c.body;
    EXPECT_EQ(e.loc.col, c.col) << c.body;
  }
}

// Where ptxas takes only a scalar register (each refused by ptxas 13.0).
TEST(ParserVectorElements, ScalarOnlyPlacesRefuseAnElement) {
  const std::string base = "a vector element cannot be an address base: ptxas takes only a "
                           "scalar register or a variable there";
  auto scalar_only = [](const std::string& elem, const std::string& where) {
    return "a vector element ('" + elem + "') cannot be " + where +
           ": ptxas takes only a scalar register there";
  };
  expect_errors({
      {"\tld.global.f32 %f1, [%rv0.x];", base, 22},
      {"\tld.global.f32 %f1, [mx.y+4];", base, 22},
      {"\tld.global.f32 %f1, [%rv0 .x];", base, 22},
      {"\tld.shared.u32 %r1, arr[%rv0.x];", scalar_only("%rv0.x", "an array-element index"), 25},
      {"\tcall (%f1), fn, (mx.x);", scalar_only("mx.x", "a call's argument or result"), 19},
      {"\tcall (%acc.y), fn, (%f1);", scalar_only("%acc.y", "a call's argument or result"), 8},
      {"\tsetp.lt.f32 %p1|%rv0.x, %f1, %f2;",
       scalar_only("%rv0.x", "half of a predicate pair 'p|q'"), 18},
      {"\tshfl.sync.bfly.b32 %rv0.x|%p1, %r1, 1, 31, -1;",
       scalar_only("%rv0.x", "half of a predicate pair 'p|q'"), 21},
      {"\tselp.f32 %f1, %f2, %f3, !%rv0.x;",
       scalar_only("%rv0.x", "negated ('!' applies to a predicate register)"), 27},
      {"\t@%rv0.x bra $L;\n$L:",
       "a guard predicate is a scalar register: .pred has no vectors, so '%rv0' has no elements",
       7},
  });
}

TEST(ParserVectorElements, MalformedElementsAreLocated) {
  expect_errors({
      // No video selector after an element (ptxas: syntax error).
      {"\tvadd.u32.u32.u32 %r1, %rv0.x.b0, %r2, %r3;",
       "a vector element takes no video selector ('%rv0.x' is one element of a vector register)",
       30},
      // An element of a name that is no vector register (ptxas: "Unknown field"/mismatch).
      {"\tmov.f32 %f1, nv.x;",
       "'nv.x' selects an element of 'nv', which is not a vector register declared before it", 15},
      {"\tmov.f32 %f1, p.x;",
       "'p.x' selects an element of 'p', which is not a vector register declared before it", 15},
      // One letter of .x-.w/.r-.a, lower case, no blank after the dot, no swizzle.
      {"\tmov.f32 %acc.q, %f1;", "expected ';', found '.q'", 14},
      {"\tmov.f32 mx.xy, %f1;", "expected ';', found '.xy'", 12},
      {"\tmov.f32 mx.X, %f1;", "expected ';', found '.X'", 12},
      {"\tmov.f32 mx. x, %f1;", "expected ';', found '.'", 12},
      {"\tmov.f32 %acc.x.y, %f1;", "expected ';', found '.y'", 16},
      {"\tmov.f32 %f1, mx.x+1;", "expected ';', found '+'", 19},
  });
}

// `mx.x` before `.reg .v2 .f32 mx;` is refused by ptxas too; a declaration in an earlier scope
// (or a ranged `mx<2>`) makes its elements.
TEST(ParserVectorElements, AnElementNeedsItsVectorDeclaredBefore) {
  ParseError e = parse_error(std::string(kHeader) +
                             ".visible .entry k()\n{\n\t.reg .f32 %f1;\n\tmov.f32 late.x, %f1;\n"
                             "\t.reg .v2 .f32 late;\n\tret;\n}\n");
  EXPECT_EQ(e.message,
            "'late.x' selects an element of 'late', which is not a vector register declared "
            "before it");
  EXPECT_EQ(e.loc.line, 7u);
  Module m = parse_kernel("\t.reg .v2 .b32 pr<3>;\n\tmov.b32 pr2.y, 1;\n");
  auto in = body_instructions(m);
  ASSERT_EQ(in.size(), 1u);
  expect_register_element(in[0]->operands[0], "pr2.y", 1);
}

} // namespace
} // namespace ptxkit::verifier::testing
