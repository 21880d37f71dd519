# Installation: the same layout as the build tree (bin/, lib/, include/), plus a pkg-config file
# and a CMake package so `find_package(jitscope)` gives imported targets (jitscope::...). The i386
# build installs the in-process libraries and its pkg-config file the same way under lib32/
# (cmake/lib32.cmake), and its CMake package as lib/cmake/jitscope-i386: find_package() searches
# <prefix>/lib/cmake/<name>*/ everywhere but lib32/ only on some distributions (not Debian), and
# each package's version file records its pointer size, so find_package() takes the one that
# matches the consumer's compiler.
include(CMakePackageConfigHelpers)

if(TARGET jitscope)
  install(TARGETS jitscope RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endif()
install(TARGETS jitscope_collector
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} NAMELINK_COMPONENT Development)
if(TARGET jitscope_preload)
  install(TARGETS jitscope_preload LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
endif()

set(JITSCOPE_CMAKE_PACKAGE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/jitscope
  CACHE STRING "Where the CMake package (jitscopeConfig.cmake) is installed, relative to the prefix")
install(EXPORT jitscopeTargets NAMESPACE jitscope:: DESTINATION ${JITSCOPE_CMAKE_PACKAGE_DIR})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/jitscopeConfig.cmake.in
  ${PROJECT_BINARY_DIR}/jitscopeConfig.cmake
  INSTALL_DESTINATION ${JITSCOPE_CMAKE_PACKAGE_DIR}
  PATH_VARS CMAKE_INSTALL_LIBDIR)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/jitscopeConfigVersion.cmake
  COMPATIBILITY SameMajorVersion)
install(FILES ${PROJECT_BINARY_DIR}/jitscopeConfig.cmake ${PROJECT_BINARY_DIR}/jitscopeConfigVersion.cmake
  DESTINATION ${JITSCOPE_CMAKE_PACKAGE_DIR})

if(CMAKE_DL_LIBS)
  set(CMAKE_DL_LIBS_FLAG "-l${CMAKE_DL_LIBS}")
endif()
jitscope_install_pkgconfig(${PROJECT_SOURCE_DIR}/cmake/jitprofiling.pc.in)
