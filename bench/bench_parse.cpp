// bench_parse.cpp: Google Benchmark of PTX parse throughput (MB/s) on the largest corpus files,
// and of the canonical printer on the same trees.
//
// Why: the verifier sits on the path of every kernel load, and the parser must stay far faster
// than ptxas (docs/parser.md records the figures). Run after building the corpus target:
//   build/bin/bench_parse [--benchmark_filter=...]
#include "ptxkit/verifier/parser.h"
#include "ptxkit/verifier/printer.h"

#include <algorithm>
#include <benchmark/benchmark.h>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace {

std::string read(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The `count` largest .ptx files of the corpus.
std::vector<std::filesystem::path> largest(std::size_t count) {
  std::vector<std::filesystem::path> files;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(PTXKIT_CORPUS_DIR, ec))
    if (e.path().extension() == ".ptx") files.push_back(e.path());
  std::sort(files.begin(), files.end(), [](const auto& a, const auto& b) {
    return std::filesystem::file_size(a) > std::filesystem::file_size(b);
  });
  if (files.size() > count) files.resize(count);
  return files;
}

void BM_Parse(benchmark::State& state, const std::string& text, const std::string& name) {
  for (auto _ : state) {
    auto r = ptxkit::verifier::parse(text, name);
    if (!r.ok()) {
      state.SkipWithError(r.error().message.c_str());
      break;
    }
    benchmark::DoNotOptimize(r);
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) *
                          static_cast<std::int64_t>(text.size()));
}

void BM_Print(benchmark::State& state, const std::string& text, const std::string& name) {
  auto r = ptxkit::verifier::parse(text, name);
  if (!r.ok()) {
    state.SkipWithError(r.error().message.c_str());
    return;
  }
  for (auto _ : state)
    benchmark::DoNotOptimize(ptxkit::verifier::print(*r));
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) *
                          static_cast<std::int64_t>(text.size()));
}

} // namespace

int main(int argc, char** argv) {
  static std::vector<std::pair<std::string, std::string>> inputs;
  for (const auto& p : largest(4))
    inputs.emplace_back(p.filename().string(), read(p));
  if (inputs.empty()) {
    std::fprintf(stderr, "bench_parse: no corpus in %s (build the ptxkit_corpus target)\n",
                 PTXKIT_CORPUS_DIR);
    return 2;
  }
  for (const auto& [name, text] : inputs) {
    benchmark::RegisterBenchmark(("parse/" + name).c_str(), BM_Parse, text, name)
        ->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark(("print/" + name).c_str(), BM_Print, text, name)
        ->Unit(benchmark::kMillisecond);
  }
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
