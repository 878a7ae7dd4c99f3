// ast.cpp: the small queries of ast.h (parameter sizes, directive lookups).
//
// Kept apart from the parser so that passes that only read a Module do not pull in Spirit X3.
#include "ptxkit/verifier/ast.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cstring>
#include <iterator>

namespace ptxkit::verifier {
namespace {

std::optional<std::array<std::uint32_t, 3>> dims3(const Function& f, std::string_view name) {
  const PerfDirective* d = f.find_directive(name);
  if (d == nullptr) return std::nullopt;
  std::array<std::uint32_t, 3> v{1, 1, 1};
  for (std::size_t i = 0; i < d->values.size() && i < 3; ++i)
    v[i] = d->values[i];
  return v;
}

std::optional<std::uint32_t> dim1(const Function& f, std::string_view name) {
  const PerfDirective* d = f.find_directive(name);
  if (d == nullptr || d->values.empty()) return std::nullopt;
  return d->values[0];
}

} // namespace

int vector_element_index(std::string_view name) {
  if (name.size() < 3 || name[name.size() - 2] != '.') return -1;
  switch (name.back()) {
  case 'x':
  case 'r':
    return 0;
  case 'y':
  case 'g':
    return 1;
  case 'z':
  case 'b':
    return 2;
  case 'w':
  case 'a':
    return 3;
  default:
    return -1;
  }
}

std::string_view state_space_name(StateSpace s) {
  switch (s) {
  case StateSpace::kNone:
    return "";
  case StateSpace::kReg:
    return "reg";
  case StateSpace::kSreg:
    return "sreg";
  case StateSpace::kConst:
    return "const";
  case StateSpace::kGlobal:
    return "global";
  case StateSpace::kLocal:
    return "local";
  case StateSpace::kParam:
    return "param";
  case StateSpace::kShared:
    return "shared";
  case StateSpace::kTex:
    return "tex";
  }
  return "";
}

double Operand::float_value() const {
  if (is_f32_pattern()) {
    auto pattern = static_cast<std::uint32_t>(bits);
    float f = 0;
    std::memcpy(&f, &pattern, sizeof f);
    return f;
  }
  return std::bit_cast<double>(bits);
}

std::uint64_t VarDecl::size_in_bytes() const {
  std::uint64_t n = isa::size_bytes(type) * std::uint64_t{vector_width == 0 ? 1u : vector_width};
  for (std::uint64_t d : dims)
    n = d == kUnknownDim ? 0 : n * d;
  return n;
}

std::uint32_t VarDecl::alignment() const {
  if (align != 0) return align;
  return isa::size_bytes(type) * (vector_width == 0 ? 1u : vector_width);
}

bool Instruction::has_modifier(std::string_view m) const {
  return std::find(modifiers.begin(), modifiers.end(), m) != modifiers.end();
}

std::vector<isa::Type> Instruction::types() const {
  std::vector<isa::Type> out;
  for (std::string_view m : modifiers)
    if (isa::Type t = isa::type_from_spelling(m); t != isa::Type::kUnknown) out.push_back(t);
  return out;
}

isa::Type Instruction::last_type() const {
  isa::Type last = isa::Type::kUnknown;
  for (std::string_view m : modifiers)
    if (isa::Type t = isa::type_from_spelling(m); t != isa::Type::kUnknown) last = t;
  return last;
}

std::string Instruction::full_opcode() const {
  std::string s(opcode);
  for (std::string_view m : modifiers) {
    s += '.';
    s += m;
  }
  return s;
}

const PerfDirective* Function::find_directive(std::string_view name) const {
  for (const auto& d : directives)
    if (d.name == name) return &d;
  return nullptr;
}

std::optional<std::array<std::uint32_t, 3>> Function::maxntid() const {
  return dims3(*this, "maxntid");
}
std::optional<std::array<std::uint32_t, 3>> Function::reqntid() const {
  return dims3(*this, "reqntid");
}
std::optional<std::array<std::uint32_t, 3>> Function::reqnctapercluster() const {
  return dims3(*this, "reqnctapercluster");
}
std::optional<std::uint32_t> Function::minnctapersm() const {
  return dim1(*this, "minnctapersm");
}
std::optional<std::uint32_t> Function::maxnreg() const {
  return dim1(*this, "maxnreg");
}
std::optional<std::uint32_t> Function::maxclusterrank() const {
  return dim1(*this, "maxclusterrank");
}

const Function* Module::find_function(std::string_view name) const {
  for (const auto& item : items)
    if (const auto* f = std::get_if<Function>(&item); f && f->name == name) return f;
  return nullptr;
}

std::vector<const Function*> Module::functions() const {
  std::vector<const Function*> out;
  for (const auto& item : items)
    if (const auto* f = std::get_if<Function>(&item)) out.push_back(f);
  return out;
}

std::vector<const Function*> Module::entries() const {
  std::vector<const Function*> out;
  for (const auto& item : items)
    if (const auto* f = std::get_if<Function>(&item); f && f->kind == FunctionKind::kEntry)
      out.push_back(f);
  return out;
}

std::string_view Module::sm_target() const {
  for (std::string_view t : targets)
    if (t.starts_with("sm_") || t.starts_with("compute_")) return t;
  return {};
}

} // namespace ptxkit::verifier
