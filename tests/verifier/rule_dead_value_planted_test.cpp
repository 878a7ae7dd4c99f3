// rule_dead_value_planted_test.cpp: planted defects for `dead-value` on real kernels: a load's
// result (global, shared or parameter) is replaced by a constant in every instruction that reads it
// (the kernel loads a value and computes with a constant instead); the rule must report an error at
// the load's line, and the unmutated kernel must have no dead-value errors.
#include "analysis_planted_util.h"
#include "analysis_test_util.h"

#include <iostream>

namespace ptxkit::verifier::testing {
namespace {

using namespace analysis;

TEST(RuleDeadValuePlanted, LoadsWhoseReadersUseAConstantAreReported) {
  std::uint32_t planted = 0, caught = 0;
  for (const std::string& input : planted_defect_inputs()) {
    const std::string text = read_source_file(input);
    ASSERT_FALSE(text.empty()) << input;
    ASSERT_EQ(verify_one(text, "dead-value", input).error_count(), 0u) << input;
    Analyzed t = analyze(text);
    const auto& a = *t.a;
    std::uint32_t tried = 0;
    for (InstId i = 0; i < a.ir.size() && tried < 8; ++i) {
      const Instruction& inst = a.ir.inst(i);
      const InstInfo& info = a.ir.info(i);
      if (inst.opcode != "ld" || inst.has_modifier("volatile") ||
          info.mention_end - info.mention_begin < 2)
        continue;
      const Mention& d = a.ir.mention(info.mention_begin);
      if (!d.is_def || inst.operands[0].kind != OperandKind::kRegister) continue;
      // Every reader of the loaded value, by line; the value must not flow through a phi.
      ValueId v = a.values.ssa_def(info.mention_begin);
      std::set<std::uint32_t> readers;
      bool through_phi = false;
      for (const ValueUse& u : a.values.uses(v)) {
        if (u.inst == kNoId)
          through_phi = true;
        else
          readers.insert(a.ir.inst(u.inst).loc.line);
      }
      if (through_phi || readers.empty()) continue;
      ++tried;
      ++planted;
      std::string reg = a.ir.reg_name(d.reg);
      std::string constant = reg.rfind("%f", 0) == 0 ? "0f3F800000" : "1";
      std::vector<std::string> lines = split_lines(text);
      for (std::uint32_t l : readers)
        lines[l - 1] = replace_register(lines[l - 1], reg, constant);
      FileReport r = verify_one(join_lines(lines), "dead-value", input);
      bool found = false;
      for (const Finding& f : r.findings)
        found = found || (f.severity == Severity::kError && f.location.line == inst.loc.line);
      EXPECT_TRUE(found) << input << ": load on line " << inst.loc.line << " of " << reg;
      caught += found;
    }
  }
  std::cout << "[ planted ] dead-value: loads replaced by constants " << planted << ", caught "
            << caught << "\n";
  EXPECT_GE(planted, 8u);
}

} // namespace
} // namespace ptxkit::verifier::testing
