// rule_reduction_planted_test.cpp: planted lane-0-only-sum defects for `reduction-broadcast` in
// real kernels: ours (golden batched attention, RMSNorm, LayerNorm, fused residual RMSNorm, QK
// RMSNorm), nvcc's (tests/verifier/inputs/reduction_nvcc_warp.*) and CUB's (corpus). Each way a
// kernel hands a shfl.down sum to every lane safely is removed in turn: the `shfl.sync.idx`
// broadcast becomes a plain `mov`, the lane guard of a store of the sum is dropped, or the branch
// that skips that store in the other lanes is deleted. The rule must report an error at the
// first use of the sum in every lane (the line after a removed broadcast) or at the store.
#include "analysis_planted_util.h"
#include "analysis_test_util.h"

#include <filesystem>
#include <iostream>

namespace ptxkit::verifier::testing {
namespace {

using namespace analysis;

const std::string kRule = "reduction-broadcast";

// v is the last step of a shfl.down reduction: `op v, x, shfl.down(x)` (or CUB's guarded step).
bool is_down_sum(const FunctionAnalysis& a, ValueId v) {
  InstId d = v == kNoId ? kNoId : a.values.defining_instruction(v);
  if (d == kNoId || a.ir.inst(d).operands.size() != 3) return false;
  for (std::uint32_t k : {1u, 2u}) {
    ValueId s = a.values.value_of(d, k);
    InstId sd = s == kNoId ? kNoId : a.values.defining_instruction(s);
    if (sd != kNoId && a.ir.inst(sd).opcode == "shfl" && a.ir.inst(sd).has_modifier("down"))
      return true;
  }
  return false;
}

struct Mutant {
  std::string text;
  std::uint32_t line; // where the finding (or one of its related locations) must be
  std::string what;
};

std::vector<Mutant> mutants(const std::string& text) {
  std::vector<Mutant> out;
  const std::vector<std::string> lines = split_lines(text);
  Module m = parse_or_fail(text);
  for (const Function* fn : m.functions()) {
    if (!fn->has_body) continue;
    FunctionAnalysis a(*fn);
    for (InstId i = 0; i < a.ir.size(); ++i) {
      const Instruction& inst = a.ir.inst(i);
      const std::uint32_t l = inst.loc.line;
      if (inst.opcode == "shfl" && inst.has_modifier("idx") &&
          is_down_sum(a, a.values.value_of(i, 1)) &&
          inst.operands[0].kind == OperandKind::kRegister) {
        // The broadcast becomes a copy; the next non-copy reader of its result is flagged.
        std::string d(inst.operands[0].text()), s(inst.operands[1].text());
        std::vector<std::string> mut = lines;
        mut[l - 1] = "\tmov.b32 " + d + ", " + s + ";";
        std::uint32_t expect = 0;
        for (std::uint32_t k = l; k < lines.size() && expect == 0; ++k)
          if (replace_register(lines[k], d, "@") != lines[k] &&
              lines[k].find("mov.") == std::string::npos)
            expect = k + 1;
        if (expect) out.push_back({join_lines(mut), expect, "broadcast removed"});
      }
      bool store =
          inst.opcode == "st" && !inst.has_modifier("local") && !inst.has_modifier("param");
      if (!store || !is_down_sum(a, a.values.value_of(i, 1))) continue;
      if (!inst.guard.empty()) {
        std::vector<std::string> mut = lines;
        std::string& t = mut[l - 1];
        t.erase(t.find('@'), t.find(inst.guard) + inst.guard.size() - t.find('@'));
        out.push_back({join_lines(mut), l, "store guard dropped"});
        continue;
      }
      // The lane-0 block's only predecessor ends in `@p bra` around it: delete that branch.
      BlockId b = a.cfg.block_of(i);
      const auto& preds = a.cfg.block(b).preds;
      if (preds.size() != 1) continue;
      InstId t = a.cfg.terminator(preds[0]);
      if (t == kNoId || a.ir.info(t).control != ControlKind::kBranch || a.ir.inst(t).guard.empty())
        continue;
      std::uint32_t bl = a.ir.inst(t).loc.line;
      std::vector<std::string> mut = lines;
      mut.erase(mut.begin() + (bl - 1));
      out.push_back({join_lines(mut), l - (bl < l ? 1 : 0), "lane branch deleted"});
    }
  }
  return out;
}

TEST(RuleReductionBroadcastPlanted, BroadcastsAndLaneGuardsRemoved) {
  std::vector<std::string> inputs = {"golden/batched_incremental_attention.qwen15b_coder.sm_90.ptx",
                                     "golden/rmsnorm.llama.sm_90.ptx",
                                     "golden/layernorm.llama.sm_90.ptx",
                                     "golden/fused_residual_rmsnorm.llama.sm_90.ptx",
                                     "golden/qk_rmsnorm.llama_q.sm_90.ptx",
                                     "tests/verifier/inputs/reduction_nvcc_warp.sm_90.ptx"};
  std::uint32_t planted = 0, caught = 0, corpus_planted = 0;
  auto run = [&](const std::string& path, const std::string& text) {
    EXPECT_EQ(verify_one(text, kRule, path).error_count(),
              path.find("reduction_nvcc_warp") != std::string::npos ? 7u : 0u)
        << path;
    std::vector<Mutant> ms = mutants(text);
    std::cout << "[ planted ] " << path << ": " << ms.size() << " mutants\n";
    if (ms.size() > 6) ms.resize(6); // the corpus files are large; six of each suffice
    for (const Mutant& mu : ms) {
      ++planted;
      FileReport r = verify_one(mu.text, kRule, path);
      bool found = false;
      for (const Finding& f : r.findings) {
        found = found || f.location.line == mu.line;
        for (const RelatedLocation& rl : f.related)
          found = found || rl.location.line == mu.line;
      }
      EXPECT_TRUE(found) << path << ": " << mu.what << ", expected at line " << mu.line;
      caught += found;
    }
  };
  for (const std::string& input : inputs) {
    const std::string text = read_source_file(input);
    ASSERT_FALSE(text.empty()) << input;
    run(input, text);
  }
  for (const char* name :
       {"cub_reduce.sm_90.lineinfo.ptx", "cub_segmented_reduce.sm_90.lineinfo.ptx"}) {
    std::filesystem::path p = std::filesystem::path(PTXKIT_CORPUS_DIR) / name;
    std::ifstream in(p, std::ios::binary);
    std::ostringstream ss;
    ss << in.rdbuf();
    ASSERT_FALSE(ss.str().empty()) << p;
    std::uint32_t before = planted;
    run(p.string(), ss.str());
    corpus_planted += planted - before;
  }
  std::cout << "[ planted ] reduction-broadcast: broadcasts/guards removed " << planted
            << " (corpus " << corpus_planted << "), caught " << caught << "\n";
  EXPECT_GE(planted, 12u);
  EXPECT_GE(corpus_planted, 2u);
}

} // namespace
} // namespace ptxkit::verifier::testing
