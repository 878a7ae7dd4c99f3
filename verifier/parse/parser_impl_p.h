// parser_impl_p.h: the hand-written statement dispatcher of the PTX parser (class Parser).
//
// Why hand-written above the X3 lexemes: PTX statements are dispatched on one leading token
// (`.directive`, `@guard`, `label:`, opcode), which a switch does in linear time with exact
// "expected X, found Y" messages, an explicit bound on `{ }` nesting (no stack exhaustion on
// hostile input), and no backtracking over large bodies. Errors unwind with the private Failure
// exception, caught in parse() and turned into a ParseError value: nothing escapes the library.
#pragma once

#include "parse/parser_p.h"
#include "ptxkit/verifier/parser.h"

#include <array>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace ptxkit::verifier::detail {

struct Failure {};

// Where a constant expression stands (PTX ISA 4.5.4), which decides the leaves it may have:
// an instruction operand or array index only integer constants (and WARP_SZ), so it always has
// a value; an initializer also symbols, floats, `generic(sym)` and `mask()`; debug-section data
// also `.section` names.
enum class ExprMode : std::uint8_t { kOperand, kInit, kSection };

// A constant expression's value, typed by the ISA's rules: 64 bits, signed unless unsigned.
// `known` is false when a leaf has no value at parse time (a symbol, a float, mask()).
struct ExprValue {
  std::uint64_t bits = 0;
  bool is_unsigned = false;
  bool known = false;
  bool is_float = false; // an operand's floating-point value: `bits` hold a double
};

class Parser {
public:
  Parser(Storage& storage, std::string path);
  Module parse_module();
  ParseError& error() { return error_; }

private:
  struct Mark {
    const char* p;
    std::uint32_t line;
    const char* line_start;
  };
  static constexpr std::uint32_t kMaxOperandDepth = 4;
  static constexpr std::uint32_t kMaxExprDepth = 64;

  // ---- cursor (parser.cpp) ----
  void skip_ws();
  SourceLoc here() const;
  Mark mark() const { return {p_, line_, line_start_}; }
  void reset(const Mark& m) {
    p_ = m.p;
    line_ = m.line;
    line_start_ = m.line_start;
  }
  bool at_end() {
    skip_ws();
    return p_ >= end_;
  }
  bool accept(char c);
  void expect(char c);
  // Next token is `.name` (whole modifier lexeme); does not consume.
  bool peek_directive(std::string_view& name);
  bool accept_directive(std::string_view name);
  std::string_view expect_identifier(const char* what);
  std::uint64_t expect_uint(const char* what);
  std::uint32_t expect_u32(const char* what);
  [[noreturn]] void fail_expected(std::string_view what);
  [[noreturn]] void fail_here(std::string message);
  std::string describe_found();

  // ---- module level (parser.cpp) ----
  void parse_function(Module& m, Linkage linkage, SourceLoc loc);
  void parse_params(std::vector<VarDecl>& out);
  void parse_file(Module& m, SourceLoc loc);
  void parse_section(Module& m, SourceLoc loc);
  Directive parse_directive_args(SourceLoc loc, std::string_view name, std::string_view label,
                                 bool strings);

  // ---- declarations and statements (statements.cpp) ----
  // After the linkage words: `.space attrs type name[<N>][dims][= init] (, name...)*`.
  // Appends one VarDecl per name. `single`: parameter (one name, no `;`, no init).
  void parse_decl(std::vector<VarDecl>& out, Linkage linkage, SourceLoc loc, bool single);
  // After `.attribute`: `(.managed)`, `(.unified(uuid1, uuid2))` or both, comma-separated.
  const Attributes* parse_attributes();
  void parse_block(Block& block, std::uint32_t depth);
  void parse_statement_at_label(std::vector<Statement>& out, std::string_view label, SourceLoc loc);
  Instruction parse_instruction(SourceLoc loc);
  CallPrototype parse_callprototype(std::string_view label, SourceLoc loc);

