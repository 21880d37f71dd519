# Toolchain file: build for i386 (32-bit x86) on an x86-64 Linux host with the host's multilib
# compiler (Debian: gcc-multilib g++-multilib). cmake/lib32.cmake uses it for the lib32 build;
# it also works by hand:
#   cmake -S . -B build-i386 -DCMAKE_TOOLCHAIN_FILE=cmake/i386-linux-gnu.cmake \
#         -DJITSCOPE_IN_PROCESS_ONLY=ON -DCMAKE_INSTALL_LIBDIR=lib32
# -m32 goes into the compile flags, which CMake also passes to the compiler driver when it links.
set(CMAKE_C_FLAGS_INIT -m32)
set(CMAKE_CXX_FLAGS_INIT -m32)
