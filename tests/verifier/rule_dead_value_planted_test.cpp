// rule_dead_value_planted_test.cpp: planted defects for `dead-value` on real kernels. A dropped
// result: a constant is written to a load's register right after the load, so every reader gets
// the constant (the kernel loads a value and a copied handle overwrites it): an error at the
// load's line, unless the load is a parameter read (free, a warning). A wasted load: a load's
// result is replaced by a constant in every instruction that reads it, so nothing reads the load
// at all: a finding (a warning: a load with no effect is waste, not a wrong result) at its line.
// The unmutated kernel must have no dead-value errors.
#include "analysis_planted_util.h"
#include "analysis_test_util.h"

#include <cctype>
#include <iostream>

namespace ptxkit::verifier::testing {
namespace {

using namespace analysis;

// `mov.<type> reg, 1` for a register named like nvcc's (%f, %fd, %rd, %rs, %r), "" otherwise.
std::string overwrite_with_constant(const std::string& reg) {
  static const std::pair<std::string_view, std::string_view> kByPrefix[] = {
      {"%fd", "mov.f64 {}, 0d3FF0000000000000;"},
      {"%f", "mov.f32 {}, 0f3F800000;"},
      {"%rd", "mov.u64 {}, 1;"},
      {"%rs", "mov.u16 {}, 1;"},
      {"%r", "mov.u32 {}, 1;"}};
  for (auto [prefix, form] : kByPrefix)
    if (reg.rfind(prefix, 0) == 0 && reg.size() > prefix.size() &&
        std::isdigit(static_cast<unsigned char>(reg[prefix.size()]))) {
      std::string out = "\t" + std::string(form);
      out.replace(out.find("{}"), 2, reg);
      return out;
    }
  return "";
}

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
      std::string mov = overwrite_with_constant(reg);
      if (mov.empty()) continue;
      std::vector<std::string> lines = split_lines(text);
      std::vector<std::string> dropped = lines;
      dropped.insert(dropped.begin() + inst.loc.line, mov);
      for (std::uint32_t l : readers)
        lines[l - 1] = replace_register(lines[l - 1], reg, constant);
      const bool param_read = inst.has_modifier("param");
      auto finding_at_load = [&](const std::vector<std::string>& text_lines, bool error) {
        FileReport r = verify_one(join_lines(text_lines), "dead-value", input);
        for (const Finding& f : r.findings)
          if (f.location.line == inst.loc.line && (!error || f.severity == Severity::kError))
            return true;
        return false;
      };
      bool found = finding_at_load(lines, false) && finding_at_load(dropped, !param_read);
      EXPECT_TRUE(found) << input << ": load on line " << inst.loc.line << " of " << reg;
      caught += found;
    }
  }
  std::cout << "[ planted ] dead-value: loads overwritten and loads unread " << planted
            << ", caught " << caught << "\n";
  EXPECT_GE(planted, 8u);
}

} // namespace
} // namespace ptxkit::verifier::testing
