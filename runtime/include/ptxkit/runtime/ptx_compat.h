// ptx_compat.h: may this driver JIT this PTX, and may this device run it? Checked before loading.
//
// cuModuleLoadDataEx answers both questions only with a bare CUDA_ERROR_UNSUPPORTED_PTX_VERSION or
// CUDA_ERROR_NO_BINARY_FOR_GPU. Checking the module's `.version` against the newest PTX ISA the
// driver knows, and its `.target` against the device's compute capability, first lets the
// runtime say which driver or device would be needed.
#pragma once

#include "ptxkit/runtime/error.h"

#include <compare>
#include <optional>
#include <string>
#include <string_view>

namespace ptxkit::runtime {

struct PtxIsaVersion {
  int major = 0;
  int minor = 0;
  auto operator<=>(const PtxIsaVersion&) const = default;
  std::string str() const; // "9.0"
};

struct ComputeCapability {
  int major = 0;
  int minor = 0;
  auto operator<=>(const ComputeCapability&) const = default;
  std::string str() const; // "9.0"
};

// A `.target` architecture: sm_90 is {9, 0, '\0'}, sm_90a {9, 0, 'a'}, sm_100f {10, 0, 'f'}.
struct PtxTarget {
  ComputeCapability cc;
  char suffix = '\0';      // '\0', 'a' (architecture-specific) or 'f' (family-specific)
  std::string str() const; // "sm_90a"
};

// The module header as the runtime needs it: `.version` and the sm_ architecture of `.target`.
struct PtxHeader {
  PtxIsaVersion version;
  PtxTarget target;
  int version_line = 0; // 1-based source lines, for messages
  int target_line = 0;
};

// Reads `.version` and `.target` from PTX text (skipping comments). kBadArgument if either is
// missing or malformed.
Expected<PtxHeader> read_ptx_header(std::string_view ptx);

// Parses "sm_90", "sm_90a", "sm_100f" (and "compute_90" alike). nullopt when it is no such name.
std::optional<PtxTarget> parse_target(std::string_view name);

// The newest PTX ISA version a driver of CUDA version `driver_version` (cuDriverGetVersion's
// 1000*major + 10*minor, e.g. 13000) can JIT. CUDA 13.0 -> 9.0, 12.8 -> 8.7, 12.6 -> 8.5.
// nullopt for a driver newer than every CUDA major version this table knows: then nothing is
// refused before loading and the driver decides.
std::optional<PtxIsaVersion> max_ptx_isa_for_driver(int driver_version);

// The oldest CUDA driver version that JITs PTX ISA `v` (13000 for 9.0), or nullopt if unknown.
std::optional<int> min_driver_for_ptx_isa(PtxIsaVersion v);

// "13.0" for 13000.
std::string driver_version_string(int driver_version);

// Whether code for `target` runs on a device of compute capability `cc`: sm_XY on any cc >= X.Y;
// sm_XYa only on exactly X.Y; sm_XYf on X.Z with Z >= Y (the same family).
bool target_runs_on(const PtxTarget& target, ComputeCapability cc);

// Refuses (kDriverTooOld / kDeviceUnsupported) a module this driver cannot JIT or this device
// cannot run, with a message naming the driver or device needed; `device_name` is for messages.
Expected<void> check_ptx_loadable(const PtxHeader& header, int driver_version, ComputeCapability cc,
                                  std::string_view device_name = {});

} // namespace ptxkit::runtime
