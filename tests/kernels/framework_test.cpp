// framework_test.cpp: unit tests of the kernel framework: reflection, value parsing, limits,
// --set assignments and validation errors, with a test-only config that has every field type.
#include <array>
#include <cmath>
#include <cstring>
#include <gtest/gtest.h>
#include <ptxkit/kernels/assign.h>
#include <ptxkit/kernels/field.h>
#include <ptxkit/kernels/kernel.h>
#include <ptxkit/kernels/reflect.h>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace ptxkit::kernels {
namespace {

enum class Mode : std::uint32_t { kFast, kExact };
std::span<const std::string_view> ptxkit_enum_names(Mode) {
  static constexpr std::array<std::string_view, 2> names{"fast", "exact"};
  return names;
}

struct AllTypesConfig {
  std::uint32_t width = 64;
  std::int32_t offset = -3;
  float eps = 1e-6f;
  bool fused = true;
  Mode mode = Mode::kExact;
  std::uint32_t rows = 2;

  template <class V, class Self>
  static void visit(V& v, Self& c) {
    v.field("width", c.width, FieldSpec{.doc = "w", .min = 32.0, .max = 128.0, .multiple_of = 32});
    v.field("offset", c.offset, FieldSpec{.doc = "o", .min = -8.0, .max = 8.0});
    v.field("eps", c.eps, FieldSpec{.doc = "e", .min = 0.0, .max = 1.0});
    v.field("fused", c.fused, FieldSpec{.doc = "f"});
    v.field("mode", c.mode, FieldSpec{.doc = "m"});
    v.field("rows", c.rows,
            FieldSpec{.doc = "r", .baked = false, .min = 1.0, .exempt_reason = "grid only"});
  }
};

// A kernel over AllTypesConfig with a cross-field rule, to test Kernel's generic parts.
struct AllTypesDef {
  using Config = AllTypesConfig;
  static constexpr std::string_view kName = "all_types";
  static constexpr std::string_view kSummary = "test";
  static constexpr std::string_view kLimits = "offset < 0 unless fused";
  static std::vector<NamedConfig<Config>> reference_configs() {
    return {{"small", "a small one", Config{.width = 32}}};
  }
  static ptxkit::Expected<void> validate(const Config& c) {
    if (!c.fused && c.offset >= 0)
      return ptxkit::Error{"offset must be negative when fused is false", {}, 0, 0};
    return {};
  }
  static ptxkit::Expected<GeneratedPtx> build(const Config&, const ptxgen::Target&,
                                              const GenOptions&) {
    return ptxkit::Error{"not buildable", {}, 0, 0};
  }
  static LaunchDims launch(const Config&) { return {}; }
  static std::vector<ParamSpec> params(const Config&) { return {}; }
  static HostTensors make_inputs(const Config&, std::uint64_t) { return {}; }
  static ptxkit::Expected<HostTensors> reference(const Config&, const HostTensors&) {
    return HostTensors{};
  }
  // Depends on the config and the inputs, to show that both reach the definition.
  static Tolerance tolerance(const Config& c, const HostTensors& in) {
    return {c.eps, static_cast<double>(in.f32.size()), "test: abs is eps, rel the input count"};
  }
};

// The same kernel with bench cases (the optional member).
struct BenchedDef : AllTypesDef {
  static std::vector<BenchCase> bench_cases() {
    return {{.name = "all_types_big", .config = "small", .sets = {"rows=7"}, .shape = "7 rows"},
            {.name = "all_types_fast",
             .target = BenchTarget{.min_pct_of_copy = 50},
             .back_to_back = true}};
  }
};

// A definition whose bench_cases has another shape: a mistake the contract must not take for an
// absent member.
struct MisshapedBenchDef : AllTypesDef {
  static std::vector<std::string> bench_cases() { return {"all_types_big"}; }
};

// The contract, piece by piece: what PTXKIT_REGISTER_KERNEL checks (registry.h).
static_assert(KernelDefinition<AllTypesDef>);
static_assert(KernelDefinition<BenchedDef>);
static_assert(!HasBenchCases<AllTypesDef> && HasBenchCases<BenchedDef>);
static_assert(NamesBenchCases<MisshapedBenchDef> && !HasBenchCases<MisshapedBenchDef>);
static_assert(!KernelDefinition<MisshapedBenchDef>);

TEST(Reflection, DescribesEveryFieldInOrderWithTypesDefaultsAndSpecs) {
  auto fields = describe<AllTypesConfig>();
  ASSERT_EQ(fields.size(), 6u);
  EXPECT_EQ(fields[0].name, "width");
  EXPECT_EQ(fields[0].type, FieldType::kU32);
  EXPECT_EQ(std::get<std::uint32_t>(fields[0].default_value), 64u);
  EXPECT_EQ(fields[1].type, FieldType::kI32);
  EXPECT_EQ(std::get<std::int32_t>(fields[1].default_value), -3);
  EXPECT_EQ(fields[2].type, FieldType::kF32);
  EXPECT_EQ(fields[3].type, FieldType::kBool);
  EXPECT_EQ(fields[4].type, FieldType::kEnum);
  EXPECT_EQ(fields[4].enum_values, (std::vector<std::string>{"fast", "exact"}));
  EXPECT_EQ(std::get<EnumValue>(fields[4].default_value).index, 1u);
  EXPECT_TRUE(fields[0].spec.baked);
  EXPECT_FALSE(fields[5].spec.baked);
  EXPECT_EQ(fields[5].spec.exempt_reason, "grid only");
}

TEST(Reflection, ValuesRoundTripThroughTheTypeErasedForm) {
  AllTypesConfig c{.width = 96, .offset = 5, .eps = 0.25f, .fused = false, .mode = Mode::kFast};
  auto values = to_values(c);
  auto back = from_values<AllTypesConfig>(values);
  EXPECT_EQ(back.width, 96u);
  EXPECT_EQ(back.offset, 5);
  EXPECT_EQ(back.eps, 0.25f);
  EXPECT_FALSE(back.fused);
  EXPECT_EQ(back.mode, Mode::kFast);
}

FieldInfo field_named(std::string_view name) {
  for (auto& f : describe<AllTypesConfig>())
    if (f.name == name) return f;
  ADD_FAILURE() << "no field " << name;
  return {};
}

TEST(FieldValues, FloatsParseInEveryStrtofForm) {
  auto eps = field_named("eps");
  for (const char* text : {"1e-6", "0.000001", "1E-6", "0x1.0c6f7ap-20", "10000.0", ".5"}) {
    auto v = parse_value(eps, text);
    ASSERT_TRUE(v) << text << ": " << v.error().message;
    EXPECT_EQ(std::get<float>(*v), std::strtof(text, nullptr)) << text;
  }
  auto bad = parse_value(eps, "1e-6x");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("eps"), std::string::npos);
  EXPECT_NE(bad.error().message.find("1e-6x"), std::string::npos);
  EXPECT_FALSE(parse_value(eps, ""));
  EXPECT_FALSE(parse_value(eps, "1e39")); // overflows f32
}

