// parser_attribute_test.cpp: `.attribute(.managed)` and `.attribute(.unified(a, b))` on variables
// and functions (PTX ISA 5.4.8): parsed into the tree, printed back, rejected when malformed.
//
// Why: nvcc declares every `__managed__` variable with `.attribute(.managed)`; a parser that
// stops there stops every later stage on real compiler output.
#include "parser_test_util.h"

namespace ptxkit::verifier::testing {
namespace {

std::vector<const VarDecl*> variables(const Module& m) {
  std::vector<const VarDecl*> out;
  for (const TopLevel& t : m.items)
    if (const auto* v = std::get_if<VarDecl>(&t)) out.push_back(v);
  return out;
}

const char* kManaged = R"(.version 9.0
.target sm_90
.address_size 64
.visible .global .attribute(.managed) .align 4 .f32 x = 0f3FC00000;
.global .attribute(.managed) .align 4 .b8 counts[16];
.global .attribute(.unified(19, 0x5F)) .f32 f;
.extern .func .attribute(.unified(0xAB, 0xCD)) bar();
.visible .entry k()
{
	.reg .f32 %f<2>;
	ld.global.f32 %f1, [x];
	ret;
}
)";

TEST(ParserAttribute, ManagedAndUnifiedAreInTheTree) {
  auto r = parse(kManaged, "m.ptx");
  ASSERT_TRUE(r.ok()) << r.error().format();
  auto vars = variables(*r);
  ASSERT_EQ(vars.size(), 3u);
  ASSERT_NE(vars[0]->attributes, nullptr);
  EXPECT_TRUE(vars[0]->attributes->managed);
  EXPECT_FALSE(vars[0]->attributes->unified);
  EXPECT_EQ(vars[0]->align, 4u);
  EXPECT_EQ(vars[0]->linkage, Linkage::kVisible);
  ASSERT_NE(vars[1]->attributes, nullptr);
  EXPECT_EQ(vars[1]->size_in_bytes(), 16u);
  ASSERT_NE(vars[2]->attributes, nullptr);
  EXPECT_TRUE(vars[2]->attributes->unified);
  EXPECT_EQ(vars[2]->attributes->uuid1, 19u);
  EXPECT_EQ(vars[2]->attributes->uuid2, 0x5Fu);
  const Function* bar = r->functions()[0];
  ASSERT_NE(bar->attributes, nullptr);
  EXPECT_EQ(bar->attributes->uuid1, 0xABu);
  EXPECT_EQ(r->functions()[1]->attributes, nullptr); // the kernel has none
}

TEST(ParserAttribute, PrintsBackAndRoundTrips) {
  auto r = parse(kManaged, "m.ptx");
  ASSERT_TRUE(r.ok()) << r.error().format();
  std::string p = print(*r);
  EXPECT_NE(p.find(".visible .global .attribute(.managed) .align 4 .f32 x = 0f3FC00000;"),
            std::string::npos)
      << p;
  EXPECT_NE(p.find(".global .attribute(.unified(19, 95)) .f32 f;"), std::string::npos) << p;
  EXPECT_NE(p.find(".extern .func .attribute(.unified(171, 205)) bar();"), std::string::npos) << p;
  expect_round_trip(kManaged);
}

TEST(ParserAttribute, AttributesDistinguishTrees) {
  auto a = parse(".version 9.0\n.target sm_90\n.global .attribute(.managed) .f32 x;\n", "a");
  auto b = parse(".version 9.0\n.target sm_90\n.global .f32 x;\n", "b");
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_FALSE(equal_ignoring_locations(*a, *b));
}

TEST(ParserAttribute, MalformedAttributesAreLocatedErrors) {
  std::string head = ".version 9.0\n.target sm_90\n";
  ParseError e = parse_error(head + ".global .attribute(.shared) .f32 x;\n");
  EXPECT_EQ(e.loc.line, 3u);
  EXPECT_NE(e.message.find("expected '.managed' or '.unified(uuid1, uuid2)'"), std::string::npos)
      << e.message;
  e = parse_error(head + ".global .attribute(.unified(1)) .f32 x;\n");
  EXPECT_NE(e.message.find("expected ','"), std::string::npos) << e.message;
  e = parse_error(head + ".global .attribute(.managed) .attribute(.managed) .f32 x;\n");
  EXPECT_NE(e.message.find("more than one .attribute"), std::string::npos) << e.message;
  e = parse_error(head + ".global .attribute .f32 x;\n");
  EXPECT_NE(e.message.find("expected '('"), std::string::npos) << e.message;
}

} // namespace
} // namespace ptxkit::verifier::testing
