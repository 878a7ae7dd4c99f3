# Install rules and the CMake package: `find_package(ptxkit CONFIG)` gives the imported targets
# ptxkit::isa, ptxkit::ptxgen, ptxkit::verifier, ptxkit::kernels, ptxkit::runtime, ptxkit::decoder,
# ptxkit::cli, ptxkit::cli_main and ptxkit::ptxkit (the executable), plus ptxkit_add_kernel_tool() and
# ptxkit_generate_ptx() (PtxkitGenerate.cmake).
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(PTXKIT_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/ptxkit)

# Public headers only: every library keeps its private headers beside its sources.
foreach(lib isa ptxgen verifier kernels runtime decoder)
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/${lib}/include/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
endforeach()

install(TARGETS ptxkit_isa ptxkit_ptxgen ptxkit_verifier ptxkit_kernels_archive ptxkit_kernels ptxkit_runtime
                ptxkit_decoder
                ptxkit_cli_archive ptxkit_cli ptxkit_cli_main ptxkit
  EXPORT ptxkitTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(EXPORT ptxkitTargets NAMESPACE ptxkit:: DESTINATION ${PTXKIT_CMAKE_DIR})

# What the libraries were built with, checked against the consumer's compiler at configure time
# (ptxkitConfig.cmake): the C++ standard library's ABI must match, the compiler need not.
include(CheckCXXSourceCompiles)
check_cxx_source_compiles("
#include <version>
#if !defined(__GLIBCXX__)
#error not libstdc++
#endif
int main() { return 0; }" PTXKIT_USES_LIBSTDCXX)
if(PTXKIT_USES_LIBSTDCXX)
  set(PTXKIT_BUILT_STDLIB libstdc++)
else()
  set(PTXKIT_BUILT_STDLIB other)
endif()
set(PTXKIT_BUILT_COMPILER "${CMAKE_CXX_COMPILER_ID} ${CMAKE_CXX_COMPILER_VERSION}")

configure_package_config_file(cmake/ptxkitConfig.cmake.in
  ${PROJECT_BINARY_DIR}/ptxkitConfig.cmake INSTALL_DESTINATION ${PTXKIT_CMAKE_DIR})
# A consumer may ask for a version: 0.x releases are compatible within one minor version.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/ptxkitConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/ptxkitConfig.cmake ${PROJECT_BINARY_DIR}/ptxkitConfigVersion.cmake
  cmake/PtxkitGenerate.cmake cmake/PtxkitGenerateStep.cmake DESTINATION ${PTXKIT_CMAKE_DIR})
