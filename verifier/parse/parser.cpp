// parser.cpp: the PTX parser's entry points, cursor, and module-level constructs (header
// directives, functions and their parameter lists, .file, .section, plain directives).
//
// Why: this is the top of the recursive-descent dispatcher described in parser_impl_p.h; the
// lexemes it consumes are the X3 rules of lexemes.cpp, statements live in statements.cpp and
// operands in operands.cpp.
#include "parse/parser_impl_p.h"

#include <algorithm>
#include <cstdio>
#include <utility>

namespace ptxkit::verifier {
namespace detail {
namespace {

// 'prefix+text' in single quotes (built with append: GCC 12's -Wrestrict misfires on
// `"lit" + std::string` at -O3).
std::string quoted(std::string_view prefix, std::string_view text) {
  std::string s = "'";
  s += prefix;
  s += text;
  s += '\'';
  return s;
}

} // namespace

void* Arena::allocate(std::size_t bytes, std::size_t align) {
  std::size_t pad = (align - reinterpret_cast<std::uintptr_t>(cur_) % align) % align;
  if (cur_ == nullptr || pad + bytes > left_) {
    constexpr std::size_t kChunk = 1 << 20;
    std::size_t size = std::max(kChunk, bytes + align);
    // Not value-initialized: every byte handed out is written by its user, and zeroing a chunk
    // up front would cost a memset and fault in pages a small input never uses.
    chunks_.push_back(std::make_unique_for_overwrite<std::byte[]>(size));
    cur_ = chunks_.back().get();
    left_ = size;
    pad = (align - reinterpret_cast<std::uintptr_t>(cur_) % align) % align;
  }
  std::byte* out = cur_ + pad;
  cur_ = out + bytes;
  left_ -= pad + bytes;
  used_ += bytes;
  return out;
}

Parser::Parser(Storage& storage, std::string path)
    : storage_(storage), arena_(storage.arena), path_(std::move(path)), begin_(storage.text.data()),
      p_(begin_), end_(begin_ + storage.text.size()), line_start_(begin_) {}

// ---- cursor -----------------------------------------------------------------------------------

void Parser::skip_ws() {
  while (p_ < end_) {
    char c = *p_;
    if (c == '\n') {
      ++p_;
      ++line_;
      line_start_ = p_;
    } else if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
      ++p_;
    } else if (c == '/' && p_ + 1 < end_ && p_[1] == '/') {
      while (p_ < end_ && *p_ != '\n')
        ++p_;
    } else if (c == '/' && p_ + 1 < end_ && p_[1] == '*') {
      const char* start = p_;
      SourceLoc loc = here();
      p_ += 2;
      while (p_ < end_ && !(*p_ == '*' && p_ + 1 < end_ && p_[1] == '/')) {
        if (*p_ == '\n') {
          ++line_;
          line_start_ = p_ + 1;
        }
        ++p_;
      }
      if (p_ >= end_) {
        Mark m{start, loc.line, start - (loc.col - 1)};
        reset(m);
        fail_here("unterminated /* comment");
      }
      p_ += 2;
    } else {
      return;
    }
  }
}

SourceLoc Parser::here() const {
  return {line_, static_cast<std::uint32_t>(p_ - line_start_ + 1)};
}

bool Parser::accept(char c) {
  skip_ws();
  if (p_ < end_ && *p_ == c) {
    ++p_;
    return true;
  }
  return false;
}

void Parser::expect(char c) {
  if (!accept(c)) {
    char what[8];
    std::snprintf(what, sizeof what, "'%c'", c);
    fail_expected(what);
  }
}

bool Parser::peek_directive(std::string_view& name) {
  skip_ws();
  if (p_ >= end_ || *p_ != '.') return false;
  const char* q = p_ + 1;
  return lex_modifier(q, end_, name);
}

bool Parser::accept_directive(std::string_view name) {
  std::string_view found;
  if (!peek_directive(found) || found != name) return false;
  p_ += 1 + found.size();
  return true;
}

std::string_view Parser::expect_identifier(const char* what) {
  skip_ws();
  std::string_view id;
  if (!lex_identifier(p_, end_, id)) fail_expected(what);
  return id;
}

std::uint64_t Parser::expect_uint(const char* what) {
  skip_ws();
  std::uint64_t v = 0;
  if (!lex_uint(p_, end_, v)) fail_expected(what);
  return v;
}

std::uint32_t Parser::expect_u32(const char* what) {
  skip_ws();
  const char* start = p_;
  std::uint64_t v = expect_uint(what);
  if (v > 0xffffffffu) {
    p_ = start;
    std::string msg = "value out of range for ";
    msg += what;
    fail_here(std::move(msg));
  }
  return static_cast<std::uint32_t>(v);
}

std::string Parser::describe_found() {
  if (p_ >= end_) return "end of file";
  const char* q = p_;
  std::string_view tok;
  if (*q == '.') {
    ++q;
    if (lex_modifier(q, end_, tok)) return quoted(".", tok.substr(0, 64));
  } else if (lex_identifier(q, end_, tok)) {
    return quoted("", tok.substr(0, 64));
  } else if (*q >= '0' && *q <= '9') {
    const char* e = q;
    while (e < end_ && e - q < 64 && (is_ident_char(*e) || *e == '.'))
      ++e;
    return quoted("", std::string_view(q, static_cast<std::size_t>(e - q)));
  }
  auto c = static_cast<unsigned char>(*p_);
  char buf[32];
  if (c < 0x20 || c >= 0x7f)
    std::snprintf(buf, sizeof buf, "byte 0x%02x", c);
  else
    std::snprintf(buf, sizeof buf, "'%c'", c);
  return buf;
}

void Parser::fail_expected(std::string_view what) {
  skip_ws();
  std::string msg = "expected ";
  msg += what;
  msg += ", found ";
  msg += describe_found();
  fail_here(std::move(msg));
}

void Parser::fail_here(std::string message) {
  error_.path = path_;
  error_.loc = here();
  error_.message = std::move(message);
  const char* e = line_start_;
  while (e < end_ && *e != '\n' && e - line_start_ < 4096)
    ++e;
  error_.source_line.assign(line_start_, e);
  throw Failure{};
}

// ---- module -----------------------------------------------------------------------------------

Module Parser::parse_module() {
  Module m;
  m.path = path_;
  {
    // The comments before the first directive, up to the end of the last one that a line end
    // separates from it (a block comment that ends on the directive's line is not kept: cutting
    // inside it would leave it open).
    const char* start = p_;
    skip_ws(); // also rejects an unterminated comment
    const char* first = p_;
    const char* end = start;
    for (const char* q = start; q < first;) {
      const char* after = nullptr;
      if (q + 1 < first && q[0] == '/' && q[1] == '/') {
        after = q;
        while (after < first && *after != '\n')
          ++after;
      } else if (q + 1 < first && q[0] == '/' && q[1] == '*') {
        after = q + 2;
        while (after + 1 < first && !(after[0] == '*' && after[1] == '/'))
          ++after;
        after += 2;
      }
      if (after == nullptr) {
        ++q;
        continue;
      }
      if (std::find(after, first, '\n') != first) end = after; // a line end follows it
      q = after;
    }
    std::string_view block(start, static_cast<std::size_t>(end - start));
    while (!block.empty() && (block.front() == '\n' || block.front() == '\r' ||
                              block.front() == ' ' || block.front() == '\t'))
      block.remove_prefix(1);
    m.leading_comments = block;
  }
  bool have_version = false;
  while (!at_end()) {
    SourceLoc loc = here();
    std::string_view dir;
    if (!peek_directive(dir)) fail_expected("a directive, variable or function");
    if (dir == "version") {
      if (have_version) fail_here("duplicate .version directive");
      p_ += 1 + dir.size();
      skip_ws();
      if (!lex_version(p_, end_, m.version_major, m.version_minor))
        fail_expected("a version number MAJOR.MINOR");
      m.version_loc = loc;
      have_version = true;
    } else if (dir == "target") {
      if (!m.targets.empty()) fail_here("duplicate .target directive");
      p_ += 1 + dir.size();
      m.target_loc = loc;
      do {
        m.targets.push_back(expect_identifier("a target (sm_XX, debug, ...)"));
      } while (accept(','));
    } else if (dir == "address_size") {
      if (m.address_size != 0) fail_here("duplicate .address_size directive");
      p_ += 1 + dir.size();
      m.address_size_loc = loc;
      m.address_size = expect_u32("an address size (32 or 64)");
      if (m.address_size != 32 && m.address_size != 64) fail_here("address size must be 32 or 64");
    } else if (dir == "file") {
      p_ += 1 + dir.size();
      parse_file(m, loc);
    } else if (dir == "section") {
      p_ += 1 + dir.size();
      parse_section(m, loc);
    } else if (dir == "pragma" || dir == "alias") {
      p_ += 1 + dir.size();
      m.items.emplace_back(parse_directive_args(loc, dir, {}, dir == "pragma"));
    } else {
      Linkage linkage = Linkage::kNone;
      if (accept_directive("visible"))
        linkage = Linkage::kVisible;
      else if (accept_directive("extern"))
        linkage = Linkage::kExtern;
      else if (accept_directive("weak"))
        linkage = Linkage::kWeak;
      else if (accept_directive("common"))
        linkage = Linkage::kCommon;
      if (!peek_directive(dir)) fail_expected("'.entry', '.func' or a variable declaration");
      if (dir == "entry" || dir == "func") {
        parse_function(m, linkage, loc);
      } else if (dir == "global" || dir == "const" || dir == "shared" || dir == "tex" ||
                 dir == "local") {
        std::vector<VarDecl> decls;
        parse_decl(decls, linkage, loc, false);
        for (auto& d : decls)
          m.items.emplace_back(d);
      } else {
        fail_expected("a directive, variable or function");
      }
    }
  }
  if (!have_version) {
    // Every PTX module starts with .version: an empty file (or one of comments only, or a
    // fragment) is no module, and reporting it clean would pass a truncated or wrong input.
    p_ = begin_;
    line_ = 1;
    line_start_ = begin_;
    fail_here("no PTX module: missing .version (a module starts with `.version MAJOR.MINOR`)");
  }
  return m;
}

Directive Parser::parse_directive_args(SourceLoc loc, std::string_view name, std::string_view label,
                                       bool strings) {
  Directive d;
  d.loc = loc;
  d.name = name;
  d.label = label;
  std::vector<std::string_view> args;
  skip_ws();
  if (p_ < end_ && *p_ != ';') {
    do {
      skip_ws();
      std::string_view a;
      if (strings) {
        if (!lex_string(p_, end_, a)) fail_expected("a string");
      } else {
        a = expect_identifier("an identifier");
      }
      args.push_back(a);
    } while (accept(','));
  }
  expect(';');
  d.args = arena_.copy(args);
  return d;
}

void Parser::parse_file(Module& m, SourceLoc loc) {
  FileDirective f;
  f.loc = loc;
  f.index = expect_u32("a file number");
  skip_ws();
  if (!lex_string(p_, end_, f.path)) fail_expected("a quoted file name");
  if (accept(',')) {
    f.has_timestamp = true;
    f.timestamp = expect_uint("a timestamp");
    if (accept(',')) {
      f.has_size = true;
      f.size = expect_uint("a file size");
    }
  }
  m.items.emplace_back(f);
}

void Parser::parse_section(Module& m, SourceLoc loc) {
  Section s;
  s.loc = loc;
  skip_ws();
  const char* start = p_;
  // `.debug_info`, `.nv.constant0`, ...: dot-separated identifiers.
  if (p_ < end_ && *p_ == '.') ++p_;
  std::string_view name;
  if (!lex_identifier(p_, end_, name)) {
    p_ = start;
    fail_expected("a section name");
  }
  while (p_ + 1 < end_ && *p_ == '.' && is_ident_char(p_[1])) {
    ++p_;
    if (!lex_identifier(p_, end_, name)) fail_expected("a section name");
  }
  s.name = {start, static_cast<std::size_t>(p_ - start)};
  expect('{');
  std::vector<std::string_view> values;
  SectionEntry pending;
  auto flush = [&] {
    if (pending.type != ScalarType::kUnknown) {
      pending.values = arena_.copy(values);
      s.entries.push_back(pending);
    }
    pending = SectionEntry{};
    values.clear();
  };
  while (!accept('}')) {
    if (p_ >= end_) fail_expected("'}'");
    SourceLoc eloc = here();
    std::string_view dir;
    if (peek_directive(dir)) {
      ScalarType t = isa::type_from_spelling(dir);
      if (t == ScalarType::kUnknown || isa::size_bytes(t) == 0 || t == ScalarType::kPred)
        fail_expected("'.b8', '.b16', '.b32', '.b64' or a label");
      p_ += 1 + dir.size();
      if (t != pending.type) {
        flush();
        pending.loc = eloc;
        pending.type = t;
      }
      do {
        values.push_back(parse_expression(true));
      } while (accept(','));
    } else {
      std::string_view label = expect_identifier("a data directive or a label");
      expect(':');
      flush();
      SectionEntry e;
      e.loc = eloc;
      e.label = label;
      s.entries.push_back(e);
    }
  }
  flush();
  m.items.emplace_back(std::move(s));
}

void Parser::parse_params(std::vector<VarDecl>& out) {
  // After '(' : `.param ...` or `.reg ...` declarations separated by ','.
  if (accept(')')) return;
  do {
    skip_ws();
    SourceLoc loc = here();
    std::string_view dir;
    if (!peek_directive(dir) || (dir != "param" && dir != "reg"))
      fail_expected("a parameter ('.param' or '.reg')");
    parse_decl(out, Linkage::kNone, loc, true);
  } while (accept(','));
  expect(')');
}

void Parser::parse_function(Module& m, Linkage linkage, SourceLoc loc) {
  Function f;
  f.loc = loc;
  f.linkage = linkage;
  if (accept_directive("entry")) {
    f.kind = FunctionKind::kEntry;
  } else {
    (void)accept_directive("func");
    f.kind = FunctionKind::kFunc;
    if (accept_directive("attribute")) f.attributes = parse_attributes();
    if (accept('(')) parse_params(f.returns);
  }
  f.name = expect_identifier("a function name");
  if (accept('(')) parse_params(f.params);
  for (;;) {
    skip_ws();
    SourceLoc dloc = here();
    std::string_view dir;
    if (!peek_directive(dir)) break;
    PerfDirective d;
    d.loc = dloc;
    d.name = dir;
    if (dir == "noreturn") {
      p_ += 1 + dir.size();
      f.noreturn = true;
      continue;
    }
    if (dir == "maxntid" || dir == "reqntid" || dir == "reqnctapercluster") {
      p_ += 1 + dir.size();
      do {
        d.values.push_back(expect_u32("a number"));
      } while (d.values.size() < 3 && accept(','));
    } else if (dir == "minnctapersm" || dir == "maxnctapersm" || dir == "maxnreg" ||
               dir == "maxclusterrank" || dir == "abi_preserve" || dir == "abi_preserve_control") {
      p_ += 1 + dir.size();
      d.values.push_back(expect_u32("a number"));
    } else if (dir == "explicitcluster" || dir == "blocksareclusters") {
      p_ += 1 + dir.size();
    } else if (dir == "pragma") {
      p_ += 1 + dir.size();
      skip_ws();
      if (!lex_string(p_, end_, d.text)) fail_expected("a string");
      expect(';');
    } else {
      fail_expected("a performance directive, '{' or ';'");
    }
    f.directives.push_back(std::move(d));
  }
  skip_ws();
  if (accept(';')) {
    f.has_body = false;
  } else {
    f.body.loc = here();
    expect('{');
    f.has_body = true;
    parse_block(f.body, 1);
  }
  m.items.emplace_back(std::move(f));
}

} // namespace detail

std::string ParseError::format() const {
  std::string out = path;
  out += ':';
  out += std::to_string(loc.line);
  out += ':';
  out += std::to_string(loc.col);
  out += ": error: ";
  out += message;
  out += '\n';
  out += source_line;
  out += '\n';
  for (std::uint32_t i = 1; i < loc.col && i - 1 < source_line.size(); ++i)
    out += source_line[i - 1] == '\t' ? '\t' : ' ';
  out += "^\n";
  return out;
}

ParseResult parse_owned(std::string text, std::string path) {
  auto storage = std::make_shared<detail::Storage>();
  storage->text = std::move(text);
  detail::Parser parser(*storage, std::move(path));
  try {
    Module m = parser.parse_module();
    m.storage = std::move(storage);
    return ParseResult(std::move(m));
  } catch (const detail::Failure&) {
    return ParseResult(std::move(parser.error()));
  }
}

ParseResult parse(std::string_view text, std::string path) {
  return parse_owned(std::string(text), std::move(path));
}

} // namespace ptxkit::verifier
