# Install rules and the CMake package (find_package(ptxkit)) with ptxkit_generate_ptx().
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(PTXKIT_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/ptxkit)
configure_package_config_file(cmake/ptxkitConfig.cmake.in
  ${CMAKE_BINARY_DIR}/ptxkitConfig.cmake INSTALL_DESTINATION ${PTXKIT_CMAKE_DIR})
write_basic_package_version_file(${CMAKE_BINARY_DIR}/ptxkitConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/ptxkitConfig.cmake ${CMAKE_BINARY_DIR}/ptxkitConfigVersion.cmake
  cmake/PtxkitGenerate.cmake DESTINATION ${PTXKIT_CMAKE_DIR})
