// parser_errors_test.cpp: bad PTX fails loudly and precisely: `path:line:col: error: expected X,
// found Y` with the source line and a caret, and hostile inputs (deep nesting, huge or binary
// input, truncation at every byte) never crash, hang or exhaust the stack.
//
// Why: the verifier is the gate in front of the driver; an input it cannot read must be reported
// where it is wrong, never accepted silently or crash the tool.
#include "parser_test_util.h"

#include <random>

namespace ptxkit::verifier::testing {
namespace {

const std::string kOk = std::string(kHeader) + ".visible .entry k()\n{\n\tret;\n}\n";

TEST(ParserErrors, MissingSemicolonIsLocated) {
  // The passing twin first: the same kernel with the semicolon parses.
  ASSERT_TRUE(parse(kOk, "ok.ptx").ok());
  ParseError e = parse_error(std::string(kHeader) +
                             ".visible .entry k()\n{\n\tadd.s32 %r1, %r2, %r3\n\tret;\n}\n");
  EXPECT_EQ(e.path, "bad.ptx");
  EXPECT_EQ(e.loc.line, 7u);
  EXPECT_EQ(e.loc.col, 2u);
  EXPECT_EQ(e.message, "expected ';', found 'ret'");
  EXPECT_EQ(e.source_line, "\tret;");
  EXPECT_EQ(e.format(), "bad.ptx:7:2: error: expected ';', found 'ret'\n\tret;\n\t^\n");
}

TEST(ParserErrors, ExpectedMessages) {
  struct Case {
    std::string body;
    std::string message;
    std::uint32_t col;
  };
  const Case cases[] = {
      {"\tmov.u32 %r1, ;", "expected an operand, found ';'", 15},
      {"\tld.global.f32 %f1, [%rd1+%r2];", "expected an integer offset, found '%r2'", 27},
      {"\tmov.u32 %r1, 12abc;", "invalid numeric literal", 15},
      {"\t.reg .b33 %r;", "expected a type, '.align' or '.vN', found '.b33'", 7},
      {"\t.reg %r;", "expected a type (.b32, .u64, .f32, .pred, ...), found '%r'", 7},
      {"\tmov.u32 %r1, %r2", "expected ';', found '}'", 1},
      {"\t.loc x", "expected '.loc' arguments FILE LINE COLUMN, found 'x'", 7},
      {"\t.bogus;", "expected a statement, found '.bogus'", 2},
      {"\t#x", "expected a statement, found '#'", 2},
  };
  for (const Case& c : cases) {
    ParseError e = parse_error(std::string(kHeader) + ".entry k()\n{\n" + c.body + "\n}\n");
    EXPECT_EQ(e.message, c.message) << c.body;
    EXPECT_EQ(e.loc.col, c.col) << c.body;
  }
}

TEST(ParserErrors, ModuleLevel) {
  EXPECT_EQ(parse_error(".version 8\n").message,
            "expected a version number MAJOR.MINOR, found '8'");
  EXPECT_EQ(parse_error(".version 8.5\n.version 8.5\n").message, "duplicate .version directive");
  EXPECT_EQ(parse_error(".version 8.5\nmov.u32 %r1, 1;\n").message,
            "expected a directive, variable or function, found 'mov'");
  EXPECT_EQ(parse_error(".visible .entry k(.param .u64 a\n{ ret; }").message,
            "expected ')', found '{'");
  EXPECT_EQ(parse_error(".entry k() {\n\tret;\n").message, "expected '}', found end of file");
  ParseError c = parse_error("/* never closed\n.version 8.5\n");
  EXPECT_EQ(c.message, "unterminated /* comment");
  EXPECT_EQ(c.loc.line, 1u);
  EXPECT_EQ(parse_error(".entry k() { ret; } \x01").message,
            "expected a directive, variable or function, found byte 0x01");
}

TEST(ParserErrors, NoVersionIsNoModule) {
  // Empty, comments only, or a fragment without .version: no module, reported at 1:1.
  for (const char* text : {"", "// nothing here\n", ".target sm_90\n.entry k() { ret; }\n"}) {
    ParseError e = parse_error(text);
    EXPECT_EQ(e.message,
              "no PTX module: missing .version (a module starts with `.version MAJOR.MINOR`)");
    EXPECT_EQ(e.loc.line, 1u);
    EXPECT_EQ(e.loc.col, 1u);
  }
  EXPECT_TRUE(parse(".version 8.0\n", "v.ptx").ok());
}

TEST(ParserErrors, DeepNestingIsBoundedNotACrash) {
  std::string ok = ".version 8.0\n.entry k()\n" + std::string(kMaxBlockDepth - 1, '{') +
                   "{ ret; }" + std::string(kMaxBlockDepth - 1, '}');
  EXPECT_TRUE(parse(ok, "ok.ptx").ok());
  std::string deep = ".entry k()\n" + std::string(200000, '{');
  ParseError e = parse_error(deep);
  EXPECT_EQ(e.message, "blocks nested deeper than 256 levels");
  std::string init = ".global .b32 x[1] = " + std::string(100000, '{');
  EXPECT_EQ(parse_error(init).message, "initializer nested too deeply");
  std::string bangs = std::string(kHeader) + ".entry k() { and.pred %p1, %p2, " +
                      std::string(100000, '!') + "%p3; }";
  EXPECT_EQ(parse_error(bangs).message, "operand nested too deeply");
  std::string vec = std::string(kHeader) + ".entry k() { mov.b32 " + std::string(100000, '{');
  EXPECT_EQ(parse_error(vec).message, "operand nested too deeply");
  std::string expr = ".global .b32 x = " + std::string(100000, '(');
  EXPECT_EQ(parse_error(expr).message, "expression nested too deeply");
}

TEST(ParserErrors, EveryTruncationOfAValidModuleIsHandled) {
  const std::string text = std::string(kHeader) +
                           ".visible .entry k(.param .u64 .ptr.global.align 16 p)\n.maxntid 64\n{\n"
                           "\t.reg .b32 %r<4>;\n\t@!%p1 ld.global.v2.u32 {%r1, %r2}, [%rd1+-8];\n"
                           "\t.loc 1 2 3, function_name $L__s, inlined_at 1 1 1\n$L1:\n\tret;\n}\n"
                           ".section .debug_str { $L__s: .b8 1,2 }\n";
  ASSERT_TRUE(parse(text, "full.ptx").ok());
  int failures = 0;
  for (std::size_t n = 0; n < text.size(); ++n) {
    auto r = parse(text.substr(0, n), "cut.ptx");
    if (!r.ok()) {
      ++failures;
      EXPECT_GE(r.error().loc.line, 1u);
      EXPECT_FALSE(r.error().message.empty());
    }
  }
  EXPECT_GT(failures, static_cast<int>(text.size() / 2));
}

TEST(ParserErrors, RandomBytesNeverCrash) {
  std::mt19937 rng(42);
  const std::string alphabet = ".%$_{}[]()<>,;:@!|+-=0123456789abcdefxXfFdD \t\n\"/*";
  for (int i = 0; i < 2000; ++i) {
    std::string s(kHeader);
    std::size_t len = rng() % 200;
    for (std::size_t j = 0; j < len; ++j)
      s += alphabet[rng() % alphabet.size()];
    auto r = parse(s, "rand.ptx");
    if (r.ok()) {
      auto again = parse(print(*r), "again.ptx");
      ASSERT_TRUE(again.ok()) << s;
      EXPECT_TRUE(equal_ignoring_locations(*r, *again));
    }
  }
}

} // namespace
} // namespace ptxkit::verifier::testing
