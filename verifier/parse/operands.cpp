// operands.cpp: PTX instruction operands (registers, special registers, symbols, immediates,
// addresses, vectors, pairs, call lists, sink) and the constant expressions of initializers and
// debug sections.
//
// Why: operands are most of a module's bytes, so each is parsed in one pass into the packed
// 40-byte Operand of ast.h, with nested arrays (vector elements, tensor coordinates) collected in
// per-depth scratch vectors and copied once into the arena. Nesting is bounded (a vector inside
// an address is the deepest real PTX goes), as are expression parentheses.
#include "parse/parser_impl_p.h"

#include <algorithm>
#include <cctype>
#include <cstring>

namespace ptxkit::verifier::detail {
namespace {

// Special registers (without a .x/.y/.z component); %envregN and %pmN are matched by prefix.
constexpr std::string_view kSpecialRegs[] = {
    "%aggr_smem_size",
    "%clock",
    "%clock64",
    "%clock_hi",
    "%cluster_ctaid",
    "%cluster_ctarank",
    "%cluster_nctaid",
    "%cluster_nctarank",
    "%clusterid",
    "%ctaid",
    "%current_graph_exec",
    "%dynamic_smem_size",
    "%globaltimer",
    "%globaltimer_hi",
    "%globaltimer_lo",
    "%gridid",
    "%is_explicit_cluster",
    "%laneid",
    "%lanemask_eq",
    "%lanemask_ge",
    "%lanemask_gt",
    "%lanemask_le",
    "%lanemask_lt",
    "%nclusterid",
    "%nctaid",
    "%nsmid",
    "%ntid",
    "%nwarpid",
    "%reserved_smem_offset_0",
    "%reserved_smem_offset_1",
    "%reserved_smem_offset_begin",
    "%reserved_smem_offset_cap",
    "%reserved_smem_offset_end",
    "%smid",
    "%tid",
    "%total_smem_size",
    "%warpid",
};

bool all_digits(std::string_view s, std::size_t from) {
  if (s.size() <= from) return false;
  return std::all_of(s.begin() + static_cast<std::ptrdiff_t>(from), s.end(),
                     [](char c) { return c >= '0' && c <= '9'; });
}

bool is_special_register(std::string_view name) {
  if (name.starts_with("%envreg") && all_digits(name, 7)) return true;
  if (name.starts_with("%pm")) {
    std::string_view rest = name.substr(3);
    if (rest.ends_with("_64")) rest.remove_suffix(3);
    return rest.size() == 1 && rest[0] >= '0' && rest[0] <= '7';
  }
  return std::find(std::begin(kSpecialRegs), std::end(kSpecialRegs), name) !=
         std::end(kSpecialRegs);
}

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

void set_text(Operand& op, const char* b, const char* e) {
  op.text_data = b;
  op.text_size = static_cast<std::uint32_t>(e - b);
}

} // namespace

std::string_view Parser::intern(std::string_view s, const char* begin, const char* end) {
  if (static_cast<std::size_t>(end - begin) == s.size() &&
      std::memcmp(begin, s.data(), s.size()) == 0)
    return {begin, s.size()};
  return arena_.copy_string(s);
}

Operand Parser::parse_operand(std::uint32_t level) {
  Operand op = parse_simple_operand(level);
  skip_ws();
  if (p_ < end_ && *p_ == '|') {
    ++p_;
    Operand two[2] = {op, parse_simple_operand(level + 1)};
    Span<Operand> span = arena_.copy(two, 2);
    Operand pair;
    pair.loc = op.loc;
    pair.kind = OperandKind::kPair;
    pair.elems_data = span.data();
    pair.elems_size = 2;
    return pair;
  }
  return op;
}

Operand Parser::parse_simple_operand(std::uint32_t level) {
  if (level > kMaxOperandDepth) fail_here("operand nested too deeply");
  skip_ws();
  Operand op;
  op.loc = here();
  if (p_ >= end_) fail_expected("an operand");
  const char c = *p_;
  const char* start = p_;
  auto collect = [&](char close, bool allow_empty, OperandKind kind) {
    ++p_;
    std::vector<Operand>& el = scratch_[level];
    el.clear();
    if (!(allow_empty && accept(close))) {
      do {
        el.push_back(parse_operand(level + 1));
        if (el.size() > 0xffff) fail_here("too many elements in one operand");
      } while (accept(','));
      char what[4] = {'\'', close, '\'', 0};
      if (!accept(close)) fail_expected(what);
    }
    Span<Operand> span = arena_.copy(el);
    op.kind = kind;
    op.elems_data = span.data();
    op.elems_size = static_cast<std::uint16_t>(span.size());
  };
  if (c == '!') {
    ++p_;
    Operand inner = parse_simple_operand(level + 1); // level + 1: `!!!!...` stays bounded
    if (inner.kind != OperandKind::kRegister && inner.kind != OperandKind::kSymbol) {
      p_ = start;
      fail_here("'!' applies only to a predicate register");
    }
    inner.loc = op.loc;
    inner.flags |= Operand::kNegated;
    return inner;
  }
  if (c == '{') {
    collect('}', false, OperandKind::kVector);
  } else if (c == '(') {
    collect(')', true, OperandKind::kParenList);
  } else if (c == '[') {
    parse_address(op, level);
  } else if (c == '_' && (p_ + 1 >= end_ || !is_ident_char(p_[1]))) {
    ++p_;
    op.kind = OperandKind::kSink;
    set_text(op, start, p_);
  } else if (is_ident_start(c)) {
    std::string_view name;
    if (!lex_identifier(p_, end_, name)) fail_expected("an operand");
    if (c == '%') {
      // `%tid.x`-style component.
      if (p_ + 1 < end_ && *p_ == '.' && std::strchr("xyzw", p_[1]) != nullptr && p_[1] != 0 &&
          (p_ + 2 >= end_ || !is_ident_char(p_[2]))) {
        p_ += 2;
      }
      op.kind = is_special_register(name) ? OperandKind::kSpecialReg : OperandKind::kRegister;
      set_text(op, start, p_);
    } else if (name == "WARP_SZ") {
      // The predefined constant: the warp size, 32 on every target. An immediate that prints as
      // written, so analyses see `div.u32 %r, %r1, WARP_SZ` as the division by 32 it is.
      op.kind = OperandKind::kImmInt;
      op.bits = 32;
      set_text(op, start, p_);
    } else {
      op.kind = OperandKind::kSymbol;
      set_text(op, start, p_);
      Mark m = mark();
      skip_ws();
      if (p_ < end_ && *p_ == '+') { // `sym+8`
        ++p_;
        skip_ws();
        NumberLit lit;
        bool bad = false;
        if (!lex_number(p_, end_, lit, bad) || lit.is_float) fail_expected("an integer offset");
        op.bits = lit.bits;
        op.flags |= Operand::kHasOffset;
      } else {
        reset(m);
      }
    }
  } else if (is_digit(c) || c == '-') {
    NumberLit lit;
    bool bad = false;
    if (!lex_number(p_, end_, lit, bad)) {
      if (bad) fail_here("invalid numeric literal");
      fail_expected("an operand");
    }
    op.kind = lit.is_float ? OperandKind::kImmFloat : OperandKind::kImmInt;
    op.bits = lit.bits;
    if (lit.f32_pattern) op.flags |= Operand::kF32Pattern;
    set_text(op, start, p_);
  } else {
    fail_expected("an operand");
  }
  return op;
}

void Parser::parse_address(Operand& op, std::uint32_t level) {
  ++p_; // '['
  skip_ws();
  op.kind = OperandKind::kAddress;
  const char* start = p_;
  if (p_ < end_ && is_ident_start(*p_)) {
    std::string_view name;
    if (!lex_identifier(p_, end_, name)) fail_expected("an address");
    set_text(op, start, p_);
  } else if (p_ < end_ && (is_digit(*p_) || *p_ == '-')) {
    NumberLit lit;
    bool bad = false;
    if (!lex_number(p_, end_, lit, bad) || lit.is_float) fail_expected("an address");
    set_text(op, start, p_);
    op.flags |= Operand::kBaseImmediate;
  } else {
    fail_expected("an address");
  }
  skip_ws();
  if (p_ < end_ && (*p_ == '+' || *p_ == '-')) {
    if (*p_ == '+') ++p_;
    skip_ws();
    NumberLit lit;
    bool bad = false;
    if (!lex_number(p_, end_, lit, bad) || lit.is_float) fail_expected("an integer offset");
    op.bits = lit.bits;
    op.flags |= Operand::kHasOffset;
  }
  std::vector<Operand>& el = scratch_[level];
  el.clear();
  while (accept(',')) {
    el.push_back(parse_operand(level + 1));
    if (el.size() > 0xffff) fail_here("too many elements in one operand");
  }
  if (!accept(']')) fail_expected("']'");
  Span<Operand> span = arena_.copy(el);
  op.elems_data = span.data();
  op.elems_size = static_cast<std::uint16_t>(span.size());
}

const InitValue* Parser::parse_init(std::uint32_t depth) {
  return arena_.make(parse_init_value(depth));
}

InitValue Parser::parse_init_value(std::uint32_t depth) {
  if (depth > kMaxInitDepth) fail_here("initializer nested too deeply");
  skip_ws();
  InitValue v;
  v.loc = here();
  if (p_ < end_ && *p_ == '{') {
    ++p_;
    // One scratch list per nesting depth, reused: a table of 100k numbers grows its scratch
    // once, not a fresh vector through every doubling, and the arena gets one exact copy.
    if (init_scratch_.size() <= depth) init_scratch_.resize(depth + 1);
    init_scratch_[depth].clear();
    if (!accept('}')) {
      do {
        InitValue e = parse_init_value(depth + 1);
        init_scratch_[depth].push_back(e);
      } while (accept(','));
      expect('}');
    }
    v.kind = InitValue::Kind::kList;
    v.set_elements(arena_.copy(init_scratch_[depth]));
    return v;
  }
  static constexpr std::string_view kGeneric = "generic";
  if (static_cast<std::size_t>(end_ - p_) > kGeneric.size() &&
      std::string_view(p_, kGeneric.size()) == kGeneric && !is_ident_char(p_[kGeneric.size()])) {
    Mark m = mark();
    p_ += kGeneric.size();
    if (accept('(')) {
      v.kind = InitValue::Kind::kGeneric;
      v.set_text(expect_identifier("a symbol"));
      expect(')');
      skip_ws();
      if (p_ < end_ && (*p_ == '+' || *p_ == '-')) {
        // generic(sym)+off: kept as an expression.
        std::string text = "generic(";
        text += v.text();
        text += ')';
        text += *p_++;
        parse_expr_term(text, false, 1);
        v.kind = InitValue::Kind::kExpr;
        v.set_text(arena_.copy_string(text));
      }
      return v;
    }
    reset(m);
  }
  v.kind = InitValue::Kind::kExpr;
  v.set_text(parse_expression(false));
  return v;
}

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
  parse_expr_term(out, allow_dot_names, 0);
  for (;;) {
    skip_ws();
    if (p_ >= end_) break;
    char c = *p_;
    if ((c == '<' || c == '>') && p_ + 1 < end_ && p_[1] == c) {
      out.append(p_, 2);
      p_ += 2;
    } else if (c == '+' || c == '-' || c == '*' || c == '/' || c == '%' || c == '&' || c == '|' ||
               c == '^') {
      out += c;
      ++p_;
    } else {
      break;
    }
    parse_expr_term(out, allow_dot_names, 0);
  }
  return intern(out, start, p_);
}

