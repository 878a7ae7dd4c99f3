// interp_conformance.h: the interpreter's conformance cases against the GPU, one table for both.
//
// Why: the interpreter (verifier/interp) is the judge of every replayed witness; its semantics
// must be the hardware's, not our reading of the ISA. Each case is one instruction form as a
// small PTX body computing %o = f(%ia, %ib, %ic) (64-bit raw inputs, unpacked to the form's
// types) with a set of edge-value inputs. The same bodies go (a) into one module of one entry per
// case that a GPU runs, a thread per input, and (b) through the interpreter, inputs given as
// parameters. The GPU's results are recorded in interp_conformance_expected.tsv; the CPU test
// checks the interpreter against that file, the device test checks the GPU against both.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

namespace ptxkit::verifier::conformance {

using Input = std::array<std::uint64_t, 3>;

struct Case {
  std::string name;          // unique: "add.sat.s32", "setp.ltu.f32", ...
  std::string body;          // reads %ia %ib %ic (and .param pk), writes %o
  std::vector<Input> inputs; // one GPU thread each
  // The interpreter must give a known value for every input (false: it may say unknown, e.g.
  // float or memory forms it does not model; it may never give a wrong one).
  bool exact = false;
};

// The value the `.param .u32 pk` of every case holds (the GPU launch and the interpreter alike).
inline constexpr std::uint32_t kParamK = 0x9abcdef0u;

const std::vector<Case>& cases();

// The module the GPU runs: entry "case_<i>" for cases()[i], with parameters
// (.u64 in: 3 x u64 per thread, .u64 out: one u64 per thread, .u32 n: threads, .u32 pk).
std::string device_module();
std::string entry_name(std::size_t i);

// The interpreter's result for one case and input: the value of %o, nullopt when unknown (or the
// replay stopped before the end: an inconclusive run is never a value).
std::optional<std::uint64_t> interpret(const Case& c, const Input& in);

// The expected-values file: one row per case and input, "case<TAB>a<TAB>b<TAB>c<TAB>out" (hex).
using Key = std::tuple<std::string, std::uint64_t, std::uint64_t, std::uint64_t>;
using Expected = std::map<Key, std::uint64_t>;
std::optional<Expected> read_expected(const std::string& path); // nullopt: no such file
std::string format_row(const Case& c, const Input& in, std::uint64_t out);

} // namespace ptxkit::verifier::conformance
