#!/usr/bin/env bash
# Benchmarks podcast against the tools users would otherwise use, as ratios from one run.
# Each benchmark lives in scripts/bench/NAME.sh and is run in name order.
set -euo pipefail
cd "$(dirname "$0")/.."

shopt -s nullglob
benchmarks=(scripts/bench/*.sh)
if [ ${#benchmarks[@]} -eq 0 ]; then
    echo "bench: no benchmarks yet (the feed parser and transfer engine add theirs)"
    exit 0
fi
for benchmark in "${benchmarks[@]}"; do
    echo "== $(basename "$benchmark" .sh)"
    bash "$benchmark"
done
