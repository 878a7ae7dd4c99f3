// interp_conformance_test.cpp: the interpreter's conformance cases (tests/verifier/
// interp_conformance.h) on the GPU: every case's kernel, one thread per input, and its results
// against the interpreter and against the recorded file interp_conformance_expected.tsv.
//
// Environment:
//   PTXKIT_INTERP_CONFORMANCE_OUT=FILE       record the GPU's results into FILE (the expected
//                                            file's format) instead of comparing with the file
//   PTXKIT_INTERP_CONFORMANCE_EXPECTED=FILE  the recorded file (default: the source tree's
//                                            tests/verifier/interp_conformance_expected.tsv,
//                                            then that path under the working directory)
//   PTXKIT_INTERP_CONFORMANCE_PTX=FILE       also write the module the GPU runs (for ptxas)
#include "device_env.h"
#include "interp_conformance.h"

#include <cstdlib>
#include <fstream>
#include <gtest/gtest.h>
#include <ptxkit/runtime/buffer.h>
#include <ptxkit/runtime/module.h>
#include <ptxkit/verifier/verified_ptx.h>
#include <sstream>

namespace ptxkit::device_tests {
namespace {

namespace cf = verifier::conformance;
namespace rt = ptxkit::runtime;

const char* env(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr && *v != '\0' ? v : nullptr;
}

std::optional<cf::Expected> recorded(std::string& path) {
  if (const char* p = env("PTXKIT_INTERP_CONFORMANCE_EXPECTED")) {
    path = p;
    return cf::read_expected(path);
  }
  for (const std::string& p : {std::string(PTXKIT_INTERP_CONFORMANCE_TSV),
                               std::string("tests/verifier/interp_conformance_expected.tsv")}) {
    path = p;
    if (auto e = cf::read_expected(p)) return e;
  }
  return std::nullopt;
}

TEST(InterpConformanceDevice, GpuMatchesInterpreterAndRecord) {
  if (const char* p = env("PTXKIT_INTERP_CONFORMANCE_PTX")) std::ofstream(p) << cf::device_module();
  PTXKIT_REQUIRE_DEVICE();
  auto& s = *DeviceEnv::session();
  const char* out_path = env("PTXKIT_INTERP_CONFORMANCE_OUT");
  std::string expected_path;
  const std::optional<cf::Expected> expected = out_path ? std::nullopt : recorded(expected_path);
  if (out_path == nullptr) {
    ASSERT_TRUE(expected.has_value())
        << "no recorded results at " << expected_path
        << ": record them on this GPU with PTXKIT_INTERP_CONFORMANCE_OUT=FILE and commit FILE as "
           "tests/verifier/interp_conformance_expected.tsv";
  }

  auto verified = verifier::verify_for_load(cf::device_module(), "interp_conformance.ptx");
  ASSERT_TRUE(verified.ok()) << verified.error().message;
  auto module = rt::Module::load(s.ctx, *verified);
  ASSERT_TRUE(module.has_value()) << module.error().message;

  std::ostringstream record;
  record << "# The GPU's results of the interpreter conformance cases (tests/verifier/"
            "interp_conformance.h),\n# recorded on "
         << s.describe()
         << " by ptxkit_device_tests with PTXKIT_INTERP_CONFORMANCE_OUT.\n"
            "# case\ta\tb\tc\tout (hex)\n";
  std::size_t rows = 0, interpreted = 0, gpu_vs_interp = 0, gpu_vs_record = 0;
  for (std::size_t i = 0; i < cf::cases().size(); ++i) {
    const cf::Case& c = cf::cases()[i];
    const auto n = static_cast<std::uint32_t>(c.inputs.size());
    std::vector<std::uint64_t> in;
    for (const cf::Input& x : c.inputs)
      in.insert(in.end(), x.begin(), x.end());
    auto fn = module->function(cf::entry_name(i));
    ASSERT_TRUE(fn.has_value()) << c.name << ": " << fn.error().message;
    auto din =
        rt::DeviceBuffer<std::uint64_t>::from_host(s.ctx, std::span<const std::uint64_t>(in));
    ASSERT_TRUE(din.has_value()) << din.error().message;
    // Poisoned, so a thread that never stores shows as a mismatch.
    const std::vector<std::uint64_t> poison(n, 0xa5a5a5a5a5a5a5a5u);
    auto dout =
        rt::DeviceBuffer<std::uint64_t>::from_host(s.ctx, std::span<const std::uint64_t>(poison));
    ASSERT_TRUE(dout.has_value()) << dout.error().message;
    const rt::LaunchDims dims{{1, 1, 1}, {n, 1, 1}, 0};
    auto launched = fn->launch(s.stream, dims, *din, *dout, n, cf::kParamK);
    ASSERT_TRUE(launched.has_value()) << c.name << ": " << launched.error().message;
    ASSERT_TRUE(s.stream.synchronize().has_value()) << c.name;
    std::vector<std::uint64_t> got(n);
    ASSERT_TRUE(dout->download(std::span<std::uint64_t>(got)).has_value()) << c.name;
    for (std::uint32_t k = 0; k < n; ++k) {
      const cf::Input& x = c.inputs[k];
      record << cf::format_row(c, x, got[k]) << "\n";
      ++rows;
      if (const auto v = cf::interpret(c, x)) {
        ++interpreted;
        if (*v != got[k]) ++gpu_vs_interp;
        EXPECT_EQ(*v, got[k]) << "interpreter " << cf::format_row(c, x, *v) << ", GPU " << std::hex
                              << got[k];
      } else {
        EXPECT_FALSE(c.exact) << "interpreter unknown for exact " << cf::format_row(c, x, got[k]);
      }
      if (expected) {
        const auto it = expected->find({c.name, x[0], x[1], x[2]});
        if (it == expected->end() || it->second != got[k]) ++gpu_vs_record;
        EXPECT_TRUE(it != expected->end() && it->second == got[k])
            << "GPU " << cf::format_row(c, x, got[k]) << ", recorded "
            << (it == expected->end() ? std::string("nothing") : cf::format_row(c, x, it->second));
      }
    }
  }
  std::printf("[conformance] %zu cases, %zu rows, %zu known to the interpreter; mismatches: "
              "%zu with the interpreter, %zu with the record\n",
              cf::cases().size(), rows, interpreted, gpu_vs_interp, gpu_vs_record);
  if (out_path) {
    std::ofstream(out_path) << record.str();
    std::printf("[conformance] recorded %zu rows into %s\n", rows, out_path);
  }
}

} // namespace
} // namespace ptxkit::device_tests
