#!/usr/bin/env bash
# Fuzzes the feed parser with libFuzzer (and AddressSanitizer) for FUZZ_SECONDS (default 600),
# starting from every feed-like fixture in Tests/Fixtures. Exits non-zero on a crash, a leak,
# a timeout or an out-of-memory; the input that caused it is left in .build-fuzz/artifacts/.
#
# Only Swift code is instrumented for coverage (libxml2 is the system library), so the fuzzer
# steers by what PodcastKit does with libxml2's events. Reproduce a finding with
#   .build-fuzz/debug/podcast-fuzz-feed .build-fuzz/artifacts/crash-…
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=${FUZZ_SECONDS:-600}
scratch=.build-fuzz
fixtures=Tests/Fixtures
corpus=$scratch/corpus
artifacts=$scratch/artifacts

# The target exists in the manifest only with PODCAST_FUZZ=1 (see Package.swift). gold warns that
# it "cannot export local symbol '__asan_…'", over a hundred times: harmless, dropped.
PODCAST_FUZZ=1 "${SWIFT:-swift}" build -c debug --product podcast-fuzz-feed --scratch-path "$scratch" \
    -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library 2>&1 \
    | { grep -v "Cannot export local symbol '__asan" || true; }

# Seeds: every feed-like fixture, named after its path (fixtures in different folders share
# names). A corpus the fuzzer grew in an earlier run is kept.
mkdir -p "$corpus" "$artifacts"
seeds=0
while IFS= read -r -d '' file; do
    name=${file#"$fixtures"/}
    cp -n "$file" "$corpus/seed-${name//\//__}"
    seeds=$((seeds + 1))
done < <(find "$fixtures" -type f \
    \( -name '*.xml' -o -name '*.rss' -o -name '*.atom' -o -name '*.rdf' -o -path "$fixtures/fuzz/*" \) -print0)
echo "fuzz: $seeds seed files from $fixtures"

# AddressSanitizer keeps 256 MB of freed memory in quarantine by default; with its redzones and
# shadow that alone passed the 512 MB limit while the parser held under 30 MB live (a false
# out-of-memory). A smaller quarantine still catches use-after-free of recent allocations.
export ASAN_OPTIONS="quarantine_size_mb=64${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
# Swift's own crash backtracer reads the stack in a way AddressSanitizer reports as an overflow,
# hiding the real failure: let libFuzzer print the stack instead.
export SWIFT_BACKTRACE=${SWIFT_BACKTRACE:-enable=no}

echo "fuzz: running for $seconds s; the log is $scratch/fuzz.log"
status=0
"$scratch/debug/podcast-fuzz-feed" "$corpus" \
    -max_total_time="$seconds" -max_len=65536 -rss_limit_mb=512 -timeout=10 \
    -artifact_prefix="$artifacts/" -print_final_stats=1 >"$scratch/fuzz.log" 2>&1 || status=$?

# The last status line (executions, coverage, corpus, exec/s, memory) and libFuzzer's totals.
grep -E '^#[0-9]+' "$scratch/fuzz.log" | tail -n 1 || true
grep -E '^(Done [0-9]+ runs|stat::)' "$scratch/fuzz.log" || true
if [ "$status" -ne 0 ]; then
    echo "fuzz: FAILED (exit $status); the report:" >&2
    grep -E -A 40 '^==[0-9]+==|^(ERROR|SUMMARY): |Fatal error|deadly signal|-timeout|out-of-memory' \
        "$scratch/fuzz.log" | head -n 80 >&2 || true
    grep -o 'Test unit written to .*' "$scratch/fuzz.log" | sed 's/^Test unit written to /fuzz: input: /' >&2 || true
    exit "$status"
fi
echo "fuzz: no crash in $seconds s"
