// text.cpp: the human-readable report (format in report.h): one headline per finding, then the
// instructions involved and the CUDA source line from .loc, so a reader needs no other tool.
#include "ptxkit/verifier/report.h"

namespace ptxkit::verifier {

namespace {

void append_source(std::string& out, const SourcePosition& s) {
  if (s.line == 0) return;
  out += "    source: ";
  out += s.file.empty() ? std::string("<unknown file>") : s.file;
  out += ':' + std::to_string(s.line);
  if (s.col) out += ':' + std::to_string(s.col);
  if (!s.text.empty()) {
    out += ": ";
    std::string_view t = s.text;
    while (!t.empty() && (t.front() == ' ' || t.front() == '\t'))
      t.remove_prefix(1);
    out += t;
  }
  out += '\n';
}

std::string triple(const std::array<std::uint32_t, 3>& v) {
  return '(' + std::to_string(v[0]) + ',' + std::to_string(v[1]) + ',' + std::to_string(v[2]) + ')';
}

// `  note:` lines: what the finding rests on, and the witness of an error.
void append_notes(std::string& out, const Finding& f) {
  for (const Assumption& a : f.assumptions)
    out += "  note: a defect only if " + a.condition + "; to decide it: " + a.decide + '\n';
  if (!f.witness) return;
  const Witness& w = *f.witness;
  out += "  note: witness:";
  if (w.block_dim) out += " block shape " + triple(*w.block_dim) + ';';
  for (const Witness::Thread& t : w.threads)
    out += " thread " + triple(t.tid) + " of block " + triple(t.ctaid) +
           (t.does.empty() ? "" : ' ' + t.does) + ';';
  for (const auto& [name, value] : w.values)
    out += ' ' + name + " = " + std::to_string(value) + ';';
  out.back() = '\n';
  if (w.path.empty()) return;
  out += "  note: path: line";
  for (std::size_t i = 0; i < w.path.size(); ++i)
    out += (i ? " -> " : " ") + std::to_string(w.path[i].line);
  out += '\n';
}

} // namespace

// The compiler convention that editors and CI problem matchers parse:
// `path:line:col: error: message [rule-id]` (or `warning:`).
std::string format_one_line(const Finding& f) {
  return f.location.path + ':' + std::to_string(f.location.line) + ':' +
         std::to_string(f.location.col) + ": " + std::string(severity_name(f.severity)) + ": " +
         f.message + " [" + f.rule + "]";
}

std::string format_text(const std::vector<FileReport>& reports, bool summary) {
  std::string out;
  for (const FileReport& r : reports) {
    // --summary: one line per file (its counts and each rule's status), no finding text.
    for (const Finding& f : r.findings) {
      if (summary) break;
      out += format_one_line(f) + '\n';
      out += "  " + f.location.path + ':' + std::to_string(f.location.line) + ": " + f.instruction +
             '\n';
      append_source(out, f.source);
      for (const RelatedLocation& rel : f.related) {
        out += "  " + rel.location.path + ':' + std::to_string(rel.location.line) + ": " +
               rel.instruction;
        if (!rel.message.empty()) out += "  ; " + rel.message;
        out += '\n';
        append_source(out, rel.source);
      }
      append_notes(out, f);
    }
    if (summary && r.input_error) {
      out += r.path + ": not checked: " + r.input_error->message + '\n';
      continue;
    }
    if (summary) {
      out += r.path + ": " + std::to_string(r.error_count()) + " errors, " +
             std::to_string(r.warning_count()) + " warnings (";
      bool first = true;
      for (const RuleStatus& s : r.rules) {
        out += (first ? "" : ", ") + s.id + ' ' + std::string(rule_outcome_name(s.outcome)) +
               " sites=" + std::to_string(s.sites);
        first = false;
      }
      out += ")\n";
    }
  }
  return out;
}

} // namespace ptxkit::verifier
