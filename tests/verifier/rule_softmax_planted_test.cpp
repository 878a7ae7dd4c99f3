// rule_softmax_planted_test.cpp: planted stale-maximum defects for `softmax-rescale-saved-max`
// in real kernels: the generated batched attention kernel (golden), nvcc's online-softmax decode
// loops and the Triton-shaped decode loop. Every correct rescale exp(old − new) is mutated in the
// three ways the stale maximum appears — the minuend replaced by the new maximum (`sub x, m', m'`),
// by a `mov` copy of the new maximum, and the old maximum's register overwritten with the new one
// right before the read — and the rule must report an error at the rescale's (shifted) line.
#include "analysis_planted_util.h"
#include "analysis_test_util.h"

#include <iostream>
#include <set>

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

TEST(RuleSoftmaxRescalePlanted, ThreeStaleMaximumFormsInRealKernels) {
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
  std::cout << "[ planted ] softmax-rescale-saved-max: stale-maximum forms planted " << planted
            << ", caught " << caught << "\n";
  EXPECT_GE(planted, 30u); // 10 rescales x 3 forms
}

// The correction computed, then not applied to one state: each `mul d, x, c` / `fma d, x, c, y`
// whose multiplicand c is a rescale factor (the ex2 after a correct rescale) becomes `mov d, x` /
// `add d, x, y`. The rule must report an error the clean kernel does not have. (Accumulators
// fed through the tensor cores are out of the rule's reach: see docs/rules.md.)
TEST(RuleSoftmaxRescalePlanted, CorrectionNotAppliedToOneState) {
  const std::vector<std::string> inputs = {
      "golden/batched_incremental_attention.qwen15b_coder.sm_90.ptx",
      "golden/softmax_rows.llama_vocab.sm_90.ptx",
      "golden/incremental_attention.qwen05b.sm_90.ptx",
      "tests/verifier/inputs/softmax_nvcc_decode.sm_90.ptx",
      "tests/verifier/inputs/softmax_triton_decode.ptx",
      "golden/incremental_attention.qwen15b_coder.sm_90.ptx"};
  std::uint32_t planted = 0, caught = 0;
  for (const std::string& input : inputs) {
    const std::string text = read_source_file(input);
    ASSERT_FALSE(text.empty()) << input;
    const std::set<std::uint32_t> clean = flagged_lines(verify_one(text, kRule, input), kRule);
    // Rescale sites inside a loop (the rule's scope: a running maximum carried across
    // iterations; the warp-combine of (max, sum) pairs after a loop is no online softmax state).
    Module parsed = parse_or_fail(text);
    // (Functions that already have a finding, the inputs' own planted defects, are left alone.)
    std::set<std::uint32_t> in_loop;
    for (const Function* fn : parsed.functions()) {
      if (!fn->has_body) continue;
      FunctionAnalysis a(*fn);
      bool defective = false;
      for (InstId i = 0; i < a.ir.size(); ++i)
        defective = defective || clean.count(a.ir.inst(i).loc.line);
      for (InstId i = 0; i < a.ir.size() && !defective; ++i)
        if (a.loops.loop_of(a.cfg.block_of(i)) != kNoId) in_loop.insert(a.ir.inst(i).loc.line);
    }
    const std::vector<std::string> lines = split_lines(text);
    std::set<std::string> factors; // registers holding a rescale factor
    for (const Rescale& r : rescales(text))
      for (std::size_t l = r.line; in_loop.count(r.line) && l < lines.size() && l < r.line + 8; ++l)
        if (lines[l].find("ex2.approx") != std::string::npos) {
          std::string rest = lines[l].substr(lines[l].find("ex2.approx"));
          std::size_t b = rest.find('%'), e = rest.find(',', b);
          if (b != std::string::npos && e != std::string::npos)
            factors.insert(rest.substr(b, e - b));
          break;
        }
    EXPECT_GE(factors.size(), 1u) << input;
    std::uint32_t here = 0;
    for (std::size_t l = 0; l < lines.size() && here < 6; ++l) {
      std::string ln = lines[l];
      bool mul =
          ln.find("\tmul.f32") != std::string::npos || ln.find("\tmul.rn.f32") != std::string::npos;
      bool fma = ln.find("\tfma.rn.f32") != std::string::npos;
      if (!mul && !fma) continue;
      // operands after the opcode: d, a, b[, c]
      std::string ops = ln.substr(ln.find_first_of(' ', ln.find(mul ? "mul" : "fma")) + 1);
      ops.erase(ops.find(';'));
      std::vector<std::string> o;
      for (std::size_t p = 0; p != std::string::npos;) {
        std::size_t q = ops.find(',', p);
        std::string t = ops.substr(p, q == std::string::npos ? q : q - p);
        t.erase(0, t.find_first_not_of(" \t"));
        o.push_back(t);
        p = q == std::string::npos ? q : q + 1;
      }
      if (o.size() != (mul ? 3u : 4u)) continue;
      int which = factors.count(o[2]) ? 2 : factors.count(o[1]) ? 1 : 0;
      if (which == 0 || !in_loop.count(static_cast<std::uint32_t>(l + 1))) continue;
      const std::string& x = o[3 - which];
      std::vector<std::string> mutant = lines;
      mutant[l] = mul ? "\tmov.f32 " + o[0] + ", " + x + ";"
                      : "\tadd.f32 " + o[0] + ", " + x + ", " + o[3] + ";";
      ++planted;
      ++here;
      // A new error (the inputs' planted defects keep theirs).
      bool found = false;
      for (std::uint32_t line : flagged_lines(verify_one(join_lines(mutant), kRule, input), kRule))
        found = found || !clean.count(line);
      EXPECT_TRUE(found) << input << ":" << l + 1 << ": " << ln << " -> " << mutant[l];
      caught += found;
    }
  }
  std::cout << "[ planted ] softmax-rescale-saved-max: correction not applied to one state "
            << planted << ", caught " << caught << "\n";
  EXPECT_GE(planted, 8u);
}

} // namespace
} // namespace ptxkit::verifier::testing
