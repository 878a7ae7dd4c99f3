// rule_global_bounds_test.cpp: rule global-bounds on the library's own kernels, whose launch
// contracts (params(), launch()) give every buffer's logical size.
//
//   - every reference config of every kernel, at sm_80 and sm_90: zero findings, and a non-zero
//     number of checked access sites per kernel (an empty pass proves nothing);
//   - planted contract defects: each buffer of each kernel's first reference config stated one
//     element smaller than the kernel reads: a finding naming that parameter, an error where
//     the offset range is exact (all but a few, whose index passes an alignment mask or a
//     remainder: there the crossing is a warning that says the range over-approximates);
//   - a planted guard defect in a golden file: gemv_f32's tail loop bound `setp.lt` turned into
//     `setp.le` reads one vector past the end of x and of the weight row, at the exact lines of
//     the tail loop's loads; the unmutated file is quiet;
//   - the command-line contract syntax.
#include "kernel_contract.h"
#include "ptxkit/verifier/contract.h"
#include "ptxkit/verifier/verify.h"

#include <fstream>
#include <gtest/gtest.h>
#include <map>
#include <ptxkit/kernels/registry.h>
#include <set>
#include <sstream>

namespace ptxkit::verifier {
namespace {

std::uint32_t sites(const FileReport& r) {
  std::uint32_t n = 0;
  for (const auto& s : r.rules)
    n += s.sites;
  return n;
}

std::string describe(const FileReport& r) {
  std::string s;
  for (const auto& f : r.findings)
    s += r.path + ":" + std::to_string(f.location.line) + ": " + f.message + "\n";
  return s;
}

TEST(GlobalBounds, EveryReferenceConfigOfEveryKernelIsInBounds) {
  std::size_t instances = 0;
  for (const kernels::Kernel* k : kernels::KernelRegistry::all()) {
    std::uint32_t kernel_sites = 0;
    for (const auto& rc : k->reference_configs()) {
      for (const char* target : {"sm_80", "sm_90"}) {
        auto t = ptxgen::Target::parse(target);
        ASSERT_TRUE(t.has_value());
        auto ptx = k->generate(rc.values, *t);
        ASSERT_TRUE(ptx.has_value()) << k->name() << " " << rc.tag;
        std::string path = std::string(k->name()) + "." + rc.tag + "." + target + ".ptx";
        FileReport r = cli::check_global_bounds(*k, rc.values, ptx->text, path);
        EXPECT_TRUE(r.findings.empty()) << describe(r);
        EXPECT_GT(sites(r), 0u) << path << ": no access checked";
        kernel_sites += sites(r);
        ++instances;
      }
    }
    EXPECT_GT(kernel_sites, 0u) << k->name();
  }
  EXPECT_GT(instances, 100u);
}

TEST(GlobalBounds, EachBufferStatedOneElementSmallerIsAnError) {
  auto t = ptxgen::Target::parse("sm_90");
  ASSERT_TRUE(t.has_value());
  std::size_t planted = 0, errors = 0;
  for (const kernels::Kernel* k : kernels::KernelRegistry::all()) {
    const auto& rc = k->reference_configs().front();
    auto ptx = k->generate(rc.values, *t);
    ASSERT_TRUE(ptx.has_value());
    auto parsed = parse(ptx->text, std::string(k->name()) + ".ptx");
    ASSERT_TRUE(parsed.ok());
    for (const kernels::ParamSpec& p : k->params(rc.values)) {
      if (p.kind == kernels::ParamKind::kPointerArray) continue;
      VerifyOptions o;
      o.rules = {"global-bounds"};
      for (const Function* fn : parsed.value().functions()) {
        if (!fn->has_body) continue;
        KernelContract c = cli::kernel_contract(*k, rc.values, fn->name);
        for (auto& b : c.buffers)
          if (b.param == p.name) b.bytes -= kernels::elem_bytes(p.elem);
        o.contracts.push_back(c);
      }
      FileReport r = verify_module(parsed.value(), o);
      bool named = false, error = false;
      for (const auto& f : r.findings)
        if (f.message.find("parameter '" + p.name + "'") != std::string::npos &&
            f.message.find("past its end") != std::string::npos) {
          named = true;
          error |= f.severity == Severity::kError;
        }
      errors += error;
      EXPECT_TRUE(named) << k->name() << " (" << rc.tag << "): " << p.name
                         << " one element short is not reported\n"
                         << describe(r);
      ++planted;
    }
  }
  EXPECT_GT(planted, 50u);
  EXPECT_GE(errors * 10, planted * 9) << errors << " errors for " << planted << " planted";
}

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(GlobalBounds, MutatedTailGuardInGoldenFileFiresAtTheTailLoads) {
  const kernels::Kernel* k = kernels::KernelRegistry::find("gemv_f32");
  ASSERT_NE(k, nullptr);
  const kernels::ReferenceConfig* rc = k->reference_config("qwen05b_o");
  ASSERT_NE(rc, nullptr);
  std::string text = read_text(PTXKIT_SOURCE_DIR "/golden/gemv_f32.qwen05b_o.sm_80.ptx");
  const std::string guard = "setp.lt.u32 %p3, %r20, 224;";
  auto at = text.find(guard);
  ASSERT_NE(at, std::string::npos);
  FileReport quiet = cli::check_global_bounds(*k, rc->values, text, "gemv.ptx");
  EXPECT_TRUE(quiet.findings.empty()) << describe(quiet);
  EXPECT_GT(sites(quiet), 0u);

  std::string mutated = text;
  mutated.replace(at, guard.size(), "setp.le.u32 %p3, %r20, 224;");
  FileReport r = cli::check_global_bounds(*k, rc->values, mutated, "gemv.ptx");
  // The tail loop's two loads (weight row, x) are the lines after the guard's branch.
  std::set<std::uint32_t> expected;
  std::istringstream lines(mutated);
  std::uint32_t n = 0;
  bool in_tail = false;
  for (std::string l; std::getline(lines, l);) {
    ++n;
    if (l.find("$L__tail_loop:") != std::string::npos) in_tail = true;
    if (l.find("$L__tail_done:") != std::string::npos) in_tail = false;
    if (in_tail && l.find("ld.global") != std::string::npos) expected.insert(n);
  }
  ASSERT_EQ(expected.size(), 2u);
  std::set<std::uint32_t> flagged;
  for (const auto& f : r.findings) {
    EXPECT_EQ(f.severity, Severity::kError) << describe(r);
    flagged.insert(f.location.line);
  }
  EXPECT_EQ(flagged, expected) << describe(r);
  EXPECT_NE(describe(r).find("parameter 'x'"), std::string::npos);
}

TEST(GlobalBounds, ContractSpecSyntax) {
  std::string error;
  auto c =
      parse_contract_spec("saxpy:x[4K], y[4096] ,n=-3,kv[4:64K:16K];grid=4,2;block=256", error);
  ASSERT_TRUE(c.has_value()) << error;
  EXPECT_EQ(c->kernel, "saxpy");
  ASSERT_NE(c->buffer("x"), nullptr);
  EXPECT_EQ(c->buffer("x")->bytes, 4096u);
  EXPECT_EQ(c->buffer("y")->bytes, 4096u);
  EXPECT_EQ(c->scalar("n")->value, -3);
  EXPECT_EQ(c->pointer_array("kv")->count, 4u);
  EXPECT_EQ(c->pointer_array("kv")->bytes, 65536u);
  EXPECT_EQ(c->pointer_array("kv")->stride, 16384u);
  EXPECT_EQ((*c->grid)[0], 4u);
  EXPECT_EQ((*c->grid)[1], 2u);
  EXPECT_EQ((*c->grid)[2], 1u);
  EXPECT_EQ((*c->block)[0], 256u);
  for (const char* bad : {"saxpy", "saxpy:x[", "saxpy:x[4]x", "saxpy:x[4],x[8]", "saxpy:n=1.5",
                          "saxpy:x[4];grid=0", "saxpy:x[4];warp=2", "saxpy:x[1:2]"}) {
    error.clear();
    EXPECT_FALSE(parse_contract_spec(bad, error).has_value()) << bad;
    EXPECT_FALSE(error.empty()) << bad;
  }
}

} // namespace
} // namespace ptxkit::verifier
