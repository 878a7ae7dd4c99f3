// verify.cpp: runs the rule catalogue over modules (verify_module / verify_text) and implements
// verify_for_load(), the only factory of VerifiedPtx (declared in verified_ptx.h).
#include "ptxkit/verifier/verify.h"

#include "ptxkit/verifier/analysis/function_analysis.h"
#include "ptxkit/verifier/report.h"
#include "ptxkit/verifier/rule.h"
#include "ptxkit/verifier/verified_ptx.h"

#include <algorithm>
#include <fstream>
#include <map>
#include <sstream>

namespace ptxkit::verifier {

namespace {

// Fills SourcePosition::text from the files `.file` names (each read at most once).
class SourceLines {
public:
  void fill(SourcePosition& s) {
    if (s.file.empty() || s.line == 0) return;
    auto it = files_.find(s.file);
    if (it == files_.end()) {
      std::vector<std::string> lines;
      std::ifstream in(s.file);
      for (std::string l; in && std::getline(in, l);)
        lines.push_back(std::move(l));
      it = files_.emplace(s.file, std::move(lines)).first;
    }
    if (s.line <= it->second.size()) s.text = it->second[s.line - 1];
  }

private:
  std::map<std::string, std::vector<std::string>> files_;
};

void fill_source_lines(FileReport& report) {
  SourceLines lines;
  for (Finding& f : report.findings) {
    lines.fill(f.source);
    for (RelatedLocation& r : f.related)
      lines.fill(r.source);
  }
}

} // namespace

std::string block_dim_problem(const std::array<std::uint32_t, 3>& dims) {
  static constexpr std::uint32_t kMax[3] = {1024, 1024, 64};
  static constexpr char kName[3] = {'x', 'y', 'z'};
  std::uint64_t threads = 1;
  for (int d = 0; d < 3; ++d) {
    if (dims[d] == 0) return std::string("the block's ") + kName[d] + " extent must be at least 1";
    if (dims[d] > kMax[d])
      return std::string("the block's ") + kName[d] + " extent " + std::to_string(dims[d]) +
             " exceeds " + std::to_string(kMax[d]);
    threads *= dims[d];
  }
  if (threads > 1024) return "a block of " + std::to_string(threads) + " threads exceeds 1024";
  return {};
}

void assume_block_dim(Module& module, const std::array<std::uint32_t, 3>& dims) {
  for (TopLevel& item : module.items) {
    auto* fn = std::get_if<Function>(&item);
    if (fn == nullptr || fn->kind != FunctionKind::kEntry || !fn->has_body || fn->reqntid())
      continue;
    PerfDirective d;
    d.loc = fn->loc;
    d.name = "reqntid";
    d.values.assign(dims.begin(), dims.end());
    fn->directives.push_back(std::move(d));
  }
}

namespace {

bool lacks_block_dim(const Module& module) {
  for (const Function* fn : module.entries())
    if (fn->has_body && !fn->reqntid()) return true;
  return false;
}

// The block shape a kernel's contract states, for a kernel that does not declare one itself.
const std::array<std::uint32_t, 3>* contract_block(const Function& fn, const VerifyOptions& o) {
  if (fn.kind != FunctionKind::kEntry || !fn.has_body || fn.reqntid()) return nullptr;
  const KernelContract* c = find_contract(o.contracts, fn.name);
  return c && c->block ? &*c->block : nullptr;
}

// A launch the caller states (--block-dim, a contract's block) is a declared shape for every
// rule, as .reqntid is: one place turns it into the directive the analyses read.
bool declare_contract_blocks(Module& module, const VerifyOptions& o) {
  bool changed = false;
  for (TopLevel& item : module.items) {
    auto* fn = std::get_if<Function>(&item);
    if (fn == nullptr) continue;
    const auto* block = contract_block(*fn, o);
    if (block == nullptr) continue;
    PerfDirective d;
    d.loc = fn->loc;
    d.name = "reqntid";
    d.values.assign(block->begin(), block->end());
    fn->directives.push_back(std::move(d));
    changed = true;
  }
  return changed;
}

bool lacks_contract_block(const Module& module, const VerifyOptions& o) {
  for (const Function* fn : module.entries())
    if (contract_block(*fn, o)) return true;
  return false;
}

} // namespace

FileReport verify_module(const Module& module, const VerifyOptions& options) {
  if ((options.block_dim && lacks_block_dim(module)) || lacks_contract_block(module, options)) {
    // A copy that declares the shape (verify_text applies it to the module it owns instead).
    // Contracts first: a kernel's own contract is more specific than --block-dim.
    Module shaped = module;
    declare_contract_blocks(shaped, options);
    if (options.block_dim) assume_block_dim(shaped, *options.block_dim);
    return verify_module(shaped, options);
  }
  FileReport report;
  report.path = module.path;
  std::vector<const Rule*> rules;
  for (const auto& r : all_rules()) {
    if (options.rules.empty() ||
        std::find(options.rules.begin(), options.rules.end(), r->id()) != options.rules.end())
      rules.push_back(r.get());
  }
  std::vector<std::uint32_t> sites(rules.size(), 0);
  std::vector<std::uint32_t> found(rules.size(), 0);
  for (const Function* fn : module.functions()) {
    if (!fn->has_body) continue;
    analysis::FunctionAnalysis a(*fn);
    for (std::size_t k = 0; k < rules.size(); ++k) {
      std::size_t before = report.findings.size();
      RuleContext ctx(module, *fn, a, rules[k]->id(), rules[k]->default_severity(), report.findings,
                      sites[k]);
      ctx.set_contract(find_contract(options.contracts, fn->name));
      rules[k]->check(ctx);
      found[k] += static_cast<std::uint32_t>(report.findings.size() - before);
    }
  }
  for (std::size_t k = 0; k < rules.size(); ++k) {
    RuleStatus st;
    st.id = std::string(rules[k]->id());
    st.sites = sites[k];
    st.outcome = found[k]   ? RuleOutcome::kFail
                 : sites[k] ? RuleOutcome::kPass
                            : RuleOutcome::kNotApplicable;
    report.rules.push_back(std::move(st));
  }
  std::stable_sort(report.findings.begin(), report.findings.end(),
                   [](const Finding& a, const Finding& b) {
                     if (a.location.line != b.location.line)
                       return a.location.line < b.location.line;
                     if (a.location.col != b.location.col) return a.location.col < b.location.col;
                     return a.rule < b.rule;
                   });
  if (options.read_source_lines) fill_source_lines(report);
  return report;
}

VerifyTextResult verify_text(std::string text, std::string path, const VerifyOptions& options) {
  VerifyTextResult r;
  {
    ParseResult parsed = parse_owned(std::move(text), path);
    if (!parsed) {
      r.parse_error = parsed.error();
      r.report.path = std::move(path);
      return r;
    }
    VerifyOptions without_lines = options;
    without_lines.read_source_lines = false;
    if (!options.block_dim && !lacks_contract_block(parsed.value(), options)) {
      r.report = verify_module(parsed.value(), without_lines);
    } else {
      Module module = std::move(parsed).value();
      declare_contract_blocks(module, options);
      if (options.block_dim) assume_block_dim(module, *options.block_dim);
      r.report = verify_module(module, without_lines);
    }
  }
  // The source lines after the module (text and tree) is gone: the lines and the source files
  // they are read from then do not add to the module's peak.
  if (options.read_source_lines) fill_source_lines(r.report);
  return r;
}

VerifiedPtxResult verify_for_load(std::string ptx, std::string name) {
  ParseResult parsed = parse(ptx, name);
  if (!parsed) {
    LoadRefusal refusal;
    refusal.message = "parse error in " + name;
    refusal.diagnostics.push_back(parsed.error().format());
    return refusal;
  }
  VerifyOptions options;
  options.read_source_lines = false;
  FileReport report = verify_module(parsed.value(), options);
  if (report.error_count() > 0) {
    LoadRefusal refusal;
    std::uint32_t n = report.error_count();
    refusal.message = std::to_string(n) + " verifier error" + (n == 1 ? "" : "s") + " in " + name;
    for (const Finding& f : report.findings)
      if (f.severity == Severity::kError) refusal.diagnostics.push_back(format_one_line(f));
    return refusal;
  }
  VerificationSummary summary;
  for (const RuleStatus& s : report.rules) {
    if (s.outcome != RuleOutcome::kNotApplicable) ++summary.rules_run;
    summary.sites_checked += s.sites;
  }
  for (const Finding& f : report.findings)
    summary.warnings.push_back(format_one_line(f));
  Module module = std::move(parsed).value();
  return VerifiedPtx(std::move(name), std::move(ptx), std::move(module), std::move(summary));
}

} // namespace ptxkit::verifier
