// verified_ptx.h: VerifiedPtx, PTX text that passed verification, the only thing the runtime loads.
//
// The runtime (runtime/) accepts nothing but a VerifiedPtx, and only verify_for_load() can make
// one: its constructor is private and that factory is its friend. verify_for_load() parses the
// text, runs every verifier rule, and fails on any error-severity finding; on success the
// VerifiedPtx carries the exact text that was checked (so what is loaded is what was verified),
// its parsed module (the runtime reads `.entry` parameter lists and .reqntid/.maxntid from it
// to check launches) and a summary of the verification.
//
// Declared by the runtime engineer; verify_for_load() is implemented by the verifier (it needs
// the rule set). Keep the accessors as they are: runtime/ and the CLI use them.
#pragma once

#include "ptxkit/verifier/ast.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace ptxkit::verifier {

// What the verification found, kept for reports (`ptxkit run` prints the warnings' count).
struct VerificationSummary {
  std::uint32_t rules_run = 0;       // rules that applied to this module
  std::uint32_t sites_checked = 0;   // sites those rules examined, summed
  std::vector<std::string> warnings; // warning-severity findings, formatted
};

class VerifiedPtxResult;

class VerifiedPtx {
public:
  // The name given to verify_for_load (a path or a kernel key), for messages.
  const std::string& name() const { return state_->name; }
  // The exact PTX text that was verified and will be loaded.
  const std::string& text() const { return state_->text; }
  // The parsed form of text().
  const Module& module() const { return state_->module; }
  const VerificationSummary& summary() const { return state_->summary; }

private:
  struct State {
    std::string name;
    std::string text;
    Module module;
    VerificationSummary summary;
  };
  VerifiedPtx(std::string name, std::string text, Module module, VerificationSummary summary)
      : state_(std::make_shared<const State>(
            State{std::move(name), std::move(text), std::move(module), std::move(summary)})) {}

  std::shared_ptr<const State> state_; // copies share the (immutable) text and tree

  friend VerifiedPtxResult verify_for_load(std::string ptx, std::string name);
};

// Why verify_for_load refused: a parse error or error findings, each formatted as the CLI
// prints them (`path:line:col: error: [rule] message`).
struct LoadRefusal {
  std::string message; // one-line summary: "2 verifier errors in k.ptx"
  std::vector<std::string> diagnostics;
};

// VerifiedPtx or LoadRefusal, in the style of ParseResult.
class [[nodiscard]] VerifiedPtxResult {
public:
  VerifiedPtxResult(VerifiedPtx v) : value_(std::move(v)) {}
  VerifiedPtxResult(LoadRefusal e) : error_(std::move(e)) {}
  bool ok() const { return value_.has_value(); }
  explicit operator bool() const { return ok(); }
  const VerifiedPtx& value() const& { return *value_; }
  VerifiedPtx&& value() && { return std::move(*value_); }
  const VerifiedPtx& operator*() const& { return *value_; }
  const VerifiedPtx* operator->() const { return &*value_; }
  const LoadRefusal& error() const { return *error_; }

private:
  std::optional<VerifiedPtx> value_;
  std::optional<LoadRefusal> error_;
};

// Parses `ptx`, runs every rule, and returns a VerifiedPtx only when there is no parse error and
// no error-severity finding. `name` is used in messages (a path or kernel key).
VerifiedPtxResult verify_for_load(std::string ptx, std::string name);

} // namespace ptxkit::verifier
