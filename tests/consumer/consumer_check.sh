#!/usr/bin/env bash
# The installed package, used the way a project outside this repository uses it:
#   1. `cmake --install` into an empty prefix holds the headers, the libraries, the CMake package
#      and the tool, and nothing from the source or build tree is needed after that;
#   2. find_package(ptxkit) works from an empty directory and honours a version request;
#   3. examples/consumer configures, builds (PTX generated, verified and validated at build time,
#      embedded in its app) and passes its own tests, with g++ and with clang++ against the same
#      g++-built libraries;
#   4. negative control: a copy of the consumer whose kernel lost its shfl.idx broadcast (a
#      shfl.down sum used in every lane) fails to build, and the build log shows the finding.
# Usage: consumer_check.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$(cd "$1" && pwd)
src=$(cd "$2" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
prefix="$work/prefix"
fail() { echo "consumer_check: FAIL: $*" >&2; exit 1; }

echo "== install into an empty prefix"
cmake --install "$build" --prefix "$prefix" >"$work/install.log" || { cat "$work/install.log"; fail "cmake --install"; }
for f in bin/ptxkit \
         include/ptxkit/ptxgen/ptxgen.h include/ptxkit/kernels/registry.h \
         include/ptxkit/verifier/verify.h include/ptxkit/runtime/embedded.h \
         lib/libptxkit_ptxgen.a lib/libptxkit_verifier.a lib/libptxkit_kernels.a \
         lib/libptxkit_runtime.a lib/libptxkit_cli.a lib/libptxkit_cli_main.a \
         lib/cmake/ptxkit/ptxkitConfig.cmake lib/cmake/ptxkit/ptxkitConfigVersion.cmake \
         lib/cmake/ptxkit/ptxkitTargets.cmake lib/cmake/ptxkit/PtxkitGenerate.cmake; do
  [ -e "$prefix/$f" ] || fail "the install lacks $f"
done
# Public headers include only public headers and the standard library.
if grep -rhoE '#include ["<][^">]+[">]' "$prefix/include" | grep -vE '<ptxkit/|"ptxkit/|<[a-z_0-9]+>|<[a-z_]+\.h>' \
     | sort -u | grep .; then
  fail "installed headers include something that is not installed (above)"
fi
if grep -rl -e "$src" -e "$build" "$prefix/lib/cmake" "$prefix/include"; then
  fail "the install refers to the source or build tree (files above)"
fi
echo "install tree: $(find "$prefix/include" -name '*.h' | wc -l) headers, $(ls "$prefix/lib"/*.a | wc -l) libraries"

echo "== find_package from an empty directory"
mkdir -p "$work/empty"
cat >"$work/empty/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.25)
project(empty LANGUAGES CXX)
find_package(ptxkit ${WANT} CONFIG REQUIRED)
foreach(t ptxgen verifier kernels runtime cli cli_main ptxkit)
  if(NOT TARGET ptxkit::${t})
    message(FATAL_ERROR "ptxkit::${t} is missing")
  endif()
endforeach()
message(STATUS "ptxkit ${ptxkit_VERSION} found")
CMAKE
cmake -S "$work/empty" -B "$work/empty/b" -DCMAKE_PREFIX_PATH="$prefix" -DWANT=0.1 >"$work/empty.log" 2>&1 \
  || { cat "$work/empty.log"; fail "find_package(ptxkit 0.1) failed"; }
if cmake -S "$work/empty" -B "$work/empty/b2" -DCMAKE_PREFIX_PATH="$prefix" -DWANT=9.0 >"$work/empty2.log" 2>&1; then
  fail "find_package(ptxkit 9.0) succeeded against version $(grep -o 'ptxkit [0-9.]* found' "$work/empty.log")"
fi

echo "== add_subdirectory(ptxkit)"
mkdir -p "$work/vendored"
cat >"$work/vendored/CMakeLists.txt" <<CMAKE
cmake_minimum_required(VERSION 3.25)
project(vendored LANGUAGES CXX)
add_subdirectory("$src" ptxkit)
foreach(t ptxgen verifier kernels runtime cli cli_main ptxkit)
  if(NOT TARGET ptxkit::\${t})
    message(FATAL_ERROR "ptxkit::\${t} is missing")
  endif()
endforeach()
if(NOT COMMAND ptxkit_generate_ptx OR NOT COMMAND ptxkit_add_kernel_tool)
  message(FATAL_ERROR "the ptxkit CMake functions are missing")
endif()
add_executable(axpy axpy.cpp)
target_link_libraries(axpy PRIVATE ptxkit::ptxgen)
CMAKE
{ echo '#include <cstdio>'; cat "$src/tests/ptxgen/doc/axpy_example.cpp"
  echo 'int main() { auto k = axpy(Target::parse("sm_90").value(), 2.0f); return k ? 0 : 1; }'; } \
  >"$work/vendored/axpy.cpp"
cmake -S "$work/vendored" -B "$work/vendored/b" -G Ninja >"$work/vendored.log" 2>&1 \
  || { cat "$work/vendored.log"; fail "configure with add_subdirectory(ptxkit)"; }
grep -q "Build the test suite" "$work/vendored/b/CMakeCache.txt" || fail "ptxkit's options are missing"
grep -q "PTXKIT_BUILD_TESTS:BOOL=OFF" "$work/vendored/b/CMakeCache.txt" \
  || fail "a vendored ptxkit builds its test suite by default"
cmake --build "$work/vendored/b" --target axpy >>"$work/vendored.log" 2>&1 \
  || { cat "$work/vendored.log"; fail "build against add_subdirectory(ptxkit)"; }
"$work/vendored/b/axpy" || fail "the vendored example failed"

# A consumer whose standard library has another ABI is told why at configure time, not left with
# undefined symbols at link time.
if cmake -S "$work/empty" -B "$work/empty/b3" -DCMAKE_PREFIX_PATH="$prefix" -DWANT=0.1 \
     -DCMAKE_CXX_FLAGS=-D_GLIBCXX_USE_CXX11_ABI=0 >"$work/empty3.log" 2>&1; then
  fail "find_package(ptxkit) accepted a consumer built with the old libstdc++ string ABI"
fi
grep -q "would not link" "$work/empty3.log" || { cat "$work/empty3.log"; fail "the ABI refusal does not say why"; }

# The quickstart's commands from step 3 on, as docs/quickstart.md gives them (the blocks marked
# `<!-- quickstart: run in examples/consumer -->`), one per line; `cd` lines are where they run.
mapfile -t quickstart < <(awk '
  /<!-- quickstart: run in examples\/consumer -->/ { want = 1; next }
  want && /^```sh/ { on = 1; want = 0; next }
  on && /^```/ { on = 0; next }
  on && !/^cd / && NF { print }' "$src/docs/quickstart.md")
[ "${#quickstart[@]}" -ge 8 ] || fail "docs/quickstart.md has only ${#quickstart[@]} marked commands"
# The quickstart installs into $HOME/.local/ptxkit: that is this prefix under a private HOME.
mkdir -p "$work/home/.local"
ln -s "$prefix" "$work/home/.local/ptxkit"

for cxx in g++ clang++; do
  echo "== examples/consumer with $cxx, by the quickstart"
  b="$work/consumer-$cxx"
  cp -r "$src/examples/consumer" "$b"
  rm -rf "$b/build"
  for cmd in "${quickstart[@]}"; do
    echo "\$ $cmd" >>"$b.log"
    set +e
    (cd "$b" && HOME="$work/home" CXX="$cxx" bash -c "$cmd") >>"$b.log" 2>&1
    rc=$?
    set -e
    # Without a GPU, `run` and the app say so and exit 3; everything else must succeed.
    if [ $rc -ne 0 ] && ! { [ $rc -eq 3 ] && [[ "$cmd" == *" run "* || "$cmd" == *consumer-app* ]]; }; then
      cat "$b.log"; fail "quickstart command with $cxx exited $rc: $cmd"
    fi
  done
  grep -qx "CMAKE_CXX_COMPILER:FILEPATH=.*/$cxx" "$b/build/CMakeCache.txt" || fail "the build did not use $cxx"
  grep -q "ptxkit: row_center_bias:cols=1000,rows=64 for sm_90" "$b.log" \
    || fail "the build log does not show the PTX being generated"
  grep -q "row_center_bias.cols-1000.rows-64.sm_90.ptx: verified: no error findings" "$b.log" \
    || fail "the build log does not show the PTX being verified"
  # (To a file first: `grep -q` stops reading at its match, and pipefail would then see the
  # tool's SIGPIPE as a failure.)
  "$b/build/consumer-tool" list >"$b.list" || fail "consumer-tool list failed"
  grep -q '^row_center_bias' "$b.list" || fail "consumer-tool list lacks row_center_bias"
  grep -q '^rmsnorm' "$b.list" || fail "consumer-tool list lacks the built-in kernels"
  # `golden update` ran on the copy: the committed golden files were already current.
  diff -r "$src/examples/consumer/golden" "$b/golden" || fail "the consumer's golden files are stale ($cxx)"
  if grep -q "no CUDA device" "$b.log"; then
    echo "consumer-app with $cxx: no CUDA device here (exit 3, as documented)"
  else
    grep -q "consumer-app: 3 kernels, 0 failed" "$b.log" || { cat "$b.log"; fail "consumer-app with $cxx"; }
  fi
done

echo "== negative control: the consumer kernel without its broadcast"
planted="$work/planted"
cp -r "$src/examples/consumer" "$planted"
builder="$planted/kernels/row_center_bias_builder.cpp"
grep -q 'sum = b.shfl_idx(sum' "$builder" || fail "the broadcast line to remove is not in $builder"
sed -i '/sum = b.shfl_idx(sum/d' "$builder"
cmake -S "$planted" -B "$planted/b" -G Ninja -DCMAKE_PREFIX_PATH="$prefix" >"$planted.log" 2>&1 \
  || { cat "$planted.log"; fail "configure of the planted copy"; }
if cmake --build "$planted/b" >>"$planted.log" 2>&1; then
  cat "$planted.log"; fail "the planted defect did not fail the build"
fi
grep -E 'row_center_bias\.cols-1000\.rows-64\.sm_90\.ptx:[0-9]+:[0-9]+: error: .*reduction-broadcast' "$planted.log" \
  || { cat "$planted.log"; fail "the build failed without showing the reduction-broadcast finding"; }
[ ! -e "$planted/b/ptxkit/consumer-app/row_center_bias.cols-1000.rows-64.sm_90.ptx" ] \
  || fail "the rejected PTX stayed at its path"
echo "consumer_check: all passed"
