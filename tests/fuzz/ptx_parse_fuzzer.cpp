// ptx_parse_fuzzer.cpp: libFuzzer target: any bytes -> parse; whatever parses must print, re-parse
// to an equal tree, and print again to the same bytes.
//
// Why this oracle: a crash, hang or sanitizer report is a bug, and so is a tree the printer
// cannot reproduce: `ptxkit fmt` promises idempotence and round-trips on every accepted input.
#include "ptxkit/verifier/parser.h"
#include "ptxkit/verifier/printer.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace ptxkit::verifier;
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto first = parse(text, "fuzz.ptx");
  if (!first.ok()) {
    std::string msg = first.error().format();
    if (msg.empty()) std::abort();
    return 0;
  }
  std::string printed = print(*first);
  auto second = parse(printed, "fuzz.fmt.ptx");
  if (!second.ok()) {
    std::fprintf(stderr, "printed form does not parse:\n%s\n--- printed ---\n%s\n",
                 second.error().format().c_str(), printed.c_str());
    std::abort();
  }
  if (!equal_ignoring_locations(*first, *second)) {
    std::fprintf(stderr, "re-parsed tree differs\n--- printed ---\n%s\n", printed.c_str());
    std::abort();
  }
  if (print(*second) != printed) {
    std::fprintf(stderr, "printing is not idempotent\n--- printed ---\n%s\n", printed.c_str());
    std::abort();
  }
  return 0;
}
