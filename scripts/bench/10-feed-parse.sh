#!/usr/bin/env bash
# Feed parsing: `podcast episodes FEED --json` against the Python parsers podcast apps use
# (podcastparser, from gPodder, and feedparser), on one generated 10,000-item feed (~15 MB).
#
# Wall time is the best of 3 runs (one run when a tool takes over 5 s); peak RSS is the largest
# of those runs, from /usr/bin/time. Every figure includes process start-up: that is what a user
# waits for. Targets are printed as PASS/MISS and never fail the build (timings vary by machine).
#
# PODCAST_BIN overrides the binary (default .build/release/podcast, which `make bench` builds);
# FEED_ITEMS the feed's size. Python packages go into a virtual environment in .build/bench-venv;
# when they cannot be installed their rows are skipped with the reason.
set -euo pipefail
cd "$(dirname "$0")/../.."

items=${FEED_ITEMS:-10000}
venv=.build/bench-venv
target_speedup=10
target_rss_mb=40

if [ ! -x /usr/bin/time ]; then
    scripts/setup.sh
fi

podcast=${PODCAST_BIN:-.build/release/podcast}
if [ ! -x "$podcast" ]; then
    echo "feed-parse: building $podcast"
    "${SWIFT:-swift}" build -c release --product podcast --static-swift-stdlib
fi
podcast=$(realpath "$podcast")

work=$(mktemp -d "${TMPDIR:-/tmp}/podcast-bench-feed.XXXXXX")
trap 'rm -rf "$work"' EXIT
feed=$work/feed.xml
python3 scripts/bench/make-feed.py "$items" "$feed"
echo "feed: $items items, $(stat -c %s "$feed") bytes (scripts/bench/make-feed.py)"

# The Python parsers, in their own environment so nothing touches the system's Python. Each one
# that cannot be installed loses its row, with the reason; the benchmark goes on without it.
python=$venv/bin/python
have() { [ -x "$python" ] && "$python" -c "import $1" 2>/dev/null; }
if ! have podcastparser || ! have feedparser; then
    if ! python3 -m venv "$venv" >"$work/venv.log" 2>&1; then
        echo "feed-parse: cannot create a Python virtual environment in $venv; skipping the Python rows:"
        tail -n 3 "$work/venv.log" | sed 's/^/    /'
    fi
    for package in podcastparser feedparser; do
        if [ -x "$venv/bin/pip" ] && ! have "$package" \
            && ! "$venv/bin/pip" install --quiet "$package" >"$work/pip.log" 2>&1; then
            echo "feed-parse: pip cannot install $package; skipping its row:"
            tail -n 3 "$work/pip.log" | sed 's/^/    /'
        fi
    done
fi

# measure NAME OUT COMMAND…: runs COMMAND with stdout to OUT up to 3 times; records
# "NAME seconds rss_kib" in $work/results.
measure() {
    local name=$1 out=$2
    shift 2
    local best="" peak=0 run start end seconds kib
    for run in 1 2 3; do
        rm -rf "$work/home" && mkdir "$work/home"
        start=$(date +%s%N)
        if ! PODCAST_HOME=$work/home /usr/bin/time -f "%M" -o "$work/time" "$@" >"$out" 2>"$work/$name.err"; then
            echo "feed-parse: $name failed:"
            tail -n 5 "$work/$name.err" | sed 's/^/    /'
            return 0
        fi
        end=$(date +%s%N)
        seconds=$(awk -v ns=$((end - start)) 'BEGIN { printf "%.3f", ns / 1e9 }')
        kib=$(tail -n 1 "$work/time")
        if [ -z "$best" ] || awk -v a="$seconds" -v b="$best" 'BEGIN { exit !(a < b) }'; then best=$seconds; fi
        if [ "$kib" -gt "$peak" ]; then peak=$kib; fi
        if awk -v s="$seconds" 'BEGIN { exit !(s > 5) }'; then break; fi
    done
    echo "$name $best $peak" >>"$work/results"
}

: >"$work/results"
measure podcast /dev/null "$podcast" episodes "$feed" --json
if have podcastparser; then
    measure podcastparser "$work/podcastparser.out" "$python" -c '
import sys, podcastparser
with open(sys.argv[1], "rb") as stream:
    print(len(podcastparser.parse("file://" + sys.argv[1], stream)["episodes"]))
' "$feed"
fi
if have feedparser; then
    measure feedparser "$work/feedparser.out" "$python" -c '
import sys, feedparser
print(len(feedparser.parse(sys.argv[1]).entries))
' "$feed"
fi

# Each tool must have read every episode, or its time means nothing (podcast's output is counted
# in a run of its own, so the timed runs write to /dev/null).
count() {
    case $1 in
    podcast)
        rm -rf "$work/home" && mkdir "$work/home"
        PODCAST_HOME=$work/home "$podcast" episodes "$feed" --json 2>/dev/null \
            | python3 -c 'import json, sys; print(len(json.load(sys.stdin)["episodes"]))' 2>/dev/null || echo "?"
        ;;
    *) tail -n 1 "$work/$1.out" ;;
    esac
}

awk -v items="$items" -v speedup="$target_speedup" -v rss_mb="$target_rss_mb" \
    -v counts="$(while read -r name _; do printf '%s=%s ' "$name" "$(count "$name")"; done <"$work/results")" '
BEGIN {
    n = split(counts, pairs, " ")
    for (i = 1; i <= n; i++) { split(pairs[i], kv, "="); episodes[kv[1]] = kv[2] }
}
{ name[NR] = $1; seconds[NR] = $2; kib[NR] = $3; if ($1 == "podcast") base = NR }
END {
    printf "%-14s %8s %14s %9s  %s\n", "tool", "wall s", "peak RSS MiB", "episodes", "vs podcast"
    for (i = 1; i <= NR; i++) {
        ratio = ""
        if (base && i != base) {
            ratio = sprintf("%.1fx slower, %.1fx the memory", seconds[i] / seconds[base], kib[i] / kib[base])
        }
        printf "%-14s %8.3f %14.1f %9s  %s\n", name[i], seconds[i], kib[i] / 1024, episodes[name[i]], ratio
        if (episodes[name[i]] != items) printf "  warning: %s read %s of %d episodes\n", name[i], episodes[name[i]], items
    }
    if (!base) { print "MISS: podcast did not run"; exit }
    for (i = 1; i <= NR; i++) if (name[i] == "podcastparser") pp = i
    if (pp) {
        ratio = seconds[pp] / seconds[base]
        printf "%s: at least %dx faster than podcastparser (is %.1fx)\n", (ratio >= speedup ? "PASS" : "MISS"), speedup, ratio
    } else {
        printf "SKIP: at least %dx faster than podcastparser (podcastparser did not run)\n", speedup
    }
    mb = kib[base] * 1024 / 1e6
    printf "%s: peak RSS at most %d MB (is %.1f MB)\n", (mb <= rss_mb ? "PASS" : "MISS"), rss_mb, mb
}' "$work/results"
