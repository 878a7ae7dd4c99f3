// sarif.cpp: SARIF 2.1.0 output (one run; tool.driver.rules lists the rules that ran, results
// point into them by ruleId and ruleIndex), for code-scanning UIs.
#include "ptxkit/verifier/report.h"
#include "ptxkit/verifier/rule.h"
#include "report/json_escape_p.h"

#include <map>

namespace ptxkit::verifier {

namespace {

using detail::json_quote;

std::string physical_location(const FindingLocation& l) {
  return "{\"physicalLocation\": {\"artifactLocation\": {\"uri\": " + json_quote(l.path) +
         "}, \"region\": {\"startLine\": " + std::to_string(l.line ? l.line : 1) +
         ", \"startColumn\": " + std::to_string(l.col ? l.col : 1) + "}}";
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
                    "    \"tool\": {\"driver\": {\"name\": \"ptxkit\", \"informationUri\": "
                    "\"https://github.com/ptxkit/ptxkit\", \"rules\": [";
  for (std::size_t k = 0; k < ids.size(); ++k) {
    const Rule* rule = find_rule(ids[k]);
    index[ids[k]] = k;
    out += k ? ",\n      " : "\n      ";
    out += "{\"id\": " + json_quote(ids[k]) +
           ", \"shortDescription\": {\"text\": " + json_quote(rule->summary()) +
           "}, \"helpUri\": " + json_quote("docs/rules.md#" + ids[k]) +
           ", \"defaultConfiguration\": {\"level\": " +
           json_quote(rule->default_severity() == Severity::kError ? "error" : "warning") + "}}";
  }
  out += "]}},\n    \"results\": [";
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
      out += "]}";
    }
  }
  out += first ? "]\n  }]\n}\n" : "\n    ]\n  }]\n}\n";
  return out;
}

} // namespace ptxkit::verifier