TEST(FieldValues, FloatsPrintInTheShortestFormThatReadsBack) {
  auto eps = field_named("eps");
  EXPECT_EQ(format_value(eps, FieldValue{1e-6f}), "1e-06");
  float odd = std::nextafter(1e-6f, 1.0f);
  auto again = parse_value(eps, format_value(eps, FieldValue{odd}));
  ASSERT_TRUE(again);
  EXPECT_EQ(std::get<float>(*again), odd);
}

TEST(FieldValues, IntegersBoolsAndEnumsParseAndRejectWithTheValidChoices) {
  EXPECT_EQ(std::get<std::uint32_t>(*parse_value(field_named("width"), "0x40")), 64u);
  EXPECT_FALSE(parse_value(field_named("width"), "-1"));
  EXPECT_FALSE(parse_value(field_named("width"), "12abc"));
  EXPECT_FALSE(parse_value(field_named("width"), "4294967296"));
  EXPECT_EQ(std::get<std::int32_t>(*parse_value(field_named("offset"), "-7")), -7);
  EXPECT_TRUE(std::get<bool>(*parse_value(field_named("fused"), "true")));
  EXPECT_FALSE(std::get<bool>(*parse_value(field_named("fused"), "0")));
  EXPECT_FALSE(parse_value(field_named("fused"), "yes"));
  EXPECT_EQ(std::get<EnumValue>(*parse_value(field_named("mode"), "fast")).index, 0u);
  auto bad = parse_value(field_named("mode"), "slow");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("fast, exact"), std::string::npos) << bad.error().message;
}

TEST(FieldValues, LimitsNameTheFieldTheValueAndTheValidRange) {
  auto width = field_named("width");
  EXPECT_TRUE(check_limits(width, FieldValue{std::uint32_t{96}}));
  auto big = check_limits(width, FieldValue{std::uint32_t{160}});
  ASSERT_FALSE(big);
  EXPECT_NE(big.error().message.find("'width' = 160"), std::string::npos) << big.error().message;
  EXPECT_NE(big.error().message.find("[32, 128], multiple of 32"), std::string::npos)
      << big.error().message;
  EXPECT_FALSE(check_limits(width, FieldValue{std::uint32_t{48}})); // not a multiple of 32
  EXPECT_FALSE(check_limits(field_named("eps"), FieldValue{std::nanf("")}));
  EXPECT_FALSE(check_limits(field_named("eps"), FieldValue{-1e-6f}));
  EXPECT_FALSE(check_limits(width, FieldValue{1.0f})); // wrong type
}

