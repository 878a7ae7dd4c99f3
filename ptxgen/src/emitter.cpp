// emitter.cpp: the builder core: registers, instructions, labels, names, errors and finish().
//
// Everything that can only be checked once the whole kernel is known (labels) is checked in
// finish(); everything else is recorded as it happens, with the C++ line of the call.
#include "ptxkit/ptxgen/emitter.h"

#include "ptxkit/ptxgen/isa/common.h"
#include "text_p.h"

#include <cassert>
#include <string>

namespace ptxkit::ptxgen {
namespace {

bool is_identifier(std::string_view s) {
  if (s.empty()) return false;
  auto alpha = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; };
  auto digit = [](char c) { return c >= '0' && c <= '9'; };
  if (!alpha(s[0])) return false;
  for (char c : s) {
    if (!alpha(c) && !digit(c)) return false;
  }
  return true;
}

std::string sanitize(std::string_view s) {
  std::string out;
  for (char c : s) {
    bool ok =
        (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
    out += ok ? c : '_';
  }
  return out.empty() ? "L" : out;
}

Error located(std::string message, const SourceLoc& loc) {
  return Error{std::move(message), loc.file, loc.line, loc.column};
}

std::string where(const SourceLoc& loc) {
  return detail::cat(loc.file, ":", loc.line);
}

} // namespace

Emitter::Emitter(std::string kernel_name, Target target)
    : kernel_{std::move(kernel_name), target, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}} {
  if (!is_identifier(kernel_.name)) {
    errors_.push_back(Error{detail::cat("invalid kernel name '", kernel_.name,
                                        "' (PTX identifiers: [A-Za-z_][A-Za-z0-9_]*)"),
                            "", 0, 0});
  }
  names_.push_back(kernel_.name);
}

void Emitter::reqntid(std::uint32_t x, std::uint32_t y, std::uint32_t z) {
  kernel_.reqntid = std::array<std::uint32_t, 3>{x, y, z};
}
void Emitter::maxntid(std::uint32_t x, std::uint32_t y, std::uint32_t z) {
  kernel_.maxntid = std::array<std::uint32_t, 3>{x, y, z};
}
void Emitter::minnctapersm(std::uint32_t n) {
  kernel_.minnctapersm = n;
}

Label Emitter::new_label(std::string_view name) {
  LabelInfo info;
  info.name = std::string(name);
  std::string base = detail::cat("$L__", sanitize(name));
  std::string ptx = base;
  for (unsigned n = 1;; ++n) {
    bool clash = false;
    for (const LabelInfo& l : kernel_.labels)
      clash = clash || l.ptx_name == ptx;
    if (!clash) break;
    ptx = detail::cat(base, "_", n);
  }
  info.ptx_name = ptx;
  kernel_.labels.push_back(std::move(info));
  return Label(detail::RegKey{static_cast<std::uint32_t>(kernel_.labels.size() - 1)});
}

void Emitter::place(Label label, Loc loc) {
  assert(label.id() < kernel_.labels.size() && "label from another builder");
  LabelInfo& info = kernel_.labels[label.id()];
  ++info.placed;
  if (info.placed == 1) info.first_place = to_loc(loc);
  if (info.placed == 2) info.second_place = to_loc(loc);
  if (info.placed > 1) return; // reported by finish(); the PTX would be ambiguous
  Instr in;
  in.is_label = true;
  in.label = label.id();
  in.loc = to_loc(loc);
  kernel_.body.push_back(std::move(in));
}

void Emitter::note_label_use(Label label, const Loc& loc) {
  assert(label.id() < kernel_.labels.size() && "label from another builder");
  LabelInfo& info = kernel_.labels[label.id()];
  if (!info.used) info.first_use = to_loc(loc);
  info.used = true;
}

Expected<Kernel> Emitter::finish() {
  assert(!finished_ && "finish() called twice");
  finished_ = true;
  for (const LabelInfo& l : kernel_.labels) {
    if (l.placed > 1) {
      errors_.push_back(
          located(detail::cat("label '", l.name, "' is placed twice (at ", where(l.first_place),
                              " and ", where(l.second_place), ")"),
                  l.second_place));
    } else if (l.used && l.placed == 0) {
      errors_.push_back(located(detail::cat("label '", l.name, "' is used (first at ",
                                            where(l.first_use), ") but never placed"),
                                l.first_use));
    }
  }
  if (guarded_) errors_.push_back(Error{"finish() inside a guard scope", "", 0, 0});
  if (!errors_.empty()) return errors_.front();
  return std::move(kernel_);
}

Emitter::GuardScope::~GuardScope() {
  e_->guarded_ = false;
}

Emitter::GuardScope Emitter::guard(Guard g) {
  if (guarded_)
    errors_.push_back(Error{"nested guard scopes (PTX takes one guard predicate)", "", 0, 0});
  guarded_ = true;
  guard_ = g;
  return GuardScope(this);
}

std::uint32_t Emitter::alloc_reg(TypeId type) {
  RegClass cls = reg_class(type);
  auto& count = kernel_.reg_counts[static_cast<unsigned>(cls)];
  ++count;
  kernel_.regs.push_back(RegInfo{cls, count});
  return static_cast<std::uint32_t>(kernel_.regs.size() - 1);
}

