// verify_speed_gbench.cpp: `bench_verify`, the Google Benchmark of verifier throughput (MB/s)
// on the largest corpus files: the full verify (parse + analyses + every rule), the analyses
// alone on an already parsed module, the rules alone on already built analyses, and each rule
// alone on the largest file.
//
// Why the three: ptxkit-verify-bench gives the one ratio the issue asks for (verify vs ptxas);
// this splits the time so a regression points at its phase. Run after building the corpus
// target: build/bin/bench_verify [--benchmark_filter=...]
#include "bench_process.h"
#include "ptxkit/verifier/analysis/function_analysis.h"
#include "ptxkit/verifier/parser.h"
#include "ptxkit/verifier/rule.h"
#include "ptxkit/verifier/verify.h"

#include <benchmark/benchmark.h>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace {

namespace v = ptxkit::verifier;

void set_bytes(benchmark::State& state, const std::string& text) {
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) *
                          static_cast<std::int64_t>(text.size()));
}

// What `ptxkit verify FILE` does after reading the file.
void BM_Verify(benchmark::State& state, const std::string& text, const std::string& name) {
  for (auto _ : state) {
    v::VerifyTextResult r = v::verify_text(text, name);
    if (r.parse_error) {
      state.SkipWithError(r.parse_error->message.c_str());
      break;
    }
    benchmark::DoNotOptimize(r);
  }
  set_bytes(state, text);
}

// FunctionAnalysis (IR, CFG, dominators, liveness, loops, values, uniformity) of every function.
void BM_Analyses(benchmark::State& state, const std::string& text, const std::string& name) {
  auto parsed = v::parse(text, name);
  if (!parsed.ok()) {
    state.SkipWithError(parsed.error().message.c_str());
    return;
  }
  const std::vector<const v::Function*> fns = parsed.value().functions();
  for (auto _ : state)
    for (const v::Function* fn : fns)
      if (fn->has_body) {
        v::analysis::FunctionAnalysis a(*fn);
        benchmark::DoNotOptimize(a.uniformity);
      }
  set_bytes(state, text);
}

// Every registered rule (or only `only`, when not empty) on analyses built once, outside the
// timed loop.
void BM_Rules(benchmark::State& state, const std::string& text, const std::string& name,
              const std::string& only) {
  auto parsed = v::parse(text, name);
  if (!parsed.ok()) {
    state.SkipWithError(parsed.error().message.c_str());
    return;
  }
  const v::Module& module = parsed.value();
  std::vector<std::pair<const v::Function*, std::unique_ptr<v::analysis::FunctionAnalysis>>> fns;
  for (const v::Function* fn : module.functions())
    if (fn->has_body) fns.emplace_back(fn, std::make_unique<v::analysis::FunctionAnalysis>(*fn));
  for (auto _ : state) {
    std::vector<v::Finding> findings;
    for (const auto& rule : v::all_rules()) {
      if (!only.empty() && rule->id() != only) continue;
      std::uint32_t sites = 0;
      for (const auto& [fn, a] : fns) {
        v::RuleContext ctx(module, *fn, *a, rule->id(), rule->default_severity(), findings, sites);
        rule->check(ctx);
      }
    }
    benchmark::DoNotOptimize(findings);
  }
  set_bytes(state, text);
}

} // namespace

int main(int argc, char** argv) {
  static std::vector<std::pair<std::string, std::string>> inputs;
  auto files = ptxkit::bench::ptx_files_at_least(PTXKIT_CORPUS_DIR, 0);
  if (files.size() > 4) files.resize(4);
  for (const auto& f : files)
    inputs.emplace_back(std::filesystem::path(f).filename().string(), ptxkit::bench::read_file(f));
  if (inputs.empty()) {
    std::fprintf(stderr, "bench_verify: no corpus in %s (build the ptxkit_corpus target)\n",
                 PTXKIT_CORPUS_DIR);
    return 2;
  }
  for (const auto& [name, text] : inputs) {
    benchmark::RegisterBenchmark(("verify/" + name).c_str(), BM_Verify, text, name)
        ->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark(("analyses/" + name).c_str(), BM_Analyses, text, name)
        ->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark(("rules/" + name).c_str(), BM_Rules, text, name, "")
        ->Unit(benchmark::kMillisecond);
  }
  // Each rule alone on the largest file: where the rules' share of the time goes.
  const auto& [name, text] = inputs.front();
  for (const auto& rule : v::all_rules())
    benchmark::RegisterBenchmark(("rule/" + std::string(rule->id()) + "/" + name).c_str(), BM_Rules,
                                 text, name, std::string(rule->id()))
        ->Unit(benchmark::kMillisecond);
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
