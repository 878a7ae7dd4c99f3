// finding.h: what a verifier rule reports, as plain data.
//
// Why data: rules decide, printers (report.h: text, JSON, SARIF) present; the runtime's
// VerifiedPtx factory and tests consume the same values. A finding names both sides of the
// problem (as GPUVerify reports a race): the primary location is where the defect shows
// (the read of an undefined register), related locations are the other instructions involved
// (the guarded definition that does not cover that path), each with its instruction text.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ptxkit::verifier {

enum class Severity : std::uint8_t { kWarning, kError };
std::string_view severity_name(Severity s); // "warning", "error"

struct FindingLocation {
  std::string path;
  std::uint32_t line = 0;
  std::uint32_t col = 0;
};

// The CUDA/C++ source position a `.loc` directive gives for an instruction.
struct SourcePosition {
  std::string file;       // from the matching `.file` directive, unquoted; "" if unknown
  std::uint32_t line = 0; // 0: no .loc in force
  std::uint32_t col = 0;
  std::string text; // that line of the source file when readable, else ""
};

struct RelatedLocation {
  FindingLocation location;
  std::string message;     // "defined here only when %p1 holds"
  std::string instruction; // canonical text of the instruction there
  SourcePosition source;
};

// A condition the defect needs that the kernel does not state, so the finding is a warning: the
// code is wrong only for the launches (or callers) that meet it. `decide` says how to settle it.
// Severity follows from these in one place (RuleContext::Reported::assuming): a finding with an
// assumption is never an error.
struct Assumption {
  std::string condition; // "blockDim.x is not a multiple of 32"
  std::string decide;    // "declare .reqntid (__launch_bounds__ does not) or pass --block-dim"
};

// What makes an error a claim that can be shown: a launch and the threads in it that meet the
// defect, with the values that matter and the instructions they execute on the way.
struct Witness {
  struct Thread {
    std::array<std::uint32_t, 3> tid{};   // %tid
    std::array<std::uint32_t, 3> ctaid{}; // %ctaid
    std::string does;                     // "writes bytes 64..67 of s", "skips the barrier"
  };
  std::optional<std::array<std::uint32_t, 3>> block_dim; // the block shape it needs, if any
  std::vector<Thread> threads;
  // Named values that matter: parameters, loop iterations, the offset computed ("n" = 17).
  std::vector<std::pair<std::string, std::int64_t>> values;
  std::vector<FindingLocation> path; // the instructions the threads execute to get there
};

struct Finding {
  std::string rule; // "undefined-register"
  Severity severity = Severity::kError;
  std::string kernel; // name of the .entry/.func
  FindingLocation location;
  std::string message;
  std::string instruction; // canonical text of the instruction at `location`
  SourcePosition source;   // from .loc when the PTX has debug info
  std::vector<RelatedLocation> related;
  std::vector<Assumption> assumptions; // what the defect needs that the kernel does not state
  std::optional<Witness> witness;      // for an error: the launch and threads that show it
};

// Per rule and file: what the rule examined and what it concluded.
enum class RuleOutcome : std::uint8_t { kPass, kFail, kNotApplicable };
std::string_view rule_outcome_name(RuleOutcome o); // "pass", "fail", "not-applicable"

struct RuleStatus {
  std::string id;
  RuleOutcome outcome = RuleOutcome::kNotApplicable;
  std::uint32_t sites = 0;
};

// Everything `ptxkit verify` knows about one file.
struct FileReport {
  // Set when the input could not be checked (unreadable, or no valid PTX module): where and
  // why. Such a report has no findings and no rules; the machine formats still list it.
  struct InputError {
    std::uint32_t line = 0, col = 0; // 0: the file as a whole
    std::string message;
  };
  std::string path;
  std::optional<InputError> input_error;
  std::vector<Finding> findings; // sorted by line, column, rule
  std::vector<RuleStatus> rules; // one per rule run, in catalogue order
  std::uint32_t error_count() const;
  std::uint32_t warning_count() const;
};

} // namespace ptxkit::verifier
