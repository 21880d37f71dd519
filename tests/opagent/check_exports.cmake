# Checks that libopagent.so.1 exports exactly OProfile's seven functions, each under the version
# node OPAGENT_1.0 (src/opagent/opagent.map), with `nm -D --defined-only` and `objdump -T`.
# Run: cmake -DNM=<nm> -DOBJDUMP=<objdump> -DLIBRARY=<libopagent.so.1> -P <this>.
cmake_minimum_required(VERSION 3.25)
set(_node OPAGENT_1.0)
set(_api op_close_agent op_major_version op_minor_version op_open_agent op_unload_native_code
         op_write_debug_line_info op_write_native_code)

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
  message(FATAL_ERROR "unexpected exports of ${LIBRARY}:\n  got      ${_names}\n  expected ${_expected}")
endif()

# objdump -T: every defined function symbol carries the version node.
execute_process(COMMAND ${OBJDUMP} -T ${LIBRARY} OUTPUT_VARIABLE _table RESULT_VARIABLE _result)
if(NOT _result EQUAL 0)
  message(FATAL_ERROR "${OBJDUMP} -T failed on ${LIBRARY}")
endif()
string(REGEX MATCHALL "[^\n]*\\.text[^\n]*" _text_lines "${_table}")
list(LENGTH _text_lines _count)
if(NOT _count EQUAL 7)
  message(FATAL_ERROR "expected 7 exported functions in ${LIBRARY}, objdump -T shows:\n${_table}")
endif()
foreach(_function IN LISTS _api)
  if(NOT _table MATCHES "\\.text[^\n]*${_node}[ \t]+${_function}\n")
    message(FATAL_ERROR "objdump -T: ${_function} is not under ${_node}:\n${_table}")
  endif()
endforeach()
