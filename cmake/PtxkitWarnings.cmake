# Warnings and sanitizers applied to every ptxkit target.
#
# -Werror everywhere in our own build: a warning in a toolkit that checks other people's code is a
# bug of ours. A project that adds ptxkit with add_subdirectory() gets the warnings without
# -Werror (its compiler may warn where ours does not); PTXKIT_WERROR overrides either way.
option(PTXKIT_WERROR "Treat warnings as errors" ${PROJECT_IS_TOP_LEVEL})
add_compile_options(-Wall -Wextra)
if(PTXKIT_WERROR)
  add_compile_options(-Werror)
endif()

# GCC 12 at -O2/-O3 reports -Wrestrict inside libstdc++'s own std::string code (GCC bug 105329,
# fixed in GCC 13): a false positive in the standard library, not in ptxkit. It is off there: as a
# warning it only buried the build output under pages of libstdc++ internals.
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
  add_compile_options(-Wno-restrict)
endif()

if(PTXKIT_SANITIZE)
  # ASan+UBSan for the sanitizer build that ./test.sh runs; UB aborts so ctest sees it.
  add_compile_options(-fsanitize=address,undefined -fno-sanitize-recover=undefined
                      -fno-omit-frame-pointer)
  add_link_options(-fsanitize=address,undefined)
  # GCC's -Wmaybe-uninitialized is unreliable under -fsanitize (its manual says so; here it fires
  # inside libstdc++'s std::regex/std::function at -O1): a warning in this build, still an error
  # in the release build, which is where it is meaningful.
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    add_compile_options(-Wno-error=maybe-uninitialized)
  endif()
endif()
