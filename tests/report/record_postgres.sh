#!/usr/bin/env bash
# Records PostgreSQL 15 running a query that its LLVM JIT compiles, with jit_profiling_support
# on (LLVM's perf listener then writes a jitdump and maps it), and prints `jitscope report` of the
# session as folded stacks. The JIT functions must be named from that jitdump with no perf inject.
#   record_postgres.sh JITSCOPE
set -euo pipefail
jitscope=$1
bin=/usr/lib/postgresql/15/bin
if [[ ! -x $bin/postgres ]]; then
  echo "record_postgres.sh: PostgreSQL 15 is missing (scripts/setup installs postgresql-15)" >&2
  exit 1
fi
# PostgreSQL refuses to run as root: the server runs as the postgres user in a scratch directory
# it owns; the recording and the report run as us.
work=$(mktemp -d /tmp/jitscope-pg.XXXXXX)
chown postgres "$work"
stop() { runuser -u postgres -- "$bin/pg_ctl" -D "$work/data" stop -m "$1" >/dev/null 2>&1; }
trap 'stop immediate || true; rm -rf "$work"' EXIT
runuser -u postgres -- "$bin/initdb" -A trust -D "$work/data" >/dev/null
port=$((50000 + $$ % 10000))
"$jitscope" record -o "$work/session" -- runuser -u postgres -- env JITDUMPDIR="$work" \
  "$bin/postgres" -D "$work/data" -k "$work" -p "$port" -c listen_addresses= \
  -c jit=on -c jit_above_cost=0 -c jit_inline_above_cost=0 -c jit_optimize_above_cost=0 \
  -c jit_profiling_support=on >"$work/server.log" 2>&1 &
recorder=$!
for _ in $(seq 150); do
  runuser -u postgres -- "$bin/pg_isready" -q -h "$work" -p "$port" && break
  sleep 0.1
done
# The query, again in a new session each time, until the server's sessions have used half a
# second of CPU time (the postmaster's children's, which it has reaped: fields 16 and 17 of its
# stat, in clock ticks), so the recording holds as many samples of the JIT code on any machine.
postmaster=$(head -n 1 "$work/data/postmaster.pid")
ticks=$(getconf CLK_TCK)
sessions_cpu() { sed 's/.*) //' "/proc/$postmaster/stat" | awk '{ print $14 + $15 }'; }
for _ in $(seq 200); do
  runuser -u postgres -- "$bin/psql" -X -q -h "$work" -p "$port" -d postgres -Atc \
    "select sum(x * 2 + 1), sum(x % 7) from generate_series(1, 3000000) x where x % 3 = 0" \
    >/dev/null
  (( $(sessions_cpu) * 2 >= ticks )) && break
done
stop fast
wait "$recorder"
"$jitscope" report "$work/session" --format folded
