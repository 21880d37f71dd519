# lib32: the in-process libraries (JITSCOPE_IN_PROCESS_TARGETS) built a second time for i386, for
# 32-bit JIT engines. Their stub reads INTEL_JIT_PROFILER32 and loads a 32-bit collector (Intel's
# overview, "Environment Variables"; Intel's stub), which VTune
# ships under lib32/ and so do we:
#   build tree:  build/lib32/libjitprofiling.{a,so}, build/lib32/libjitscope-collector.so,
#                build/lib32/libopagent.so.1 (and build/lib32/oprofile/libopagent.so.1), ...
#                (the i386 build's own tree is build/i386/build)
#   install:     <prefix>/lib32/..., <prefix>/lib32/pkgconfig, <prefix>/lib/cmake/jitscope-i386
#                (cmake/install.cmake says why the CMake package is not under lib32/)
#
# How: this same source tree configured again with cmake/i386-linux-gnu.cmake (-m32) and
# JITSCOPE_IN_PROCESS_ONLY, as an ExternalProject of this build that builds only the listed
# targets, so CI pays for a dozen translation units, not for tests or tools. `cmake --build`
# builds it, `cmake --install` installs it.
#
# JITSCOPE_LIB32 defaults to ON on x86-64 hosts, except in sanitized builds (the sanitizer runtimes
# would be needed for i386 too; the unsanitized build covers lib32). If the compiler cannot build
# for i386 here, configuring still succeeds, and every test that needs lib32 FAILS with the
# reason: a missing 32-bit build is a broken build, not a skipped test.
#
# For tests: jitscope_test_uses_lib32(<target>) defines, in the target's sources,
#   JITSCOPE_LIB32_DIR="<build>/lib32"         when the i386 libraries are built, or
#   JITSCOPE_LIB32_UNAVAILABLE="<why not>"     when they cannot be built on this machine,
# and nothing when JITSCOPE_LIB32 is off (then tests about lib32 are not compiled).

set(_jitscope_lib32_default OFF)
if(CMAKE_SYSTEM_PROCESSOR MATCHES "^(x86_64|AMD64|amd64)$" AND CMAKE_SIZEOF_VOID_P EQUAL 8
   AND NOT JITSCOPE_SANITIZE AND NOT JITSCOPE_IN_PROCESS_ONLY)
  set(_jitscope_lib32_default ON)
endif()
option(JITSCOPE_LIB32 "Also build the in-process libraries for i386 (lib32/)" ${_jitscope_lib32_default})
if(JITSCOPE_IN_PROCESS_ONLY)
  set(JITSCOPE_LIB32 OFF)  # the i386 build itself
endif()

set(JITSCOPE_LIB32_DIR ${PROJECT_BINARY_DIR}/lib32)
set(JITSCOPE_LIB32_UNAVAILABLE "")

# Can the compiler build and link a threaded C++ program for i386? (The collector is C++; C is
# covered too: g++-multilib depends on gcc-multilib.) A success is cached; a failure is probed
# again at the next configure, so installing the packages is enough to fix it.
function(_jitscope_probe_i386 out_var)
  if(JITSCOPE_I386_PROBE_PASSED STREQUAL "${CMAKE_CXX_COMPILER}")
    set(${out_var} "" PARENT_SCOPE)
    return()
  endif()
  set(dir ${PROJECT_BINARY_DIR}/CMakeFiles/jitscope-i386-probe)
  file(WRITE ${dir}/probe.cc [[
#include <dlfcn.h>
#include <thread>
static_assert(sizeof(void*) == 4, "not an i386 build");
int main() {
  std::thread thread([] {});
  thread.join();
  return dlopen(nullptr, RTLD_LAZY) == nullptr;
}
]])
  try_compile(works ${dir}/build ${dir}/probe.cc
    COMPILE_DEFINITIONS -m32 -pthread
    LINK_OPTIONS -m32 -pthread
    LINK_LIBRARIES ${CMAKE_DL_LIBS}
    CXX_STANDARD 20
    OUTPUT_VARIABLE output)
  if(works)
    set(JITSCOPE_I386_PROBE_PASSED "${CMAKE_CXX_COMPILER}" CACHE INTERNAL "")
    set(${out_var} "" PARENT_SCOPE)
  else()
    file(WRITE ${dir}/output.txt "${output}")
    set(${out_var}
      "${CMAKE_CXX_COMPILER} -m32 cannot build an i386 program. Install gcc-multilib and g++-multilib (scripts/setup does). Compiler output: ${dir}/output.txt"
      PARENT_SCOPE)
  endif()
