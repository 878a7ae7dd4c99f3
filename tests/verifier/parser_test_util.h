// parser_test_util.h: helpers shared by the parser unit tests (parse-or-fail, first instruction).
//
// Why: every test needs "parse this snippet inside a minimal kernel" and "give me its Nth
// instruction"; doing it once keeps the tests about what they check.
#pragma once

#include "ptxkit/verifier/ast.h"
#include "ptxkit/verifier/parser.h"
#include "ptxkit/verifier/printer.h"

#include <gtest/gtest.h>
#include <string>
#include <vector>

namespace ptxkit::verifier::testing {

inline const char* kHeader = ".version 8.5\n.target sm_90a\n.address_size 64\n";

// Wraps `body` in a kernel `k` and parses it; fails the test on a parse error.
inline Module parse_body(const std::string& body) {
  auto r = parse(std::string(kHeader) + ".visible .entry k()\n{\n" + body + "\n}\n", "t.ptx");
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().format());
  if (!r.ok()) return Module{};
  return std::move(r).value();
}

inline std::vector<const Instruction*> instructions(const Module& m) {
  std::vector<const Instruction*> out;
  for (const Function* f : m.functions())
    for (const Statement& s : f->body.statements)
      if (const auto* i = std::get_if<Instruction>(&s.node)) out.push_back(i);
  return out;
}

// Parses `text` and returns the error; fails the test if it parses.
inline ParseError parse_error(const std::string& text) {
  auto r = parse(text, "bad.ptx");
  EXPECT_FALSE(r.ok()) << "parsed although it should not:\n" << text;
  if (r.ok()) return ParseError{};
  return r.error();
}

// parse -> print -> parse -> print: the trees are equal and the two printouts identical.
inline void expect_round_trip(const std::string& text) {
  auto a = parse(text, "a.ptx");
  ASSERT_TRUE(a.ok()) << a.error().format();
  std::string p1 = print(*a);
  auto b = parse(p1, "b.ptx");
  ASSERT_TRUE(b.ok()) << b.error().format() << "\n" << p1;
  EXPECT_TRUE(equal_ignoring_locations(*a, *b)) << p1;
  EXPECT_EQ(print(*b), p1);
}

} // namespace ptxkit::verifier::testing
