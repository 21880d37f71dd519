# Install helpers, included before the stages so every src/<stage>/CMakeLists.txt can use them.
# The build tree mirrors the install prefix, so what they install they also place in the build tree
# where that matters.

# jitscope_install_pkgconfig(<template.pc.in>): installs <libdir>/pkgconfig/<name>.pc. The file is
# relocatable: its prefix is @JITSCOPE_PC_PREFIX@, ${pcfiledir} followed by the way up from
# <libdir>/pkgconfig to the prefix (../.. for lib, ../../.. for lib/x86_64-linux-gnu), so it stays
# right for `cmake --install --prefix`, DESTDIR staging and a moved install tree.
function(jitscope_install_pkgconfig template)
  get_filename_component(name ${template} NAME_WE)
  file(RELATIVE_PATH up /prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig /prefix)
  string(REGEX REPLACE "/$" "" up "${up}")
  set(JITSCOPE_PC_PREFIX "\${pcfiledir}/${up}")
  configure_file(${template} ${PROJECT_BINARY_DIR}/pkgconfig/${name}.pc @ONLY)
  install(FILES ${PROJECT_BINARY_DIR}/pkgconfig/${name}.pc
    DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
endfunction()

# jitscope_install_library_link(<shared library target> <subdirectory> <name>...): also makes the
# library reachable as <libdir>/<subdirectory>/<name>, a relative symbolic link to its file in
# <libdir>, in the build tree and in the install tree (DESTDIR-safe). For libraries that another
# project documents at another place. OProfile documents libopagent in <prefix>/lib/oprofile
# (OProfile's guide, "Adding JIT support"), so for libopagent:
#   jitscope_install_library_link(opagent_shared oprofile libopagent.so.1 libopagent.so)
function(jitscope_install_library_link target subdirectory)
  set(build_dir ${JITSCOPE_LIBRARY_OUTPUT_DIRECTORY}/${subdirectory})
  foreach(name IN LISTS ARGN)
    add_custom_command(TARGET ${target} POST_BUILD
      COMMAND ${CMAKE_COMMAND} -E make_directory ${build_dir}
      COMMAND ${CMAKE_COMMAND} -E create_symlink ../$<TARGET_SONAME_FILE_NAME:${target}>
              ${build_dir}/${name}
      VERBATIM)
    install(CODE "
      set(_dir \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_LIBDIR}/${subdirectory}\")
      file(MAKE_DIRECTORY \"\${_dir}\")
      message(STATUS \"Installing: \${_dir}/${name}\")
      file(CREATE_LINK \"../$<TARGET_SONAME_FILE_NAME:${target}>\" \"\${_dir}/${name}\" SYMBOLIC)
      list(APPEND CMAKE_INSTALL_MANIFEST_FILES \"\${_dir}/${name}\")")
  endforeach()
endfunction()
