#!/usr/bin/env bash
# make-foreign-corpus.sh: compiles other projects' CUDA sources to PTX with this machine's nvcc,
# for the verifier's false-alarm sweep: CUTLASS (Ampere, Hopper warp-specialized, Hopper FMHA,
# Blackwell), NVIDIA's cuda-samples, CCCL's cuda::ptx instruction tests, and GPUVerify's labelled
# CUDA test suite. The result is packed into tests/corpus/foreign.tar.xz (committed; the tests
# unpack it beside the main corpus) and tests/corpus/gpuverify.tar.xz with its labels.
#
# Why a separate script: the sources are other repositories (fetch them first), the build takes
# tens of minutes, and the main corpus must stay reproducible from this machine alone.
#
# Usage: scripts/make-foreign-corpus.sh --cutlass DIR --cuda-samples DIR --cccl DIR --gpuverify DIR
#        [--no-pack] [--no-build]         (JOBS=N to change the parallelism, default 2)
# --no-build labels and packs what an earlier run left in tests/corpus/{foreign,gpuverify}.
# Each DIR is a checkout of github.com/NVIDIA/cutlass, NVIDIA/cuda-samples, NVIDIA/cccl and
# mc-imperial/gpuverify. A file that nvcc or ptxas rejects is left out and counted, never kept.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/env.sh
JOBS="${JOBS:-2}"
cutlass="" samples="" cccl="" gpuverify="" pack=1 build=1
while [ $# -gt 0 ]; do
  case "$1" in
  --cutlass) cutlass=$(realpath "$2"); shift 2 ;;
  --cuda-samples) samples=$(realpath "$2"); shift 2 ;;
  --cccl) cccl=$(realpath "$2"); shift 2 ;;
  --gpuverify) gpuverify=$(realpath "$2"); shift 2 ;;
  --no-pack) pack=0; shift ;;
  --no-build) build=0; shift ;;
  -h | --help) sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
  *) echo "make-foreign-corpus: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
for d in "$cutlass" "$samples" "$cccl" "$gpuverify"; do
  [ -n "$d" ] && [ -d "$d" ] || { echo "make-foreign-corpus: all four source directories are required (see --help)" >&2; exit 2; }
done
here=$(pwd)
out=$here/tests/corpus/foreign
gv_out=$here/tests/corpus/gpuverify
mkdir -p "$out" "$gv_out"
[ "$build" = 1 ] && rm -f "$out"/*.ptx "$gv_out"/*.ptx
rm -f "$gv_out"/labels.tsv
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
jobs_file="$tmp/jobs"
: >"$jobs_file"
nvcc_common="nvcc -ptx -std=c++17 --expt-relaxed-constexpr -w"

# CUTLASS: one GEMM or attention kernel of each generation and style.
cut_inc="-I$cutlass/include -I$cutlass/tools/util/include -I$cutlass/examples/common"
cut_ex=$cutlass/examples
cutlass_job() { # name arch source [extra flags]
  echo "$nvcc_common -O3 -lineinfo -arch=$2 $cut_inc ${4:-} $cut_ex/$3 -o $out/cutlass.$1.$2.ptx" >>"$jobs_file"
}
cutlass_job ampere_tf32_gemm sm_80 14_ampere_tf32_tensorop_gemm/ampere_tf32_tensorop_gemm.cu
cutlass_job ampere_streamk_gemm sm_80 47_ampere_gemm_universal_streamk/ampere_gemm_universal_streamk.cu
cutlass_job ampere_fmha sm_80 41_fused_multi_head_attention/fused_multihead_attention_fixed_seqlen.cu "-I$cut_ex/41_fused_multi_head_attention"
cutlass_job ampere_gemm_softmax sm_80 35_gemm_softmax/gemm_softmax.cu "-I$cut_ex/35_gemm_softmax"
cutlass_job hopper_ws_gemm sm_90a 48_hopper_warp_specialized_gemm/48_hopper_warp_specialized_gemm.cu
cutlass_job hopper_collective_builder_gemm sm_90a 49_hopper_gemm_with_collective_builder/49_collective_builder.cu
cutlass_job hopper_fp8_ws_gemm sm_90a 54_hopper_fp8_warp_specialized_gemm/54_hopper_fp8_warp_specialized_gemm.cu "-I$cut_ex/54_hopper_fp8_warp_specialized_gemm"
cutlass_job hopper_fmha sm_90a 88_hopper_fmha/88_hopper_fmha.cu "-I$cut_ex/88_hopper_fmha"
cutlass_job blackwell_fp16_gemm sm_100a 70_blackwell_gemm/70_blackwell_fp16_gemm.cu
cutlass_job blackwell_fmha sm_100a 77_blackwell_fmha/77_blackwell_fmha.cu "-I$cut_ex/77_blackwell_fmha"
cutlass_job blackwell_geforce_gemm sm_120a 79_blackwell_geforce_gemm/79a_blackwell_geforce_nvfp4_bf16_gemm.cu

# cuda-samples: every program's device code, at sm_80 (the samples' oldest common target) and the
# Hopper-only ones at sm_90a. Host-only files produce a module with no kernel and are dropped.
while IFS= read -r cu; do
  name=$(basename "$cu" .cu)
  dir=$(dirname "$cu")
  arch=sm_80
  case "$dir" in *Hopper* | *TMA* | *sm90* | *globalToShmemTMA*) arch=sm_90a ;; esac
  echo "$nvcc_common -O3 -lineinfo -rdc=true -arch=$arch -I$samples/Common -I$dir $cu -o $out/cuda-samples.$name.$arch.ptx" >>"$jobs_file"
done < <(find "$samples/Samples" -name '*.cu' | sort)

# CCCL cuda::ptx: each instruction family's wrapper test, at the newest target it needs.
for t in "$cccl"/libcudacxx/test/libcudacxx/cuda/ptx/ptx.*.compile.pass.cpp; do
  name=$(basename "$t" .compile.pass.cpp)
  for arch in sm_90a sm_100a; do
    echo "$nvcc_common -x cu -O3 -arch=$arch -I$cccl/libcudacxx/include -I$cccl/libcudacxx/test/support -I$(dirname "$t") $t -o $out/cccl.$name.$arch.ptx" >>"$jobs_file"
  done
done

# GPUVerify's CUDA suite: its annotations are defined away by a header of ours; the label (pass,
# or the kind of defect GPUVerify reports) goes to labels.tsv.
while IFS= read -r cu; do
  rel=${cu#"$gpuverify/testsuite/CUDA/"}
  name=gpuverify.$(dirname "$rel" | tr '/' '.')
  echo "$nvcc_common -O3 -arch=sm_80 -include $here/tests/corpus/src/gpuverify_annotations.h -I$(dirname "$cu") $cu -o $gv_out/$name.sm_80.ptx" >>"$jobs_file"
  # And unoptimized (-Xcicc -O0): every local lives on the stack and every pointer is reloaded
  # from it, and the accesses -O3 deletes (dead stores, redundant loads) stay.
  echo "$nvcc_common -Xcicc -O0 -arch=sm_80 -include $here/tests/corpus/src/gpuverify_annotations.h -I$(dirname "$cu") $cu -o $gv_out/$name.O0.sm_80.ptx" >>"$jobs_file"
done < <(find "$gpuverify/testsuite/CUDA" -name 'kernel.cu' | sort)

if [ "$build" = 1 ]; then
echo "make-foreign-corpus: $(wc -l <"$jobs_file") compilations, $JOBS at a time"
# A compilation that fails is dropped (some samples need libraries or headers this machine lacks).
xargs -P "$JOBS" -I{} sh -c '{} 2>/dev/null || rm -f "$(echo "{}" | sed "s/.* -o //")"' <"$jobs_file" || true

# Keep what has a kernel and what ptxas accepts as generated.
kept=0 dropped=0
for f in "$out"/*.ptx "$gv_out"/*.ptx; do
  [ -f "$f" ] || continue
  arch=$(sed -n 's/^[[:space:]]*\.target[[:space:]]*\([a-z0-9_]*\).*/\1/p' "$f" | head -1)
  if ! grep -Eq '^[[:space:]]*(\.visible[[:space:]]+|\.weak[[:space:]]+)?\.entry' "$f" \
     || ! ptxas -arch="$arch" "$f" -o /dev/null 2>/dev/null; then
    rm -f "$f"; dropped=$((dropped + 1))
  else
    kept=$((kept + 1))
  fi
