// isa_coverage_test.cpp: the PTX ISA 9.0 coverage matrix (isa/coverage/ptx-isa-9.0.tsv), row by
// row: supported rows parse, print, re-parse to an equal tree and print the same bytes, and every
// instruction in them is in the ISA table; unsupported rows still fail to parse (so the status
// stays honest); ptxas assembles every row it has a target for (so no snippet is illegal PTX).
//
// Why: the parser's coverage is proven against the specification's list of directives,
// instructions, special registers and operand forms, not discovered one real file at a time.
// Body rows are assembled many to a module (one .entry each) and, only when a batch fails, one by
// one again, so a failure names its row while the passing run stays a few dozen ptxas calls.
#include "ptxkit/isa/isa.h"
#include "ptxkit/verifier/ast.h"
#include "ptxkit/verifier/parser.h"
#include "ptxkit/verifier/printer.h"

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <map>
#include <mutex>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <unistd.h>
#include <vector>

namespace ptxkit::verifier {
namespace {

const char* kMatrix = PTXKIT_SOURCE_DIR "/isa/coverage/ptx-isa-9.0.tsv";
const std::set<std::string> kChapters = {"directive", "state-space", "instruction",
                                         "special-register", "operand"};

struct Row {
  int line = 0;
  std::string chapter, section, id, scope, target, version, status, ptxas, snippet, note;
  bool supported() const { return status == "supported"; }
  std::string where() const {
    return "row '" + id + "' (ptx-isa-9.0.tsv:" + std::to_string(line) + ")";
  }
};

std::vector<std::string> split_tabs(const std::string& s) {
  std::vector<std::string> out(1);
  for (char c : s) {
    if (c == '\t')
      out.emplace_back();
    else
      out.back() += c;
  }
  return out;
}

// Rows in file order; a malformed line fails the test that loads it.
std::vector<Row> load_rows() {
  std::ifstream in(kMatrix);
  EXPECT_TRUE(in.good()) << "cannot read " << kMatrix;
  std::vector<Row> rows;
  std::string text;
  bool header = true;
  for (int line = 1; std::getline(in, text); ++line) {
    if (text.empty() || text[0] == '#') continue;
    if (header) { // the column names
      header = false;
      continue;
    }
    auto f = split_tabs(text);
    if (f.size() != 10) {
      ADD_FAILURE() << "ptx-isa-9.0.tsv:" << line << ": " << f.size() << " columns, want 10";
      continue;
    }
    rows.push_back(Row{line, f[0], f[1], f[2], f[3], f[4], f[5], f[6], f[7], f[8], f[9]});
  }
  return rows;
}

const std::vector<Row>& rows() {
  static const std::vector<Row> r = load_rows();
  return r;
}

// The registers every body row may use; .b128 registers need PTX ISA 8.3.
std::string registers(const Row& r) {
  std::string s = ".reg .pred %p<9>; .reg .b16 %rs<9>; .reg .b32 %r<33>; .reg .b64 %rd<17>; "
                  ".reg .f32 %f<33>; .reg .f64 %fd<9>;";
  if (std::stod(r.version) >= 8.3) s += " .reg .b128 %q<3>;";
  return s;
}

std::string header(const Row& r) {
  return ".version " + r.version + "\n.target " + r.target + "\n.address_size 64\n" +
         ".global .align 16 .b8 gmem[4096];\n.shared .align 16 .b8 smem[4096];\n"
         ".const .align 16 .b8 cmem[256];\n";
}

std::string entry(const Row& r, const std::string& name) {
  return ".visible .entry " + name + "()\n{\n" + registers(r) + "\n" + r.snippet + "\n}\n";
}

// The module a row stands for on its own.
std::string module_text(const Row& r) {
  if (r.snippet.rfind(".version", 0) == 0) return r.snippet + "\n";
  if (r.scope == "module") return header(r) + r.snippet + "\n";
  return header(r) + entry(r, "k");
}

void collect_instructions(const Block& b, std::vector<const Instruction*>& out) {
  for (const Statement& s : b.statements) {
    if (const auto* i = std::get_if<Instruction>(&s.node)) out.push_back(i);
    if (const auto* inner = std::get_if<Block>(&s.node)) collect_instructions(*inner, out);
  }
}

bool uses_special_register(const Operand& op, std::string_view name) {
  if (op.kind == OperandKind::kSpecialReg && op.text() == name) return true;
  for (const Operand& e : op.elements())
    if (uses_special_register(e, name)) return true;
  return false;
}

// "" when the row parses, prints, re-parses to an equal tree and prints the same bytes, and its
// instructions and special registers are known; else what went wrong.
std::string check_round_trip(const Row& r) {
  auto a = parse(module_text(r), r.id);
  if (!a.ok()) return "does not parse: " + a.error().format();
  std::string p1 = print(*a);
  auto b = parse(p1, r.id + " (printed)");
  if (!b.ok()) return "its printed form does not parse: " + b.error().format() + p1;
  if (!equal_ignoring_locations(*a, *b))
    return "re-parsing the printed form gives another tree:\n" + p1;
  if (print(*b) != p1) return "printing is not stable:\n" + p1 + "\n---\n" + print(*b);
  std::vector<const Instruction*> ins;
  for (const Function* f : a->functions())
    collect_instructions(f->body, ins);
  for (const Instruction* i : ins)
    if (i->op == isa::Opcode::kUnknown)
      return "the ISA table does not know '" + std::string(i->opcode) + "'";
  if (r.chapter == "instruction" && ins.empty()) return "no instruction in an instruction row";
  if (r.chapter == "special-register") {
    bool found = false;
    for (const Instruction* i : ins)
      for (const Operand& op : i->operands)
        found = found || uses_special_register(op, r.id);
    if (!found) return "'" + r.id + "' is not read as a special register";
  }
  return "";
}

TEST(IsaCoverage, MatrixIsWellFormed) {
  ASSERT_FALSE(rows().empty());
  std::set<std::string> ids;
  std::map<std::string, std::pair<int, int>> counts; // chapter -> supported, unsupported
  for (const Row& r : rows()) {
    EXPECT_TRUE(ids.insert(r.id).second) << "duplicate id: " << r.where();
    EXPECT_TRUE(kChapters.count(r.chapter))
        << "unknown chapter '" << r.chapter << "': " << r.where();
    EXPECT_TRUE(r.scope == "body" || r.scope == "module") << r.where();
    EXPECT_TRUE(r.supported() || r.status == "unsupported") << r.where();
    EXPECT_EQ(r.supported(), r.note.empty())
        << "an unsupported row says why, a supported one has no note: " << r.where();
    EXPECT_TRUE(r.ptxas == "yes" || r.ptxas == "compile-only" || r.ptxas.rfind("no: ", 0) == 0)
        << r.where();
    EXPECT_TRUE(r.target.rfind("sm_", 0) == 0) << r.where();
    EXPECT_FALSE(r.snippet.empty()) << r.where();
    (r.supported() ? counts[r.chapter].first : counts[r.chapter].second)++;
  }
  for (const std::string& c : kChapters) {
    EXPECT_GT(counts[c].first + counts[c].second, 0) << "chapter without rows: " << c;
    std::printf("%-17s %4d rows: %4d supported, %3d unsupported\n", c.c_str(),
                counts[c].first + counts[c].second, counts[c].first, counts[c].second);
  }
}

TEST(IsaCoverage, SupportedRowsRoundTripAndAreInTheIsaTable) {
  int checked = 0;
  for (const Row& r : rows()) {
    if (!r.supported()) continue;
    ++checked;
    std::string why = check_round_trip(r);
    EXPECT_EQ(why, "") << r.where() << ":\n" << module_text(r);
  }
  EXPECT_GT(checked, 0);
}

TEST(IsaCoverage, UnsupportedRowsStillFailToParse) {
  for (const Row& r : rows()) {
    if (r.supported()) continue;
    auto a = parse(module_text(r), r.id);
    EXPECT_FALSE(a.ok()) << r.where() << " parses now: check it round-trips and flip its status to "
                         << "supported (and drop its note)";
  }
}

// ---- ptxas ------------------------------------------------------------------------------------

struct Job {
  std::string text; // the module to assemble
  std::string arch; // -arch
  bool compile_only = false;
  std::vector<const Row*> rows; // what it stands for
  bool printed = false;         // text is the printer's output
};

int sm_number(const std::string& target) {
  return std::atoi(target.c_str() + 3);
}

// ptxas compiles `.target sm_XY` PTX for any sm_MN with MN >= XY; it has no target below sm_75.
std::string arch_for(const Row& r) {
  return sm_number(r.target) >= 75 ? r.target : "sm_75";
}

// Runs ptxas on `text`; "" on success, else its messages.
std::string assemble(const std::string& text, const std::string& arch, bool compile_only,
                     const std::string& tag) {
  static std::atomic<int> counter{0};
  auto dir = std::filesystem::temp_directory_path() /
             ("ptxkit-isa-coverage-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::string base = (dir / (tag + "-" + std::to_string(counter++))).string();
  { std::ofstream(base + ".ptx") << text; }
  std::string cmd = std::string("'") + PTXKIT_PTXAS + "' -arch=" + arch +
                    (compile_only ? " -c" : "") + " '" + base + ".ptx' -o '" + base +
                    ".cubin' > '" + base + ".log' 2>&1";
  int rc = std::system(cmd.c_str());
  std::string log;
  if (rc != 0) {
    std::ifstream in(base + ".log");
    std::stringstream ss;
    ss << in.rdbuf();
    log = ss.str();
    if (log.empty()) log = "ptxas exited with " + std::to_string(rc);
  }
  std::filesystem::remove(base + ".ptx");
  std::filesystem::remove(base + ".cubin");
  std::filesystem::remove(base + ".log");
  return log;
}

// Runs `fn(i)` for i in [0, n) on two threads (ptxas runs are independent; two at a time).
template <class Fn>
void two_at_a_time(std::size_t n, Fn fn) {
  std::atomic<std::size_t> next{0};
  auto work = [&] {
    for (std::size_t i; (i = next++) < n;)
      fn(i);
  };
  std::thread t(work);
  work();
  t.join();
}

TEST(IsaCoverage, PtxasAssemblesEveryRow) {
  if (std::string(PTXKIT_PTXAS).empty())
    GTEST_SKIP()
        << "SKIPPED: ptxas not found (PTXKIT_PTXAS empty): the matrix rows are not assembled";
  // Supported body rows: batched per (target, version, -c), the printed form of the batch module.
  // Everything else (module rows, unsupported rows): one module each, supported ones printed.
  std::map<std::string, std::vector<const Row*>> batches;
  std::vector<Job> jobs;
  for (const Row& r : rows()) {
    if (r.ptxas.rfind("no: ", 0) == 0) continue;
    bool c = r.ptxas == "compile-only";
    if (r.supported() && r.scope == "body") {
      batches[r.target + " " + r.version + (c ? " c" : "")].push_back(&r);
      continue;
    }
    Job j{module_text(r), arch_for(r), c, {&r}, false};
    if (r.supported()) {
      auto m = parse(j.text, r.id);
      if (!m.ok()) continue; // reported by the round-trip test
      j.text = print(*m);
      j.printed = true;
    }
    jobs.push_back(std::move(j));
  }
  for (auto& [key, members] : batches) {
    const Row& first = *members.front();
    std::string text = header(first);
    for (std::size_t i = 0; i < members.size(); ++i)
      text += entry(*members[i], "row_" + std::to_string(i));
    auto m = parse(text, key);
    if (!m.ok()) continue; // a row that does not parse is reported by the round-trip test
    jobs.push_back(Job{print(*m), arch_for(first), first.ptxas == "compile-only", members, true});
  }
  std::mutex mu;
  std::vector<std::string> failures;
  std::atomic<int> calls{0};
  two_at_a_time(jobs.size(), [&](std::size_t k) {
    const Job& j = jobs[k];
    ++calls;
    std::string log = assemble(j.text, j.arch, j.compile_only, "batch");
    if (log.empty()) return;
    // Name the rows: each alone, as written and as printed.
    bool named = false;
    for (const Row* r : j.rows) {
      ++calls;
      std::string orig = assemble(module_text(*r), j.arch, j.compile_only, "row");
      std::string msg;
      if (!orig.empty()) {
        msg = r->where() + " is not legal PTX for ptxas -arch=" + j.arch + ":\n" + orig;
      } else if (j.printed) {
        auto m = parse(module_text(*r), r->id);
        std::string printed = m.ok() ? print(*m) : "";
        std::string p = m.ok() ? assemble(printed, j.arch, j.compile_only, "printed") : "";
        if (!p.empty()) msg = r->where() + ": ptxas rejects its printed form:\n" + p + printed;
      }
      if (!msg.empty()) {
        named = true;
        std::lock_guard<std::mutex> lock(mu);
        failures.push_back(msg);
      }
    }
    if (!named) {
      std::lock_guard<std::mutex> lock(mu);
      failures.push_back("a module of " + std::to_string(j.rows.size()) + " rows from " +
                         j.rows.front()->where() + " on fails though each row alone passes:\n" +
                         log);
    }
  });
  for (const std::string& f : failures)
    ADD_FAILURE() << f;
  std::printf("ptxas: %d calls for %zu modules\n", calls.load(), jobs.size());
}

} // namespace
} // namespace ptxkit::verifier
