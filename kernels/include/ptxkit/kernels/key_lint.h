// key_lint.h: the key-coverage proof behind `ptxkit lint-keys` (docs/cache-keys.md).
//
// A baked value missing from a hand-written cache key serves stale PTX (an RMSNorm eps, a RoPE
// theta). The key is now derived from the reflected config (key.h), but a field
// can still be wrongly declared exempt, or a caller can key modules its own way. This proves, per
// kernel, that key(c1) == key(c2) implies PTX(c1) == PTX(c2), three ways:
//   1. provenance: every immediate the builder baked from a field (GeneratedPtx::baked) comes
//      from a field the key covers ("covered" is measured: perturbing the field changes the key);
//   2. differential: each field is perturbed at every reference config (several values per type,
//      floats one and two ulps away, the boundaries of the valid range); a PTX change without a
//      key change is a violation, a key field that never changes the PTX is a warning
//      (over-specified key: needless recompiles);
//   3. golden: golden files that carry the same key are byte-identical (lint_golden_keys).
// The key function is a parameter so the proof can be aimed at any keying scheme (the tests aim it
// at hand-written keys that miss a baked field); the library's own is cache_key.
#pragma once

#include <cstddef>
#include <functional>
#include <ptxkit/kernels/kernel.h>
#include <ptxkit/ptxgen/expected.h>
#include <ptxkit/ptxgen/target.h>
#include <string>
#include <string_view>
#include <vector>

namespace ptxkit::kernels {

// A keying scheme: (kernel, valid config values, target name) -> key text.
using KeyFunction =
    std::function<std::string(const Kernel&, const ConfigValues&, std::string_view target)>;

// What one proof found. A violation breaks the property; a warning is an over-specified key.
struct KeyFinding {
  enum class Severity { kViolation, kWarning };
  Severity severity = Severity::kViolation;
  std::string proof;   // "provenance", "differential" or "golden"
  std::string field;   // the config field concerned ("" for golden findings)
  std::string message; // names the field, the values, the config, the target and the PTX line
};

// The values tried for one field at one base config (key_lint_values.cpp): the base value itself
// is never among them, nor duplicates; values outside the field's limits are kept (validation
// refuses them and the proof counts them).
[[nodiscard]] std::vector<FieldValue> perturbations(const FieldInfo& field, const FieldValue& base);

struct KeyLintOptions {
  // The keying scheme under test; empty means the library's cache_key.
  KeyFunction key;
  // Targets the reference configs are generated at; empty means every supported target.
  std::vector<ptxgen::Target> targets;
  // Each perturbation is generated at the first target and at one more that rotates through the
  // list, so every target sees perturbations of every field; true generates each at every target.
  bool every_target = false;
};

// The per-kernel result of proofs 1 and 2.
struct KernelKeyReport {
  std::string kernel;
  std::size_t fields_checked = 0;     // every field, key or exempt
  std::size_t fields_in_key = 0;      // fields whose perturbation changed the key
  std::size_t immediates_checked = 0; // baked-immediate records checked, over every instance
  std::size_t configs_tried = 0;      // reference configs plus accepted perturbations
  std::size_t configs_refused = 0;    // perturbations the config validation refused
  std::size_t instances = 0;          // (config, target) pairs generated and compared
  // "line 57: add.f32 %f3, %f2, 0f358637BD <- eps = 1e-06" for the first reference config at the
  // first target, in PTX order.
  std::string provenance_config;
  std::vector<std::string> provenance;
  std::vector<KeyFinding> findings;

  [[nodiscard]] std::size_t violations() const;
  [[nodiscard]] std::size_t warnings() const;
};

// Proofs 1 and 2 for one kernel, at each reference config (at the defaults when the kernel has
// none). An error only when a reference config fails to generate (a broken kernel, not a key
// finding).
[[nodiscard]] ptxkit::Expected<KernelKeyReport> lint_kernel_keys(const Kernel& kernel,
                                                                 const KeyLintOptions& options);

// Proof 3 over a golden directory (files `*.ptx` whose first line holds `kernel=NAME` and
// `key=KEY`, as `ptxkit golden update` writes them).
struct GoldenKeyReport {
  std::size_t files = 0;           // golden files read (of the selected kernels)
  std::size_t keys = 0;            // distinct keys among them
  std::size_t shared_key_sets = 0; // keys carried by two or more files (each compared)
  std::vector<KeyFinding> findings;
};

// Only files of the kernels in `kernels` are read (every file when it is empty). An error when the
// directory cannot be read.
[[nodiscard]] ptxkit::Expected<GoldenKeyReport>
lint_golden_keys(const std::string& dir, const std::vector<std::string>& kernels);

} // namespace ptxkit::kernels
