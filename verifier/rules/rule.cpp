// rule.cpp: the rule catalogue (from rule_list.inc) and RuleContext, the rules' reporting API.
#include "ptxkit/verifier/rule.h"

#include "ptxkit/verifier/printer.h"

namespace ptxkit::verifier {

#define PTXKIT_RULE(id, severity, factory) std::unique_ptr<Rule> factory();
#include "rules/rule_list.inc"
#undef PTXKIT_RULE

const std::vector<std::unique_ptr<Rule>>& all_rules() {
  static const std::vector<std::unique_ptr<Rule>> rules = [] {
    std::vector<std::unique_ptr<Rule>> v;
#define PTXKIT_RULE(id, severity, factory)                                                         \
  v.push_back(factory());                                                                          \
  v.back()->id_ = id;                                                                              \
  v.back()->severity_ = Severity::severity;
#include "rules/rule_list.inc"
#undef PTXKIT_RULE
    return v;
  }();
  return rules;
}

const Rule* find_rule(std::string_view id) {
  for (const auto& r : all_rules())
    if (r->id() == id) return r.get();
  return nullptr;
}

std::string rule_ids_joined() {
  std::string s;
  for (const auto& r : all_rules()) {
    if (!s.empty()) s += ", ";
    s += r->id();
  }
  return s;
}

std::string_view severity_name(Severity s) {
  return s == Severity::kError ? "error" : "warning";
}

std::string_view rule_outcome_name(RuleOutcome o) {
  switch (o) {
  case RuleOutcome::kPass:
    return "pass";
  case RuleOutcome::kFail:
    return "fail";
  case RuleOutcome::kNotApplicable:
    return "not-applicable";
  }
  return "not-applicable";
}

std::uint32_t FileReport::error_count() const {
  std::uint32_t n = 0;
  for (const Finding& f : findings)
    n += f.severity == Severity::kError;
  return n;
}

std::uint32_t FileReport::warning_count() const {
  return static_cast<std::uint32_t>(findings.size()) - error_count();
}

RuleContext::RuleContext(const Module& module, const Function& fn,
                         const analysis::FunctionAnalysis& a, std::string_view rule_id,
                         Severity default_severity, std::vector<Finding>& out, std::uint32_t& sites)
    : module_(&module), fn_(&fn), a_(&a), rule_id_(rule_id), default_severity_(default_severity),
      out_(&out), sites_(&sites) {}

FindingLocation RuleContext::location_of(analysis::InstId inst) const {
  const SourceLoc& l = a_->ir.inst(inst).loc;
  return {module_->path, l.line, l.col};
}

SourcePosition RuleContext::source_of(analysis::InstId inst) const {
  SourcePosition s;
  const LocDirective* loc = a_->ir.info(inst).loc;
  if (loc == nullptr) return s;
  s.line = loc->line;
  s.col = loc->col;
  for (const TopLevel& item : module_->items) {
    const auto* f = std::get_if<FileDirective>(&item);
    if (f == nullptr || f->index != loc->file) continue;
    std::string_view p = f->path;
    if (p.size() >= 2 && p.front() == '"' && p.back() == '"') p = p.substr(1, p.size() - 2);
    s.file = std::string(p);
    break;
  }
  return s;
}

RuleContext::Reported RuleContext::report(analysis::InstId inst, std::string message) {
  return report(inst, std::move(message), default_severity_);
}

RuleContext::Reported RuleContext::report(analysis::InstId inst, std::string message,
                                          Severity severity) {
  Finding f;
  f.rule = std::string(rule_id_);
  f.severity = severity;
  f.kernel = std::string(fn_->name);
  f.location = location_of(inst);
  f.message = std::move(message);
  f.instruction = print_instruction(a_->ir.inst(inst));
  f.source = source_of(inst);
  out_->push_back(std::move(f));
  return Reported(*this, out_->size() - 1);
}

RuleContext::Reported& RuleContext::Reported::relate(analysis::InstId inst, std::string message) {
  RelatedLocation r;
  r.location = ctx_->location_of(inst);
  r.message = std::move(message);
  r.instruction = print_instruction(ctx_->a_->ir.inst(inst));
  r.source = ctx_->source_of(inst);
  (*ctx_->out_)[index_].related.push_back(std::move(r));
  return *this;
}

RuleContext::Reported& RuleContext::Reported::assuming(std::string condition, std::string decide) {
  Finding& f = (*ctx_->out_)[index_];
  f.severity = Severity::kWarning;
  f.assumptions.push_back({std::move(condition), std::move(decide)});
  return *this;
}

RuleContext::Reported& RuleContext::Reported::witness(Witness w) {
  (*ctx_->out_)[index_].witness = std::move(w);
  return *this;
}

} // namespace ptxkit::verifier