TEST(Assignments, ApplyInOrderAndRejectUnknownFieldsListingTheValidOnes) {
  KernelAdapter<AllTypesDef> kernel;
  auto values = config_from_assignments(kernel, {"width=128", "eps=1e-5", "mode=fast"});
  ASSERT_TRUE(values) << values.error().message;
  auto c = from_values<AllTypesConfig>(*values);
  EXPECT_EQ(c.width, 128u);
  EXPECT_EQ(c.eps, 1e-5f);
  EXPECT_EQ(c.mode, Mode::kFast);
  auto unknown = config_from_assignments(kernel, {"hieght=3"});
  ASSERT_FALSE(unknown);
  EXPECT_NE(unknown.error().message.find("no field 'hieght'"), std::string::npos);
  EXPECT_NE(unknown.error().message.find("width (u32, [32, 128], multiple of 32)"),
            std::string::npos)
      << unknown.error().message;
  EXPECT_FALSE(config_from_assignments(kernel, {"width"}));
  EXPECT_FALSE(config_from_assignments(kernel, {"=3"}));
  EXPECT_FALSE(config_from_assignments(kernel, {"width=256"}));
}

TEST(Validation, CrossFieldRulesRunAfterFieldLimitsAndNameTheKernel) {
  KernelAdapter<AllTypesDef> kernel;
  EXPECT_TRUE(kernel.validate(to_values(AllTypesConfig{.offset = 3, .fused = true})));
  auto cross = kernel.validate(to_values(AllTypesConfig{.offset = 3, .fused = false}));
  ASSERT_FALSE(cross);
  EXPECT_NE(cross.error().message.find("all_types"), std::string::npos);
  EXPECT_NE(cross.error().message.find("offset must be negative"), std::string::npos);
  auto limit = kernel.validate(to_values(AllTypesConfig{.offset = 40, .fused = false}));
  ASSERT_FALSE(limit); // the field limit is reported first
  EXPECT_NE(limit.error().message.find("'offset' = 40"), std::string::npos)
      << limit.error().message;
  auto gen = kernel.generate(to_values(AllTypesConfig{.offset = 3, .fused = false}),
                             ptxgen::Target::all_supported().front());
  ASSERT_FALSE(gen); // validation runs before any build
  EXPECT_NE(gen.error().message.find("offset must be negative"), std::string::npos);
}

TEST(Adapter, ForwardsTheToleranceWithTheConfigAndTheInputs) {
  KernelAdapter<AllTypesDef> kernel;
  HostTensors in;
  in.f32["a"] = {1.0f};
  in.f32["b"] = {2.0f};
  const Tolerance t = kernel.tolerance(to_values(AllTypesConfig{.eps = 0.25f}), in);
  EXPECT_EQ(t.abs, 0.25);
  EXPECT_EQ(t.rel, 2.0);
  EXPECT_EQ(t.why, "test: abs is eps, rel the input count");
}

TEST(Adapter, BenchCasesAreTheDefinitionsOrNone) {
  EXPECT_TRUE(KernelAdapter<AllTypesDef>{}.bench_cases().empty());
  KernelAdapter<BenchedDef> kernel;
  const auto& cases = kernel.bench_cases();
  ASSERT_EQ(cases.size(), 2u);
  EXPECT_EQ(cases[0].name, "all_types_big");
  EXPECT_EQ(cases[0].config, "small");
  EXPECT_EQ(cases[0].sets, (std::vector<std::string>{"rows=7"}));
  EXPECT_FALSE(cases[0].target.has_value());
  EXPECT_FALSE(cases[0].back_to_back);
  EXPECT_EQ(cases[1].name, "all_types_fast");
  ASSERT_TRUE(cases[1].target.has_value());
  EXPECT_EQ(cases[1].target->min_pct_of_copy, 50);
  EXPECT_TRUE(cases[1].back_to_back);
}

TEST(Validation, WrongNumberOfValuesIsAnError) {
  KernelAdapter<AllTypesDef> kernel;
  ConfigValues values = kernel.defaults();
  values.pop_back();
  EXPECT_FALSE(kernel.validate(values));
}

} // namespace
} // namespace ptxkit::kernels
