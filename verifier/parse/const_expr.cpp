// const_expr.cpp: PTX constant expressions (PTX ISA 4.5.4-4.5.5), the one parser and evaluator
// for instruction operands (`mov.u32 %r1, (1 + 2) * 3;`), array indices (`arr[N-1]`),
// initializers (`= sym+4`, `0xFF00(sym)`, `generic(sym)+8`) and debug-section data.
//
// Why one evaluator: the ISA types every subexpression as .s64 or .u64 by C-like but fully
// defined rules, and ptxas folds operands and initializers alike; two copies would drift. The
// grammar is the ISA's precedence table, parsed by precedence climbing with a bounded depth:
//   primary: ( expr ) | literal | symbol | WARP_SZ | generic(sym) | mask(expr) | .section
//   unary:   + - ! ~ (.s64) (.u64)             (right to left)
//   binary:  * / %  >  + -  >  << >>  >  < > <= >=  >  == !=  >  &  >  ^  >  |  >  &&  >  ||
//   ternary: c ? a : b                         (right to left)
// Typing (the ISA's rules, checked against ptxas): a literal is signed unless U-suffixed or too
// large for .s64; unary + - keep the type, ! gives signed 0/1, ~ unsigned; * / + - & | ^ and the
// ordered comparisons convert both sides to unsigned if either is; % is unsigned; << >> take the
// left side's type (>> of a signed value is arithmetic) and the shift count modulo 64; && || ==
// != and the comparisons give signed 0/1; `?:` converts its two arms. Every division and
// remainder is checked, in both arms of `?:` too (ptxas reports `1 ? 1 : 1/0`): dividing by zero
// is a located parse error.
// Floating-point operands (4.5.1, 4.5.4; ptxas 13 checked): a decimal or `0d` literal is a
// double, and the expression is evaluated in double precision; unary - +, binary * / + - give
// a double, the comparisons signed 0/1. A float mixed with an integer, a float under any other
// operator, cast or `?:`, dividing by 0.0 and a `0f` literal inside an expression are refused,
// as ptxas refuses them. The operand is the double's exact pattern, `0dXXXXXXXXXXXXXXXX`, which
// ptxas rounds to an f32 instruction's type as it rounds the expression.
#include "parse/parser_impl_p.h"

#include <bit>
#include <cctype>
#include <cstdio>
#include <string>

