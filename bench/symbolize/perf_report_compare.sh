#!/usr/bin/env bash
# The real `perf report` against jitscope over the same perf map of 1,000,000 JIT methods.
#   bench/symbolize/perf_report_compare.sh [BUILD_DIR]
# 1. perf_map_workload writes /tmp/perf-<pid>.map (1,000,000 lines) and calls random methods;
#    `perf record` samples it.
# 2. `perf report --sort sym` runs twice on that perf.data: with the map (it parses the map, builds
#    its symbol tree and resolves every sample in the map's range) and without it (the same run
#    minus that work). The difference is perf's cost for the map.
# 3. `jitscope resolve` reads the same map, builds its index and resolves the same sample
#    addresses (taken from `perf script`), timed the same way.
# Times are CPU seconds (user + system), best of three, so a busy machine skews them less.
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
work=$(mktemp -d "${TMPDIR:-/tmp}/jitscope-perfcmp.XXXXXX")
map=""
cleanup() { rm -rf "$work"; [[ -n "$map" ]] && rm -f "$map" "$map.hidden"; }
trap cleanup EXIT

cc -O2 -o "$work/workload" bench/symbolize/perf_map_workload.c
perf record -q -e cpu-clock -c 50000 -o "$work/perf.data" -- "$work/workload" 3 > "$work/map-path"
map=$(cat "$work/map-path")
samples=$(perf script -i "$work/perf.data" -F ip 2>/dev/null | wc -l)
perf script -i "$work/perf.data" -F ip 2>/dev/null | awk '{print "0x" $1}' > "$work/addresses"

seconds() {  # best of 3 runs of "$@": CPU seconds (user + system), robust to a busy machine
  local best=""
  for _ in 1 2 3; do
    local t
    t=$( { TIMEFORMAT='%3U %3S'; time "$@" > /dev/null 2>&1; } 2>&1 | awk '{print $1 + $2}')
    best=$(echo "$t ${best:-1e9}" | awk '{print ($1 < $2 ? $1 : $2)}')
  done
  echo "$best"
}

with_map=$(seconds perf report -i "$work/perf.data" --stdio --sort sym -q)
top=$(perf report -i "$work/perf.data" --stdio --sort sym -q 2>/dev/null | grep -c 'JS:\*method_' || true)
mv "$map" "$map.hidden"
without_map=$(seconds perf report -i "$work/perf.data" --stdio --sort sym -q)
mv "$map.hidden" "$map"
jitscope_time=$(seconds xargs -a "$work/addresses" -s 2000000 "$build/bin/jitscope" resolve "$map" --)
resolved=$(xargs -a "$work/addresses" -s 2000000 "$build/bin/jitscope" resolve "$map" -- | grep -c 'JS:\*method_' || true)

echo "samples: $samples; in JIT code, resolved by jitscope: $resolved; distinct JIT symbols in perf report: $top"
echo "perf report with the map:    $with_map s"
echo "perf report without the map: $without_map s"
echo "perf's cost for the map:     $(echo "$with_map $without_map" | awk '{print $1 - $2}') s"
echo "jitscope resolve (map + all samples): $jitscope_time s"
echo "ratio (perf's cost / jitscope): $(echo "$with_map $without_map $jitscope_time" | awk '{printf "%.1f", ($1 - $2) / $3}')"
