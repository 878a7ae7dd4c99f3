// json.cpp: the JSON report of docs/cli.md:
//   {"files": [{"path", "findings": [{"rule","severity","kernel","line","message"}],
//               "rules": [{"id","status","sites"}]}]}
// Each finding also carries "col", "instruction", "related", with .loc "source", and where it has
// them "assumptions" (what a warning's defect needs) and "witness" (an error's threads): scripts
// reading only the keys docs/cli.md lists are unaffected.
#include "ptxkit/verifier/report.h"
#include "report/json_escape_p.h"

namespace ptxkit::verifier {

namespace {

using detail::json_quote;

std::string source_json(const SourcePosition& s) {
  return "{\"file\": " + json_quote(s.file) + ", \"line\": " + std::to_string(s.line) +
         ", \"col\": " + std::to_string(s.col) + ", \"text\": " + json_quote(s.text) + "}";
}

std::string triple_json(const std::array<std::uint32_t, 3>& v) {
  return '[' + std::to_string(v[0]) + ", " + std::to_string(v[1]) + ", " + std::to_string(v[2]) +
         ']';
}

// "assumptions": [{"condition", "decide"}] and "witness": {"block_dim", "threads", "values",
// "path"}, each only when the finding has it.
std::string assumptions_and_witness_json(const Finding& f) {
  std::string out;
  if (!f.assumptions.empty()) {
    out += ", \"assumptions\": [";
    for (std::size_t i = 0; i < f.assumptions.size(); ++i)
      out += std::string(i ? ", " : "") +
             "{\"condition\": " + json_quote(f.assumptions[i].condition) +
             ", \"decide\": " + json_quote(f.assumptions[i].decide) + '}';
    out += ']';
  }
  if (!f.witness) return out;
  const Witness& w = *f.witness;
  out += ", \"witness\": {\"block_dim\": " + (w.block_dim ? triple_json(*w.block_dim) : "null") +
         ", \"threads\": [";
  for (std::size_t i = 0; i < w.threads.size(); ++i)
    out += std::string(i ? ", " : "") + "{\"tid\": " + triple_json(w.threads[i].tid) +
           ", \"ctaid\": " + triple_json(w.threads[i].ctaid) +
           ", \"does\": " + json_quote(w.threads[i].does) + '}';
  out += "], \"values\": {";
  for (std::size_t i = 0; i < w.values.size(); ++i)
    out += std::string(i ? ", " : "") + json_quote(w.values[i].first) + ": " +
           std::to_string(w.values[i].second);
  out += "}, \"path\": [";
  for (std::size_t i = 0; i < w.path.size(); ++i)
    out += std::string(i ? ", " : "") + "{\"line\": " + std::to_string(w.path[i].line) +
           ", \"col\": " + std::to_string(w.path[i].col) + '}';
  out += "]}";
  return out;
}

} // namespace

std::string format_json(const std::vector<FileReport>& reports) {
  std::string out = "{\"files\": [";
  for (std::size_t i = 0; i < reports.size(); ++i) {
    const FileReport& r = reports[i];
    out += i ? ",\n  " : "\n  ";
    out += "{\"path\": " + json_quote(r.path);
    if (r.input_error)
      out += ", \"error\": {\"line\": " + std::to_string(r.input_error->line) +
             ", \"col\": " + std::to_string(r.input_error->col) +
             ", \"message\": " + json_quote(r.input_error->message) + "}";
    out += ", \"findings\": [";
    for (std::size_t k = 0; k < r.findings.size(); ++k) {
      const Finding& f = r.findings[k];
      out += k ? ",\n    " : "\n    ";
      out += "{\"rule\": " + json_quote(f.rule) +
             ", \"severity\": " + json_quote(severity_name(f.severity)) +
             ", \"kernel\": " + json_quote(f.kernel) +
             ", \"line\": " + std::to_string(f.location.line) +
             ", \"col\": " + std::to_string(f.location.col) +
             ", \"message\": " + json_quote(f.message) +
             ", \"instruction\": " + json_quote(f.instruction) + ", \"related\": [";
      for (std::size_t j = 0; j < f.related.size(); ++j) {
        const RelatedLocation& rel = f.related[j];
        out += j ? ", " : "";
        out += "{\"line\": " + std::to_string(rel.location.line) +
               ", \"col\": " + std::to_string(rel.location.col) +
               ", \"message\": " + json_quote(rel.message) +
               ", \"instruction\": " + json_quote(rel.instruction);
        if (rel.source.line) out += ", \"source\": " + source_json(rel.source);
        out += '}';
      }
      out += ']';
      if (f.source.line) out += ", \"source\": " + source_json(f.source);
      out += assumptions_and_witness_json(f);
      out += '}';
    }
    out += r.findings.empty() ? "]" : "\n  ]";
    out += ", \"rules\": [";
    for (std::size_t k = 0; k < r.rules.size(); ++k) {
      const RuleStatus& s = r.rules[k];
      out += k ? ", " : "";
      out += "{\"id\": " + json_quote(s.id) +
             ", \"status\": " + json_quote(rule_outcome_name(s.outcome)) +
             ", \"sites\": " + std::to_string(s.sites) + '}';
    }
    out += "]}";
  }
  out += reports.empty() ? "]}\n" : "\n]}\n";
  return out;
}

} // namespace ptxkit::verifier
