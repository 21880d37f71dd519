# Debian's oneTBB (libtbb-dev) as the imported target TBB::tbb, for the end-to-end tests that run
# it as a real client of the ITT API (its libtbb carries a copy of ittnotify's static part); users
# check `if(TARGET TBB::tbb)`.
if(NOT TARGET TBB::tbb)
  find_package(TBB CONFIG QUIET)
endif()
