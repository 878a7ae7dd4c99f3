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
