#!/usr/bin/env bash
# Runs a benchmark with the open-files limit raised as far as this machine allows: the soft limit
# goes to BENCH_FD_LIMIT (default 65536) when the hard limit permits, else up to the hard limit.
# Child processes (the r3 servers a benchmark starts) inherit it.
set -euo pipefail
want="${BENCH_FD_LIMIT:-65536}"
ulimit -n "$want" 2>/dev/null || ulimit -n "$(ulimit -Hn)"
exec "$@"
