# `cmake --install build [--prefix DIR]`: the tools, the opt plugin, the
# component libraries with their public headers, and a CMake package, so
# that another project can
#
#   find_package(graphjit CONFIG REQUIRED)
#   target_link_libraries(app PRIVATE graphjit::graphjit)
#
# (test/install/ is such a project; the install/find-package test builds
# it against an installed tree). The libraries are static and built
# without RTTI, as LLVM is; they link the shared libLLVM-19.
include(CMakePackageConfigHelpers)

# graphjit::graphjit: everything, through the top component.
add_library(graphjit_library INTERFACE)
target_link_libraries(graphjit_library INTERFACE graphjit_link)
set_target_properties(graphjit_library PROPERTIES EXPORT_NAME graphjit)
add_library(graphjit::graphjit ALIAS graphjit_library)

install(TARGETS graphjit_library EXPORT graphjitTargets)
install(TARGETS graphjit graphjit-prof
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(TARGETS GraphjitPasses
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})

set(GRAPHJIT_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/graphjit)
install(EXPORT graphjitTargets NAMESPACE graphjit::
  DESTINATION ${GRAPHJIT_CMAKE_DIR})
configure_package_config_file(${CMAKE_SOURCE_DIR}/cmake/graphjitConfig.cmake.in
  ${CMAKE_BINARY_DIR}/graphjitConfig.cmake
  INSTALL_DESTINATION ${GRAPHJIT_CMAKE_DIR})
write_basic_package_version_file(${CMAKE_BINARY_DIR}/graphjitConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/graphjitConfig.cmake
  ${CMAKE_BINARY_DIR}/graphjitConfigVersion.cmake
  DESTINATION ${GRAPHJIT_CMAKE_DIR})
