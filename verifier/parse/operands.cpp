// operands.cpp: PTX instruction operands (registers with their video selectors, special
// registers, symbols and array elements, immediates and constant expressions, addresses, vectors,
// pairs, call lists, sink) and initializers (const_expr.cpp parses their expressions).
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

// A video instruction's operand selector or SIMD destination mask (PTX ISA 9.7.20), without its
// dot: scalar `.b0-.b3`/`.h0 .h1`; 2-way SIMD masks `.h0 .h1 .h10` and selectors `.hXY` (X, Y in
// 0-3); 4-way SIMD masks `.b10 ... .b3210` (descending bytes 0-3) and selectors `.bXYZW` (0-7).
bool valid_video_selector(std::string_view s) {
  if (s.size() < 2 || (s[0] != 'b' && s[0] != 'h')) return false;
  const std::string_view d = s.substr(1);
  for (char c : d)
    if (c < '0' || c > '7') return false;
  if (s[0] == 'h') {
    if (d.size() == 1) return d[0] <= '1';
    return d.size() == 2 && d[0] <= '3' && d[1] <= '3';
  }
  if (d.size() == 4) return true;
  if (d.size() > 4) return false;
  for (std::size_t k = 0; k < d.size(); ++k)
    if (d[k] > '3' || (k > 0 && d[k] >= d[k - 1])) return false;
  return true;
}

void set_text(Operand& op, const char* b, const char* e) {
  op.text_data = b;
  op.text_size = static_cast<std::uint32_t>(e - b);
}

} // namespace

char Parser::accept_vector_element() {
  const char* q = p_;
  while (q < end_ && (*q == ' ' || *q == '\t'))
    ++q;
  if (end_ - q < 2 || q[0] != '.' || std::strchr("xyzwrgba", q[1]) == nullptr || q[1] == 0 ||
      (q + 2 < end_ && is_ident_char(q[2])))
    return 0;
  p_ = q + 2;
  return q[1];
}

bool Parser::declared_vector_register(std::string_view name) const {
  if (vector_regs_.count(name) != 0) return true;
  std::size_t digits = name.size();
  while (digits > 0 && is_digit(name[digits - 1]))
    --digits;
  return digits < name.size() && vector_reg_ranges_.count(name.substr(0, digits)) != 0;
}

void Parser::set_element_text(Operand& op, std::string_view name, char element, const char* start) {
  std::string spelled(name);
  spelled += '.';
  spelled += element;
  const std::string_view t = intern(spelled, start, p_); // the source's bytes when unspaced
  set_text(op, t.data(), t.data() + t.size());
}

void Parser::refuse_vector_element(const Operand& op, const Mark& at, std::string_view where) {
  if (op.vector_element() < 0) return;
  reset(at);
  skip_ws();
  fail_here("a vector element ('" + std::string(op.text()) + "') cannot be " + std::string(where) +
            ": ptxas takes only a scalar register there");
}

std::string_view Parser::intern(std::string_view s, const char* begin, const char* end) {
  if (static_cast<std::size_t>(end - begin) == s.size() &&
      std::memcmp(begin, s.data(), s.size()) == 0)
    return {begin, s.size()};
  return arena_.copy_string(s);
}

