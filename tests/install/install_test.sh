#!/usr/bin/env bash
# Installs the build into a scratch prefix and builds a consumer against it three ways:
# find_package (static and shared stub) and pkg-config; each runs with the installed collector.
set -euo pipefail
build=$1 source=$2
prefix=$(mktemp -d) work=$(mktemp -d)
trap 'rm -rf "$prefix" "$work"' EXIT

cmake --install "$build" --prefix "$prefix" >/dev/null
for f in bin/jitscope include/jitprofiling.h lib/libjitprofiling.a lib/libjitprofiling.so \
         lib/libjitprofiling.so.1 lib/libjitscope-collector.so lib/pkgconfig/jitprofiling.pc \
         lib/cmake/jitscope/jitscopeConfig.cmake include/opagent.h lib/libopagent.so \
         lib/libopagent.so.1 lib/pkgconfig/opagent.pc lib/libjvmti_opagent.so; do
  [[ -e "$prefix/$f" ]] || { echo "not installed: $f"; exit 1; }
done

cmake -S "$source/consumer" -B "$work/build" -G Ninja -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake --build "$work/build" >/dev/null
export INTEL_JIT_PROFILER64="$prefix/lib/libjitscope-collector.so" JITSCOPE_OUTPUT_DIR="$work"
export JITSCOPE_LOG="$work/log"
for exe in consumer_static consumer_shared; do
  out=$(LD_LIBRARY_PATH="$prefix/lib" "$work/build/$exe")
  [[ "$out" == "active=1 notify=1" ]] || { echo "$exe printed: $out"; exit 1; }
done

pc_flags=$(PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config --cflags --libs jitprofiling)
cc -std=c99 "$source/consumer/consumer.c" -o "$work/pc" $pc_flags
out=$(LD_LIBRARY_PATH="$prefix/lib" "$work/pc")
[[ "$out" == "active=1 notify=1" ]] || { echo "pkg-config build printed: $out"; exit 1; }

traces=$(ls "$work"/jit-*.jsc | wc -l)
[[ $traces -eq 3 ]] || { echo "expected 3 traces, found $traces"; exit 1; }
"$prefix/bin/jitscope" dump "$(ls "$work"/jit-*.jsc | head -1)" | grep -q 'name="installed"'
# OProfile's agent API: a consumer built with pkg-config against the installed libopagent.so.1.
op_flags=$(PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config --cflags --libs opagent)
cc -std=c99 "$source/consumer/opagent_consumer.c" -o "$work/op" $op_flags
out=$(JITSCOPE_OPAGENT_DIR="$work" LD_LIBRARY_PATH="$prefix/lib" "$work/op")
[[ "$out" == "load=0 lines=0 close=0" ]] || { echo "opagent consumer printed: $out"; exit 1; }
dump=$(ls "$work"/[0-9]*.dump)
"$prefix/bin/jitscope" dump "$dump" | grep -q 'CODE_LOAD .* name="installed"'
"$prefix/bin/jitscope" dump "$dump" | grep -q 'DEBUG_INFO .*:3:"installed.c"'
echo "install test passed"