  // ---- operands and expressions (operands.cpp) ----
  Operand parse_operand(std::uint32_t level);
  Operand parse_simple_operand(std::uint32_t level);
  void parse_address(Operand& op, std::uint32_t level);
  // `sym[index]` after the symbol (6.4.2): the address sym + index x its element size.
  void parse_array_element(Operand& op, std::uint32_t level);
  // A vector element selector after a register name (5.4.2): `.x .y .z .w` or `.r .g .b .a`,
  // one letter, blanks allowed before the dot (ptxas takes `mx .x`). Consumes it and returns the
  // letter, or returns 0 and consumes nothing.
  char accept_vector_element();
  // `name` (or, for `mx3`, a ranged `mx<N>`) was declared `.reg .v2`/`.v4` earlier in the module.
  bool declared_vector_register(std::string_view name) const;
  // op's text(): `name.element` without blanks (the source's bytes when it has none).
  void set_element_text(Operand& op, std::string_view name, char element, const char* start);
  // The operand just parsed names a vector element where ptxas takes only a scalar register.
  void refuse_vector_element(const Operand& op, const Mark& at, std::string_view where);
  // `opaque`: the declaration is a .texref/.samplerref/.surfref (its braces hold `field = value`).
  const InitValue* parse_init(std::uint32_t depth, bool opaque);
  InitValue parse_init_value(std::uint32_t depth, bool opaque);

  // ---- constant expressions (const_expr.cpp) ----
  // An initializer's or debug section's constant expression, returned with its whitespace
  // removed (but around `%`, which would otherwise read as a register name).
  std::string_view parse_expression(bool allow_dot_names);
  // One expression in the ISA's grammar and precedence, its normalized text appended to `out`.
  ExprValue parse_const_expr(std::string& out, ExprMode mode);
  // An instruction operand that is a constant expression, folded to its value: a kImmInt.
  Operand parse_expression_operand();
  // The next token starts a binary operator or `?` (an operand continues as an expression).
  bool at_expression_operator();
  ExprValue expr_ternary(std::string& out, ExprMode mode, std::uint32_t depth);
  ExprValue expr_binary(std::string& out, ExprMode mode, int min_prec, std::uint32_t depth);
  ExprValue expr_unary(std::string& out, ExprMode mode, std::uint32_t depth);
  ExprValue expr_primary(std::string& out, ExprMode mode, std::uint32_t depth);
  ExprValue expr_mask(std::string& out, std::uint64_t mask, std::uint32_t depth);
  std::string_view intern(std::string_view s, const char* begin, const char* end);
  Span<std::string_view> modifiers_for(std::string_view key,
                                       const std::vector<std::string_view>& mods);

  Storage& storage_;
  Arena& arena_;
  std::string path_;
  const char* begin_;
  const char* p_;
  const char* end_;
  std::uint32_t line_ = 1;
  const char* line_start_;
  ParseError error_;
  std::array<std::vector<Operand>, kMaxOperandDepth + 2> scratch_;
  std::vector<std::string_view> mod_scratch_;
  std::vector<std::vector<InitValue>> init_scratch_; // parse_init_value's lists, per depth
  std::unordered_map<std::string_view, Span<std::string_view>> mod_cache_;
  // Element size (type x vector width) of each variable declared so far, for `arr[2]` operands;
  // the latest declaration of a name wins (PTX names a variable only after declaring it).
  std::unordered_map<std::string_view, std::uint32_t> element_size_;
  // Names declared `.reg .v2`/`.v4` so far (plain, and ranged `mx<N>` by prefix), for `mx.x`
  // operands: a name without '%' has elements only when it is a vector register. Never removed
  // when a scope closes: the set only decides what parses, and a name PTX declares before use
  // stays declared somewhere (ptxas refuses `mx.x` before `.reg .v2 .f32 mx;`).
  std::unordered_set<std::string_view> vector_regs_;
  std::unordered_set<std::string_view> vector_reg_ranges_;
  Opcode op_ = Opcode::kUnknown; // the instruction whose operands are being parsed
};

} // namespace ptxkit::verifier::detail
