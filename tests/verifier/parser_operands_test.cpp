// parser_operands_test.cpp: every operand form of PTX instructions, with values and locations.
//
// Why: operands are what the dataflow passes read; a mis-kinded operand (a label taken for a
// register, a 0f pattern read as an integer) would silently corrupt every analysis after it.
#include "parser_test_util.h"

#include <bit>
#include <cstring>

namespace ptxkit::verifier::testing {
namespace {

TEST(ParserOperands, RegistersSpecialRegistersAndGuards) {
  Module m = parse_body("\t.reg .b32 %r<3>;\n\t.reg .pred %p<2>;\n"
                        "\tmov.u32 %r1, %tid.x;\n"
                        "\t@!%p1 add.s32 %r2, %r1, %laneid;\n");
  auto insts = instructions(m);
  ASSERT_EQ(insts.size(), 2u);
  const Instruction& mov = *insts[0];
  EXPECT_EQ(mov.opcode, "mov");
  ASSERT_EQ(mov.modifiers.size(), 1u);
  EXPECT_EQ(mov.modifiers[0], "u32");
  ASSERT_EQ(mov.operands.size(), 2u);
  EXPECT_EQ(mov.operands[0].kind, OperandKind::kRegister);
  EXPECT_EQ(mov.operands[0].text(), "%r1");
  EXPECT_EQ(mov.operands[1].kind, OperandKind::kSpecialReg);
  EXPECT_EQ(mov.operands[1].text(), "%tid.x");
  EXPECT_EQ(mov.loc.line, 8u);
  EXPECT_EQ(mov.loc.col, 2u);
  EXPECT_EQ(mov.operands[1].loc.col, 15u);
  const Instruction& add = *insts[1];
  EXPECT_EQ(add.guard, "%p1");
  EXPECT_TRUE(add.guard_negated);
  EXPECT_EQ(add.operands[2].kind, OperandKind::kSpecialReg);
}

// Each instruction carries its ISA table record; an opcode PTX does not have is kUnknown (the
// parser still reads it: ptxas is the judge of spelling, the analyses treat it as opaque).
TEST(ParserOperands, OpcodesAreTaggedFromTheIsaTable) {
  Module m = parse_body("\t.reg .b32 %r<3>;\n"
                        "\tadd.s32 %r1, %r1, 1;\n"
                        "\tcp.async.ca.shared.global [%r1], [%r2], 16;\n"
                        "\tfrobnicate.b32 %r2, %r1;\n");
  auto insts = instructions(m);
  ASSERT_EQ(insts.size(), 3u);
  EXPECT_EQ(insts[0]->op, Opcode::kAdd);
  EXPECT_EQ(insts[1]->op, Opcode::kCp);
  EXPECT_EQ(insts[2]->op, Opcode::kUnknown);
  EXPECT_EQ(insts[2]->opcode, "frobnicate");
}

TEST(ParserOperands, Immediates) {
  Module m = parse_body("\tmov.b32 %r1, 0f3F800000;\n\tmov.b64 %rd1, 0d3FF0000000000000;\n"
                        "\tmov.u32 %r1, 0xFF;\n\tmov.s32 %r1, -1;\n\tmov.u32 %r1, 017;\n"
                        "\tmov.u32 %r1, 0b101;\n\tmov.u32 %r1, 7U;\n\tmov.f32 %f1, 1.5;\n"
                        "\tmov.u64 %rd1, 0xFFFFFFFFFFFFFFFF;\n");
  auto insts = instructions(m);
  ASSERT_EQ(insts.size(), 9u);
  const Operand& f32 = insts[0]->operands[1];
  EXPECT_EQ(f32.kind, OperandKind::kImmFloat);
  EXPECT_TRUE(f32.is_f32_pattern());
  EXPECT_EQ(f32.bits, 0x3F800000u);
  EXPECT_EQ(f32.float_value(), 1.0);
  EXPECT_EQ(f32.text(), "0f3F800000");
  const Operand& f64 = insts[1]->operands[1];
  EXPECT_EQ(f64.kind, OperandKind::kImmFloat);
  EXPECT_FALSE(f64.is_f32_pattern());
  EXPECT_EQ(f64.float_value(), 1.0);
  EXPECT_EQ(insts[2]->operands[1].int_value(), 255);
  EXPECT_EQ(insts[3]->operands[1].int_value(), -1);
  EXPECT_EQ(insts[3]->operands[1].kind, OperandKind::kImmInt);
  EXPECT_EQ(insts[4]->operands[1].int_value(), 15);
  EXPECT_EQ(insts[5]->operands[1].int_value(), 5);
  EXPECT_EQ(insts[6]->operands[1].int_value(), 7);
  EXPECT_EQ(insts[6]->operands[1].text(), "7U");
  EXPECT_EQ(insts[7]->operands[1].kind, OperandKind::kImmFloat);
  EXPECT_EQ(insts[7]->operands[1].float_value(), 1.5);
  EXPECT_EQ(insts[8]->operands[1].bits, ~std::uint64_t{0});
}

TEST(ParserOperands, Addresses) {
  Module m =
      parse_body("\tld.global.f32 %f1, [%rd1+16];\n\tld.global.f32 %f1, [%rd1+-16];\n"
                 "\tld.param.u64 %rd1, [k_param_0];\n\tld.shared.u32 %r1, [smem+8];\n"
                 "\tld.global.f32 %f1, [ %rd2 + 0 ];\n\tld.global.f32 %f1, [%rd1-4];\n"
                 "\tcp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx"
                 "::bytes [%r9], [%rd5, {%r10, %r11}], [%r12];\n");
  auto insts = instructions(m);
  ASSERT_EQ(insts.size(), 7u);
  const Operand& a0 = insts[0]->operands[1];
  EXPECT_EQ(a0.kind, OperandKind::kAddress);
  EXPECT_EQ(a0.text(), "%rd1");
  EXPECT_TRUE(a0.has_offset());
  EXPECT_EQ(a0.address_offset(), 16);
  EXPECT_EQ(insts[1]->operands[1].address_offset(), -16);
  EXPECT_EQ(insts[2]->operands[1].text(), "k_param_0");
  EXPECT_FALSE(insts[2]->operands[1].has_offset());
  EXPECT_EQ(insts[3]->operands[1].address_offset(), 8);
  EXPECT_EQ(insts[4]->operands[1].text(), "%rd2");
  EXPECT_EQ(insts[5]->operands[1].address_offset(), -4);
  const Instruction& tma = *insts[6];
  EXPECT_EQ(tma.opcode, "cp");
  EXPECT_EQ(tma.modifiers.size(), 8u);
  EXPECT_TRUE(tma.has_modifier("shared::cluster"));
  EXPECT_TRUE(tma.has_modifier("mbarrier::complete_tx::bytes"));
  const Operand& src = tma.operands[1];
  ASSERT_EQ(src.elements().size(), 1u);
  EXPECT_EQ(src.elements()[0].kind, OperandKind::kVector);
  EXPECT_EQ(src.elements()[0].elements().size(), 2u);
  EXPECT_EQ(src.elements()[0].elements()[1].text(), "%r11");
}

TEST(ParserOperands, VectorsPairsSinkNegationCalls) {
  Module m = parse_body("\tld.global.v4.f32 {%f1, %f2, %f3, %f4}, [%rd1];\n"
                        "\tsetp.lt.s32 %p1|%p2, %r1, %r2;\n"
                        "\telect.sync _|%p3, -1;\n"
                        "\tand.pred %p1, %p2, !%p3;\n"
                        "\tcall.uni (retval0), vprintf, (param0, param1);\n"
                        "\tbra.uni $L__BB0_1;\n"
                        "\tmov.u64 %rd1, arr+8;\n");
  auto insts = instructions(m);
  ASSERT_EQ(insts.size(), 7u);
  EXPECT_EQ(insts[0]->operands[0].kind, OperandKind::kVector);
  EXPECT_EQ(insts[0]->operands[0].elements().size(), 4u);
  EXPECT_EQ(insts[1]->operands[0].kind, OperandKind::kPair);
  EXPECT_EQ(insts[1]->operands[0].elements()[1].text(), "%p2");
  EXPECT_EQ(insts[2]->operands[0].elements()[0].kind, OperandKind::kSink);
  EXPECT_TRUE(insts[3]->operands[2].negated());
  EXPECT_EQ(insts[4]->operands.size(), 3u);
  EXPECT_EQ(insts[4]->operands[0].kind, OperandKind::kParenList);
  EXPECT_EQ(insts[4]->operands[1].kind, OperandKind::kSymbol);
  EXPECT_EQ(insts[4]->operands[2].elements().size(), 2u);
  EXPECT_EQ(insts[5]->operands[0].kind, OperandKind::kSymbol);
  EXPECT_EQ(insts[5]->operands[0].text(), "$L__BB0_1");
  EXPECT_TRUE(insts[6]->operands[1].has_offset());
  EXPECT_EQ(insts[6]->operands[1].address_offset(), 8);
}

TEST(ParserOperands, ModifierListsAreSharedAndOrdered) {
  Module m = parse_body("\tld.global.nc.v4.f32 {%f1, %f2, %f3, %f4}, [%rd1];\n"
                        "\tld.global.nc.v4.f32 {%f5, %f6, %f7, %f8}, [%rd2];\n"
                        "\ttcgen05.ld.sync.aligned.32x32b.x4.b32 {%r1, %r2, %r3, %r4}, [%r5];\n");
  auto insts = instructions(m);
  ASSERT_EQ(insts.size(), 3u);
  EXPECT_EQ(insts[0]->full_opcode(), "ld.global.nc.v4.f32");
  EXPECT_EQ(insts[0]->modifiers.data(), insts[1]->modifiers.data());
  EXPECT_EQ(insts[2]->opcode, "tcgen05");
  EXPECT_EQ(insts[2]->modifiers[3], "32x32b");
}

TEST(ParserOperands, PrintsOperandsCanonically) {
  Module m = parse_body("\t@%p1 ld.global.v4.b32 { %r2, %r3, %r4, %r5 }, [ %rd2 + -8 ];\n");
  auto insts = instructions(m);
  ASSERT_EQ(insts.size(), 1u);
  EXPECT_EQ(print_instruction(*insts[0]), "@%p1 ld.global.v4.b32 {%r2, %r3, %r4, %r5}, [%rd2+-8];");
  EXPECT_EQ(print_operand(insts[0]->operands[1]), "[%rd2+-8]");
}

} // namespace
} // namespace ptxkit::verifier::testing
