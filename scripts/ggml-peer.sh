#!/usr/bin/env bash
# ggml-peer.sh GGML_SRC [OUT_DIR]: the llama.cpp (ggml) mat-vec peer of ptxkit's quantized and half
# GEMV, built from source on the GPU machine and timed by ggml's own harness.
#
# Adds ptxkit's benchmark shapes (rows x cols: 4096x4096, 11008x4096, 14336x4096, 4096x14336,
# 128256x4096; batch 1; Q4_K, Q8_0, BF16 and F16 weights, f32 activations) to the perf cases of
# ggml's tests/test-backend-ops.cpp, builds that one target with CUDA for sm_90, and runs
# `test-backend-ops perf -o MUL_MAT` on those cases only. ggml's perf loop runs one weight tensor
# over and over, so its L2 stays warm wherever the weights fit in it (50 MiB on an H200): compare
# like with like (docs/device-results.md says how each ptxkit figure was taken).
#
# Writes OUT_DIR/ggml_build.log and OUT_DIR/ggml_perf.log; exit 0 when the perf run completed.
set -euo pipefail
src=${1:?usage: ggml-peer.sh GGML_SRC [OUT_DIR]}
out=${2:-${OUT:-.}}
mkdir -p "$out"
work=$(mktemp -d)
cp -r "$src" "$work/ggml"
tests="$work/ggml/tests/test-backend-ops.cpp"
anchor='static std::vector<std::unique_ptr<test_case>> make_test_cases_perf() {'
grep -qF "$anchor" "$tests" || { echo "ggml-peer: $tests has no make_test_cases_perf()" >&2; exit 2; }
cases='    // ptxkit peer shapes (rows x cols), batch 1.\n    for (auto mk : std::vector<std::pair<int64_t, int64_t>>{{4096, 4096}, {11008, 4096}, {14336, 4096}, {4096, 14336}, {128256, 4096}}) {\n        for (ggml_type t : {GGML_TYPE_Q4_K, GGML_TYPE_Q8_0, GGML_TYPE_BF16, GGML_TYPE_F16}) {\n            test_cases.emplace_back(new test_mul_mat(t, GGML_TYPE_F32, mk.first, 1, mk.second, {1, 1}, {1, 1}));\n        }\n    }'
# Insert right after the function's opening line, where `test_cases` is declared (it is the first
# statement), by declaring our cases after that declaration.
python3 - "$tests" "$cases" <<'PY'
import re, sys
path, cases = sys.argv[1], sys.argv[2].replace("\\n", "\n")
text = open(path).read()
start = text.index("static std::vector<std::unique_ptr<test_case>> make_test_cases_perf() {")
decl = text.index("std::vector<std::unique_ptr<test_case>> test_cases;", start)
end = text.index("\n", decl) + 1
open(path, "w").write(text[:end] + cases + "\n" + text[end:])
PY
jobs=$(nproc)
{
  cmake -S "$work/ggml" -B "$work/build" -DGGML_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90-real \
    -DGGML_BUILD_TESTS=ON -DGGML_BUILD_EXAMPLES=OFF -DGGML_CUDA_FA=OFF -DGGML_CUDA_NCCL=OFF -DCMAKE_BUILD_TYPE=Release
  cmake --build "$work/build" -j "$jobs" --target test-backend-ops
} >"$out/ggml_build.log" 2>&1 || { tail -30 "$out/ggml_build.log" >&2; exit 1; }
bin=$(find "$work/build" -name test-backend-ops -type f -perm -u+x | head -1)
"$bin" perf -o MUL_MAT -b CUDA0 \
  -p 'type_a=(q4_K|q8_0|bf16|f16),type_b=f32,m=(4096|11008|14336|128256),n=1,k=(4096|14336),bs=\[1,1\],nr=\[1,1\]' \
  2>&1 | tee "$out/ggml_perf.log" | grep -E "MUL_MAT|Backend|FAIL" || true
grep -q "MUL_MAT" "$out/ggml_perf.log"
