# Fetches speedscope's published file-format schema, from its npm package (pinned, its SHA-256
# checked), into the build tree, for the test that validates `jitscope report --format speedscope`
# against it. Run at build time, only while the schema is missing:
#   cmake -DSCHEMA=<build tree path of file-format-schema.json> -P fetch_speedscope_schema.cmake
# Without the network the build goes on, says so, and the test fails saying the schema is
# missing; the next build tries again.
set(_version 1.25.0)
set(_sha256 2831f1e0d26df914b477e522d78b8485511495a6af81a0b88158f8b48f9e0d03)
set(_url "https://registry.npmjs.org/speedscope/-/speedscope-${_version}.tgz")
get_filename_component(_dir "${SCHEMA}" DIRECTORY)
set(_package "${_dir}/speedscope-${_version}.tgz")
file(DOWNLOAD "${_url}" "${_package}" EXPECTED_HASH SHA256=${_sha256} TIMEOUT 60
     STATUS _status)
list(GET _status 0 _code)
if(NOT _code EQUAL 0)
  list(GET _status 1 _message)
  file(REMOVE "${_package}")
  message(WARNING "cannot fetch speedscope's schema from ${_url} (${_message}): the speedscope "
                  "schema test will fail until a build can fetch it")
  return()
endif()
file(ARCHIVE_EXTRACT INPUT "${_package}" DESTINATION "${_dir}/package"
     PATTERNS package/dist/release/file-format-schema.json)
file(RENAME "${_dir}/package/package/dist/release/file-format-schema.json" "${SCHEMA}")
file(REMOVE_RECURSE "${_dir}/package" "${_package}")