void Emitter::emit(Instr instr, const Loc& loc) {
  assert(!finished_ && "emitting into a finished builder");
  for ([[maybe_unused]] const Operand& o : instr.operands) {
    assert((o.kind != OperandKind::kReg && o.kind != OperandKind::kAddr) ||
           o.reg < kernel_.regs.size());
  }
  if (!instr.is_label) require_instruction(instr.op, loc);
  instr.loc = to_loc(loc);
  if (guarded_) {
    instr.guarded = true;
    instr.guard_reg = guard_.reg.id();
    instr.guard_negated = guard_.negated;
  }
  kernel_.body.push_back(std::move(instr));
}

void Emitter::emit_op(Op op, std::vector<Mod> mods, std::vector<TypeId> types,
                      std::vector<Operand> operands, const Loc& loc) {
  Instr in;
  in.op = op;
  in.mods = std::move(mods);
  in.types = std::move(types);
  in.operands = std::move(operands);
  emit(std::move(in), loc);
}

void Emitter::emit_mov(std::uint32_t dst, TypeId type, Operand src, const Loc& loc) {
  Operand d;
  d.kind = OperandKind::kReg;
  d.reg = dst;
  emit_op(Op::kMov, {}, {detail::storage_type(type)}, {d, std::move(src)}, loc);
}

void Emitter::error(std::string message, const Loc& loc) {
  errors_.push_back(located(std::move(message), to_loc(loc)));
}

bool Emitter::require_target(std::string_view what, unsigned min_sm, unsigned min_ptx,
                             bool arch_specific, const Loc& loc) {
  const Target& t = kernel_.target;
  if (t.sm() < min_sm) {
    error(detail::cat(what, " needs sm_", min_sm, " or newer (target is ", t.name(), ")"), loc);
    return false;
  }
  if (arch_specific && !t.arch_specific()) {
    error(detail::cat(what, " needs an architecture-specific target such as sm_", t.sm(),
                      "a (target is ", t.name(), ")"),
          loc);
    return false;
  }
  if (t.ptx_major() * 10 + t.ptx_minor() < min_ptx) {
    error(detail::cat(what, " needs PTX ISA ", min_ptx / 10, ".", min_ptx % 10, " (target ",
                      t.name(), " is printed as .version ", t.ptx_version(), ")"),
          loc);
    return false;
  }
  return true;
}

bool Emitter::require(isa::Form form, const Loc& loc) {
  const isa::FormInfo& f = isa::info(form);
  return require_target(f.description, f.min_sm, f.min_ptx, false, loc);
}

bool Emitter::require_instruction(Op op, const Loc& loc) {
  const isa::InstructionInfo& i = isa::info(op);
  return require_target(i.spelling, i.min_sm, i.min_ptx, isa::has(op, isa::kArchSpecific), loc);
}

std::int32_t Emitter::add_baked(std::string field, std::string value) {
  kernel_.baked.push_back(BakedInfo{std::move(field), std::move(value)});
  return static_cast<std::int32_t>(kernel_.baked.size() - 1);
}

std::string Emitter::unique_name(std::string_view name, const Loc& loc, std::string_view what) {
  std::string n(name);
  if (!is_identifier(n)) {
    error(
        detail::cat("invalid ", what, " name '", n, "' (PTX identifiers: [A-Za-z_][A-Za-z0-9_]*)"),
        loc);
    return detail::cat("invalid_", names_.size());
  }
  for (const std::string& existing : names_) {
    if (existing == n) {
      error(detail::cat("duplicate ", what, " name '", n, "'"), loc);
      return detail::cat(n, "_dup", names_.size());
    }
  }
  names_.push_back(n);
  return n;
}

std::string Emitter::declare_param(std::string_view name, TypeId type, const Loc& loc) {
  std::string n = unique_name(name, loc, "parameter");
  kernel_.params.push_back(ParamDecl{n, type});
  return n;
}

std::string Emitter::declare_array(Mod space, std::string_view name, TypeId element,
                                   std::uint64_t count, std::uint32_t align,
                                   std::vector<std::uint64_t> init, const Loc& loc,
                                   std::vector<std::int32_t> init_baked) {
  std::string n = unique_name(name, loc, "array");
  if (space == Mod::kConst)
    n = detail::cat(kernel_.name, "_", n); // module scope: keep kernels apart
  if (align == 0 || (align & (align - 1)) != 0) error("array alignment must be a power of 2", loc);
  if (count == 0) error(detail::cat("array '", n, "' has no elements"), loc);
  ArrayDecl a{space, n, element, count, align, std::move(init)};
  a.init_baked = std::move(init_baked);
  kernel_.arrays.push_back(std::move(a));
  return n;
}

std::string Emitter::declare_dynamic_shared(std::string_view name, TypeId element,
                                            std::uint32_t align, const Loc& loc) {
  for (const ArrayDecl& a : kernel_.arrays) {
    if (a.is_extern) error("a kernel has one dynamic shared array", loc);
  }
  std::string n = detail::cat(kernel_.name, "_", unique_name(name, loc, "array"));
  if (align == 0 || (align & (align - 1)) != 0) error("array alignment must be a power of 2", loc);
  ArrayDecl a{Mod::kShared, n, element, 0, align, {}};
  a.is_extern = true;
  kernel_.arrays.push_back(std::move(a));
  return n;
}

} // namespace ptxkit::ptxgen
