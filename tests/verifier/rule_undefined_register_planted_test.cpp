// rule_undefined_register_planted_test.cpp: planted defects for `undefined-register` on real
// kernels: delete the only definition of a register that is read later (a lost definition, as a
// builder that forgets to emit an initialisation produces); the rule must report an error at
// exactly the lines that read it, and the unmutated kernel must be clean.
#include "analysis_planted_util.h"
#include "analysis_test_util.h"

#include <iostream>

namespace ptxkit::verifier::testing {
namespace {

using namespace analysis;

TEST(RuleUndefinedRegisterPlanted, DeletedDefinitionsAreReportedAtEveryRead) {
  std::uint32_t planted = 0, caught = 0;
  for (const std::string& input : planted_defect_inputs()) {
    const std::string text = read_source_file(input);
    ASSERT_FALSE(text.empty()) << input;
    ASSERT_EQ(verify_one(text, "undefined-register", input).error_count(), 0u) << input;
    Analyzed t = analyze(text);
    const auto& a = *t.a;
    // Registers with exactly one (unguarded, single-result) definition and at least one read.
    std::vector<std::uint32_t> def_count(a.ir.num_regs(), 0);
    for (InstId i = 0; i < a.ir.size(); ++i)
      for (const Mention* m = a.ir.mentions_begin(i); m != a.ir.mentions_end(i); ++m)
        if (m->is_def) ++def_count[m->reg];
    std::uint32_t tried = 0;
    for (InstId i = 0; i < a.ir.size() && tried < 6; ++i) {
      const InstInfo& info = a.ir.info(i);
      if (info.guard != kNoId || info.mention_end - info.mention_begin == 0) continue;
      const Mention& d = a.ir.mention(info.mention_begin);
      std::uint32_t defs = 0;
      for (const Mention* m = a.ir.mentions_begin(i); m != a.ir.mentions_end(i); ++m)
        defs += m->is_def;
      if (!d.is_def || defs != 1 || def_count[d.reg] != 1) continue;
      // Only every third candidate, to spread the mutations over the kernel.
      if (i % 3 != 0) continue;
      std::set<std::uint32_t> reads;
      for (const ValueUse& u : a.values.uses(a.values.ssa_def(info.mention_begin)))
        if (u.inst != kNoId) reads.insert(a.ir.inst(u.inst).loc.line);
      if (reads.empty()) continue;
      ++tried;
      ++planted;
      std::vector<std::string> lines = split_lines(text);
      lines[a.ir.inst(i).loc.line - 1] = "";
      FileReport r = verify_one(join_lines(lines), "undefined-register", input);
      std::set<std::uint32_t> errors;
      for (const Finding& f : r.findings)
        if (f.severity == Severity::kError) errors.insert(f.location.line);
      EXPECT_EQ(errors, reads) << input << ": deleted line " << a.ir.inst(i).loc.line;
      caught += errors == reads;
    }
  }
  std::cout << "[ planted ] undefined-register: deleted definitions " << planted << ", caught "
            << caught << "\n";
  EXPECT_GE(planted, 10u);
}

} // namespace
} // namespace ptxkit::verifier::testing
