// ast.cpp: the small queries of ast.h (type sizes and names, parameter sizes, directive lookups).
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

struct TypeInfo {
  ScalarType type;
  std::string_view name;
  std::uint32_t size;
};

constexpr TypeInfo kTypes[] = {
    {ScalarType::kB8, "b8", 1},
    {ScalarType::kB16, "b16", 2},
    {ScalarType::kB32, "b32", 4},
    {ScalarType::kB64, "b64", 8},
    {ScalarType::kB128, "b128", 16},
    {ScalarType::kU8, "u8", 1},
    {ScalarType::kU16, "u16", 2},
    {ScalarType::kU32, "u32", 4},
    {ScalarType::kU64, "u64", 8},
    {ScalarType::kS8, "s8", 1},
    {ScalarType::kS16, "s16", 2},
    {ScalarType::kS32, "s32", 4},
    {ScalarType::kS64, "s64", 8},
    {ScalarType::kF16, "f16", 2},
    {ScalarType::kF16x2, "f16x2", 4},
    {ScalarType::kBF16, "bf16", 2},
    {ScalarType::kBF16x2, "bf16x2", 4},
    {ScalarType::kF32, "f32", 4},
    {ScalarType::kF64, "f64", 8},
    {ScalarType::kTF32, "tf32", 4},
    {ScalarType::kE4M3, "e4m3", 1},
    {ScalarType::kE5M2, "e5m2", 1},
    {ScalarType::kE4M3x2, "e4m3x2", 2},
    {ScalarType::kE5M2x2, "e5m2x2", 2},
    {ScalarType::kPred, "pred", 1},
    {ScalarType::kTexRef, "texref", 0},
    {ScalarType::kSamplerRef, "samplerref", 0},
    {ScalarType::kSurfRef, "surfref", 0},
};

const TypeInfo* find_type(ScalarType t) {
  for (const auto& info : kTypes)
    if (info.type == t) return &info;
  return nullptr;
}

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

std::uint32_t scalar_type_size(ScalarType t) {
  const TypeInfo* info = find_type(t);
  return info ? info->size : 0;
}

std::string_view scalar_type_name(ScalarType t) {
  const TypeInfo* info = find_type(t);
  return info ? info->name : std::string_view{};
}

ScalarType scalar_type_from_name(std::string_view name) {
  // Asked of every modifier by the analyses, most of which are not types ("global", "sync"):
  // a lookup by first character and length rejects those without comparing strings.
  struct Index {
    std::array<std::uint64_t, 128> by_first{}; // bit i: kTypes[i] starts with this character
    std::uint32_t max_size = 0;
    Index() {
      for (std::size_t i = 0; i < std::size(kTypes); ++i) {
        by_first[static_cast<unsigned char>(kTypes[i].name[0]) & 127] |= std::uint64_t{1} << i;
        max_size =
            std::max<std::uint32_t>(max_size, static_cast<std::uint32_t>(kTypes[i].name.size()));
      }
    }
  };
  static_assert(std::size(kTypes) <= 64);
  static const Index index;
  if (name.empty() || name.size() > index.max_size || static_cast<unsigned char>(name[0]) > 127)
    return ScalarType::kUnknown;
  for (std::uint64_t m = index.by_first[static_cast<unsigned char>(name[0])]; m != 0; m &= m - 1) {
    const TypeInfo& info = kTypes[static_cast<std::size_t>(std::countr_zero(m))];
    if (info.name == name) return info.type;
  }
  return ScalarType::kUnknown;
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
  std::uint64_t n = scalar_type_size(type) * std::uint64_t{vector_width == 0 ? 1u : vector_width};
  for (std::uint64_t d : dims)
    n = d == kUnknownDim ? 0 : n * d;
  return n;
}

std::uint32_t VarDecl::alignment() const {
  if (align != 0) return align;
  return scalar_type_size(type) * (vector_width == 0 ? 1u : vector_width);
}

bool Instruction::has_modifier(std::string_view m) const {
  return std::find(modifiers.begin(), modifiers.end(), m) != modifiers.end();
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
