// rule_softmax_planted_test.cpp: planted FALSIFY-CB-008 defects for `softmax-rescale-saved-max`
// in real kernels: the generated batched attention kernel (golden), nvcc's online-softmax decode
// loops and the Triton-shaped decode loop. Every correct rescale exp(old − new) is mutated in the
// three ways the seed's defect appears — the minuend replaced by the new maximum (`sub x, m', m'`),
// by a `mov` copy of the new maximum, and the old maximum's register overwritten with the new one
// right before the read — and the rule must report an error at the rescale's (shifted) line.
#include "analysis_planted_util.h"
#include "analysis_test_util.h"

#include <iostream>

namespace ptxkit::verifier::testing {
namespace {

using namespace analysis;

const std::string kRule = "softmax-rescale-saved-max";

struct Rescale {
  std::uint32_t line; // 1-based
  std::string old_max, new_max;
};

// `sub.f32 d, a, b` where b is a `max.f32` result and a is a loop-header phi or an earlier max
// (the maximum from before the update): the correct rescales of the clean text.
std::vector<Rescale> rescales(const std::string& text) {
  std::vector<Rescale> out;
  Module m = parse_or_fail(text);
  for (const Function* fn : m.functions()) {
    if (!fn->has_body) continue;
    FunctionAnalysis a(*fn);
    for (InstId i = 0; i < a.ir.size(); ++i) {
      const Instruction& inst = a.ir.inst(i);
      if (inst.opcode != "sub" || !inst.has_modifier("f32") || inst.operands.size() != 3) continue;
      ValueId va = a.values.value_of(i, 1), vb = a.values.value_of(i, 2);
      if (va == kNoId || vb == kNoId) continue;
      InstId db = a.values.defining_instruction(vb), da = a.values.defining_instruction(va);
      if (db == kNoId || a.ir.inst(db).opcode != "max") continue;
      bool old_is_phi =
          a.values.is_phi(va) && a.loops.loop_with_header(a.values.info(va).block) != kNoId;
      bool old_is_max = da != kNoId && a.ir.inst(da).opcode == "max";
      bool operand_of_update = a.values.value_of(db, 1) == va || a.values.value_of(db, 2) == va;
      if ((old_is_phi || old_is_max) && operand_of_update)
        out.push_back({inst.loc.line, std::string(inst.operands[1].text()),
                       std::string(inst.operands[2].text())});
    }
  }
  return out;
}

bool flagged_at(const std::string& text, const std::string& path, std::uint32_t line) {
  FileReport r = verify_one(text, kRule, path);
  for (const Finding& f : r.findings)
    if (f.severity == Severity::kError && f.location.line == line) return true;
  return false;
}

TEST(RuleSoftmaxRescalePlanted, ThreeCb008FormsInRealKernels) {
  const std::vector<std::string> inputs = {
      "golden/batched_incremental_attention.qwen15b_coder.sm_90.ptx",
      "golden/batched_incremental_attention.qwen15b_coder.sm_80.ptx",
      "tests/verifier/inputs/softmax_nvcc_decode.sm_90.ptx",
      "tests/verifier/inputs/softmax_triton_decode.ptx",
      // Real Triton 3.6 flash-attention forward (wgmma, exp2 online softmax), captured on the H200.
      "tests/corpus/triton/triton36.flash_attn_fwd_f16.sm_90a.ptx",
      "tests/corpus/triton/triton36.flash_attn_fwd_bf16_causal.sm_90a.ptx"};
  std::uint32_t planted = 0, caught = 0;
  for (const std::string& input : inputs) {
    const std::string text = read_source_file(input);
    ASSERT_FALSE(text.empty()) << input;
    FileReport clean = verify_one(text, kRule, input);
    std::set<std::uint32_t> already = flagged_lines(clean, kRule); // the inputs' own defects
    std::vector<Rescale> sites = rescales(text);
    EXPECT_GE(sites.size(), 1u) << input;
    for (const Rescale& s : sites) {
      ASSERT_EQ(already.count(s.line), 0u) << input << ":" << s.line;
      const std::vector<std::string> lines = split_lines(text);
      const std::string& at = lines[s.line - 1];
      // 1. sub x, m', m'
      std::vector<std::string> self = lines;
      self[s.line - 1] = replace_register(at, s.old_max, s.new_max);
      // 2. a copy of the new maximum
      std::vector<std::string> copy = lines;
      copy[s.line - 1] = replace_register(at, s.old_max, "%planted_copy");
      copy.insert(copy.begin() + (s.line - 1),
                  {"\t.reg .f32 %planted_copy;", "\tmov.f32 %planted_copy, " + s.new_max + ";"});
      // 3. the old maximum overwritten before the read
      std::vector<std::string> over = lines;
      over.insert(over.begin() + (s.line - 1), "\tmov.f32 " + s.old_max + ", " + s.new_max + ";");
      const std::pair<std::vector<std::string>, std::uint32_t> mutants[] = {
          {self, s.line}, {copy, s.line + 2}, {over, s.line + 1}};
      for (const auto& [mutant, line] : mutants) {
        ++planted;
        bool found = flagged_at(join_lines(mutant), input, line);
        EXPECT_TRUE(found) << input << ": rescale on line " << s.line << " mutated, expected at "
                           << line << ":\n"
                           << mutant[line - 1];
        caught += found;
      }
    }
  }
  std::cout << "[ planted ] softmax-rescale-saved-max: CB-008 forms planted " << planted
            << ", caught " << caught << "\n";
  EXPECT_GE(planted, 30u); // 10 rescales x 3 forms
}

} // namespace
} // namespace ptxkit::verifier::testing
