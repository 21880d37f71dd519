# Checks that a shared library exports exactly its API under its version node and nothing else:
# by default the stub's (src/jitscope/api/jitprofiling.map); -DNODE=<node> -DSYMBOLS=<a;b;...> for another
# library (libopagent.so.1). With -DOBJDUMP=<objdump>, `objdump -T` must list exactly those
# functions under the node too.
# Run: cmake -DNM=<nm> -DLIBRARY=<lib.so> [-DNODE=.. -DSYMBOLS=..] [-DOBJDUMP=..] -P <this>.
# Works with GNU nm and llvm-nm, which print the version node's own symbol differently.
cmake_minimum_required(VERSION 3.25)
set(_node JITSCOPE_JITPROFILING_1.0)
set(_api iJIT_GetNewMethodID iJIT_IsProfilingActive iJIT_NotifyEvent)
if(DEFINED NODE)
  set(_node ${NODE})
  set(_api ${SYMBOLS})
  list(SORT _api)
endif()

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

if(OBJDUMP)
  # objdump -T: each defined function carries the version node, and there are no others.
  execute_process(COMMAND ${OBJDUMP} -T ${LIBRARY} OUTPUT_VARIABLE _table RESULT_VARIABLE _result)
  if(NOT _result EQUAL 0)
    message(FATAL_ERROR "${OBJDUMP} -T failed on ${LIBRARY}")
  endif()
  string(REGEX MATCHALL "[^\n]*\\.text[^\n]*" _text_lines "${_table}")
  list(LENGTH _text_lines _count)
  list(LENGTH _api _expected_count)
  if(NOT _count EQUAL _expected_count)
    message(FATAL_ERROR "expected ${_expected_count} functions in ${LIBRARY}, objdump -T:\n${_table}")
  endif()
  foreach(_function IN LISTS _api)
    if(NOT _table MATCHES "\\.text[^\n]*${_node}[ \t]+${_function}\n")
      message(FATAL_ERROR "objdump -T: ${_function} is not under ${_node}:\n${_table}")
    endif()
  endforeach()
endif()
