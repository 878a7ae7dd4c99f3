// contract.h: a kernel's launch contract as the verifier sees it: the logical byte size of the
// buffer behind each pointer parameter, the values of scalar parameters, and the launch shape.
//
// Why: whether an access can run past the end of a buffer is not a property of the PTX alone:
// it depends on how large the caller's buffers are and how many blocks and threads it launches.
// The rule `global-bounds` proves its accesses against this contract; without one for a kernel
// it has nothing to prove and says so (not-applicable). Library kernels state their contract in
// code (params() and launch() of the kernel definition); foreign PTX gets one on the command line
// (`ptxkit verify --contract`, parsed here) or from a JSON file (read by the CLI).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ptxkit::verifier {

// A pointer parameter: the buffer it points at has `bytes` bytes (its logical size: an access at
// byte `bytes` or beyond is out of bounds).
struct BufferContract {
  std::string param;
  std::uint64_t bytes = 0;
};

// A parameter that points at an array of `count` 64-bit device pointers: pointer i addresses
// `bytes - i * stride` bytes (the i-th slice of one buffer of `bytes` bytes, e.g. one KV cache
// per batch slot). The array itself is `count * 8` bytes.
struct PointerArrayContract {
  std::string param;
  std::uint64_t count = 0;
  std::uint64_t bytes = 0;
  std::uint64_t stride = 0;
};

// A scalar parameter with a known value (`n`, a row count): loop bounds and guards read it.
struct ScalarContract {
  std::string param;
  std::int64_t value = 0;
};

struct KernelContract {
  std::string kernel;                                // the .entry's name
  std::optional<std::array<std::uint32_t, 3>> grid;  // absent: %ctaid unbounded
  std::optional<std::array<std::uint32_t, 3>> block; // absent: .reqntid / .maxntid if declared
  std::vector<BufferContract> buffers;
  std::vector<PointerArrayContract> pointer_arrays;
  std::vector<ScalarContract> scalars;

  const BufferContract* buffer(std::string_view param) const;
  const PointerArrayContract* pointer_array(std::string_view param) const;
  const ScalarContract* scalar(std::string_view param) const;
};

// The contract of `kernel` in `contracts`, or nullptr.
const KernelContract* find_contract(const std::vector<KernelContract>& contracts,
                                    std::string_view kernel);

// Parses the command-line form (docs/cli.md):
//   KERNEL:ITEM,ITEM,...[;grid=X[,Y[,Z]]][;block=X[,Y[,Z]]]
// where ITEM is `param[BYTES]` (a buffer of BYTES bytes), `param[COUNT:BYTES:STRIDE]` (an array
// of COUNT pointers into one buffer of BYTES bytes, STRIDE bytes apart) or `param=VALUE` (a
// scalar). Sizes take a K/M/G suffix (powers of 1024). On error, sets `error` and returns nullopt.
std::optional<KernelContract> parse_contract_spec(std::string_view spec, std::string& error);

} // namespace ptxkit::verifier
