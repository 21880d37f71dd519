# Debian's oneDNN (libdnnl-dev) as the imported target jitscope_onednn, for the end-to-end tests
# and benchmarks that run it as a real JIT client; users check `if(TARGET jitscope_onednn)`.
# Debian's dnnl-config.cmake insists on OpenCL development files that the CPU library does not
# need, so the library and header are found directly.
if(NOT TARGET jitscope_onednn)
  find_library(JITSCOPE_DNNL_LIBRARY dnnl)
  find_path(JITSCOPE_DNNL_INCLUDE_DIR oneapi/dnnl/dnnl.hpp)
  if(JITSCOPE_DNNL_LIBRARY AND JITSCOPE_DNNL_INCLUDE_DIR)
    add_library(jitscope_onednn INTERFACE IMPORTED GLOBAL)
    target_include_directories(jitscope_onednn INTERFACE ${JITSCOPE_DNNL_INCLUDE_DIR})
    target_link_libraries(jitscope_onednn INTERFACE ${JITSCOPE_DNNL_LIBRARY})
  endif()
endif()
