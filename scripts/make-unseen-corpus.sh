#!/usr/bin/env bash
# make-unseen-corpus.sh: compiles three more open-source CUDA codebases to PTX with this machine's
# nvcc 13, for sm_80 and sm_90, with their own flags: ggml's CUDA backend (an LLM inference
# engine), llm.c (training code: train_gpt2 and the hand-tuned kernel variants of dev/cuda) and
# HeCBench (scientific and vision benchmarks, every fifth one). The result is packed into
# tests/corpus/unseen.tar.xz (committed; verify_foreign_corpus_test sweeps it beside the foreign
# corpus), with build.tsv listing what was compiled, from what, and what nvcc rejected.
#
# Why: the verifier's rules were tuned on the main and foreign corpora; code they were never shown
# is the test of whether they follow PTX semantics or modelled idioms.
#
# Usage: scripts/make-unseen-corpus.sh --ggml DIR --llmc DIR --hecbench DIR [--no-pack] [--no-build]
#        [--only ggml|llmc|hecbench]       (JOBS=N to change the parallelism, default 2)
# Each DIR is a checkout of github.com/ggml-org/ggml, karpathy/llm.c and zjin-lcf/HeCBench.
# --no-build packs what an earlier run left in tests/corpus/unseen. A file that nvcc rejects is
# left out and counted in build.tsv, never kept half-written.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/env.sh
JOBS="${JOBS:-2}"
ggml="" llmc="" hec="" pack=1 build=1 only=""
while [ $# -gt 0 ]; do
  case "$1" in
  --ggml) ggml=$(realpath "$2"); shift 2 ;;
  --llmc) llmc=$(realpath "$2"); shift 2 ;;
  --hecbench) hec=$(realpath "$2"); shift 2 ;;
  --only) only="$2"; shift 2 ;;
  --no-pack) pack=0; shift ;;
  --no-build) build=0; shift ;;
  -h | --help) sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
  *) echo "make-unseen-corpus: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
