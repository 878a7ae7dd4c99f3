// key_lint.cpp: the provenance and differential key proofs for one kernel (key_lint.h).
//
// Every reference config is generated at every requested target; each field is then perturbed at
// each reference config (perturbations() in key_lint_values.cpp) and regenerated. Whether a field
// is "in the key" is measured, not read from its declaration: it is in the key when some
// perturbation changed the key. That is what makes the proof hold for any keying scheme (a
// wrongly exempt field and a hand-written key override fail it the same way), and it is exact for
// the library's cache_key, whose declared baked flags decide what it hashes.
#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <ptxkit/kernels/key.h>
#include <ptxkit/kernels/key_lint.h>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ptxkit::kernels {
namespace {

using Severity = KeyFinding::Severity;

std::string_view line_at(std::string_view text, std::size_t line) {
  std::size_t pos = 0;
  for (std::size_t n = 1; n < line && pos != std::string_view::npos; ++n) {
    pos = text.find('\n', pos);
    if (pos != std::string_view::npos) ++pos;
  }
  if (pos == std::string_view::npos || pos >= text.size()) return {};
  std::size_t end = text.find('\n', pos);
  return text.substr(pos, end == std::string_view::npos ? std::string_view::npos : end - pos);
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
    s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
    s.remove_suffix(1);
  return s;
}

// The first 1-based line where a and b differ (0 when equal).
std::size_t first_difference(std::string_view a, std::string_view b) {
  std::size_t line = 1;
  std::size_t n = std::min(a.size(), b.size());
  for (std::size_t i = 0; i < n; ++i) {
    if (a[i] != b[i]) return line;
    if (a[i] == '\n') ++line;
  }
  return a.size() == b.size() ? 0 : line;
}

// "line 57: add.f32 %f38, %f37, 0f358637BD <- eps = 1e-06". When the
// immediate is derived from the field (hidden/4, theta^(-2/d)), the field's value comes first and
// the immediate's own value after it: "<- hidden = 896 (immediate 224)".
std::string describe_immediate(const BakedImmediate& b, const std::string& field_value = {}) {
  std::string_view instr = trim(b.instruction);
  if (!instr.empty() && instr.back() == ';') instr.remove_suffix(1);
  std::string out =
      "line " + std::to_string(b.ptx_line) + ": " + std::string(instr) + " <- " + b.field + " = ";
  if (field_value.empty() || field_value == b.value) return out + b.value;
  return out + field_value + " (immediate " + b.value + ")";
}

// What is known about one field across the whole run.
struct FieldState {
  bool key_changed = false;  // some perturbation changed the key
  bool ptx_changed = false;  // some perturbation changed the PTX
  std::size_t tried = 0;     // accepted perturbations
  std::size_t uncovered = 0; // PTX changed, key did not (or the new key collided)
  std::string first_uncovered;
  std::string first_baked; // a baked immediate from this field, for the provenance finding
};

class KernelLint {
public:
  KernelLint(const Kernel& kernel, const KeyLintOptions& options)
      : kernel_(kernel), options_(options), fields_(kernel.fields()), state_(fields_.size()) {
    key_ = options.key ? options.key : KeyFunction(cache_key);
    targets_ = options.targets.empty() ? ptxgen::Target::all_supported() : options.targets;
    report_.kernel = std::string(kernel.name());
    report_.fields_checked = fields_.size();
  }

  ptxkit::Expected<KernelKeyReport> run() {
    std::vector<ReferenceConfig> refs = kernel_.reference_configs();
    // A kernel without reference configs is still checked, at its defaults.
    if (refs.empty()) refs.push_back({"defaults", "the field defaults", kernel_.defaults()});
    for (const auto& ref : refs) {
      auto ok = run_reference(ref);
      if (!ok) return ok.error();
    }
    conclude();
    return std::move(report_);
  }

private:
  struct Base {
    std::string key;
    GeneratedPtx ptx;
  };

