// ptx_compat.cpp: the PTX ISA <-> CUDA driver table, the .target <-> compute capability rules,
// and a small reader for a module's .version/.target header.
//
// The table is NVIDIA's PTX release history (PTX ISA release notes): each PTX ISA version with
// the first CUDA release that accepts it. Within CUDA 13 the pattern PTX 9.x <-> CUDA 13.x holds
// for the releases listed, and the table extrapolates it for later 13.x drivers.
#include "ptxkit/runtime/ptx_compat.h"

#include <array>
#include <cctype>
#include <charconv>

namespace ptxkit::runtime {
namespace {

struct IsaRelease {
  PtxIsaVersion isa;
  int driver; // first CUDA version (1000*major + 10*minor) that JITs it
};

constexpr std::array<IsaRelease, 26> kReleases{{
    {{6, 0}, 9000},  {{6, 1}, 9010},  {{6, 2}, 9020},  {{6, 3}, 10000}, {{6, 4}, 10010},
    {{6, 5}, 10020}, {{7, 0}, 11000}, {{7, 1}, 11010}, {{7, 2}, 11020}, {{7, 3}, 11030},
    {{7, 4}, 11040}, {{7, 5}, 11050}, {{7, 6}, 11060}, {{7, 7}, 11070}, {{7, 8}, 11080},
    {{8, 0}, 12000}, {{8, 1}, 12010}, {{8, 2}, 12020}, {{8, 3}, 12030}, {{8, 4}, 12040},
    {{8, 5}, 12050}, {{8, 6}, 12070}, {{8, 7}, 12080}, {{8, 8}, 12090}, {{9, 0}, 13000},
    {{9, 1}, 13010},
}};
constexpr int kLastKnownCudaMajor = 13;

// Skips whitespace and comments from `i`, counting lines.
void skip_space(std::string_view s, std::size_t& i, int& line) {
  while (i < s.size()) {
    if (s[i] == '\n') {
      ++line;
      ++i;
    } else if (std::isspace(static_cast<unsigned char>(s[i]))) {
      ++i;
    } else if (s.compare(i, 2, "//") == 0) {
      while (i < s.size() && s[i] != '\n')
        ++i;
    } else if (s.compare(i, 2, "/*") == 0) {
      i += 2;
      while (i < s.size() && s.compare(i, 2, "*/") != 0) {
        if (s[i] == '\n') ++line;
        ++i;
      }
      i = i < s.size() ? i + 2 : i;
    } else {
      return;
    }
  }
}

std::string_view word_at(std::string_view s, std::size_t i) {
  std::size_t j = i;
  while (j < s.size() &&
         (std::isalnum(static_cast<unsigned char>(s[j])) || s[j] == '_' || s[j] == '.'))
    ++j;
  return s.substr(i, j - i);
}

bool parse_int(std::string_view s, int& out) {
  if (s.empty()) return false;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && p == s.data() + s.size();
}

} // namespace

std::string PtxIsaVersion::str() const {
  return std::to_string(major) + "." + std::to_string(minor);
}
std::string ComputeCapability::str() const {
  return std::to_string(major) + "." + std::to_string(minor);
}
std::string PtxTarget::str() const {
  std::string s = "sm_" + std::to_string(cc.major) + std::to_string(cc.minor);
  if (suffix != '\0') s += suffix;
  return s;
}

std::optional<PtxTarget> parse_target(std::string_view name) {
  std::string_view digits;
  if (name.starts_with("sm_")) {
    digits = name.substr(3);
  } else if (name.starts_with("compute_")) {
    digits = name.substr(8);
  } else {
    return std::nullopt;
  }
  PtxTarget t;
  if (!digits.empty() && (digits.back() == 'a' || digits.back() == 'f')) {
    t.suffix = digits.back();
    digits.remove_suffix(1);
  }
  int n = 0;
  if (digits.size() < 2 || !parse_int(digits, n) || n < 10) return std::nullopt;
  t.cc = {n / 10, n % 10};
  return t;
}

Expected<PtxHeader> read_ptx_header(std::string_view ptx) {
  PtxHeader h;
  bool have_version = false;
  bool have_target = false;
  std::size_t i = 0;
  int line = 1;
  while (i < ptx.size() && !(have_version && have_target)) {
    skip_space(ptx, i, line);
    if (i >= ptx.size()) break;
    const std::string_view w = word_at(ptx, i);
    if (w == ".version" || w == ".target") {
      const int at_line = line;
      i += w.size();
      skip_space(ptx, i, line);
      const std::string_view arg = word_at(ptx, i);
      if (w == ".version") {
        const auto dot = arg.find('.');
        if (dot == std::string_view::npos || !parse_int(arg.substr(0, dot), h.version.major) ||
            !parse_int(arg.substr(dot + 1), h.version.minor))
          return fail(ErrorKind::kBadArgument, "line " + std::to_string(at_line) +
                                                   ": malformed .version '" + std::string(arg) +
                                                   "'");
        h.version_line = at_line;
        have_version = true;
      } else {
        const auto t = parse_target(arg);
        if (!t)
          return fail(ErrorKind::kBadArgument, "line " + std::to_string(at_line) + ": .target '" +
                                                   std::string(arg) +
                                                   "' names no sm_ architecture");
        h.target = *t;
        h.target_line = at_line;
        have_target = true;
      }
      i += arg.size();
    } else {
      // Anything else: skip to the end of the line.
      while (i < ptx.size() && ptx[i] != '\n')
        ++i;
    }
  }
  if (!have_version) return fail(ErrorKind::kBadArgument, "the PTX has no .version directive");
  if (!have_target) return fail(ErrorKind::kBadArgument, "the PTX has no .target directive");
  return h;
}

std::optional<PtxIsaVersion> max_ptx_isa_for_driver(int driver_version) {
  const int major = driver_version / 1000;
  if (major > kLastKnownCudaMajor) return std::nullopt;
  if (driver_version > kReleases.back().driver)
    return PtxIsaVersion{major - 4, (driver_version % 1000) / 10}; // CUDA 13.x -> PTX 9.x
  std::optional<PtxIsaVersion> best;
  for (const auto& r : kReleases)
    if (r.driver <= driver_version) best = r.isa;
  if (!best) return PtxIsaVersion{5, 0}; // older than CUDA 9.0: PTX 5.0 at most
  return best;
}

std::optional<int> min_driver_for_ptx_isa(PtxIsaVersion v) {
  for (const auto& r : kReleases)
    if (r.isa == v) return r.driver;
  if (v.major == kLastKnownCudaMajor - 4 && v > kReleases.back().isa)
    return kLastKnownCudaMajor * 1000 + v.minor * 10;
  return std::nullopt;
}

std::string driver_version_string(int driver_version) {
  return std::to_string(driver_version / 1000) + "." + std::to_string((driver_version % 1000) / 10);
}

bool target_runs_on(const PtxTarget& target, ComputeCapability cc) {
  switch (target.suffix) {
  case 'a':
    return cc == target.cc;
  case 'f':
    return cc.major == target.cc.major && cc.minor >= target.cc.minor;
  default:
    return cc >= target.cc;
  }
}

Expected<void> check_ptx_loadable(const PtxHeader& header, int driver_version, ComputeCapability cc,
                                  std::string_view device_name) {
  if (const auto max = max_ptx_isa_for_driver(driver_version); max && header.version > *max) {
    std::string msg = "PTX .version " + header.version.str() + " (line " +
                      std::to_string(header.version_line) + ") needs ";
    if (const auto need = min_driver_for_ptx_isa(header.version))
      msg += "a CUDA " + driver_version_string(*need) + " or newer driver";
    else
      msg += "a driver newer than any this runtime knows";
    msg += "; this driver is CUDA " + driver_version_string(driver_version) +
           " and JIT-compiles PTX up to ISA " + max->str();
    return fail(ErrorKind::kDriverTooOld, std::move(msg));
  }
  if (!target_runs_on(header.target, cc)) {
    const std::string t = header.target.str();
    std::string need;
    switch (header.target.suffix) {
    case 'a':
      need = "a device of compute capability exactly " + header.target.cc.str();
      break;
    case 'f':
      need = "a device of compute capability " + std::to_string(header.target.cc.major) +
             ".x with x >= " + std::to_string(header.target.cc.minor);
      break;
    default:
      need = "a device of compute capability " + header.target.cc.str() + " or higher";
    }
    std::string dev =
        device_name.empty() ? "this device" : "this device (" + std::string(device_name) + ")";
    return fail(ErrorKind::kDeviceUnsupported,
                "PTX .target " + t + " (line " + std::to_string(header.target_line) +
                    ") runs only on " + need + "; " + dev + " is compute capability " + cc.str());
  }
  return {};
}

} // namespace ptxkit::runtime