want() { [ -z "$only" ] || [ "$only" = "$1" ]; }
if [ "$build" = 1 ]; then
  for pair in "ggml:$ggml" "llmc:$llmc" "hecbench:$hec"; do
    want "${pair%%:*}" || continue
    d=${pair#*:}
    [ -n "$d" ] && [ -d "$d" ] || { echo "make-unseen-corpus: --${pair%%:*} DIR is required (see --help)" >&2; exit 2; }
  done
fi
here=$(pwd)
out=$here/tests/corpus/unseen
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
jobs_file="$tmp/jobs"
: >"$jobs_file"
nvcc_common="nvcc -ptx -w"

# job NAME ARCH FLAGS... SOURCE: one PTX file, written only when nvcc succeeds.
job() {
  local name=$1 arch=$2
  shift 2
  printf '%s\t%s\t%s\n' "$name.$arch.ptx" "$arch" "$*" >>"$jobs_file"
}

if [ "$build" = 1 ] && want ggml; then
  rm -f "$out"/ggml.*.ptx
  g_flags="-std=c++17 -O3 -use_fast_math -extended-lambda -DNDEBUG -DGGML_USE_CUDA -DGGML_CUDA_PEER_MAX_BATCH_SIZE=128 \
-I$ggml/include -I$ggml/src -I$ggml/src/ggml-cuda"
  for arch in sm_80 sm_90; do
    for src in "$ggml"/src/ggml-cuda/*.cu; do
      base=$(basename "$src" .cu)
      # The flash-attention and quantized-matmul bodies live in template-instances (below).
      job "ggml.$base" "$arch" "$g_flags -arch=$arch $src"
    done
    # One instance of each template family: the rest differ only in constants.
    for inst in fattn-tile-instance-dkq64-dv64.cu fattn-mma-f16-instance-ncols1_1-ncols2_8.cu \
                fattn-vec-instance-q4_0-q4_0.cu mmq-instance-q4_0.cu mmq-instance-q6_k.cu \
                mmf-instance-ncols_8.cu fattn-wmma-f16-instance-kqfloat-cpb16.cu; do
      f=$ggml/src/ggml-cuda/template-instances/$inst
      [ -f "$f" ] && job "ggml.ti.${inst%.cu}" "$arch" "$g_flags -arch=$arch $f"
    done
  done
fi

if [ "$build" = 1 ] && want llmc; then
  rm -f "$out"/llmc.*.ptx
  # llm.c targets CUDA 12: its compat header maps the two CCCL names CUDA 13 removed.
  l_flags="-std=c++17 -O3 --use_fast_math -DENABLE_BF16 -I$llmc -I$llmc/llmc \
-include $here/tests/corpus/src/llmc_cuda13_compat.h"
  for arch in sm_80 sm_90; do
    job "llmc.train_gpt2" "$arch" "$l_flags -arch=$arch $llmc/train_gpt2.cu"
    job "llmc.train_gpt2_fp32" "$arch" "$l_flags -arch=$arch $llmc/train_gpt2_fp32.cu"
    for src in "$llmc"/dev/cuda/*.cu; do
      base=$(basename "$src" .cu)
      case $base in nccl_all_reduce) continue ;; esac # needs MPI and NCCL headers
      job "llmc.dev.$base" "$arch" "$l_flags -arch=$arch -I$llmc/dev/cuda $src"
    done
  done
fi

if [ "$build" = 1 ] && want hecbench; then
  rm -f "$out"/hecbench.*.ptx
  i=0
  for dir in $(ls -d "$hec"/src/*-cuda | sort); do
    i=$((i + 1))
    [ $((i % 5)) = 0 ] || continue
    bench=$(basename "$dir" -cuda)
    for src in "$dir"/*.cu; do
      [ -f "$src" ] || continue
      grep -q '__global__' "$src" || continue
      base=$(basename "$src" .cu)
      # HeCBench's Makefiles: -std=c++17 -O3, and the benchmark's own and shared include folders.
      h_flags="-std=c++17 -O3 -I$dir -I$hec/src/include -I$hec/include"
      job "hecbench.$bench.$base" sm_80 "$h_flags -arch=sm_80 $src"
      [ $((i % 10)) = 0 ] && job "hecbench.$bench.$base" sm_90 "$h_flags -arch=sm_90 $src"
    done
  done
fi

if [ "$build" = 1 ]; then
  total=$(wc -l <"$jobs_file")
  echo "make-unseen-corpus: compiling $total files with $JOBS jobs"
  export out nvcc_common tmp
  # One line per job; the PTX is written to a temporary name and moved into place on success.
  tr '\n' '\0' <"$jobs_file" | xargs -0 -P "$JOBS" -I{} bash -c '
    IFS=$'"'"'\t'"'"' read -r file arch cmd <<<"$1"
    if timeout 600 $nvcc_common $cmd -o "$tmp/$file" 2>"$tmp/$file.err"; then
      mv "$tmp/$file" "$out/$file"; printf "%s\tok\t%s\n" "$file" "$cmd" >>"$tmp/status"
    else
      printf "%s\tfailed\t%s\t%s\n" "$file" "$cmd" "$(head -c 200 "$tmp/$file.err" | tr "\n\t" "  ")" >>"$tmp/status"
    fi' _ {}
  {
    echo "# file, status, nvcc arguments (paths are the checkouts'), first error if nvcc failed"
    # Paths as users' checkouts name them: <ggml>/src/..., not this machine's folders.
    sed -e "s#$here/##g" ${ggml:+-e "s#$ggml#<ggml>#g"} ${llmc:+-e "s#$llmc#<llm.c>#g"} \
        ${hec:+-e "s#$hec#<HeCBench>#g"} "$tmp/status" | sort
  } >"$out/build.tsv.new"
  # A rerun of one codebase (--only) keeps the other codebases' rows.
  if [ -n "$only" ] && [ -f "$out/build.tsv" ]; then
    prefix=$([ "$only" = llmc ] && echo llmc || echo "$only")
    grep -v "^$prefix\." "$out/build.tsv" | grep -v '^#' >>"$out/build.tsv.new" || true
    { head -1 "$out/build.tsv.new"; tail -n +2 "$out/build.tsv.new" | sort; } >"$out/build.tsv.sorted"
    mv "$out/build.tsv.sorted" "$out/build.tsv.new"
  fi
  mv "$out/build.tsv.new" "$out/build.tsv"
  echo "make-unseen-corpus: $(grep -c $'\tok\t' "$out/build.tsv") compiled," \
       "$(grep -c $'\tfailed\t' "$out/build.tsv" || true) rejected by nvcc (build.tsv)"
fi

if [ "$pack" = 1 ]; then
  # Sorted names, fixed owner and time: packing the same files twice gives the same bytes.
  (cd "$out" && ls *.ptx build.tsv | LC_ALL=C sort |
     tar --owner=0 --group=0 --numeric-owner --mtime=@0 -cf - -T - | xz -9e -T1 >"$here/tests/corpus/unseen.tar.xz.new")
  mv "$here/tests/corpus/unseen.tar.xz.new" "$here/tests/corpus/unseen.tar.xz"
  echo "make-unseen-corpus: packed $(ls "$out"/*.ptx | wc -l) files into tests/corpus/unseen.tar.xz" \
       "($(du -k "$here/tests/corpus/unseen.tar.xz" | cut -f1) KiB)"
fi