namespace ptxkit::verifier::detail {
namespace {

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

constexpr std::uint64_t kS64Max = 0x7fffffffffffffffULL;

struct BinaryOp {
  std::string_view spelling;
  int prec = 0; // 0: not a binary operator
};

// The binary operator at p (the longest spelling), or prec 0.
BinaryOp binary_op_at(const char* p, const char* end) {
  if (p >= end) return {};
  const char c = *p;
  const char n = p + 1 < end ? p[1] : 0;
  switch (c) {
  case '|':
    return n == '|' ? BinaryOp{"||", 1} : BinaryOp{"|", 3};
  case '&':
    return n == '&' ? BinaryOp{"&&", 2} : BinaryOp{"&", 5};
  case '^':
    return {"^", 4};
  case '=':
    return n == '=' ? BinaryOp{"==", 6} : BinaryOp{};
  case '!':
    return n == '=' ? BinaryOp{"!=", 6} : BinaryOp{};
  case '<':
    return n == '<' ? BinaryOp{"<<", 8} : n == '=' ? BinaryOp{"<=", 7} : BinaryOp{"<", 7};
  case '>':
    return n == '>' ? BinaryOp{">>", 8} : n == '=' ? BinaryOp{">=", 7} : BinaryOp{">", 7};
  case '+':
    return {"+", 9};
  case '-':
    return {"-", 9};
  case '*':
    return {"*", 10};
  case '/':
    // `//` and `/*` start comments, which skip_ws has already taken.
    return {"/", 10};
  case '%':
    return {"%", 10};
  default:
    return {};
  }
}

ExprValue signed_bool(bool b) {
  return {b ? 1u : 0u, false, true};
}

// `a op b` by the ISA's rules; both known and b != 0 for / and %.
ExprValue apply(std::string_view op, ExprValue a, ExprValue b) {
  const bool u = a.is_unsigned || b.is_unsigned; // the usual arithmetic conversions
  const auto sa = static_cast<std::int64_t>(a.bits);
  const auto sb = static_cast<std::int64_t>(b.bits);
  if (op == "+") return {a.bits + b.bits, u, true};
  if (op == "-") return {a.bits - b.bits, u, true};
  if (op == "*") return {a.bits * b.bits, u, true};
  if (op == "/") {
    if (u) return {a.bits / b.bits, true, true};
    if (sa == INT64_MIN && sb == -1) return {a.bits, false, true}; // wraps, as ptxas does
    return {static_cast<std::uint64_t>(sa / sb), false, true};
  }
  if (op == "%") return {a.bits % b.bits, true, true};
  if (op == "<<") return {a.bits << (b.bits & 63), a.is_unsigned, true};
  if (op == ">>") {
    if (a.is_unsigned) return {a.bits >> (b.bits & 63), true, true};
    return {static_cast<std::uint64_t>(sa >> (b.bits & 63)), false, true};
  }
  if (op == "&") return {a.bits & b.bits, u, true};
  if (op == "|") return {a.bits | b.bits, u, true};
  if (op == "^") return {a.bits ^ b.bits, u, true};
  if (op == "&&") return signed_bool(a.bits != 0 && b.bits != 0);
  if (op == "||") return signed_bool(a.bits != 0 || b.bits != 0);
  if (op == "==") return signed_bool(a.bits == b.bits);
  if (op == "!=") return signed_bool(a.bits != b.bits);
  const bool lt = u ? a.bits < b.bits : sa < sb;
  const bool gt = u ? a.bits > b.bits : sa > sb;
  if (op == "<") return signed_bool(lt);
  if (op == ">") return signed_bool(gt);
  if (op == "<=") return signed_bool(!gt);
  return signed_bool(!lt); // ">="
}

ExprValue float_value(double d) {
  return {std::bit_cast<std::uint64_t>(d), false, true, true};
}

double as_double(ExprValue v) {
  return std::bit_cast<double>(v.bits);
}

// `a op b` on two doubles, op one of * / + - or a comparison; b != 0 for /.
ExprValue apply_float(std::string_view op, ExprValue a, ExprValue b) {
  const double x = as_double(a), y = as_double(b);
  if (op == "+") return float_value(x + y);
  if (op == "-") return float_value(x - y);
  if (op == "*") return float_value(x * y);
  if (op == "/") return float_value(x / y);
  if (op == "==") return signed_bool(x == y);
  if (op == "!=") return signed_bool(x != y);
  if (op == "<") return signed_bool(x < y);
  if (op == ">") return signed_bool(x > y);
  if (op == "<=") return signed_bool(x <= y);
  return signed_bool(x >= y); // ">="
}

bool float_operator(std::string_view op) {
  return op == "+" || op == "-" || op == "*" || op == "/" || op == "==" || op == "!=" ||
         op == "<" || op == ">" || op == "<=" || op == ">=";
}

// The byte masks of `mask()` (5.4.4): 0xFF shifted by whole bytes.
bool is_byte_mask(std::uint64_t m) {
  for (int k = 0; k < 64; k += 8)
    if (m == std::uint64_t{0xff} << k) return true;
  return false;
}

} // namespace

std::string_view Parser::parse_expression(bool allow_dot_names) {
  skip_ws();
  const char* start = p_;
  // A lone decimal or 0x-hex integer, the bulk of debug sections (`.b8 1, 0, 17, ...`): its
  // text as written, without building the expression.
  {
    const char* q = p_;
    const bool hex = q + 1 < end_ && q[0] == '0' && (q[1] == 'x' || q[1] == 'X');
    if (hex) q += 2;
    const char* digits = q;
    while (q < end_ &&
           (hex ? std::isxdigit(static_cast<unsigned char>(*q)) != 0 : (*q >= '0' && *q <= '9')))
      ++q;
    const char* after = q;
    while (after < end_ && (*after == ' ' || *after == '\t'))
      ++after;
    if (q > digits && (q == end_ || !is_ident_char(*q)) &&
        (after == end_ || *after == ',' || *after == '}' || *after == ';' || *after == '\n' ||
         *after == '\r')) {
      p_ = q;
      return {start, static_cast<std::size_t>(q - start)};
    }
  }
  std::string out;
  parse_const_expr(out, allow_dot_names ? ExprMode::kSection : ExprMode::kInit);
  return intern(out, start, p_);
}

ExprValue Parser::parse_const_expr(std::string& out, ExprMode mode) {
  return expr_ternary(out, mode, 0);
}

bool Parser::at_expression_operator() {
  Mark m = mark();
  skip_ws();
  const bool yes = p_ < end_ && (*p_ == '?' || binary_op_at(p_, end_).prec > 0);
  reset(m);
  return yes;
}

Operand Parser::parse_expression_operand() {
  skip_ws();
  Operand op;
  op.loc = here();
  std::string text;
  const ExprValue v = parse_const_expr(text, ExprMode::kOperand);
  // kOperand leaves all have values, so v.known: the operand is the value, spelled so that it
  // reads back as the same value and type (a U suffix on an unsigned result, a float's exact
  // double pattern).
  op.kind = v.is_float ? OperandKind::kImmFloat : OperandKind::kImmInt;
  op.bits = v.bits;
  std::string spelled;
  if (v.is_float) {
    char buf[24];
    std::snprintf(buf, sizeof buf, "0d%016llX", static_cast<unsigned long long>(v.bits));
    spelled = buf;
  } else {
    spelled = v.is_unsigned ? std::to_string(v.bits) + "U"
                            : std::to_string(static_cast<std::int64_t>(v.bits));
  }
  std::string_view s = arena_.copy_string(spelled);
  op.text_data = s.data();
  op.text_size = static_cast<std::uint32_t>(s.size());
  return op;
}

ExprValue Parser::expr_ternary(std::string& out, ExprMode mode, std::uint32_t depth) {
  if (depth > kMaxExprDepth) fail_here("expression nested too deeply");
  skip_ws();
  const Mark start = mark();
  ExprValue c = expr_binary(out, mode, 1, depth);
  if (!accept('?')) return c;
  out += '?';
  ExprValue a = expr_ternary(out, mode, depth + 1);
  if (!accept(':')) fail_expected("':' of a conditional expression");
  out += ':';
  ExprValue b = expr_ternary(out, mode, depth + 1);
  if (c.is_float || a.is_float || b.is_float) {
    reset(start);
    fail_here("'?:' takes integer operands only (a floating-point operand here)");
  }
  if (!(c.known && a.known && b.known)) return {};
  const bool u = a.is_unsigned || b.is_unsigned;
  return {c.bits != 0 ? a.bits : b.bits, u, true};
}

ExprValue Parser::expr_binary(std::string& out, ExprMode mode, int min_prec, std::uint32_t depth) {
  ExprValue lhs = expr_unary(out, mode, depth);
  for (;;) {
    skip_ws();
    const BinaryOp op = binary_op_at(p_, end_);
    if (op.prec < min_prec || op.prec == 0) return lhs;
    const Mark at = mark();
    p_ += op.spelling.size();
    if (op.spelling == "%")
      out += " % "; // `7%3` would read as 7 and a register %3
    else
      out += op.spelling;
    ExprValue rhs = expr_binary(out, mode, op.prec + 1, depth + 1);
    if (lhs.is_float || rhs.is_float) {
      const std::string o(op.spelling);
      std::string why;
      if (lhs.is_float != rhs.is_float)
        why = "'" + o + "' mixes a floating-point and an integer operand (write both as floats)";
      else if (!float_operator(op.spelling))
        why =
            "'" + o + "' does not apply to floating-point operands (only * / + - and comparisons)";
      else if (op.spelling == "/" && as_double(rhs) == 0.0)
        why = "division by zero in a constant expression";
      if (!why.empty()) {
        reset(at);
        fail_here(why);
      }
      lhs = apply_float(op.spelling, lhs, rhs);
      continue;
    }
    if ((op.spelling == "/" || op.spelling == "%") && rhs.known && rhs.bits == 0) {
      reset(at);
      fail_here("division by zero in a constant expression");
    }
    lhs = lhs.known && rhs.known ? apply(op.spelling, lhs, rhs) : ExprValue{};
  }
}

ExprValue Parser::expr_unary(std::string& out, ExprMode mode, std::uint32_t depth) {
  if (depth > kMaxExprDepth) fail_here("expression nested too deeply");
  skip_ws();
  if (p_ >= end_) fail_expected("a constant expression");
  const char c = *p_;
  if (c == '-' || c == '+' || c == '~' || (c == '!' && !(p_ + 1 < end_ && p_[1] == '='))) {
    const Mark at = mark();
    ++p_;
    out += c;
    ExprValue v = expr_unary(out, mode, depth + 1);
    if (v.is_float) {
      if (c == '-') return float_value(-as_double(v));
      if (c == '+') return v;
      reset(at);
      fail_here(std::string("'") + c + "' does not apply to a floating-point operand");
    }
    if (!v.known) return v;
    if (c == '-') return {0 - v.bits, v.is_unsigned, true};
    if (c == '~') return {~v.bits, true, true};
    if (c == '!') return signed_bool(v.bits == 0);
    return v;
  }
  if (c == '(') { // a cast `(.s64)` / `(.u64)`, else a parenthesized expression
    const Mark m = mark();
    ++p_;
    std::string_view d;
    skip_ws();
    if (peek_directive(d) && (d == "s64" || d == "u64")) {
      p_ += 1 + d.size();
      expect(')');
      out += d == "s64" ? "(.s64)" : "(.u64)";
      ExprValue v = expr_unary(out, mode, depth + 1);
      if (v.is_float) {
        reset(m);
        fail_here("a cast applies to integer operands only (a floating-point operand here)");
      }
      v.is_unsigned = d == "u64";
      return v;
    }
    reset(m);
  }
  return expr_primary(out, mode, depth);
}

ExprValue Parser::expr_primary(std::string& out, ExprMode mode, std::uint32_t depth) {
  skip_ws();
  const char c = *p_;
  const char* start = p_;
  if (c == '(') {
    ++p_;
    out += '(';
    ExprValue v = expr_ternary(out, mode, depth + 1);
    if (!accept(')')) fail_expected("')'");
    out += ')';
    return v;
  }
  if (is_digit(c)) {
    NumberLit lit;
    bool bad = false;
    if (!lex_number(p_, end_, lit, bad)) {
      if (bad) fail_here("invalid numeric literal");
      fail_expected("a constant expression");
    }
    out.append(start, p_);
    if (lit.is_float) {
      if (mode != ExprMode::kOperand) return {};
      if (lit.f32_pattern) {
        p_ = start;
        fail_here("a 0f literal cannot take part in a constant expression (ptxas refuses it): "
                  "write it as 0d or a decimal");
      }
      return float_value(std::bit_cast<double>(lit.bits));
    }
    const bool u = p_[-1] == 'u' || p_[-1] == 'U' || lit.bits > kS64Max;
    if (mode == ExprMode::kInit) {
      const Mark m = mark();
      skip_ws();
      if (p_ < end_ && *p_ == '(') { // mask(): `0xFF00(sym)`
        if (u || !is_byte_mask(lit.bits)) {
          reset(m);
          p_ = start;
          fail_here("mask() needs a byte mask 0xFF, 0xFF00, ... 0xFF00000000000000");
        }
        return expr_mask(out, lit.bits, depth);
      }
      reset(m);
    }
    return {lit.bits, u, true};
  }
  if (c == '.' && mode == ExprMode::kSection) {
    ++p_;
    std::string_view name;
    if (!lex_modifier(p_, end_, name)) {
      p_ = start;
      fail_expected("a constant expression");
    }
    out.append(start, p_);
    return {};
  }
  std::string_view name;
  if (is_ident_start(c) && lex_identifier(p_, end_, name)) {
    if (name == "WARP_SZ") {
      out.append(start, p_);
      return {32, false, true};
    }
    if (mode == ExprMode::kOperand) {
      p_ = start;
      fail_here("'" + std::string(name) +
                "' in a constant expression: operands fold integers only");
    }
    if (name == "generic" && accept('(')) { // generic(sym): the symbol's generic address
      out += "generic(";
      out += expect_identifier("a symbol");
      expect(')');
      out += ')';
      return {};
    }
    out.append(start, p_);
    return {};
  }
  fail_expected("a constant expression");
}

ExprValue Parser::expr_mask(std::string& out, std::uint64_t mask, std::uint32_t depth) {
  (void)mask; // the byte it selects is the linker's business: the value stays unknown
  expect('(');
  out += '(';
  expr_ternary(out, ExprMode::kInit, depth + 1);
  if (!accept(')')) fail_expected("')' closing mask()");
  out += ')';
  return {};
}

} // namespace ptxkit::verifier::detail
