# Third-party dependencies: all from Debian packages (scripts/install-deps.sh installs them).
find_package(Threads REQUIRED)
find_package(Boost 1.74 REQUIRED)            # header-only: Spirit X3
find_package(CLI11 CONFIG QUIET)
if(NOT CLI11_FOUND)
  find_path(CLI11_INCLUDE_DIR CLI/CLI.hpp REQUIRED)
  add_library(CLI11::CLI11 INTERFACE IMPORTED)
  target_include_directories(CLI11::CLI11 INTERFACE ${CLI11_INCLUDE_DIR})
endif()
find_package(nlohmann_json 3.10 REQUIRED)

if(PTXKIT_BUILD_TESTS)
  find_package(GTest REQUIRED)
endif()
if(PTXKIT_BUILD_BENCHMARKS)
  find_package(benchmark QUIET)
  if(NOT benchmark_FOUND)
    message(STATUS "Google Benchmark not found: benchmarks are not built")
    set(PTXKIT_BUILD_BENCHMARKS OFF)
  endif()
endif()

# ptxas is optional: without it only the ptxas checks are skipped (and say so).
find_program(PTXKIT_PTXAS ptxas HINTS ENV PTXAS /usr/local/cuda/bin)
if(PTXKIT_PTXAS)
  message(STATUS "ptxas: ${PTXKIT_PTXAS}")
else()
  message(WARNING "ptxas not found: ptxas validation tests will be skipped")
endif()
find_program(PTXKIT_FILECHECK NAMES FileCheck-14 FileCheck HINTS /usr/lib/llvm-14/bin)
find_file(PTXKIT_LIT_PY lit.py HINTS /usr/lib/llvm-14/build/utils/lit)
find_package(Python3 COMPONENTS Interpreter REQUIRED)

# Source paths compile in relative to the source root (__FILE__, std::source_location, debug
# info), so no object depends on where the tree is checked out: the .file lines of generated PTX
# read the same from every checkout, and ccache (CCACHE_BASEDIR, set by scripts/env.sh) reuses
# the objects of one clone in another.
# ccache hands the compiler paths relative to the build directory (`../kernels/x.cpp`) when its
# base directory is set, so that spelling is mapped too.
add_compile_options("-ffile-prefix-map=${PROJECT_SOURCE_DIR}/=")
file(RELATIVE_PATH PTXKIT_SOURCE_FROM_BUILD ${CMAKE_BINARY_DIR} ${PROJECT_SOURCE_DIR})
string(REGEX REPLACE "/+$" "" PTXKIT_SOURCE_FROM_BUILD "${PTXKIT_SOURCE_FROM_BUILD}")
if(PTXKIT_SOURCE_FROM_BUILD)
  add_compile_options("-ffile-prefix-map=${PTXKIT_SOURCE_FROM_BUILD}/=")
endif()
# ccache leaves the prefix-map options out of its hash (they name paths), so an object compiled
# with other maps could be handed to this build; a define it does hash, naming the mapped
# spelling, keeps them apart.
add_compile_definitions(PTXKIT_SOURCE_FROM_BUILD="${PTXKIT_SOURCE_FROM_BUILD}")

# ccache, when installed, makes rebuilds (and the second build tree of ./test.sh) cheap.
find_program(PTXKIT_CCACHE ccache)
if(PTXKIT_CCACHE AND NOT CMAKE_CXX_COMPILER_LAUNCHER)
  set(CMAKE_CXX_COMPILER_LAUNCHER ${PTXKIT_CCACHE})
endif()