  ptxkit::Expected<void> run_reference(const ReferenceConfig& ref) {
    std::vector<Base> bases;
    ++report_.configs_tried;
    for (const auto& t : targets_) {
      auto gen = kernel_.generate(ref.values, t);
      if (!gen)
        return ptxkit::Error{"kernel '" + report_.kernel + "': reference config '" + ref.tag +
                                 "' does not generate for " + std::string(t.name()) + ": " +
                                 gen.error().message,
                             {},
                             0,
                             0};
      ++report_.instances;
      std::string key = key_(kernel_, ref.values, t.name());
      check_provenance(*gen, ref.values, ref.tag, t);
      remember(key, *gen, "config " + ref.tag + " at " + std::string(t.name()), std::nullopt);
      if (report_.provenance.empty() && report_.provenance_config.empty()) {
        report_.provenance_config = ref.tag + " at " + std::string(t.name());
        for (const auto& b : gen->baked)
          report_.provenance.push_back(describe_immediate(b, value_of(b.field, ref.values)));
      }
      bases.push_back({std::move(key), std::move(*gen)});
    }
    for (std::size_t f = 0; f < fields_.size(); ++f)
      for (const FieldValue& v : perturbations(fields_[f], ref.values[f]))
        perturb(ref, bases, f, v);
    return {};
  }

  void perturb(const ReferenceConfig& ref, const std::vector<Base>& bases, std::size_t f,
               const FieldValue& v) {
    ConfigValues values = ref.values;
    values[f] = v;
    if (!kernel_.validate(values)) {
      ++report_.configs_refused;
      return;
    }
    ++report_.configs_tried;
    FieldState& st = state_[f];
    ++st.tried;
    std::vector<std::size_t> which;
    if (options_.every_target) {
      for (std::size_t t = 0; t < targets_.size(); ++t)
        which.push_back(t);
    } else {
      which.push_back(0);
      if (targets_.size() > 1) which.push_back(1 + rotation_++ % (targets_.size() - 1));
    }
    const std::string change = fields_[f].name + " = " + format_value(fields_[f], ref.values[f]) +
                               " -> " + format_value(fields_[f], v);
    for (std::size_t ti : which) {
      const ptxgen::Target& t = targets_[ti];
      const std::string where = "config " + ref.tag + " at " + std::string(t.name());
      auto gen = kernel_.generate(values, t);
      if (!gen) {
        add(Severity::kViolation, "differential", fields_[f].name,
            change + " at " + where +
                " passes validation but does not generate: " + gen.error().message);
        continue;
      }
      ++report_.instances;
      check_provenance(*gen, values, ref.tag, t);
      std::string key = key_(kernel_, values, t.name());
      const Base& base = bases[ti];
      const bool key_same = key == base.key;
      const bool ptx_same = gen->text == base.ptx.text;
      st.key_changed |= !key_same;
      st.ptx_changed |= !ptx_same;
      if (key_same && !ptx_same) {
        if (st.uncovered++ == 0)
          st.first_uncovered = change + " at " + where + " keeps the key " + key +
                               " but changes the PTX: " + explain_change(base.ptx, *gen, values);
        continue;
      }
      remember(key, *gen, change + " at " + where, f);
    }
  }

  // "line 57: `add.f32 ..., 0f358637BD;` -> `add.f32 ..., 0f358637BE;` (baked immediate from
  // eps)".
  std::string explain_change(const GeneratedPtx& before, const GeneratedPtx& after,
                             const ConfigValues& values) const {
    std::size_t line = first_difference(before.text, after.text);
    std::string out = "line " + std::to_string(line) + ": `" +
                      std::string(trim(line_at(before.text, line))) + "` -> `" +
                      std::string(trim(line_at(after.text, line))) + "`";
    for (const auto& b : after.baked)
      if (b.ptx_line == line)
        return out + " (baked immediate: " + describe_immediate(b, value_of(b.field, values)) + ")";
    return out + " (no baked immediate recorded on that line: the field reaches the PTX through "
                 "shape or control flow)";
  }

  // Keys seen so far with the hash of their PTX: equal keys must carry equal PTX, whichever
  // configs they came from.
  void remember(const std::string& key, const GeneratedPtx& gen, const std::string& what,
                std::optional<std::size_t> field) {
    std::uint64_t h = fnv1a64(gen.text);
    auto [it, inserted] = seen_.try_emplace(key, h, what);
    if (inserted || it->second.first == h) return;
    std::string msg =
        what + " has the key " + key + " of " + it->second.second + " but different PTX";
    if (field) {
      FieldState& st = state_[*field];
      if (st.uncovered++ == 0) st.first_uncovered = msg;
    } else {
      add(Severity::kViolation, "differential", "", msg);
    }
  }

