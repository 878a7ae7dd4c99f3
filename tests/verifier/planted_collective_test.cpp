// planted_collective_test.cpp: planted defects for rules barrier-divergence,
// partial-warp-collective, state-space-mismatch and shared-bounds on real kernels (generated
// golden kernels, nvcc's CUB from the corpus, CUTLASS and the cuda-samples from the foreign
// corpus): each mutation is the bug its rule exists for, and the rule must report an error at the
// mutated line; the unmutated kernel has no error of that rule. Also the undeclared-register defect
// (a store reading %rN with only %r<N> declared). Prints "[ planted ] <rule>: <mutation> N, caught
// M" for docs/planted-defects.md.
#include "analysis_planted_util.h"
#include "analysis_test_util.h"
#include "ptx_files_test_util.h"
#include "ptxkit/verifier/analysis/address_provenance.h"
#include "ptxkit/verifier/analysis/memory_access.h"

#include <functional>
#include <iostream>
#include <optional>
#include <regex>

namespace ptxkit::verifier::testing {
namespace {

struct Input {
  std::string name;
  std::string text;
};

std::vector<Input> inputs() {
  std::vector<Input> out;
  for (const char* g : {"golden/rmsnorm.llama.sm_90.ptx", "golden/argmax_partial.llama.sm_90.ptx",
                        "golden/flash_decode_reduce.qwen05b.sm_90.ptx",
                        "golden/batched_incremental_attention.qwen15b_coder.sm_90.ptx"})
    out.push_back({g, read_source_file(g)});
  for (const char* c : {"cub_scan.sm_90.lineinfo.ptx", "cub_reduce.sm_80.lineinfo.ptx",
                        "triton36.layernorm.sm_90a.ptx", "triton36.matmul_f16_64x64.sm_90a.ptx",
                        "inductor.per_fused_rmsnorm_softmax_argmax.sm_90a.ptx",
                        "triton36.matmul_tma_warp_specialized.sm_90a.ptx"})
    out.push_back(
        {std::string("corpus/") + c, read_whole_file(std::string(PTXKIT_CORPUS_DIR) + "/" + c)});
  // Other projects' kernels (tests/corpus/foreign.tar.xz): CUTLASS's Hopper warp-specialized and
  // Ampere GEMMs, and the cuda-samples reduction (cooperative groups).
  for (const char* c : {"cutlass.hopper_ws_gemm.sm_90a.ptx", "cutlass.ampere_tf32_gemm.sm_80.ptx",
                        "cuda-samples.reduction_kernel.sm_80.ptx"})
    out.push_back({std::string("foreign/") + c, read_whole_file(std::string(PTXKIT_BINARY_DIR) +
                                                                "/tests/corpus/foreign-ptx/" + c)});
  return out;
}

// Applies `mutate` to at most `limit` lines matching `pick` per input; `mutate` returns the new
// lines and the 0-based index (within them) of the line the finding must point at.
struct Mutation {
  std::vector<std::string> lines;
  std::size_t target = 0;
};

void plant(const std::string& rule, const std::string& what, std::size_t limit,
           const std::function<bool(const std::string&)>& pick,
           const std::function<std::optional<Mutation>(const std::string&, int)>& mutate,
           std::uint32_t min_planted) {
  std::uint32_t planted = 0, caught = 0;
  int serial = 0;
  for (const Input& in : inputs()) {
    ASSERT_FALSE(in.text.empty()) << in.name;
    ASSERT_EQ(verify_one(in.text, rule, in.name).error_count(), 0u) << rule << " " << in.name;
    std::vector<std::string> lines = split_lines(in.text);
    std::size_t done = 0;
    for (std::size_t l = 0; l < lines.size() && done < limit; ++l) {
      if (!pick(lines[l])) continue;
      std::optional<Mutation> m = mutate(lines[l], serial++);
      if (!m) continue;
      ++done;
      ++planted;
      std::vector<std::string> out(lines.begin(), lines.begin() + static_cast<long>(l));
      auto expected = static_cast<std::uint32_t>(out.size() + m->target + 1);
      out.insert(out.end(), m->lines.begin(), m->lines.end());
      out.insert(out.end(), lines.begin() + static_cast<long>(l) + 1, lines.end());
      FileReport r = verify_one(join_lines(out), rule, in.name);
      bool found = false;
      for (const Finding& f : r.findings)
        found = found || (f.severity == Severity::kError && f.location.line == expected);
      EXPECT_TRUE(found) << rule << ": " << in.name << " line " << l + 1 << ": " << lines[l];
      caught += found;
    }
  }
  std::cout << "[ planted ] " << rule << ": " << what << " " << planted << ", caught " << caught
            << "\n";
  EXPECT_GE(planted, min_planted);
}

bool contains(const std::string& s, const std::string& needle) {
  return s.find(needle) != std::string::npos;
}

TEST(PlantedCollective, BarrierMovedUnderTidBranch) {
  plant(
      "barrier-divergence", "bar.sync moved under a tid-dependent branch", 3,
      [](const std::string& l) { return contains(l, "bar.sync") && !contains(l, "@"); },
      [](const std::string& l, int n) -> std::optional<Mutation> {
        std::string label = "$L_planted_" + std::to_string(n);
        return Mutation{{"\t{", "\t.reg .pred %pplant;", "\t.reg .b32 %rplant;",
                         "\tmov.u32 %rplant, %tid.x;", "\tsetp.ne.u32 %pplant, %rplant, 0;",
                         "\t@%pplant bra " + label + ";", l, label + ":", "\t}"},
                        6};
      },
      6);
}

TEST(PlantedCollective, LaneVaryingExitBeforeShuffle) {
  plant(
      "partial-warp-collective", "lane-varying early exit before a full-mask shfl.sync", 3,
      [](const std::string& l) {
        return contains(l, "shfl.sync") &&
               (contains(l, "4294967295") || contains(l, "-1;") || contains(l, "0xffffffff"));
      },
      [](const std::string& l, int) -> std::optional<Mutation> {
        return Mutation{{"\t{", "\t.reg .pred %pplant;", "\t.reg .b32 %rplant;",
                         "\tmov.u32 %rplant, %laneid;", "\tsetp.gt.u32 %pplant, %rplant, 15;",
                         "\t@%pplant exit;", "\t}", l},
                        7};
      },
      3);
}

TEST(PlantedCollective, SharedLoadSwappedToGlobal) {
  plant(
      "state-space-mismatch", "ld.shared swapped to ld.global on a shared address", 3,
      [](const std::string& l) { return contains(l, "ld.shared.") && !contains(l, "{ "); },
      [](const std::string& l, int) -> std::optional<Mutation> {
        std::string m = l;
        m.replace(m.find("ld.shared."), 10, "ld.global.");
        return Mutation{{m}, 0};
      },
      8);
}

TEST(PlantedCollective, SharedStoreSwappedToGeneric) {
  plant(
      "state-space-mismatch", "st.shared swapped to a generic st (no cvta.shared)", 2,
      [](const std::string& l) { return contains(l, "st.shared.") && !contains(l, "{ "); },
      [](const std::string& l, int) -> std::optional<Mutation> {
        std::string m = l;
        m.replace(m.find("st.shared."), 10, "st.");
        return Mutation{{m}, 0};
      },
      6);
}

// Shrinks a `.shared` array declared with a constant size so that the access at the largest
// constant offset of that array (`[sym+off]` or `[%r+off]` with %r the array's address) is past
// the end: the new size is that offset.
TEST(PlantedCollective, SharedArrayShrunk) {
  std::uint32_t planted = 0, caught = 0;
  for (const Input& in : inputs()) {
    ASSERT_EQ(verify_one(in.text, "shared-bounds", in.name).error_count(), 0u) << in.name;
    Analyzed t = analyze(in.text);
    // Largest-offset shared access with a known variable and range, from the analysis' view of
    // the unmutated kernel, then the declaration shrunk to exactly that offset.
    analysis::AddressProvenance prov(t.module, *t.a);
    std::int64_t best_hi = -1;
    std::uint32_t best_line = 0;
    const VarDecl* var = nullptr;
    for (analysis::InstId i = 0; i < t.a->ir.size(); ++i)
      for (const analysis::MemoryOperand& mo : analysis::memory_operands(t.a->ir.inst(i))) {
        analysis::AbsValue v = prov.operand_value(i, mo.operand);
        if (mo.space != analysis::AddrSpace::kShared || v.kind != analysis::AbsValue::Kind::kAddr ||
            !v.var || !v.has_range || v.generic || v.var->dims.size() != 1 ||
            v.var->dims[0] == kUnknownDim) // `.extern .shared .b8 x[]` (Triton) has no size
          continue;
        if (v.hi > best_hi) {
          best_hi = v.hi;
          best_line = t.a->ir.inst(i).loc.line;
          var = v.var;
        }
      }
    if (!var || best_hi <= 0) continue;
    std::uint32_t elem = var->size_in_bytes() / var->dims[0];
    std::uint64_t new_dim = static_cast<std::uint64_t>(best_hi) / elem; // ends at best_hi or less
    std::vector<std::string> lines = split_lines(in.text);
    std::string& decl = lines[var->loc.line - 1];
    std::string old_dim = "[" + std::to_string(var->dims[0]) + "]";
    ASSERT_NE(decl.find(old_dim), std::string::npos) << decl;
    decl.replace(decl.find(old_dim), old_dim.size(), "[" + std::to_string(new_dim) + "]");
    ++planted;
    FileReport r = verify_one(join_lines(lines), "shared-bounds", in.name);
    bool found = false;
    for (const Finding& f : r.findings)
      found = found || (f.severity == Severity::kError && f.location.line == best_line);
    EXPECT_TRUE(found) << in.name << ": " << var->name << " shrunk to " << new_dim
                       << ", access on line " << best_line;
    caught += found;
  }
  std::cout << "[ planted ] shared-bounds: .shared array shrunk below its largest access "
            << planted << ", caught " << caught << "\n";
  EXPECT_GE(planted, 3u);
}

// The runtime engineer's defect: a store reads %rN where the kernel declares only %r<N>.
TEST(PlantedCollective, StoreReadsRegisterPastItsRange) {
  std::uint32_t planted = 0, caught = 0;
  const std::regex decl(R"(\.reg \.b32\s+%r<(\d+)>;)");
  const std::regex stored(R"(^(\s*st\.[^;]*, )%r\d+;\s*$)");
  for (const Input& in : inputs()) {
    ASSERT_EQ(verify_one(in.text, "undeclared-register", in.name).error_count(), 0u) << in.name;
    std::vector<std::string> lines = split_lines(in.text);
    std::string range;
    std::size_t done = 0;
    for (std::size_t l = 0; l < lines.size() && done < 2; ++l) {
      std::smatch m;
      if (std::regex_search(lines[l], m, decl)) range = m[1];
      if (range.empty() || !std::regex_match(lines[l], m, stored)) continue;
      std::vector<std::string> out = lines;
      out[l] = std::string(m[1]) + "%r" + range + ";";
      ++done;
      ++planted;
      FileReport r = verify_one(join_lines(out), "undeclared-register", in.name);
      bool found = false;
      for (const Finding& f : r.findings)
        found = found || (f.severity == Severity::kError && f.location.line == l + 1);
      EXPECT_TRUE(found) << in.name << " line " << l + 1 << ": " << out[l];
      caught += found;
    }
  }
  std::cout << "[ planted ] undeclared-register: a store reads %r<N> past its declared range "
            << planted << ", caught " << caught << "\n";
  EXPECT_GE(planted, 5u);
}

} // namespace
} // namespace ptxkit::verifier::testing