done

echo "make-foreign-corpus: kept $kept files, dropped $dropped (no kernel, or rejected by nvcc/ptxas)"
fi

# Labels of the GPUVerify kernels: "pass", or what its first comment lines say GPUVerify reports;
# then the block shape its `//--blockDim=` annotation gives ("64", "8,8"; "-" when none), and
# "warp-sync" when GPUVerify checked it assuming lock-step warps (`--warp-sync`, which Volta's
# independent thread scheduling and the PTX memory model do not give), else "-".
rm -f "$gv_out/labels.tsv"
for f in "$gv_out"/*.ptx; do
  [ -f "$f" ] || continue
  name=$(basename "$f" .sm_80.ptx)
  name=${name%.O0}
  rel=$(echo "${name#gpuverify.}" | tr '.' '/')
  src="$gpuverify/testsuite/CUDA/$rel/kernel.cu"
  head_lines=$(head -5 "$src")
  label=other
  if echo "$head_lines" | grep -q '^//pass'; then label=pass
  elif echo "$head_lines" | grep -qi 'barrier.*non-uniform\|barrier divergence'; then label=barrier-divergence
  elif echo "$head_lines" | grep -qi 'race'; then label=race
  fi
  dim=$(head -5 "$src" | sed -n 's/.*--blockDim=\(\[[0-9, ]*\]\|[0-9]*\).*/\1/p' | head -1 | tr -d '[] ')
  sync=-
  if echo "$head_lines" | grep -q -- '--warp-sync'; then sync=warp-sync; fi
  printf '%s\t%s\t%s\t%s\n' "$(basename "$f")" "$label" "${dim:--}" "$sync" >>"$gv_out/labels.tsv"
done
sort -o "$gv_out/labels.tsv" "$gv_out/labels.tsv"

echo "make-foreign-corpus: $(ls "$out" | wc -l) foreign files, $(cat "$out"/*.ptx | wc -c) bytes;" \
     "$(ls "$gv_out"/*.ptx | wc -l) GPUVerify kernels ($(cut -f2 "$gv_out/labels.tsv" | sort | uniq -c | tr '\n' ' '))"
if [ "$pack" = 1 ]; then
  tar -C "$out" -cf - $(cd "$out" && ls *.ptx) | xz -9e -T"$JOBS" >tests/corpus/foreign.tar.xz
  tar -C "$gv_out" -cf - labels.tsv $(cd "$gv_out" && ls *.ptx) | xz -9e -T"$JOBS" >tests/corpus/gpuverify.tar.xz
  ls -l tests/corpus/foreign.tar.xz tests/corpus/gpuverify.tar.xz
fi
