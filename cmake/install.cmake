# Installation: the same layout as the build tree (bin/, lib/, include/), plus a pkg-config file
# and a CMake package so `find_package(jitscope)` gives imported targets (jitscope::...).
include(CMakePackageConfigHelpers)

install(TARGETS jitscope RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(TARGETS jitscope_collector
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} NAMELINK_COMPONENT Development)

install(EXPORT jitscopeTargets NAMESPACE jitscope::
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/jitscope)
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/jitscopeConfig.cmake.in
  ${PROJECT_BINARY_DIR}/jitscopeConfig.cmake
  INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/jitscope)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/jitscopeConfigVersion.cmake
  COMPATIBILITY SameMajorVersion)
install(FILES ${PROJECT_BINARY_DIR}/jitscopeConfig.cmake ${PROJECT_BINARY_DIR}/jitscopeConfigVersion.cmake
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/jitscope)

if(CMAKE_DL_LIBS)
  set(CMAKE_DL_LIBS_FLAG "-l${CMAKE_DL_LIBS}")
endif()
configure_file(${PROJECT_SOURCE_DIR}/cmake/jitprofiling.pc.in ${PROJECT_BINARY_DIR}/jitprofiling.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/jitprofiling.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
