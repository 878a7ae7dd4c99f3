#!/usr/bin/env bash
# make-corpus.sh: builds the real-PTX corpus of the parser tests from the compilers on this machine
# and packs it into tests/corpus/corpus.tar.xz (committed; the tests unpack it at build time).
#
# Why a script: the corpus must be real compiler output (nvcc 13 CUB/Thrust instantiations with
# -lineinfo and -G, the sm_90a/sm_100a instruction families through CCCL cuda::ptx and inline asm,
# LLVM's NVPTX backend on libdevice and on clang-14 CUDA device code) and reproducible.
#
# Usage: scripts/make-corpus.sh [--no-pack]     (JOBS=N to change the parallelism, default 2)
# Output: tests/corpus/generated/*.ptx (git-ignored) and tests/corpus/corpus.tar.xz.
#
# Notes:
#  - libdevice: llc-14 turns LLVM 14's unknown intrinsic llvm.nvvm.tanh.approx.f32 into an
#    `.extern .func llvm.nvvm.tanh.approx.f32`, a name ptxas rejects; the script rewrites that one
#    call to libdevice's own __nv_tanhf in the IR before llc-14.
#  - clang-14 cannot compile against the CUDA 13 headers (its __clang_cuda_runtime_wrapper.h needs
#    texture<>, which CUDA 13 removed), so clang_device.cu is self-contained (-nocudainc).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/env.sh
JOBS="${JOBS:-2}"
src=tests/corpus/src
out=tests/corpus/generated
mkdir -p "$out"
rm -f "$out"/*.ptx
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

jobs_file="$tmp/jobs"
: >"$jobs_file"
# CUB algorithms: -lineinfo on every architecture, -G on sm_80 and sm_90 (large, slow in ptxas).
for s in cub_reduce cub_scan cub_radix_sort cub_histogram cub_segmented_reduce; do
  for arch in sm_80 sm_90 sm_90a sm_100; do
    echo "nvcc -ptx -O3 -lineinfo -arch=$arch $src/$s.cu -o $out/$s.$arch.lineinfo.ptx" >>"$jobs_file"
  done
  for arch in sm_80 sm_90; do
    echo "nvcc -ptx -G -arch=$arch $src/$s.cu -o $out/$s.$arch.G.ptx" >>"$jobs_file"
  done
done
# Thrust's CUDA backend (sort_by_key, reduce_by_key, scan, copy_if, transform_reduce).
for arch in sm_80 sm_90; do
  echo "nvcc -ptx -O3 -lineinfo -arch=$arch $src/thrust_algorithms.cu -o $out/thrust_algorithms.$arch.lineinfo.ptx" >>"$jobs_file"
done
# Hand-written CUDA idioms: warp-level primitives with partial masks, named barriers, cp.async
# (warp_patterns), and classic kernels with a grid sync (classic, -rdc=true): correct code the
# verifier must stay quiet on.
for arch in sm_80 sm_90; do
  echo "nvcc -ptx -O3 -lineinfo -arch=$arch $src/warp_patterns.cu -o $out/warp_patterns.$arch.lineinfo.ptx" >>"$jobs_file"
done
echo "nvcc -ptx -O3 -lineinfo -rdc=true -arch=sm_90 $src/classic.cu -o $out/classic.sm_90.lineinfo.ptx" >>"$jobs_file"
echo "nvcc -ptx -lineinfo -arch=sm_90a $src/hopper_families.cu -o $out/hopper_families.sm_90a.lineinfo.ptx" >>"$jobs_file"
echo "nvcc -ptx -G -arch=sm_90a $src/hopper_families.cu -o $out/hopper_families.sm_90a.G.ptx" >>"$jobs_file"
echo "nvcc -ptx -lineinfo -arch=sm_100a $src/blackwell_families.cu -o $out/blackwell_families.sm_100a.lineinfo.ptx" >>"$jobs_file"
echo "nvcc -ptx -lineinfo -arch=sm_100a $src/hopper_families.cu -o $out/hopper_families.sm_100a.lineinfo.ptx -DNO_WGMMA" >>"$jobs_file"
clang_flags="--cuda-device-only -nocudainc -nocudalib --cuda-gpu-arch=sm_80 -Xclang -target-feature -Xclang +ptx75 -Wno-unknown-cuda-version -S"
echo "clang++-14 $clang_flags -O2 $src/clang_device.cu -o $out/clang_device.sm_80.O2.ptx" >>"$jobs_file"
echo "clang++-14 $clang_flags -O0 -g $src/clang_device.cu -o $out/clang_device.sm_80.O0g.ptx" >>"$jobs_file"

echo "make-corpus: $(wc -l <"$jobs_file") compilations, $JOBS at a time"
xargs -P "$JOBS" -I{} sh -c '{} || { echo "FAILED: {}" >&2; exit 255; }' <"$jobs_file"

# libdevice through LLVM 14's NVPTX backend.
libdevice=/usr/local/cuda/nvvm/libdevice/libdevice.10.bc
llvm-dis-14 "$libdevice" -o "$tmp/libdevice.ll"
sed -e '/^declare .*@llvm\.nvvm\.tanh\.approx\.f32/d' -e 's/@llvm\.nvvm\.tanh\.approx\.f32/@__nv_tanhf/g' \
  "$tmp/libdevice.ll" >"$tmp/libdevice.fixed.ll"
llvm-as-14 "$tmp/libdevice.fixed.ll" -o "$tmp/libdevice.bc"
llc-14 -march=nvptx64 -mcpu=sm_80 "$tmp/libdevice.bc" -o "$out/libdevice.sm_80.llc14.ptx"

# Every file must be accepted by ptxas as generated, or it does not belong in the corpus.
for f in "$out"/*.ptx; do
  arch=$(sed -n 's/^[[:space:]]*\.target[[:space:]]*\([a-z0-9_]*\).*/\1/p' "$f" | head -1)
  echo "ptxas -arch=$arch $f -o /dev/null"
done | xargs -P "$JOBS" -I{} sh -c '{} 2>/dev/null || { echo "ptxas rejects: {}" >&2; exit 255; }'

files=$(ls "$out"/*.ptx | wc -l)
bytes=$(cat "$out"/*.ptx | wc -c)
lines=$(cat "$out"/*.ptx | wc -l)
echo "make-corpus: $files files, $lines lines, $bytes bytes"
if [ "${1:-}" != "--no-pack" ]; then
  tar -C "$out" -cf - $(cd "$out" && ls *.ptx) | xz -9e -T1 >tests/corpus/corpus.tar.xz
  ls -l tests/corpus/corpus.tar.xz
fi
