// cli_test.cpp: the generation commands of `ptxkit` as a user runs them: exit codes 0/1/2 of
// docs/cli.md, error messages that list what is valid, byte-identical output on repeated runs,
// atomic -o output, `gen --all` file names, and `list --json`'s shape.
#include <algorithm>
#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <ptxkit/kernels/registry.h>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <unistd.h>

namespace {

// True when `s` is PREFIX followed by exactly 16 lower-case hex digits (and `tail`).
// (No std::regex: GCC 12 warns inside it under -O1 with sanitizers.)
inline bool is_key(const std::string& s, const std::string& prefix, const std::string& tail = "") {
  if (s.size() != prefix.size() + 16 + tail.size() || s.rfind(prefix, 0) != 0) return false;
  if (s.compare(prefix.size() + 16, tail.size(), tail) != 0) return false;
  for (std::size_t i = prefix.size(); i < prefix.size() + 16; ++i)
    if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f'))) return false;
  return true;
}

struct CmdResult {
  int code = -1;
  std::string out; // stdout
  std::string err; // stderr
};

CmdResult ptxkit(const std::string& args) {
  static int n = 0;
  std::string err_file =
      std::filesystem::temp_directory_path() /
      ("ptxkit_cli_test_" + std::to_string(::getpid()) + "_" + std::to_string(n++) + ".err");
  std::string cmd = std::string(PTXKIT_EXE) + " " + args + " 2>" + err_file;
  CmdResult r;
  FILE* p = ::popen(cmd.c_str(), "r");
  if (!p) return r;
  std::array<char, 4096> buf;
  std::size_t got;
  while ((got = std::fread(buf.data(), 1, buf.size(), p)) > 0)
    r.out.append(buf.data(), got);
  int status = ::pclose(p);
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  std::ifstream e(err_file);
  std::stringstream ss;
  ss << e.rdbuf();
  r.err = ss.str();
  std::filesystem::remove(err_file);
  return r;
}

TEST(CliGen, PrintsPtxForTheTargetAndIsByteIdenticalAcrossRuns) {
  CmdResult a = ptxkit("gen rmsnorm --target sm_80");
  ASSERT_EQ(a.code, 0) << a.err;
  EXPECT_NE(a.out.find(".target sm_80"), std::string::npos);
  EXPECT_NE(a.out.find(".entry rmsnorm"), std::string::npos);
  CmdResult b = ptxkit("gen rmsnorm --target sm_80");
  EXPECT_EQ(a.out, b.out);
  CmdResult c = ptxkit("gen rmsnorm --target sm_80 --set eps=1e-5");
  ASSERT_EQ(c.code, 0) << c.err;
  EXPECT_NE(a.out, c.out);
}

TEST(CliGen, UnknownKernelFieldValueOrTargetIsExit2ListingWhatIsValid) {
  CmdResult k = ptxkit("gen rmsnrom");
  EXPECT_EQ(k.code, 2);
  EXPECT_NE(k.err.find("ptxkit: error: unknown kernel 'rmsnrom'"), std::string::npos) << k.err;
  EXPECT_NE(k.err.find("batched_incremental_attention"), std::string::npos) << k.err;
  CmdResult f = ptxkit("gen rmsnorm --set epsilon=1e-5");
  EXPECT_EQ(f.code, 2);
  EXPECT_NE(f.err.find("eps (f32"), std::string::npos) << f.err;
  CmdResult v = ptxkit("gen rmsnorm --set eps=tiny");
  EXPECT_EQ(v.code, 2);
  EXPECT_NE(v.err.find("strtof"), std::string::npos) << v.err;
  CmdResult lim = ptxkit("gen rmsnorm --set hidden=898");
  EXPECT_EQ(lim.code, 2);
  EXPECT_NE(lim.err.find("multiple of 4"), std::string::npos) << lim.err;
  CmdResult hd = ptxkit("gen batched_incremental_attention --set head_dim=256");
  EXPECT_EQ(hd.code, 2);
  EXPECT_NE(hd.err.find("head_dim"), std::string::npos) << hd.err;
  CmdResult t = ptxkit("gen rmsnorm --target sm_42");
  EXPECT_EQ(t.code, 2);
  EXPECT_NE(t.err.find("sm_90"), std::string::npos) << t.err;
  EXPECT_EQ(ptxkit("gen").code, 2);
  EXPECT_EQ(ptxkit("gen --all").code, 2); // no --out-dir
  EXPECT_EQ(ptxkit("gen rmsnorm --bogus").code, 2);
  EXPECT_EQ(ptxkit("key nope").code, 2);
}

TEST(CliGen, OutputFileAndAllWriteTheDocumentedNames) {
  auto dir =
      std::filesystem::temp_directory_path() / ("ptxkit_cli_gen_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  CmdResult one = ptxkit("gen rmsnorm -o " + (dir / "r.ptx").string());
  ASSERT_EQ(one.code, 0) << one.err;
  EXPECT_TRUE(one.out.empty());
  EXPECT_EQ(std::filesystem::file_size(dir / "r.ptx"), ptxkit("gen rmsnorm").out.size());
  CmdResult all =
      ptxkit("gen --all --target sm_80 --target sm_90 --out-dir " + (dir / "all").string());
  ASSERT_EQ(all.code, 0) << all.err;
  std::size_t expected = 0;
  for (const auto* k : ptxkit::kernels::KernelRegistry::all())
    for (const auto& rc : k->reference_configs())
      for (const char* t : {"sm_80", "sm_90"}) {
        ++expected;
        auto name = std::string(k->name()) + "." + rc.tag + "." + t + ".ptx";
        EXPECT_TRUE(std::filesystem::exists(dir / "all" / name)) << name;
      }
  std::size_t files = 0;
  for ([[maybe_unused]] auto& e : std::filesystem::directory_iterator(dir / "all"))
    ++files;
  EXPECT_EQ(files, expected); // and no temporary left behind
  std::filesystem::remove_all(dir);
}

TEST(CliKey, IsOneLineThatFollowsBakedFieldsOnly) {
  CmdResult a = ptxkit("key rmsnorm --set eps=1e-6");
  ASSERT_EQ(a.code, 0) << a.err;
  EXPECT_TRUE(is_key(a.out, "rmsnorm-", "\n")) << a.out;
  EXPECT_NE(a.out, ptxkit("key rmsnorm --set eps=1e-5").out);
  EXPECT_NE(a.out, ptxkit("key rmsnorm --set eps=1.0000001e-6").out); // 1 ulp away
  EXPECT_EQ(a.out, ptxkit("key rmsnorm --set eps=0.000001 --set rows=64").out);
  EXPECT_NE(a.out, ptxkit("key rmsnorm --set eps=1e-6 --target sm_80").out);
  CmdResult e = ptxkit("key batched_incremental_attention --explain");
  ASSERT_EQ(e.code, 0);
  EXPECT_NE(e.out.find("not in the key: batch_size"), std::string::npos) << e.out;
}

TEST(CliList, JsonHasTheShapeOfCliMd) {
  CmdResult r = ptxkit("list --json");
  ASSERT_EQ(r.code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  ASSERT_TRUE(j.is_array());
  ASSERT_EQ(j.size(), ptxkit::kernels::KernelRegistry::all().size());
  for (const auto& k : j) {
    EXPECT_TRUE(k.at("name").is_string());
    EXPECT_TRUE(k.at("summary").is_string());
    for (const auto& f : k.at("fields")) {
      EXPECT_TRUE(f.at("name").is_string());
      std::string type = f.at("type");
      EXPECT_TRUE(type == "u32" || type == "i32" || type == "f32" || type == "bool" ||
                  type == "enum")
          << type;
      EXPECT_TRUE(f.contains("default"));
      EXPECT_TRUE(f.at("baked").is_boolean());
    }
    EXPECT_FALSE(k.at("reference_configs").empty());
    for (const auto& rc : k.at("reference_configs"))
      EXPECT_EQ(rc.size(), k.at("fields").size()); // every field, by name
  }
  auto rms = std::find_if(j.begin(), j.end(), [](auto& k) { return k["name"] == "rmsnorm"; });
  ASSERT_NE(rms, j.end());
  EXPECT_EQ((*rms)["reference_configs"][0]["eps"].get<double>(), 1e-6);
  EXPECT_EQ((*rms)["reference_configs"][1]["hidden"].get<int>(), 4096);
}

TEST(CliHelp, EveryGenerationCommandHasHelp) {
  for (const char* cmd : {"list", "gen", "key", "golden", "golden check"}) {
    CmdResult r = ptxkit(std::string(cmd) + " --help");
    EXPECT_EQ(r.code, 0) << cmd;
    EXPECT_NE(r.out.find("--"), std::string::npos) << cmd;
  }
}

} // namespace
