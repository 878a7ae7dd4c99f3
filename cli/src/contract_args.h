// contract_args.h: the launch contracts `ptxkit verify --contract` is given, each a command-line
// spec (contract.h: `KERNEL:x[4096],n=1024;grid=4;block=256`) or a JSON file (docs/cli.md):
//
//   {"kernels": [{"name": "saxpy", "grid": [4], "block": [256, 1, 1],
//                 "buffers": {"x": 4096, "y": 4096}, "scalars": {"n": 1024},
//                 "pointer_arrays": {"k": {"count": 4, "bytes": 65536, "stride": 16384}}}]}
//
// An argument that names an existing file is read as JSON; anything else is a spec.
#pragma once

#include "ptxkit/verifier/contract.h"

#include <string>
#include <vector>

namespace ptxkit::cli {

// Appends the contracts of every argument to `out`; false with `error` set on the first bad one
// (unreadable or malformed file, bad spec, a kernel given twice).
bool read_contract_args(const std::vector<std::string>& args,
                        std::vector<verifier::KernelContract>& out, std::string& error);

} // namespace ptxkit::cli
