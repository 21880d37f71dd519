# Checks that the shared stub exports exactly the current API under its version node and nothing
# else (src/api/jitprofiling.map). Run: cmake -DNM=<nm> -DLIBRARY=<libjitprofiling.so> -P <this>.
# Works with GNU nm and llvm-nm, which print the version node's own symbol differently.
cmake_minimum_required(VERSION 3.25)
set(_node JITSCOPE_JITPROFILING_1.0)
set(_api iJIT_GetNewMethodID iJIT_IsProfilingActive iJIT_NotifyEvent)

execute_process(COMMAND ${NM} -D --defined-only ${LIBRARY}
  OUTPUT_VARIABLE _symbols RESULT_VARIABLE _result)
if(NOT _result EQUAL 0)
  message(FATAL_ERROR "${NM} failed on ${LIBRARY}")
endif()
string(REGEX MATCHALL "[^ \n]+\n" _names "${_symbols}")
list(TRANSFORM _names STRIP)
foreach(_function IN LISTS _api)
  list(FIND _names "${_function}@@${_node}" _at)
  if(_at EQUAL -1)
    message(FATAL_ERROR "${LIBRARY} does not export ${_function}@@${_node}:\n${_symbols}")
  endif()
endforeach()
list(TRANSFORM _names REPLACE "@.*$" "")
list(SORT _names)
set(_expected ${_node} ${_api})
if(NOT _names STREQUAL _expected)
  message(FATAL_ERROR
    "unexpected exports of ${LIBRARY}:\n  got      ${_names}\n  expected ${_expected}")
endif()
