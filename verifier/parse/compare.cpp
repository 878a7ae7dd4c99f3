// compare.cpp: structural equality of two Modules, ignoring source locations.
//
// Why: the round-trip property (re-parsing the printed form gives the same tree) is checked on
// every corpus file, and locations necessarily differ between the input and the printed form.
#include "ptxkit/verifier/ast.h"

#include <algorithm>

namespace ptxkit::verifier {
namespace {

template <class T, class Eq>
bool same_range(const T& a, const T& b, Eq eq) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), eq);
}

bool eq(const Operand& a, const Operand& b) {
  return a.kind == b.kind && a.flags == b.flags && a.bits == b.bits && a.text() == b.text() &&
         same_range(a.elements(), b.elements(),
                    [](const Operand& x, const Operand& y) { return eq(x, y); });
}

bool eq(const InitValue& a, const InitValue& b) {
  return a.kind == b.kind && a.text() == b.text() &&
         same_range(a.elements(), b.elements(),
                    [](const InitValue& x, const InitValue& y) { return eq(x, y); });
}

bool eq(const Attributes* a, const Attributes* b) {
  if (a == nullptr || b == nullptr) return a == b;
  return a->managed == b->managed && a->unified == b->unified && a->uuid1 == b->uuid1 &&
         a->uuid2 == b->uuid2;
}

bool eq(const VarDecl& a, const VarDecl& b) {
  if (!eq(a.attributes, b.attributes)) return false;
  if ((a.init == nullptr) != (b.init == nullptr)) return false;
  if (a.init && !eq(*a.init, *b.init)) return false;
  return a.name == b.name && same_range(a.dims, b.dims, std::equal_to<>{}) && a.align == b.align &&
         a.range == b.range && a.ptr_align == b.ptr_align && a.space == b.space &&
         a.linkage == b.linkage && a.type == b.type && a.vector_width == b.vector_width &&
         a.has_range == b.has_range && a.is_ptr == b.is_ptr && a.ptr_space == b.ptr_space;
}

bool eq_decls(const std::vector<VarDecl>& a, const std::vector<VarDecl>& b) {
  return same_range(a, b, [](const VarDecl& x, const VarDecl& y) { return eq(x, y); });
}

bool eq(const Instruction& a, const Instruction& b) {
  return a.opcode == b.opcode && a.guard == b.guard && a.guard_negated == b.guard_negated &&
         same_range(a.modifiers, b.modifiers, std::equal_to<>{}) &&
         same_range(a.operands, b.operands,
                    [](const Operand& x, const Operand& y) { return eq(x, y); });
}

bool eq(const LocDirective& a, const LocDirective& b) {
  return a.file == b.file && a.line == b.line && a.col == b.col &&
         a.has_inlined_at == b.has_inlined_at && a.inlined_file == b.inlined_file &&
         a.inlined_line == b.inlined_line && a.inlined_col == b.inlined_col &&
         a.function_name == b.function_name;
}

bool eq(const Directive& a, const Directive& b) {
  return a.name == b.name && a.label == b.label && same_range(a.args, b.args, std::equal_to<>{});
}

bool eq(const CallPrototype& a, const CallPrototype& b) {
  return a.label == b.label && a.noreturn == b.noreturn && eq_decls(a.returns, b.returns) &&
         eq_decls(a.params, b.params);
}

bool eq(const Label& a, const Label& b) {
  return a.name == b.name;
}

bool eq(const Block& a, const Block& b);

bool eq(const Statement& a, const Statement& b) {
  if (a.node.index() != b.node.index()) return false;
  return std::visit(
      [&](const auto& x) {
        using T = std::decay_t<decltype(x)>;
        return eq(x, std::get<T>(b.node));
      },
      a.node);
}

bool eq(const Block& a, const Block& b) {
  return same_range(a.statements, b.statements,
                    [](const Statement& x, const Statement& y) { return eq(x, y); });
}

bool eq(const PerfDirective& a, const PerfDirective& b) {
  return a.name == b.name && a.values == b.values && a.text == b.text;
}

bool eq(const Function& a, const Function& b) {
  return a.linkage == b.linkage && a.kind == b.kind && a.name == b.name &&
         eq_decls(a.returns, b.returns) && eq_decls(a.params, b.params) &&
         same_range(a.directives, b.directives,
                    [](const PerfDirective& x, const PerfDirective& y) { return eq(x, y); }) &&
         eq(a.attributes, b.attributes) && a.noreturn == b.noreturn && a.has_body == b.has_body &&
         eq(a.body, b.body);
}

bool eq(const FileDirective& a, const FileDirective& b) {
  return a.index == b.index && a.path == b.path && a.has_timestamp == b.has_timestamp &&
         a.timestamp == b.timestamp && a.has_size == b.has_size && a.size == b.size;
}

bool eq(const SectionEntry& a, const SectionEntry& b) {
  return a.label == b.label && a.type == b.type &&
         same_range(a.values, b.values, std::equal_to<>{});
}

bool eq(const Section& a, const Section& b) {
  return a.name == b.name &&
         same_range(a.entries, b.entries,
                    [](const SectionEntry& x, const SectionEntry& y) { return eq(x, y); });
}

bool eq(const TopLevel& a, const TopLevel& b) {
  if (a.index() != b.index()) return false;
  return std::visit(
      [&](const auto& x) {
        using T = std::decay_t<decltype(x)>;
        return eq(x, std::get<T>(b));
      },
      a);
}

} // namespace

bool equal_ignoring_locations(const Module& a, const Module& b) {
  return a.version_major == b.version_major && a.version_minor == b.version_minor &&
         a.targets == b.targets && a.address_size == b.address_size &&
         a.leading_comments == b.leading_comments &&
         same_range(a.items, b.items,
                    [](const TopLevel& x, const TopLevel& y) { return eq(x, y); });
}

} // namespace ptxkit::verifier
