// rule.h: the interface of a verifier rule and the rule catalogue.
//
// Why: rules are written by several people against one set of analyses; each rule is one file,
// verifier/rules/<rule-id>.cpp, whose opening comment states what it proves and assumes, and it
// joins the catalogue with one line in verifier/rules/rule_list.inc:
//     PTXKIT_RULE("my-rule", kError, make_my_rule)
// (its id, its default severity, and `std::unique_ptr<Rule> make_my_rule()` defined in the rule's
// .cpp). An explicit list, not static self-registration: the verifier is a static library and
// the linker would drop unreferenced registration objects. docs/rules.md says how to add one.
//
// A rule examines one function at a time through RuleContext, counts the sites it examined
// (`sites`: what "pass" is evidence of), and reports findings. It never aborts: a construct it
// does not understand is skipped, not counted as a site.
#pragma once

#include "ptxkit/verifier/analysis/function_analysis.h"
#include "ptxkit/verifier/ast.h"
#include "ptxkit/verifier/contract.h"
#include "ptxkit/verifier/finding.h"

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace ptxkit::verifier {

class RuleContext {
public:
  RuleContext(const Module& module, const Function& fn, const analysis::FunctionAnalysis& a,
              std::string_view rule_id, Severity default_severity, std::vector<Finding>& out,
              std::uint32_t& sites);

  const Module& module() const { return *module_; }
  const Function& function() const { return *fn_; }
  const analysis::FunctionAnalysis& analysis() const { return *a_; }

  // The launch contract of this function (VerifyOptions::contracts), or nullptr when the caller
  // gave none for it.
  const KernelContract* contract() const { return contract_; }
  void set_contract(const KernelContract* c) { contract_ = c; }

  // Count `n` examined sites.
  void add_sites(std::uint32_t n = 1) { *sites_ += n; }

  // A finding at instruction `inst`. The handle it returns is the only way to add related
  // instructions to that finding: `ctx.report(i, "...").relate(j, "why")`.
  class Reported {
  public:
    // Adds instruction `inst` with a note on how it relates to the finding.
    Reported& relate(analysis::InstId inst, std::string message);
    // The defect needs `condition`, which the kernel does not state: the finding is a warning
    // whatever the rule's severity, and it says how to decide it. The one place where a
    // launch (or caller) assumption turns an error into a warning.
    Reported& assuming(std::string condition, std::string decide);
    // The launch and threads that show the defect.
    Reported& witness(Witness w);
    // A witness's path step at instruction `inst`.
    FindingLocation step(analysis::InstId inst) const { return ctx_->location_of(inst); }
    // The finding's severity so far (a rule's default, or a warning once it rests on an
    // assumption): what a replay that may downgrade it checks first.
    Severity severity() const { return (*ctx_->out_)[index_].severity; }

  private:
    friend class RuleContext;
    Reported(RuleContext& ctx, std::size_t index) : ctx_(&ctx), index_(index) {}
    RuleContext* ctx_;
    std::size_t index_; // in the report's findings: stays valid as more findings are added
  };
  Reported report(analysis::InstId inst, std::string message);
  Reported report(analysis::InstId inst, std::string message, Severity severity);

  // Location / text / .loc source position of an instruction.
  FindingLocation location_of(analysis::InstId inst) const;
  SourcePosition source_of(analysis::InstId inst) const;

private:
  const Module* module_;
  const Function* fn_;
  const analysis::FunctionAnalysis* a_;
  std::string_view rule_id_;
  Severity default_severity_;
  std::vector<Finding>* out_;
  std::uint32_t* sites_;
  const KernelContract* contract_ = nullptr;
};

class Rule {
public:
  virtual ~Rule() = default;
  virtual std::string_view summary() const = 0; // one line, for --help and SARIF
  // Examine one function with a body.
  virtual void check(RuleContext& ctx) const = 0;
  // From the rule's line in the catalogue (rule_list.inc).
  std::string_view id() const { return id_; } // "undefined-register"
  Severity default_severity() const { return severity_; }

private:
  friend const std::vector<std::unique_ptr<Rule>>& all_rules();
  std::string_view id_;
  Severity severity_ = Severity::kError;
};

// Every rule, in catalogue order (the order of rule_list.inc).
const std::vector<std::unique_ptr<Rule>>& all_rules();
// The rule with that id, or nullptr.
const Rule* find_rule(std::string_view id);
// "a, b, c": the valid ids, for error messages.
std::string rule_ids_joined();

} // namespace ptxkit::verifier
