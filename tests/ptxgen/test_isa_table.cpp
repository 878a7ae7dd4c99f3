// test_isa_table.cpp: the ISA table (ptxkit/isa/isa.h) and what the builder derives from it:
// every record is found by its spelling and only by it, traits are consistent with each other,
// and an instruction or form newer than the target is an error naming the table's minimum (with
// the control that the same call on a target that has it builds).
#include "ptxgen_test_util.h"
#include "ptxkit/isa/isa.h"
#include "ptxkit/ptxgen/ptxgen.h"

#include <gtest/gtest.h>
#include <set>
#include <string>

namespace ptxkit::ptxgen {
namespace {

TEST(IsaTable, EveryInstructionIsFoundByItsSpellingOnly) {
  std::set<std::string_view> spellings;
  for (const isa::InstructionInfo& i : isa::all_instructions()) {
    EXPECT_TRUE(spellings.insert(i.spelling).second) << "listed twice: " << i.spelling;
    EXPECT_EQ(isa::opcode_from_spelling(i.spelling), i.opcode) << i.spelling;
    EXPECT_EQ(isa::spelling(i.opcode), i.spelling);
    EXPECT_GE(i.min_ptx, 10u) << i.spelling;
  }
  EXPECT_GE(spellings.size(), 130u); // the PTX ISA 9.0 instruction set
  for (std::string_view not_an_opcode : {"", "ad", "adds", "ADD", "cp.async", "bogus"})
    EXPECT_EQ(isa::opcode_from_spelling(not_an_opcode), isa::Opcode::kUnknown) << not_an_opcode;
}

TEST(IsaTable, TraitsAgreeWithEachOther) {
  for (const isa::InstructionInfo& i : isa::all_instructions()) {
    const isa::Opcode op = i.opcode;
    // A pure instruction reads no memory and has a result; an addressed access is not pure.
    if (isa::has(op, isa::kPure)) {
      EXPECT_FALSE(isa::has(op, isa::kNoResult)) << i.spelling;
      EXPECT_FALSE(isa::has(op, isa::kWritesMemory)) << i.spelling;
      EXPECT_FALSE(isa::has(op, isa::kAddressedAccess)) << i.spelling;
      EXPECT_FALSE(isa::has(op, isa::kWarpCollective)) << i.spelling;
    }
    if (isa::has(op, isa::kAssociative)) {
      EXPECT_TRUE(isa::has(op, isa::kPure)) << i.spelling;
    }
    if (isa::has(op, isa::kControlFlow)) {
      EXPECT_TRUE(isa::has(op, isa::kNoResult)) << i.spelling;
    }
    if (isa::has(op, isa::kArchSpecific)) {
      EXPECT_GE(i.min_sm, 90u) << i.spelling;
    }
  }
  EXPECT_TRUE(isa::has(isa::Opcode::kSt, isa::kWritesMemory));
  EXPECT_FALSE(isa::has(isa::Opcode::kLd, isa::kWritesMemory));
  EXPECT_TRUE(isa::has(isa::Opcode::kShfl, isa::kWarpCollective));
  EXPECT_TRUE(isa::has(isa::Opcode::kWgmma, isa::kWarpgroupCollective));
}

TEST(IsaTable, TypesAndForms) {
  for (const isa::TypeInfo& t : isa::all_types()) {
    EXPECT_EQ(isa::type_from_spelling(t.spelling), t.type) << t.spelling;
    EXPECT_EQ(isa::spelling(t.type), t.spelling);
  }
  EXPECT_EQ(isa::type_from_spelling("global"), isa::Type::kUnknown);
  EXPECT_EQ(isa::size_bytes(isa::Type::kF16x2), 4u);
  EXPECT_EQ(isa::size_bits(isa::Type::kPred), 1u);
  // Each form is newer than its instruction (target or PTX ISA), or it would not need a record.
  const isa::FormInfo& f = isa::info(isa::Form::kBf16Arithmetic);
  EXPECT_GT(f.min_sm, isa::info(f.opcode).min_sm);
  for (std::size_t i = 1; i < std::size(isa::detail::kForms); ++i) {
    const isa::FormInfo& form = isa::detail::kForms[i];
    const isa::InstructionInfo& base = isa::info(form.opcode);
    EXPECT_TRUE(form.min_sm > base.min_sm || form.min_ptx > base.min_ptx) << form.description;
  }
  // The tensor-core and async-copy forms, as the PTX ISA's target notes give them.
  EXPECT_EQ(isa::info(isa::Form::kMmaBf16).min_sm, 80u);
  EXPECT_EQ(isa::info(isa::Form::kMmaM16n8k32Int8).min_sm, 80u);
  EXPECT_EQ(isa::info(isa::Form::kCpAsyncBulk).min_sm, 90u);
  EXPECT_EQ(isa::info(isa::Form::kCpAsyncBulk).min_ptx, 80u);
  EXPECT_EQ(isa::info(isa::Opcode::kLdmatrix).min_sm, 75u);
}

// An instruction the target lacks is an error at the emitting line, with the table's minimum.
TEST(IsaTable, InstructionNewerThanTheTargetIsAnError) {
  for (const char* t : {"sm_80", "sm_90"}) {
    KernelBuilder b("k", target(t));
    const Loc here = Loc::current();
    b.emit_op(Op::kGriddepcontrol, {}, {}, {}, here); // PTX 7.8, sm_90
    b.ret();
    Expected<Kernel> k = b.finish();
    if (std::string(t) == "sm_80") {
      ASSERT_FALSE(k);
      EXPECT_NE(k.error().message.find("griddepcontrol needs sm_90 or newer"), std::string::npos)
          << k.error().message;
      EXPECT_EQ(k.error().line, here.line());
    } else {
      EXPECT_TRUE(k) << k.error().message;
    }
  }
}

// An architecture-specific instruction needs the `a` target even on its SM.
TEST(IsaTable, ArchSpecificInstructionNeedsTheATarget) {
  for (const char* t : {"sm_90", "sm_90a"}) {
    KernelBuilder b("k", target(t));
    b.emit_op(Op::kSetmaxnreg, {}, {}, {Emitter::imm_op(imm<U32>(232))}, Loc::current());
    b.ret();
    Expected<Kernel> k = b.finish();
    if (std::string(t) == "sm_90") {
      ASSERT_FALSE(k);
      EXPECT_NE(k.error().message.find("architecture-specific target"), std::string::npos)
          << k.error().message;
    } else {
      EXPECT_TRUE(k) << k.error().message;
    }
  }
}

} // namespace
} // namespace ptxkit::ptxgen
