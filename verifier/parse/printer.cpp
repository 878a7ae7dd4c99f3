// printer.cpp: the canonical PTX printer behind `ptxkit fmt` (printer.h states the form).
//
// Why canonical rather than faithful: a fixed layout (tabs per block level, ", " between
// operands, no comments, debug data 16 values a line) makes printing idempotent and lets
// re-parsing give the same tree, which is how the parser is tested against the whole corpus.
// Every spelling it emits is one that nvcc or LLVM emit themselves, so ptxas accepts it.
#include "ptxkit/verifier/printer.h"

#include <charconv>
#include <ostream>
#include <string_view>

namespace ptxkit::verifier {
namespace {

class Printer {
public:
  // With a sink, the text is handed to it in pieces of about kFlushBytes (at statement and item
  // boundaries) instead of accumulating: printing a 100 MB module then needs a 1 MB buffer.
  explicit Printer(std::string& out, std::ostream* sink = nullptr) : out_(out), sink_(sink) {}
  void flush() {
    if (sink_ && !out_.empty()) {
      sink_->write(out_.data(), static_cast<std::streamsize>(out_.size()));
      out_.clear();
    }
  }

  void module(const Module& m);
  void operand(const Operand& op);
  void instruction(const Instruction& inst);

private:
  void indent(std::uint32_t depth) { out_.append(depth, '\t'); }
  void num(std::uint64_t v) {
    char buf[24];
    auto r = std::to_chars(buf, buf + sizeof buf, v);
    out_.append(buf, r.ptr);
  }
  void snum(std::int64_t v) {
    char buf[24];
    auto r = std::to_chars(buf, buf + sizeof buf, v);
    out_.append(buf, r.ptr);
  }
  void linkage(Linkage l);
  void decl(const VarDecl& d);
  void attributes(const Attributes* a);
  void init(const InitValue& v);
  void params(const std::vector<VarDecl>& ps, bool multiline);
  void function(const Function& f);
  void section(const Section& s);
  void statements(const std::vector<Statement>& stmts, std::uint32_t depth);
  void statement(const Statement& s, std::uint32_t depth);

  void maybe_flush() {
    if (sink_ && out_.size() >= kFlushBytes) flush();
  }