  // The config's value of `field` as text ("" for a name that is not a field).
  std::string value_of(const std::string& field, const ConfigValues& values) const {
    int idx = kernel_.field_index(field);
    if (idx < 0) return {};
    return format_value(fields_[static_cast<std::size_t>(idx)],
                        values[static_cast<std::size_t>(idx)]);
  }

  void check_provenance(const GeneratedPtx& gen, const ConfigValues& values, const std::string& tag,
                        const ptxgen::Target& t) {
    for (const auto& b : gen.baked) {
      ++report_.immediates_checked;
      int idx = kernel_.field_index(b.field);
      if (idx < 0) {
        add(Severity::kViolation, "provenance", b.field,
            describe_immediate(b) + ": baked from '" + b.field +
                "', which is not a config field of " + report_.kernel + " (config " + tag + " at " +
                std::string(t.name()) + ")");
        continue;
      }
      std::string_view line = trim(line_at(gen.text, b.ptx_line));
      std::string_view instr = trim(b.instruction);
      if (line.find(instr) == std::string_view::npos) {
        add(Severity::kViolation, "provenance", b.field,
            describe_immediate(b) + ": the record does not match PTX line " +
                std::to_string(b.ptx_line) + " `" + std::string(line) + "` (config " + tag +
                " at " + std::string(t.name()) + ")");
        continue;
      }
      FieldState& st = state_[static_cast<std::size_t>(idx)];
      if (st.first_baked.empty())
        st.first_baked = describe_immediate(b, value_of(b.field, values)) + " (config " + tag +
                         " at " + std::string(t.name()) + ")";
    }
  }

  bool in_key(std::size_t f) const {
    const FieldState& st = state_[f];
    // Without an accepted perturbation the measurement says nothing; the declaration decides.
    return st.tried == 0 ? fields_[f].spec.baked : st.key_changed;
  }

  void conclude() {
    for (std::size_t f = 0; f < fields_.size(); ++f) {
      const FieldState& st = state_[f];
      const FieldInfo& field = fields_[f];
      const bool covered = in_key(f);
      if (covered) ++report_.fields_in_key;
      const std::string exempt =
          field.spec.baked ? std::string("declared baked")
                           : "declared exempt: \"" + std::string(field.spec.exempt_reason) + "\"";
      if (!st.first_baked.empty() && !covered)
        add(Severity::kViolation, "provenance", field.name,
            st.first_baked + ": field '" + field.name +
                "' is baked into the PTX but the key does not cover it (" + exempt + "; " +
                std::to_string(st.tried) + " accepted perturbations never changed the key)");
      if (st.uncovered > 0)
        add(Severity::kViolation, "differential", field.name,
            "field '" + field.name + "' changes the PTX without changing the key in " +
                std::to_string(st.uncovered) + " instance(s) (" + exempt +
                "); first: " + st.first_uncovered);
      if (st.key_changed && !st.ptx_changed)
        add(Severity::kWarning, "differential", field.name,
            "field '" + field.name + "' is in the key but none of its " + std::to_string(st.tried) +
                " accepted perturbations changed the PTX: an over-specified key (every value "
                "compiles and caches an identical module)" +
                (field.spec.baked ? "; declare it baked = false with an exempt_reason" : ""));
    }
  }

  void add(Severity s, std::string proof, std::string field, std::string message) {
    report_.findings.push_back({s, std::move(proof), std::move(field), std::move(message)});
  }

  const Kernel& kernel_;
  const KeyLintOptions& options_;
  const std::vector<FieldInfo>& fields_;
  KeyFunction key_;
  std::vector<ptxgen::Target> targets_;
  std::vector<FieldState> state_;
  std::map<std::string, std::pair<std::uint64_t, std::string>> seen_;
  std::size_t rotation_ = 0;
  KernelKeyReport report_;
};

} // namespace

std::size_t KernelKeyReport::violations() const {
  return static_cast<std::size_t>(
      std::count_if(findings.begin(), findings.end(),
                    [](const auto& f) { return f.severity == Severity::kViolation; }));
}

std::size_t KernelKeyReport::warnings() const {
  return findings.size() - violations();
}

ptxkit::Expected<KernelKeyReport> lint_kernel_keys(const Kernel& kernel,
                                                   const KeyLintOptions& options) {
  return KernelLint(kernel, options).run();
}

} // namespace ptxkit::kernels
