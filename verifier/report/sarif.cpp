// sarif.cpp: SARIF 2.1.0 output (one run; tool.driver.rules lists the rules that ran, results
// point into them by ruleId and ruleIndex), for code-scanning UIs.
//
// The output must validate against the OASIS SARIF 2.1.0 schema (tests/cli/sarif_schema_test.py
// checks it, formats included): helpUri is an absolute URI, and artifact locations are URI
// references, so file paths are percent-encoded.
#include "ptxkit/verifier/report.h"
#include "ptxkit/verifier/rule.h"
#include "report/json_escape_p.h"

#include <map>
#include <string_view>

namespace ptxkit::verifier {

namespace {

using detail::json_quote;

constexpr std::string_view kInformationUri = "https://github.com/ptxkit/ptxkit";

// A file path as a relative or absolute-path URI reference: every byte but RFC 3986's unreserved
// characters and '/' is percent-encoded, so spaces, '#', '%', '?' and a ':' that would read as a
// scheme keep their meaning as part of the path.
std::string artifact_uri(std::string_view path) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (char c : path) {
    const auto b = static_cast<unsigned char>(c);
    const bool keep = (b >= 'a' && b <= 'z') || (b >= 'A' && b <= 'Z') || (b >= '0' && b <= '9') ||
                      c == '-' || c == '.' || c == '_' || c == '~' || c == '/';
    if (keep) {
      out += c;
    } else {
      out += '%';
      out += kHex[b >> 4];
      out += kHex[b & 0xF];
    }
  }
  return out;
}

std::string physical_location(const FindingLocation& l) {
  return "{\"physicalLocation\": {\"artifactLocation\": {\"uri\": " +
         json_quote(artifact_uri(l.path)) +
         "}, \"region\": {\"startLine\": " + std::to_string(l.line ? l.line : 1) +
         ", \"startColumn\": " + std::to_string(l.col ? l.col : 1) + "}}";
}

// A witness as SARIF codeFlows: one threadFlow per thread of the witness, each walking the path.
// Assumptions go into the result's property bag.
std::string flows_and_properties(const Finding& f) {
  std::string out;
  if (f.witness && !f.witness->path.empty()) {
    const Witness& w = *f.witness;
    auto flow = [&](const std::string& what) {
      std::string t = "{\"message\": {\"text\": " + json_quote(what) + "}, \"locations\": [";
      for (std::size_t i = 0; i < w.path.size(); ++i)
        t += std::string(i ? ", " : "") + "{\"location\": " + physical_location(w.path[i]) + "}}";
      return t + "]}";
    };
    out += ", \"codeFlows\": [{\"threadFlows\": [";
    if (w.threads.empty()) out += flow("the path");
    for (std::size_t i = 0; i < w.threads.size(); ++i) {
      const auto& t = w.threads[i];
      std::string name = "thread (" + std::to_string(t.tid[0]) + ',' + std::to_string(t.tid[1]) +
                         ',' + std::to_string(t.tid[2]) + ") of block (" +
                         std::to_string(t.ctaid[0]) + ',' + std::to_string(t.ctaid[1]) + ',' +
                         std::to_string(t.ctaid[2]) + ')' + (t.does.empty() ? "" : ' ' + t.does);
      out += std::string(i ? ", " : "") + flow(name);
    }
    out += "]}]";
  }
  if (!f.assumptions.empty()) {
    out += ", \"properties\": {\"assumptions\": [";
    for (std::size_t i = 0; i < f.assumptions.size(); ++i)
      out += std::string(i ? ", " : "") +
             json_quote(f.assumptions[i].condition + "; to decide it: " + f.assumptions[i].decide);
    out += "]}";
  }
  return out;
}

} // namespace

std::string format_sarif(const std::vector<FileReport>& reports) {
  // Rules: every rule that ran on any file, in catalogue order.
  std::vector<std::string> ids;
  for (const auto& rule : all_rules())
    for (const FileReport& r : reports) {
      bool ran = false;
      for (const RuleStatus& s : r.rules)
        ran = ran || s.id == rule->id();
      if (ran) {
        ids.emplace_back(rule->id());
        break;
      }
    }
  std::map<std::string, std::size_t> index;
  std::string out = "{\n  \"version\": \"2.1.0\",\n  \"$schema\": "
                    "\"https://json.schemastore.org/sarif-2.1.0.json\",\n  \"runs\": [{\n"
                    "    \"tool\": {\"driver\": {\"name\": \"ptxkit\", \"informationUri\": " +
                    json_quote(kInformationUri) + ", \"rules\": [";
  for (std::size_t k = 0; k < ids.size(); ++k) {
    const Rule* rule = find_rule(ids[k]);
    index[ids[k]] = k;
    out += k ? ",\n      " : "\n      ";
    out += "{\"id\": " + json_quote(ids[k]) +
           ", \"shortDescription\": {\"text\": " + json_quote(rule->summary()) +
           "}, \"helpUri\": " +
           json_quote(std::string(kInformationUri) + "/blob/main/docs/rules.md#" + ids[k]) +
           ", \"defaultConfiguration\": {\"level\": " +
           json_quote(rule->default_severity() == Severity::kError ? "error" : "warning") + "}}";
  }
  out += "]}},\n";
  // Inputs that could not be checked: tool execution notifications, and the run unsuccessful.
  std::string notes;
  for (const FileReport& r : reports) {
    if (!r.input_error) continue;
    FindingLocation at;
    at.path = r.path;
    at.line = r.input_error->line;
    at.col = r.input_error->col;
    notes += notes.empty() ? "\n      " : ",\n      ";
    notes +=
        "{\"level\": \"error\", \"message\": {\"text\": " + json_quote(r.input_error->message) +
        "}, \"locations\": [" + physical_location(at) + "}]}";
  }
  out += "    \"invocations\": [{\"executionSuccessful\": ";
  out += notes.empty() ? "true" : "false";
  out +=
      ", \"toolExecutionNotifications\": [" + notes + (notes.empty() ? "]}],\n" : "\n    ]}],\n");
  out += "    \"results\": [";
  bool first = true;
  for (const FileReport& r : reports) {
    for (const Finding& f : r.findings) {
      out += first ? "\n      " : ",\n      ";
      first = false;
      out += "{\"ruleId\": " + json_quote(f.rule);
      if (auto it = index.find(f.rule); it != index.end())
        out += ", \"ruleIndex\": " + std::to_string(it->second);
      out += ", \"level\": " + json_quote(f.severity == Severity::kError ? "error" : "warning") +
             ", \"message\": {\"text\": " + json_quote(f.message + " [" + f.kernel + "]") +
             "}, \"locations\": [" + physical_location(f.location) + "}]";
      out += ", \"relatedLocations\": [";
      for (std::size_t j = 0; j < f.related.size(); ++j) {
        const RelatedLocation& rel = f.related[j];
        out += j ? ", " : "";
        out += physical_location(rel.location) + ", \"id\": " + std::to_string(j + 1) +
               ", \"message\": {\"text\": " +
               json_quote(rel.instruction + (rel.message.empty() ? "" : "  ; " + rel.message)) +
               "}}";
      }
      out += ']' + flows_and_properties(f) + '}';
    }
  }
  out += first ? "]\n  }]\n}\n" : "\n    ]\n  }]\n}\n";
  return out;
}

} // namespace ptxkit::verifier
