// statements.cpp: PTX function bodies: blocks, labels, declarations, instructions, .loc, .pragma,
// .branchtargets/.calltargets and .callprototype.
//
// Why: the body is where 100 MB inputs spend their bytes, so this dispatcher looks at one leading
// character to pick the statement kind, keeps operand and modifier arrays in the module's arena
// (identical modifier lists are shared), and bounds `{ }` nesting by kMaxBlockDepth.
#include "parse/parser_impl_p.h"

#include <array>
#include <string_view>

namespace ptxkit::verifier::detail {

namespace {
// How many statements the block starting at `p` (just after its '{') holds directly, as an upper
// bound: one per statement start (a nested block counts once, its own parse estimates its
// contents), one more per comma of a directive (`.reg .b32 %a, %b;` declares two), up to the
// matching '}'; comments and strings skipped. Reserving that many statements up front keeps a
// large function's statement array from being reallocated while it grows (which would briefly
// hold it twice) without reserving for blank lines, comments and inner blocks' lines (a
// Statement is ~100 bytes, more than most source lines).
// The characters that can change the scan's state inside a statement (after its first
// character): comments, strings, line ends, braces, and the ends of statements, labels and
// declarators. Every other one is skipped without looking further (most of the text).
constexpr std::array<bool, 256> kInStatementStop = [] {
  std::array<bool, 256> t{};
  for (unsigned char c : std::string_view("/\"\n{};,:"))
    t[c] = true;
  return t;
}();

std::size_t estimate_statements(const char* p, const char* end) {
  std::size_t n = 0;
  int depth = 1;          // 1: this block's level; more: an inner block or a vector operand
  bool start = true;      // at the start of a statement of this block
  bool directive = false; // the current statement began with '.'
  bool loc = false;       // the current statement is a `.loc`: it ends with its line
  bool inner = false;     // the braces open at depth > 1 are an inner block's
  while (p < end) {
    if (!start)
      while (p < end && !kInStatementStop[static_cast<unsigned char>(*p)])
        ++p;
    if (p == end) break;
    char c = *p++;
    if (c == '/' && p < end && *p == '/') {
      while (p < end && *p != '\n')
        ++p;
      continue;
    }
    if (c == '/' && p < end && *p == '*') {
      for (++p; p < end && !(*p == '*' && p + 1 < end && p[1] == '/'); ++p) {
      }
      p += 2;
      continue;
    }
    if (c == '"') {
      while (p < end && *p != '"' && *p != '\n')
        p += *p == '\\' && p + 1 < end ? 2 : 1;
      ++p;
      continue;
    }
    if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') continue;
    if (c == '\n') {
      if (loc) loc = false, start = true;
      continue;
    }
    if (c == '{') {
      if (depth == 1 && start) ++n, inner = true, start = false;
      ++depth;
      continue;
    }
    if (c == '}') {
      if (--depth == 0) break;
      if (depth == 1 && inner) inner = false, start = true;
      continue;
    }
    if (depth > 1) continue;
    if (start) {
      ++n;
      start = false;
      directive = c == '.';
      loc = directive && end - p > 3 && p[0] == 'l' && p[1] == 'o' && p[2] == 'c' &&
            !is_ident_char(p[3]);
      continue;
    }
    if (c == ';') {
      start = true;
    } else if (c == ',' && directive && !loc) { // `.loc`'s commas separate its parts
      ++n;
    } else if (c == ':') {
      if (p < end && *p == ':')
        ++p; // `::` of a modifier
      else
        start = true; // after a label
    }
  }
  return n + 1;
}
} // namespace
namespace {

StateSpace space_from_name(std::string_view s) {
  if (s == "reg") return StateSpace::kReg;
  if (s == "sreg") return StateSpace::kSreg;
  if (s == "const") return StateSpace::kConst;
  if (s == "global") return StateSpace::kGlobal;
  if (s == "local") return StateSpace::kLocal;
  if (s == "param") return StateSpace::kParam;
  if (s == "shared") return StateSpace::kShared;
  if (s == "tex") return StateSpace::kTex;
  return StateSpace::kNone;
}

bool is_decl_space(std::string_view s) {
  StateSpace sp = space_from_name(s);
  return sp != StateSpace::kNone && sp != StateSpace::kSreg;
}

} // namespace

void Parser::parse_decl(std::vector<VarDecl>& out, Linkage linkage, SourceLoc loc, bool single) {
  VarDecl d;
  d.loc = loc;
  d.linkage = linkage;
  std::string_view dir;
  if (!peek_directive(dir) || !is_decl_space(dir)) fail_expected("a state space");
  d.space = space_from_name(dir);
  p_ += 1 + dir.size();
  bool in_ptr = false;
  while (peek_directive(dir)) {
    ScalarType t = isa::type_from_spelling(dir);
    if (t != ScalarType::kUnknown) {
      if (d.type != ScalarType::kUnknown) fail_here("more than one type in a declaration");
      d.type = t;
    } else if (dir == "align") {
      p_ += 1 + dir.size();
      std::uint32_t a = expect_u32("an alignment");
      if (a == 0 || (a & (a - 1)) != 0) fail_here("alignment must be a power of two");
      (in_ptr ? d.ptr_align : d.align) = a;
      continue;
    } else if (dir == "attribute" && !in_ptr) {
      if (d.attributes) fail_here("more than one .attribute in a declaration");
      p_ += 1 + dir.size();
      d.attributes = parse_attributes();
      continue;
    } else if (dir == "v2" || dir == "v4" || dir == "v8") {
      d.vector_width = static_cast<std::uint8_t>(dir[1] - '0');
    } else if (dir == "ptr") {
      if (d.space != StateSpace::kParam) fail_here(".ptr is only allowed on .param");
      d.is_ptr = true;
      in_ptr = true;
    } else if (in_ptr && (dir == "global" || dir == "shared" || dir == "const" || dir == "local")) {
      d.ptr_space = space_from_name(dir);
    } else {
      fail_expected("a type, '.align' or '.vN'");
    }
    p_ += 1 + dir.size();
  }
  if (d.type == ScalarType::kUnknown) fail_expected("a type (.b32, .u64, .f32, .pred, ...)");
  std::vector<std::uint64_t> dims;
  for (;;) {
    VarDecl v = d;
    skip_ws();
    v.loc = out.empty() || single ? loc : here();
    if (p_ < end_ && *p_ == '_' && (p_ + 1 >= end_ || !is_ident_char(p_[1]))) {
      v.name = {p_, 1};
      ++p_;
    } else {
      v.name = expect_identifier("a name");
    }
    if (accept('<')) {
      v.has_range = true;
      v.range = expect_u32("a register count");
      expect('>');
    }
    dims.clear();
    while (accept('[')) {
      if (accept(']')) {
        dims.push_back(kUnknownDim);
        continue;
      }
      std::uint64_t n = expect_uint("an array size");
      if (n == kUnknownDim) fail_here("array size out of range");
      dims.push_back(n);
      expect(']');
    }
    v.dims = arena_.copy(dims);
    if (!single && accept('=')) {
      v.init = parse_init(0, isa::kind(v.type) == isa::TypeKind::kOpaque);
    }
    if (v.space != StateSpace::kReg)
      element_size_[v.name] = isa::size_bytes(v.type); // `arr[i]` steps by the scalar size
    else if (v.vector_width > 1)
      (v.has_range ? vector_reg_ranges_ : vector_regs_).insert(v.name);
    out.push_back(v);
    if (single || !accept(',')) break;
  }
  if (!single) expect(';');
}

const Attributes* Parser::parse_attributes() {
  Attributes a;
  expect('(');
  do {
    std::string_view name;
    if (peek_directive(name) && name == "managed" && !a.managed) {
      p_ += 1 + name.size();
      a.managed = true;
    } else if (peek_directive(name) && name == "unified" && !a.unified) {
      p_ += 1 + name.size();
      a.unified = true;
      expect('(');
      a.uuid1 = expect_uint("a UUID half");
      expect(',');
      a.uuid2 = expect_uint("a UUID half");
      expect(')');
    } else {
      fail_expected("'.managed' or '.unified(uuid1, uuid2)'");
    }
  } while (accept(','));
  expect(')');
  return arena_.make(a);
}

Span<std::string_view> Parser::modifiers_for(std::string_view key,
                                             const std::vector<std::string_view>& mods) {
  auto it = mod_cache_.find(key);
  if (it != mod_cache_.end()) return it->second;
  Span<std::string_view> span = arena_.copy(mods);
  mod_cache_.emplace(key, span);
  return span;
}

Instruction Parser::parse_instruction(SourceLoc loc) {
  Instruction inst;
  inst.loc = loc;
  if (accept('@')) {
    inst.guard_negated = accept('!');
    skip_ws();
    inst.guard = expect_identifier("a predicate register");
    const Mark at_selector = mark();
    if (accept_vector_element()) {
      reset(at_selector);
      skip_ws();
      fail_here("a guard predicate is a scalar register: .pred has no vectors, so '" +
                std::string(inst.guard) + "' has no elements");
    }
  }
  skip_ws();
  const char* op_start = p_;
  if (p_ >= end_ || !((*p_ >= 'a' && *p_ <= 'z') || (*p_ >= 'A' && *p_ <= 'Z')))
    fail_expected("an instruction");
  if (!lex_identifier(p_, end_, inst.opcode)) fail_expected("an instruction");
  inst.op = isa::opcode_from_spelling(inst.opcode);
  op_ = inst.op;
  (void)op_start;
  const char* mods_start = p_;
  mod_scratch_.clear();
  while (p_ < end_ && *p_ == '.') {
    ++p_;
    std::string_view m;
    if (!lex_modifier(p_, end_, m)) fail_expected("an instruction modifier");
    mod_scratch_.push_back(m);
  }
  if (!mod_scratch_.empty())
    inst.modifiers =
        modifiers_for({mods_start, static_cast<std::size_t>(p_ - mods_start)}, mod_scratch_);
  std::vector<Operand>& ops = scratch_[0];
  ops.clear();
  skip_ws();
  if (p_ < end_ && *p_ != ';') {
    do {
      skip_ws();
      const Mark at = mark();
      ops.push_back(parse_operand(1));
      if (ops.size() == 1 && ops[0].minus()) { // vmad negates sources only
        reset(at);
        fail_here("the destination operand cannot be negated");
      }
    } while (accept(','));
  }
  expect(';');
  op_ = Opcode::kUnknown;
  inst.operands = arena_.copy(ops);
  return inst;
}

CallPrototype Parser::parse_callprototype(std::string_view label, SourceLoc loc) {
  CallPrototype cp;
  cp.loc = loc;
  cp.label = label;
  if (accept('(')) parse_params(cp.returns);
  skip_ws();
  if (!(p_ < end_ && *p_ == '_')) fail_expected("'_'");
  ++p_;
  if (accept('(')) parse_params(cp.params);
  if (accept_directive("noreturn")) cp.noreturn = true;
  expect(';');
  return cp;
}

void Parser::parse_statement_at_label(std::vector<Statement>& out, std::string_view label,
                                      SourceLoc loc) {
  std::string_view dir;
  if (peek_directive(dir)) {
    if (dir == "branchtargets" || dir == "calltargets") {
      p_ += 1 + dir.size();
      out.push_back(Statement{parse_directive_args(loc, dir, label, false)});
      return;
    }
    if (dir == "callprototype") {
      p_ += 1 + dir.size();
      out.push_back(Statement{parse_callprototype(label, loc)});
      return;
    }
  }
  out.push_back(Statement{Label{loc, label}});
}

void Parser::parse_block(Block& block, std::uint32_t depth) {
  // Called after '{'.
  if (depth > kMaxBlockDepth) {
    std::string msg = "blocks nested deeper than ";
    msg += std::to_string(kMaxBlockDepth);
    msg += " levels";
    fail_here(std::move(msg));
  }
  std::vector<Statement> stmts;
  stmts.reserve(estimate_statements(p_, end_));
  std::vector<VarDecl> decls;
  for (;;) {
    skip_ws();
    if (p_ >= end_) fail_expected("'}'");
    SourceLoc loc = here();
    char c = *p_;
    if (c == '}') {
      ++p_;
      break;
    }
    if (c == '{') {
      ++p_;
      Block inner;
      inner.loc = loc;
      parse_block(inner, depth + 1);
      stmts.push_back(Statement{std::move(inner)});
      continue;
    }
    if (c == '@') {
      stmts.push_back(Statement{parse_instruction(loc)});
      continue;
    }
    if (c == '.') {
      std::string_view dir;
      if (!peek_directive(dir)) fail_expected("a statement");
      if (is_decl_space(dir)) {
        decls.clear();
        parse_decl(decls, Linkage::kNone, loc, false);
        for (const auto& d : decls)
          stmts.push_back(Statement{d});
      } else if (dir == "loc") {
        p_ += 1 + dir.size();
        skip_ws();
        LocArgs a;
        if (!lex_loc_args(p_, end_, a)) fail_expected("'.loc' arguments FILE LINE COLUMN");
        LocDirective l;
        l.loc = loc;
        l.file = a.file;
        l.line = a.line;
        l.col = a.col;
        l.function_name = a.function_name;
        l.has_inlined_at = a.has_inlined_at;
        l.inlined_file = a.inlined_file;
        l.inlined_line = a.inlined_line;
        l.inlined_col = a.inlined_col;
        stmts.push_back(Statement{l});
      } else if (dir == "pragma") {
        p_ += 1 + dir.size();
        stmts.push_back(Statement{parse_directive_args(loc, dir, {}, true)});
      } else if (dir == "extern") {
        // `.extern .shared` inside a body is not PTX; `.extern` is module scope only.
        fail_expected("a statement");
      } else {
        fail_expected("a statement");
      }
      continue;
    }
    if (is_ident_start(c)) {
      Mark m = mark();
      std::string_view name;
      if (lex_identifier(p_, end_, name)) {
        skip_ws();
        if (p_ < end_ && *p_ == ':' && !(p_ + 1 < end_ && p_[1] == ':')) {
          ++p_;
          parse_statement_at_label(stmts, name, loc);
          continue;
        }
      }
      reset(m);
      stmts.push_back(Statement{parse_instruction(loc)});
      continue;
    }
    fail_expected("a statement");
  }
  // The estimate counts blank and comment lines too; only a gross overestimate is worth the
  // copy shrink_to_fit makes (that copy is the parse's peak memory on a large function).
  if (stmts.capacity() > 2 * stmts.size() + 16) stmts.shrink_to_fit();
  block.statements = std::move(stmts);
}

} // namespace ptxkit::verifier::detail