Operand Parser::parse_operand(std::uint32_t level) {
  const Mark at_first = mark();
  Operand op = parse_simple_operand(level);
  skip_ws();
  if (p_ < end_ && *p_ == '|') {
    refuse_vector_element(op, at_first, "half of a predicate pair 'p|q'");
    ++p_;
    const Mark at_second = mark();
    Operand two[2] = {op, parse_simple_operand(level + 1)};
    refuse_vector_element(two[1], at_second, "half of a predicate pair 'p|q'");
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
        const Mark at_element = mark();
        el.push_back(parse_operand(level + 1));
        if (kind == OperandKind::kParenList)
          refuse_vector_element(el.back(), at_element, "a call's argument or result");
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
  // A constant expression (4.5.4) starts with a digit followed by an operator, `(` (outside a
  // call's argument lists) with a digit, sign or cast inside, or a unary `- + ~ !` that does not
  // negate a predicate register or sign a literal.
  auto expression_follows_paren = [&] {
    const char* q = p_;
    while (q < end_ && (*q == '(' || *q == ' ' || *q == '\t'))
      ++q;
    return q < end_ && (is_digit(*q) || std::strchr("-+~!.", *q) != nullptr);
  };
  auto next_non_blank = [&](const char* q) {
    while (q < end_ && (*q == ' ' || *q == '\t'))
      ++q;
    return q < end_ ? *q : '\0';
  };
  auto after_bangs = [&] { // what a run of `!` applies to: `!%p` negates a predicate
    const char* q = p_;
    while (q < end_ && (*q == '!' || *q == ' ' || *q == '\t'))
      ++q;
    return q < end_ ? *q : '\0';
  };
  if (c == '-' && next_non_blank(p_ + 1) == '%') {
    // `-%r2.h0`: a negated source of vmad (9.7.20.1), the register still read. ptxas parses
    // the form on any instruction and refuses it on all others; `--%r2` it does not parse.
    if (!isa::has(op_, isa::kNegatableSources))
      fail_here("operand negation '-%reg' is allowed only on vmad's sources (PTX ISA 9.7.20.1)");
    ++p_;
    skip_ws();
    Operand inner = parse_simple_operand(level + 1);
    if (inner.kind != OperandKind::kRegister) {
      p_ = start;
      fail_here("'-' negates only a register operand");
    }
    inner.loc = op.loc;
    inner.flags |= Operand::kMinus;
    return inner;
  }
  if ((c == '(' && op_ != Opcode::kCall && expression_follows_paren()) || c == '~' || c == '+' ||
      (c == '!' && !is_ident_start(after_bangs())) ||
      (c == '-' && !is_digit(p_ + 1 < end_ ? p_[1] : '\0')))
    return parse_expression_operand();
  if (c == '!') {
    ++p_;
    const Mark at_negated = mark();
    Operand inner = parse_simple_operand(level + 1); // level + 1: `!!!!...` stays bounded
    if (inner.kind != OperandKind::kRegister && inner.kind != OperandKind::kSymbol) {
      p_ = start;
      fail_here("'!' applies only to a predicate register");
    }
    // .pred has no vectors (ptxas: "Predicate type can only be used to define scalar ...").
    refuse_vector_element(inner, at_negated, "negated ('!' applies to a predicate register)");
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
      op.kind = is_special_register(name) ? OperandKind::kSpecialReg : OperandKind::kRegister;
      set_text(op, start, p_);
      // `%tid.x`'s component or `%acc.y`'s element. A special register's is spelled .x-.w, as
      // its analyses know it (ptxas reads `%tid.r` as %tid.x).
      if (const char element = accept_vector_element()) {
        const bool special = op.kind == OperandKind::kSpecialReg;
        const char letter =
            special ? "xyzw"[std::string_view("xyzwrgba").find(element) % 4] : element;
        set_element_text(op, name, letter, start);
        if (!special && p_ + 1 < end_ && *p_ == '.' && (p_[1] == 'b' || p_[1] == 'h'))
          fail_here("a vector element takes no video selector ('" + std::string(op.text()) +
                    "' is one element of a vector register)");
      } else if (op.kind == OperandKind::kRegister && p_ + 2 < end_ && *p_ == '.' &&
                 (p_[1] == 'b' || p_[1] == 'h') && is_digit(p_[2])) {
        const char* sel = p_ + 1;
        const char* e = sel + 1;
        while (e < end_ && is_ident_char(*e))
          ++e;
        const std::string_view s(sel, static_cast<std::size_t>(e - sel));
        if (s.size() > Operand::kMaxSelector || !valid_video_selector(s))
          fail_here("invalid video selector '." + std::string(s.substr(0, 16)) +
                    "': expected .b0-.b3 or .h0 .h1, a SIMD mask (.h10, .b3210 ...) or a SIMD "
                    "selector (.hXY with X, Y in 0-3; .bXYZW with X..W in 0-7)");
        std::memcpy(&op.bits, s.data(), s.size());
        op.flags |= Operand::kSelector;
        p_ = e;
      }
    } else if (name == "WARP_SZ" && at_expression_operator()) {
      p_ = start;
      return parse_expression_operand();
    } else if (name == "WARP_SZ") {
      // The predefined constant: the warp size, 32 on every target. An immediate that prints as
      // written, so analyses see `div.u32 %r, %r1, WARP_SZ` as the division by 32 it is.
      op.kind = OperandKind::kImmInt;
      op.bits = 32;
      set_text(op, start, p_);
    } else if (const char element = accept_vector_element()) {
      // `mx.x`: an element of a vector register named without '%' (CUTLASS's inline asm).
      if (!declared_vector_register(name)) {
        p_ = start;
        fail_here("'" + std::string(name) + "." + element + "' selects an element of '" +
                  std::string(name) + "', which is not a vector register declared before it");
      }
      op.kind = OperandKind::kRegister;
      set_element_text(op, name, element, start);
    } else {
      op.kind = OperandKind::kSymbol;
      set_text(op, start, p_);
      Mark m = mark();
      skip_ws();
      if (p_ < end_ && *p_ == '[') {
        parse_array_element(op, level);
      } else if (p_ < end_ && *p_ == '+') { // `sym+8`
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
    if (at_expression_operator()) { // `1 + 2`: the literal opens a constant expression
      p_ = start;
      return parse_expression_operand();
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
  const Mark at_base = mark();
  if (p_ < end_ && is_ident_start(*p_)) {
    std::string_view name;
    if (!lex_identifier(p_, end_, name)) fail_expected("an address");
    set_text(op, start, p_);
    if (accept_vector_element()) {
      reset(at_base);
      fail_here("a vector element cannot be an address base: ptxas takes only a scalar register "
                "or a variable there");
    }
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
  static constexpr std::string_view kUnified = ".unified"; // ld's `[a].unified` (PTX 8.1)
  if (static_cast<std::size_t>(end_ - p_) >= kUnified.size() &&
      std::string_view(p_, kUnified.size()) == kUnified &&
      (p_ + kUnified.size() == end_ || !is_ident_char(p_[kUnified.size()]))) {
    p_ += kUnified.size();
    op.flags |= Operand::kUnified;
  }
  Span<Operand> span = arena_.copy(el);
  op.elems_data = span.data();
  op.elems_size = static_cast<std::uint16_t>(span.size());
}

void Parser::parse_array_element(Operand& op, std::uint32_t level) {
  // `arr[i]` (6.4.2) is the address of element i: arr + i x the element's scalar size (ptxas
  // assembles `ld.global.u32 %r, arr[2]` as `[arr+8]` and `mov.u64 %rd, arr[3]` as `arr+12`;
  // a `.v2.u32` array's `arr[3]` too is `arr+12`), so it is kept as that address, which every
  // analysis already reads.
  const std::string_view name = op.text();
  const auto it = element_size_.find(name);
  if (it == element_size_.end())
    fail_here("'" + std::string(name) + "[...]' needs '" + std::string(name) +
              "' declared before it (its element size)");
  ++p_; // '['
  skip_ws();
  if (p_ < end_ && *p_ == '%') {
    // `arr[%r1]`, `arr[%r1+K]`: ptxas computes arr + zext32(%r1 + K) x the scalar size. No
    // address form says that, so the source form is kept (ast.h): the array, then the index
    // register and K as elements. ptxas refuses `arr[K+%r1]`, `arr[%r1-K]`, `arr[%tid.x]`.
    const Mark at_index = mark();
    const Operand index = parse_simple_operand(level + 1);
    refuse_vector_element(index, at_index, "an array-element index");
    if (index.kind != OperandKind::kRegister || index.flags != 0) {
      reset(at_index);
      fail_here("an array-element index must be a register or a constant expression");
    }
    Operand two[2] = {index, {}};
    std::uint16_t n = 1;
    skip_ws();
    if (accept('+')) {
      skip_ws();
      const Mark at_term = mark();
      two[1] = parse_expression_operand();
      if (two[1].kind != OperandKind::kImmInt) {
        reset(at_term);
        fail_here("the constant term of a register index must be an integer");
      }
      n = 2;
    } else if (p_ < end_ && *p_ != ']') {
      fail_expected("'+' or ']' after an array-element index register");
    }
    if (!accept(']')) fail_expected("']'");
    const Span<Operand> span = arena_.copy(two, n);
    op.elems_data = span.data();
    op.elems_size = n;
    op.bits = 0;
    op.flags = Operand::kRegisterIndex;
    if (isa::has(op_, isa::kAddressedAccess)) op.kind = OperandKind::kAddress;
    return;
  }
  std::string text;
  const Mark at_index = mark();
  const ExprValue index = parse_const_expr(text, ExprMode::kOperand);
  if (index.is_float) {
    reset(at_index);
    fail_here("an array-element index must be an integer");
  }
  if (!accept(']')) fail_expected("']'");
  const std::uint64_t offset = index.bits * it->second;
  op.bits = offset;
  op.flags = offset != 0 ? Operand::kHasOffset : 0;
  // A memory instruction's operand is the memory at that address: `[arr+8]`.
  if (isa::has(op_, isa::kAddressedAccess)) op.kind = OperandKind::kAddress;
}

const InitValue* Parser::parse_init(std::uint32_t depth, bool opaque) {
  return arena_.make(parse_init_value(depth, opaque));
}

InitValue Parser::parse_init_value(std::uint32_t depth, bool opaque) {
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
        InitValue e = parse_init_value(depth + 1, opaque);
        init_scratch_[depth].push_back(e);
      } while (accept(','));
      expect('}');
    }
    v.kind = InitValue::Kind::kList;
    v.set_elements(arena_.copy(init_scratch_[depth]));
    return v;
  }
  if (opaque && depth > 0 && p_ < end_ && is_ident_start(*p_)) {
    // A `.texref`/`.samplerref` field (5.3): `filter_mode = linear`, `addr_mode_0 = wrap`.
    Mark m = mark();
    std::string_view field;
    if (lex_identifier(p_, end_, field) && accept('=') && !(p_ < end_ && *p_ == '=')) {
      skip_ws();
      std::string_view value;
      const char* vstart = p_;
      NumberLit lit;
      bool bad = false;
      if (!lex_identifier(p_, end_, value) && !lex_number(p_, end_, lit, bad))
        fail_expected("a field value (a name or a number)");
      std::string text(field);
      text += " = ";
      text.append(vstart, p_);
      v.kind = InitValue::Kind::kField;
      v.set_text(arena_.copy_string(text));
      return v;
    }
    reset(m);
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
        reset(m);
        v.kind = InitValue::Kind::kExpr;
        v.set_text(parse_expression(false));
      }
      return v;
    }
    reset(m);
  }
  v.kind = InitValue::Kind::kExpr;
  v.set_text(parse_expression(false));
  return v;
}

} // namespace ptxkit::verifier::detail