void Parser::parse_expr_term(std::string& out, bool allow_dot_names, std::uint32_t depth) {
  if (depth > kMaxExprDepth) fail_here("expression nested too deeply");
  skip_ws();
  if (p_ >= end_) fail_expected("a constant expression");
  const char c = *p_;
  const char* start = p_;
  if (c == '(') {
    ++p_;
    out += '(';
    parse_expr_term(out, allow_dot_names, depth + 1);
    for (;;) {
      skip_ws();
      if (p_ < end_ && *p_ == ')') break;
      if (p_ >= end_) fail_expected("')'");
      char op = *p_;
      if ((op == '<' || op == '>') && p_ + 1 < end_ && p_[1] == op) {
        out.append(p_, 2);
        p_ += 2;
      } else if (std::strchr("+-*/%&|^", op) != nullptr && op != 0) {
        out += op;
        ++p_;
      } else {
        fail_expected("')'");
      }
      parse_expr_term(out, allow_dot_names, depth + 1);
    }
    ++p_;
    out += ')';
    return;
  }
  if (c == '~' || c == '!' || (c == '-' && !(p_ + 1 < end_ && is_digit(p_[1])))) {
    ++p_;
    out += c;
    parse_expr_term(out, allow_dot_names, depth + 1);
    return;
  }
  if (is_digit(c) || c == '-') {
    NumberLit lit;
    bool bad = false;
    if (!lex_number(p_, end_, lit, bad)) {
      if (bad) fail_here("invalid numeric literal");
      fail_expected("a constant expression");
    }
    out.append(start, p_);
    return;
  }
  if (c == '.' && allow_dot_names) {
    ++p_;
    std::string_view name;
    if (!lex_modifier(p_, end_, name)) {
      p_ = start;
      fail_expected("a constant expression");
    }
    out.append(start, p_);
    return;
  }
  std::string_view name;
  if (is_ident_start(c) && lex_identifier(p_, end_, name)) {
    out.append(start, p_);
    return;
  }
  fail_expected("a constant expression");
}

} // namespace ptxkit::verifier::detail
