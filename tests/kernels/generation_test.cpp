// generation_test.cpp: generated PTX of every registered kernel: deterministic, identical when only
// an exempt (non-baked) field changes, different when a baked field changes, and every baked
// immediate names a baked field.
//
// Together with key_test.cpp this is the framework's proof that `baked` is truthful in both
// directions: an exempt field cannot change the PTX (so leaving it out of the key is safe), and a
// baked field does change it (so the key is not padded with fields that do not matter).
#include "perturb.h"

#include <cstdlib>
#include <gtest/gtest.h>
#include <ptxkit/kernels/registry.h>
#include <ptxkit/ptxgen/target.h>

namespace ptxkit::kernels {
namespace {

std::string gen(const Kernel& k, const ConfigValues& v, const ptxgen::Target& t, bool loc = false) {
  auto ptx = k.generate(v, t, GenOptions{.loc = loc});
  EXPECT_TRUE(ptx) << k.name() << ": " << (ptx ? "" : ptx.error().to_string());
  return ptx ? ptx->text : std::string();
}

TEST(Generation, EveryKernelIsRegistered) {
  EXPECT_NE(KernelRegistry::find("rmsnorm"), nullptr);
  EXPECT_NE(KernelRegistry::find("batched_incremental_attention"), nullptr);
  EXPECT_EQ(KernelRegistry::find("no_such_kernel"), nullptr);
  auto all = KernelRegistry::all();
  for (std::size_t i = 1; i < all.size(); ++i)
    EXPECT_LT(all[i - 1]->name(), all[i]->name());
}

TEST(Generation, IsDeterministicForEveryReferenceConfigAndTarget) {
  // Every instance generated in one order, then again in the reverse order: equal bytes, so no
  // state leaks from one build into the next and nothing depends on time or addresses.
  struct Instance {
    const Kernel* kernel;
    const ReferenceConfig* config;
    const ptxgen::Target* target;
  };
  std::vector<Instance> all;
  for (const Kernel* k : KernelRegistry::all())
    for (const auto& rc : k->reference_configs())
      for (const auto& t : ptxgen::Target::all_supported())
        all.push_back({k, &rc, &t});
  std::vector<std::string> forward;
  for (const auto& i : all)
    forward.push_back(gen(*i.kernel, i.config->values, *i.target));
  for (std::size_t n = all.size(); n-- > 0;) {
    const auto& i = all[n];
    EXPECT_EQ(forward[n], gen(*i.kernel, i.config->values, *i.target))
        << i.kernel->name() << " " << i.config->tag << " " << i.target->name();
    EXPECT_NE(forward[n].find(".target " + std::string(i.target->name())), std::string::npos);
    EXPECT_NE(forward[n].find(".entry " + std::string(i.kernel->name())), std::string::npos);
  }
}

// An exempt field must leave the PTX unchanged at every config (else the key misses it: the unsafe
// direction). A baked field must change the PTX at some config -- not necessarily at each: a
// tuning field like q4k_gemv's `split` has nothing to split in a one-step row -- as lint-keys'
// over-specified-key warning judges it.
TEST(Generation, ExemptFieldsLeaveThePtxUnchangedAndBakedFieldsChangeIt) {
  const ptxgen::Target& t = ptxgen::Target::all_supported().front();
  for (const Kernel* k : KernelRegistry::all())
    for (std::size_t i = 0; i < k->fields().size(); ++i) {
      const FieldInfo& f = k->fields()[i];
      bool changed_somewhere = false;
      for (const ConfigValues& base : testing::test_configs(*k)) {
        const std::string ptx = gen(*k, base, t);
        auto moved = testing::perturbed(*k, base, i);
        ASSERT_TRUE(moved) << k->name() << "." << f.name;
        const bool changed = gen(*k, *moved, t) != ptx;
        changed_somewhere |= changed;
        if (!f.spec.baked) {
          EXPECT_FALSE(changed) << k->name() << "." << f.name
                                << " is exempt from the key but changes the PTX";
        }
      }
      if (f.spec.baked) {
        EXPECT_TRUE(changed_somewhere)
            << k->name() << "." << f.name << " is declared baked but changes the PTX at no config";
      }
    }
}

TEST(Generation, EveryBakedImmediateNamesABakedFieldAndItsLine) {
  for (const Kernel* k : KernelRegistry::all()) {
    auto ptx = k->generate(k->defaults(), ptxgen::Target::all_supported().front());
    ASSERT_TRUE(ptx) << ptx.error().to_string();
    EXPECT_FALSE(ptx->baked.empty()) << k->name();
    std::vector<std::string> lines{""};
    for (char ch : ptx->text) {
      if (ch == '\n')
        lines.emplace_back();
      else
        lines.back().push_back(ch);
    }
    for (const auto& b : ptx->baked) {
      int idx = k->field_index(b.field);
      ASSERT_GE(idx, 0) << k->name() << ": baked immediate from unknown field " << b.field;
      EXPECT_TRUE(k->fields()[static_cast<std::size_t>(idx)].spec.baked) << b.field;
      ASSERT_GE(b.ptx_line, 1u);
      ASSERT_LE(b.ptx_line, lines.size());
      EXPECT_NE(lines[b.ptx_line - 1].find(b.instruction), std::string::npos)
          << "line " << b.ptx_line << ": " << lines[b.ptx_line - 1] << " vs " << b.instruction;
    }
  }
}

TEST(Generation, RmsNormBakesEpsIntoAnImmediate) {
  const Kernel* k = KernelRegistry::find("rmsnorm");
  ASSERT_NE(k, nullptr);
  auto ptx =
      k->generate(k->reference_config("qwen05b")->values, ptxgen::Target::all_supported().front());
  ASSERT_TRUE(ptx);
  bool eps_seen = false;
  for (const auto& b : ptx->baked)
    eps_seen |= b.field == "eps" && std::strtof(b.value.c_str(), nullptr) == 1e-6f;
  EXPECT_TRUE(eps_seen);
}

TEST(Generation, LocAddsProvenanceLines) {
  const Kernel* k = KernelRegistry::find("rmsnorm");
  ASSERT_NE(k, nullptr);
  const auto& t = ptxgen::Target::all_supported().front();
  std::string with = gen(*k, k->defaults(), t, true);
  EXPECT_NE(with.find(".loc"), std::string::npos);
  EXPECT_NE(with.find("rmsnorm_builder.cpp"), std::string::npos);
  EXPECT_EQ(gen(*k, k->defaults(), t).find(".loc"), std::string::npos);
}

TEST(Generation, InvalidConfigsNeverReachTheBuilder) {
  const Kernel* k = KernelRegistry::find("batched_incremental_attention");
  ASSERT_NE(k, nullptr);
  ConfigValues v = k->defaults();
  v[static_cast<std::size_t>(k->field_index("head_dim"))] = FieldValue{std::uint32_t{256}};
  auto ptx = k->generate(v, ptxgen::Target::all_supported().front());
  ASSERT_FALSE(ptx);
  EXPECT_NE(ptx.error().message.find("head_dim"), std::string::npos);
}

} // namespace
} // namespace ptxkit::kernels
