// ptx_verify_fuzzer.cpp: libFuzzer target: any bytes -> parse -> every verifier rule. Whatever
// parses must be analysed (CFG, dominators, loops, value numbering, uniformity, warp bits, address
// provenance) and checked without a crash, a hang (libFuzzer's -timeout) or a sanitizer report,
// and every finding must point at a line of the input.
//
// Why a second target: the parse fuzzer's inputs stop at the printer; the analyses meet shapes no
// compiler emits (irreducible loops, branches to the entry, a register read before any write,
// functions without `ret`), and "no crash on any input" holds for `ptxkit verify` as a whole.
#include "ptxkit/verifier/parser.h"
#include "ptxkit/verifier/verify.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace ptxkit::verifier;
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto module = parse(text, "fuzz.ptx");
  if (!module.ok()) return 0;
  VerifyOptions options;
  options.read_source_lines = false;
  FileReport report = verify_module(*module, options);
  const auto lines = static_cast<std::uint32_t>(std::count(text.begin(), text.end(), '\n') + 1);
  for (const Finding& f : report.findings) {
    if (f.location.line == 0 || f.location.line > lines) {
      std::fprintf(stderr, "finding of %s at line %u of a %u-line input: %s\n", f.rule.c_str(),
                   f.location.line, lines, f.message.c_str());
      std::abort();
    }
  }
  return 0;
}
