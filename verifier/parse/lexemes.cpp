// lexemes.cpp: the lexical level of the PTX parser (identifiers, modifiers, numbers, strings) and
// the fixed-shape directives (.version, .loc), written as Spirit X3 rules.
//
// Why X3 here: these are the places where PTX's spelling rules are dense (0f/0d float patterns,
// hex/octal/binary integers with U suffixes, `::` modifiers, the optional clauses of .loc), and a
// declarative grammar states them exactly; the statement structure above them is a hand-written
// dispatcher (parser.cpp) so that nesting depth and error messages stay under our control. All
// rules are no-backtracking-heavy and linear in the lexeme length. The X3 headers are included in
// this one translation unit only, to keep compile time down.
#include "parse/parser_p.h"

#include <bit>
#include <boost/spirit/home/x3.hpp>
#include <cstring>

namespace ptxkit::verifier::detail {
namespace x3 = boost::spirit::x3;
namespace {

const auto ident_tail = *(x3::ascii::alnum | x3::ascii::char_("_$"));
const auto identifier = (x3::ascii::alpha >> ident_tail) |
                        (x3::ascii::char_("_$%") >> +(x3::ascii::alnum | x3::ascii::char_("_$")));
const auto modifier_part = +(x3::ascii::alnum | x3::ascii::char_('_'));
const auto modifier = modifier_part >> *(x3::lit("::") >> modifier_part);

const x3::uint_parser<std::uint32_t, 16, 8, 8> hex8;
const x3::uint_parser<std::uint64_t, 16, 16, 16> hex16;
const x3::uint_parser<std::uint64_t, 16> hex_u64;
const x3::uint_parser<std::uint64_t, 8> oct_u64;
const x3::uint_parser<std::uint64_t, 2> bin_u64;
const x3::uint_parser<std::uint64_t, 10> dec_u64;
const x3::uint_parser<std::uint32_t, 10> dec_u32;
const x3::real_parser<double, x3::strict_ureal_policies<double>> strict_double;

// Runs `rule` on [p, end); commits p only on success.
template <class Rule>
bool run(const char*& p, const char* end, const Rule& rule) {
  const char* it = p;
  if (!x3::parse(it, end, rule)) return false;
  p = it;
  return true;
}

} // namespace

bool lex_identifier(const char*& p, const char* end, std::string_view& out) {
  const char* start = p;
  if (!run(p, end, identifier)) return false;
  out = {start, static_cast<std::size_t>(p - start)};
  return true;
}

bool lex_modifier(const char*& p, const char* end, std::string_view& out) {
  const char* start = p;
  if (!run(p, end, modifier)) return false;
  out = {start, static_cast<std::size_t>(p - start)};
  return true;
}

bool lex_number(const char*& p, const char* end, NumberLit& out, bool& out_of_range) {
  out_of_range = false;
  const char* it = p;
  bool negative = false;
  if (it != end && *it == '-') {
    negative = true;
    ++it;
  }
  if (it == end || !(*it >= '0' && *it <= '9')) {
    // ".5" is not PTX; neither is a lone sign.
    return false;
  }
  NumberLit lit;
  std::uint32_t u32 = 0;
  std::uint64_t u64 = 0;
  double d = 0;
  auto set_u32 = [&](auto& ctx) { u32 = x3::_attr(ctx); };
  auto set_u64 = [&](auto& ctx) { u64 = x3::_attr(ctx); };
  auto set_d = [&](auto& ctx) { d = x3::_attr(ctx); };
  const auto suffix = -x3::omit[x3::ascii::char_("uU")];
  if (run(it, end, (x3::lit("0f") | x3::lit("0F")) >> hex8[set_u32])) {
    if (negative) return false;
    lit.is_float = true;
    lit.f32_pattern = true;
    lit.bits = u32;
  } else if (run(it, end, (x3::lit("0d") | x3::lit("0D")) >> hex16[set_u64])) {
    if (negative) return false;
    lit.is_float = true;
    lit.bits = u64;
  } else if (run(it, end, (x3::lit("0x") | x3::lit("0X")) >> hex_u64[set_u64] >> suffix) ||
             run(it, end, (x3::lit("0b") | x3::lit("0B")) >> bin_u64[set_u64] >> suffix)) {
    lit.bits = negative ? ~u64 + 1 : u64;
  } else if (run(it, end, strict_double[set_d])) {
    lit.is_float = true;
    lit.bits = std::bit_cast<std::uint64_t>(negative ? -d : d);
  } else if (run(it, end, x3::lit('0') >> oct_u64[set_u64] >> suffix) ||
             run(it, end, dec_u64[set_u64] >> suffix)) {
    lit.bits = negative ? ~u64 + 1 : u64;
  } else {
    out_of_range = true; // starts like a number but is not one (or overflows 64 bits)
    return false;
  }
  if (it != end && is_ident_char(*it)) { // "12abc", "0f3F80000012"
    out_of_range = true;
    return false;
  }
  out = lit;
  p = it;
  return true;
}

bool lex_uint(const char*& p, const char* end, std::uint64_t& out) {
  std::uint64_t v = 0;
  auto set = [&](auto& ctx) { v = x3::_attr(ctx); };
  const char* it = p;
  if (!run(it, end, ((x3::lit("0x") | x3::lit("0X")) >> hex_u64[set]) | dec_u64[set])) return false;
  if (it != end && is_ident_char(*it)) return false;
  p = it;
  out = v;
  return true;
}

bool lex_string(const char*& p, const char* end, std::string_view& out) {
  const char* start = p;
  // ascii::char_ rejects bytes >= 0x80; accept them too (UTF-8 paths).
  const auto any_byte = x3::standard::char_;
  const auto str8 = x3::lit('"') >>
                    *((x3::lit('\\') >> (any_byte - '\n')) | (any_byte - '"' - '\n' - '\\')) >>
                    x3::lit('"');
  if (!run(p, end, str8)) return false;
  out = {start, static_cast<std::size_t>(p - start)};
  return true;
}

bool lex_loc_args(const char*& p, const char* end, LocArgs& out) {
  LocArgs a;
  const char* fn_start = nullptr;
  const char* fn_end = nullptr;
  auto at = [](std::uint32_t& dst) { return [&dst](auto& ctx) { dst = x3::_attr(ctx); }; };
  auto fn = [&](auto& ctx) {
    fn_start = x3::_attr(ctx).begin();
    fn_end = x3::_attr(ctx).end();
  };
  auto inl = [&](auto&) { a.has_inlined_at = true; };
  const auto rule =
      dec_u32[at(a.file)] >> dec_u32[at(a.line)] >> dec_u32[at(a.col)] >>
      -(x3::lit(',') >> x3::lit("function_name") >> x3::lexeme[x3::raw[identifier]][fn]) >>
      -(x3::lit(',') >> x3::lit("inlined_at")[inl] >> dec_u32[at(a.inlined_file)] >>
        dec_u32[at(a.inlined_line)] >> dec_u32[at(a.inlined_col)]);
  const char* it = p;
  if (!x3::phrase_parse(it, end, rule, x3::ascii::blank)) return false;
  if (fn_start != nullptr)
    a.function_name = {fn_start, static_cast<std::size_t>(fn_end - fn_start)};
  out = a;
  p = it;
  return true;
}

bool lex_version(const char*& p, const char* end, std::uint32_t& major, std::uint32_t& minor) {
  std::uint32_t ma = 0, mi = 0;
  auto set_ma = [&](auto& ctx) { ma = x3::_attr(ctx); };
  auto set_mi = [&](auto& ctx) { mi = x3::_attr(ctx); };
  if (!run(p, end, dec_u32[set_ma] >> x3::lit('.') >> dec_u32[set_mi])) return false;
  major = ma;
  minor = mi;
  return true;
}

} // namespace ptxkit::verifier::detail