endfunction()

if(JITSCOPE_LIB32)
  _jitscope_probe_i386(JITSCOPE_LIB32_UNAVAILABLE)
endif()

if(JITSCOPE_LIB32 AND JITSCOPE_LIB32_UNAVAILABLE)
  message(WARNING "jitscope: no lib32 build: ${JITSCOPE_LIB32_UNAVAILABLE}. "
                  "The tests that need it will fail.")
elseif(JITSCOPE_LIB32)
  include(ExternalProject)
  cmake_host_system_information(RESULT _jitscope_jobs QUERY NUMBER_OF_LOGICAL_CORES)
  set(_jitscope_i386_build ${PROJECT_BINARY_DIR}/i386/build)
  ExternalProject_Add(jitscope_lib32
    SOURCE_DIR ${PROJECT_SOURCE_DIR}
    PREFIX ${PROJECT_BINARY_DIR}/i386
    BINARY_DIR ${_jitscope_i386_build}
    CMAKE_ARGS
      -DCMAKE_TOOLCHAIN_FILE=${PROJECT_SOURCE_DIR}/cmake/i386-linux-gnu.cmake
      -DCMAKE_C_COMPILER=${CMAKE_C_COMPILER}
      -DCMAKE_CXX_COMPILER=${CMAKE_CXX_COMPILER}
      -DCMAKE_BUILD_TYPE=${CMAKE_BUILD_TYPE}
      -DJITSCOPE_WERROR=${JITSCOPE_WERROR}
      -DJITSCOPE_IN_PROCESS_ONLY=ON
      -DJITSCOPE_LIBRARY_OUTPUT_DIRECTORY=${JITSCOPE_LIB32_DIR}
      -DCMAKE_INSTALL_LIBDIR=lib32
      -DJITSCOPE_CMAKE_PACKAGE_DIR=lib/cmake/jitscope-i386
      -DCMAKE_INSTALL_PREFIX=${CMAKE_INSTALL_PREFIX}
    BUILD_COMMAND ${CMAKE_COMMAND} --build <BINARY_DIR> --parallel ${_jitscope_jobs}
                  --target ${JITSCOPE_IN_PROCESS_TARGETS}
    # Always ask the i386 build's own build system: it knows which sources changed (a no-op
    # costs milliseconds).
    BUILD_ALWAYS ON
    INSTALL_COMMAND ""
    BUILD_BYPRODUCTS
      ${JITSCOPE_LIB32_DIR}/libjitprofiling.a
      ${JITSCOPE_LIB32_DIR}/libjitprofiling.so
      ${JITSCOPE_LIB32_DIR}/libjitscope-collector.so
      ${JITSCOPE_LIB32_DIR}/libopagent.so.1)

  # `cmake --install build [--prefix P]` installs the i386 libraries under P/lib32, with the
  # prefix, component and strip setting of the main install.
  install(CODE "set(_jitscope_i386_build \"${_jitscope_i386_build}\")")
  install(CODE [[
    set(_args --install "${_jitscope_i386_build}" --prefix "${CMAKE_INSTALL_PREFIX}")
    if(CMAKE_INSTALL_COMPONENT)
      list(APPEND _args --component "${CMAKE_INSTALL_COMPONENT}")
    endif()
    if(CMAKE_INSTALL_DO_STRIP)
      list(APPEND _args --strip)
    endif()
    execute_process(COMMAND "${CMAKE_COMMAND}" ${_args} RESULT_VARIABLE _result)
    if(NOT _result EQUAL 0)
      message(FATAL_ERROR "installing the i386 libraries from ${_jitscope_i386_build} failed")
    endif()
  ]])
endif()

function(jitscope_test_uses_lib32 target)
  if(NOT JITSCOPE_LIB32)
    return()
  endif()
  if(JITSCOPE_LIB32_UNAVAILABLE)
    target_compile_definitions(${target} PRIVATE
      "JITSCOPE_LIB32_UNAVAILABLE=\"${JITSCOPE_LIB32_UNAVAILABLE}\"")
  else()
    target_compile_definitions(${target} PRIVATE "JITSCOPE_LIB32_DIR=\"${JITSCOPE_LIB32_DIR}\"")
    add_dependencies(${target} jitscope_lib32)
  endif()
endfunction()