  static constexpr std::size_t kFlushBytes = 1 << 20;
  std::string& out_;
  std::ostream* sink_;
};

void Printer::linkage(Linkage l) {
  switch (l) {
  case Linkage::kNone:
    break;
  case Linkage::kVisible:
    out_ += ".visible ";
    break;
  case Linkage::kExtern:
    out_ += ".extern ";
    break;
  case Linkage::kWeak:
    out_ += ".weak ";
    break;
  case Linkage::kCommon:
    out_ += ".common ";
    break;
  }
}

void Printer::init(const InitValue& v) {
  switch (v.kind) {
  case InitValue::Kind::kExpr:
  case InitValue::Kind::kField:
    out_ += v.text();
    break;
  case InitValue::Kind::kGeneric:
    out_ += "generic(";
    out_ += v.text();
    out_ += ')';
    break;
  case InitValue::Kind::kList: {
    out_ += '{';
    const Span<InitValue> elements = v.elements();
    for (std::uint32_t i = 0; i < elements.size(); ++i) {
      if (i) out_ += ", ";
      init(elements[i]);
    }
    out_ += '}';
    break;
  }
  }
}

void Printer::attributes(const Attributes* a) {
  if (a == nullptr) return;
  out_ += " .attribute(";
  if (a->managed) out_ += ".managed";
  if (a->unified) {
    if (a->managed) out_ += ", ";
    out_ += ".unified(";
    num(a->uuid1);
    out_ += ", ";
    num(a->uuid2);
    out_ += ')';
  }
  out_ += ')';
}

void Printer::decl(const VarDecl& d) {
  linkage(d.linkage);
  out_ += '.';
  out_ += state_space_name(d.space);
  attributes(d.attributes);
  if (d.align) {
    out_ += " .align ";
    num(d.align);
  }
  if (d.vector_width) {
    out_ += " .v";
    num(d.vector_width);
  }
  out_ += " .";
  out_ += isa::spelling(d.type);
  if (d.is_ptr) {
    out_ += " .ptr";
    if (d.ptr_space != StateSpace::kNone) {
      out_ += '.';
      out_ += state_space_name(d.ptr_space);
    }
    if (d.ptr_align) {
      out_ += ".align ";
      num(d.ptr_align);
    }
  }
  out_ += ' ';
  out_ += d.name;
  if (d.has_range) {
    out_ += '<';
    num(d.range);
    out_ += '>';
  }
  for (std::uint64_t dim : d.dims) {
    out_ += '[';
    if (dim != kUnknownDim) num(dim);
    out_ += ']';
  }
  if (d.init) {
    out_ += " = ";
    init(*d.init);
  }
}

void Printer::operand(const Operand& op) {
  if (op.negated()) out_ += '!';
  if (op.minus()) out_ += '-';
  if (op.has_register_index()) { // `arr[%r1+K]`, in a memory access as elsewhere: no brackets
    out_ += op.text();
    out_ += '[';
    operand(*op.index_register());
    if (op.elements().size() > 1) {
      out_ += '+';
      operand(op.elements()[1]);
    }
    out_ += ']';
    return;
  }
  auto list = [&](char open, char close) {
    out_ += open;
    Span<Operand> el = op.elements();
    for (std::uint32_t i = 0; i < el.size(); ++i) {
      if (i) out_ += ", ";
      operand(el[i]);
    }
    out_ += close;
  };
  switch (op.kind) {
  case OperandKind::kRegister:
    out_ += op.text();
    if (op.has_selector()) {
      out_ += '.';
      out_ += op.selector();
    }
    break;
  case OperandKind::kSpecialReg:
  case OperandKind::kImmInt:
  case OperandKind::kImmFloat:
  case OperandKind::kSink:
    out_ += op.text();
    break;
  case OperandKind::kSymbol:
    out_ += op.text();
    if (op.has_offset()) {
      out_ += '+';
      snum(op.address_offset());
    }
    break;
  case OperandKind::kAddress:
    out_ += '[';
    out_ += op.text();
    if (op.has_offset()) {
      out_ += '+';
      snum(op.address_offset());
    }
    for (const Operand& e : op.elements()) {
      out_ += ", ";
      operand(e);
    }
    out_ += ']';
    if (op.is_unified()) out_ += ".unified";
    break;
  case OperandKind::kVector:
    list('{', '}');
    break;
  case OperandKind::kParenList:
    list('(', ')');
    break;
  case OperandKind::kPair:
    operand(op.elements()[0]);
    out_ += '|';
    operand(op.elements()[1]);
    break;
  }
}

void Printer::instruction(const Instruction& inst) {
  if (!inst.guard.empty()) {
    out_ += inst.guard_negated ? "@!" : "@";
    out_ += inst.guard;
    out_ += ' ';
  }
  out_ += inst.opcode;
  for (std::string_view m : inst.modifiers) {
    out_ += '.';
    out_ += m;
  }
  for (std::uint32_t i = 0; i < inst.operands.size(); ++i) {
    out_ += i ? ", " : " ";
    operand(inst.operands[i]);
  }
  out_ += ';';
}

void Printer::params(const std::vector<VarDecl>& ps, bool multiline) {
  out_ += '(';
  for (std::size_t i = 0; i < ps.size(); ++i) {
    if (multiline) {
      out_ += i ? ",\n\t" : "\n\t";
    } else if (i) {
      out_ += ", ";
    }
    decl(ps[i]);
  }
  if (multiline && !ps.empty()) out_ += '\n';
  out_ += ')';
}

void Printer::statement(const Statement& s, std::uint32_t depth) {
  if (const auto* inst = std::get_if<Instruction>(&s.node)) {
    indent(depth);
    instruction(*inst);
  } else if (const auto* label = std::get_if<Label>(&s.node)) {
    indent(depth - 1);
    out_ += label->name;
    out_ += ':';
  } else if (const auto* d = std::get_if<VarDecl>(&s.node)) {
    indent(depth);
    decl(*d);
    out_ += ';';
  } else if (const auto* l = std::get_if<LocDirective>(&s.node)) {
    indent(depth);
    out_ += ".loc ";
    num(l->file);
    out_ += ' ';
    num(l->line);
    out_ += ' ';
    num(l->col);
    if (!l->function_name.empty()) {
      out_ += ", function_name ";
      out_ += l->function_name;
    }
    if (l->has_inlined_at) {
      out_ += ", inlined_at ";
      num(l->inlined_file);
      out_ += ' ';
      num(l->inlined_line);
      out_ += ' ';
      num(l->inlined_col);
    }
  } else if (const auto* dir = std::get_if<Directive>(&s.node)) {
    indent(dir->label.empty() ? depth : depth - 1);
    if (!dir->label.empty()) {
      out_ += dir->label;
      out_ += ": ";
    }
    out_ += '.';
    out_ += dir->name;
    for (std::uint32_t i = 0; i < dir->args.size(); ++i) {
      out_ += i ? ", " : " ";
      out_ += dir->args[i];
    }
    out_ += ';';
  } else if (const auto* cp = std::get_if<CallPrototype>(&s.node)) {
    indent(depth - 1);
    out_ += cp->label;
    out_ += ": .callprototype ";
    if (!cp->returns.empty()) {
      params(cp->returns, false);
      out_ += ' ';
    }
    out_ += "_ ";
    params(cp->params, false);
    if (cp->noreturn) out_ += " .noreturn";
    out_ += ';';
  } else if (const auto* b = std::get_if<Block>(&s.node)) {
    indent(depth);
    out_ += "{\n";
    statements(b->statements, depth + 1);
    indent(depth);
    out_ += '}';
  }
  out_ += '\n';
}

void Printer::statements(const std::vector<Statement>& stmts, std::uint32_t depth) {
  for (const Statement& s : stmts) {
    statement(s, depth);
    maybe_flush();
  }
}

void Printer::function(const Function& f) {
  linkage(f.linkage);
  out_ += f.kind == FunctionKind::kEntry ? ".entry" : ".func";
  attributes(f.attributes);
  out_ += ' ';
  if (!f.returns.empty()) {
    params(f.returns, false);
    out_ += ' ';
  }
  out_ += f.name;
  params(f.params, true);
  if (f.noreturn) out_ += "\n.noreturn";
  for (const PerfDirective& d : f.directives) {
    out_ += "\n.";
    out_ += d.name;
    for (std::size_t i = 0; i < d.values.size(); ++i) {
      out_ += i ? ", " : " ";
      num(d.values[i]);
    }
    if (!d.text.empty()) {
      out_ += ' ';
      out_ += d.text;
      out_ += ';';
    }
  }
  if (!f.has_body) {
    out_ += ";\n";
    return;
  }
  out_ += "\n{\n";
  statements(f.body.statements, 1);
  out_ += "}\n";
}

void Printer::section(const Section& s) {
  out_ += ".section ";
  out_ += s.name;
  out_ += "\n{\n";
  constexpr std::uint32_t kPerLine = 16;
  for (const SectionEntry& e : s.entries) {
    if (!e.label.empty()) {
      out_ += e.label;
      out_ += ":\n";
      continue;
    }
    // Numbers go kPerLine to a line; a label expression gets a line of its own (ptxas rejects
    // `.b64 $L__a, $L__b`).
    std::uint32_t on_line = 0;
    for (std::string_view v : e.values) {
      bool numeric = !v.empty() && ((v[0] >= '0' && v[0] <= '9') || v[0] == '-');
      if (on_line != 0 && (!numeric || on_line == kPerLine)) {
        out_ += '\n';
        on_line = 0;
      }
      if (on_line == 0) {
        out_ += "\t.";
        out_ += isa::spelling(e.type);
        out_ += ' ';
      } else {
        out_ += ", ";
      }
      out_ += v;
      ++on_line;
      if (!numeric) {
        out_ += '\n';
        on_line = 0;
      }
    }
    if (on_line != 0) out_ += '\n';
  }
  out_ += "}\n";
}

void Printer::module(const Module& m) {
  if (!m.leading_comments.empty()) {
    out_ += m.leading_comments;
    out_ += "\n\n";
  }
  if (m.version_loc.line != 0 || m.version_major != 0) {
    out_ += ".version ";
    num(m.version_major);
    out_ += '.';
    num(m.version_minor);
    out_ += '\n';
  }
  if (!m.targets.empty()) {
    out_ += ".target ";
    for (std::size_t i = 0; i < m.targets.size(); ++i) {
      if (i) out_ += ", ";
      out_ += m.targets[i];
    }
    out_ += '\n';
  }
  if (m.address_size) {
    out_ += ".address_size ";
    num(m.address_size);
    out_ += '\n';
  }
  for (const TopLevel& item : m.items) {
    maybe_flush();
    if (const auto* f = std::get_if<Function>(&item)) {
      out_ += '\n';
      function(*f);
    } else if (const auto* d = std::get_if<VarDecl>(&item)) {
      decl(*d);
      out_ += ";\n";
    } else if (const auto* file = std::get_if<FileDirective>(&item)) {
      out_ += ".file ";
      num(file->index);
      out_ += ' ';
      out_ += file->path;
      if (file->has_timestamp) {
        out_ += ", ";
        num(file->timestamp);
        if (file->has_size) {
          out_ += ", ";
          num(file->size);
        }
      }
      out_ += '\n';
    } else if (const auto* s = std::get_if<Section>(&item)) {
      out_ += '\n';
      section(*s);
    } else if (const auto* dir = std::get_if<Directive>(&item)) {
      out_ += '.';
      out_ += dir->name;
      for (std::uint32_t i = 0; i < dir->args.size(); ++i) {
        out_ += i ? ", " : " ";
        out_ += dir->args[i];
      }
      out_ += ";\n";
    }
  }
}

} // namespace

std::string print(const Module& module) {
  std::string out;
  Printer(out).module(module);
  return out;
}

void print(const Module& module, std::string& out) {
  Printer(out).module(module);
}

void print(const Module& module, std::ostream& out) {
  std::string buffer;
  buffer.reserve(2 << 20);
  Printer p(buffer, &out);
  p.module(module);
  p.flush();
}

std::string print_instruction(const Instruction& inst) {
  std::string out;
  Printer(out).instruction(inst);
  return out;
}

std::string print_operand(const Operand& op) {
  std::string out;
  Printer(out).operand(op);
  return out;
}

} // namespace ptxkit::verifier
