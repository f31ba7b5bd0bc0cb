#!/usr/bin/env bash
# Subscriptions over a slow network: `podcast update` against gPodder's `gpo update` (+ `gpo
# download`) on LATENCY_FEEDS (300) feeds of LATENCY_ITEMS (100) items spread over LATENCY_HOSTS
# (30) hosts, each answer arriving 150 to 300 ms late, as from servers across the internet. On
# loopback (40-update.sh) every answer is instant and a tool's own work is all there is to time;
# here the waiting dominates, and what counts is how many requests a tool has in flight at once,
# as it does for users. The feeds are 40-update.sh's (make-update-feeds.py).
#
# The server is slow-server.py (Python asyncio, standard library): it listens on 127.0.0.1 to
# 127.0.0.30, one port, feed i on 127.0.0.(i mod 30 + 1) with its episodes on the same host, and
# serves the files with ETag and Last-Modified, 304 for a conditional GET that still matches, and
# keep-alive (HTTP/1.1, Content-Length), so connections are reused. Every answer waits before its
# status line for a delay between LATENCY_MIN_MS (150) and LATENCY_MAX_MS (300) drawn from
# LATENCY_SEED and the file's path: each file always takes the same time, for every tool and
# round, so runs compare. The script prints what those delays add up to for the feeds: the least
# a client that asks one at a time (gpo does) can take for a round.
#
# Three rounds, each tool in its own home (on tmpfs when there is one: /dev/shm, else /tmp):
#   a. first update: every feed answers 200 (the files are touched first) and is parsed; podcast
#      sets its baselines (subscribed with `podcast import --first 0`, so nothing is downloaded),
#      gpo its episodes.
#   b. nothing changed: both ask with their validators and get 304 (gpo: `gpo update` then `gpo
#      download`, which finds nothing, timed together, as in 40-update.sh).
#   c. 30 feeds gained one small episode (only those are written again; the other 270 answer 304):
#      each tool fetches the feeds and downloads the 30 new episodes (gpo: update then download).
# Setup, untimed: podcast and gpo import the same OPML file (gpo's import fetches every feed, so
# the feeds are touched before round a); after round a, gpo's episodes are marked old in its
# database (what --first 0 does for podcast). podget is left out: it fetches one feed at a time
# without conditional GETs, and its rows in 40-update.sh say enough.
#
# Wall, CPU and peak RSS from /usr/bin/time; podcast's round b is the best of LATENCY_RUNS (3),
# gpo's runs once (it takes over a minute, and the delays it waits for are the same every time);
# rounds a and c run once per tool. podcast runs with its defaults (an empty configuration file).
# The table says what the server answered during each row's (last) run. No speed target here: the
# figures and ratios are for the record; the peak RSS target (under 40 MiB in every round) is
# printed as PASS/MISS and never fails the build.
set -euo pipefail
cd "$(dirname "$0")/../.."

bench=update-latency
feeds=${LATENCY_FEEDS:-300}
items=${LATENCY_ITEMS:-100}
gaining=${LATENCY_GAINING:-30}
hosts=${LATENCY_HOSTS:-30}
runs=${LATENCY_RUNS:-3}
min_ms=${LATENCY_MIN_MS:-150}
max_ms=${LATENCY_MAX_MS:-300}
seed=${LATENCY_SEED:-podcast-bench}
target_rss_mib=40
# shellcheck source=update-common.bash
source scripts/bench/update-common.bash

if [ ! -x /usr/bin/time ]; then scripts/setup.sh; fi
update_find_peers gpodder:gpo
update_podcast_bin
update_work podcast-bench-latency

www=$work/www
port=0 # the server takes a free one; the feeds are written once it is known
python3 scripts/bench/slow-server.py --root "$www" --hosts "$hosts" --min-ms "$min_ms" --max-ms "$max_ms" \
    --seed "$seed" --ready "$work/port" --access-log "$work/access.log" --parent $$ >"$work/server.log" 2>&1 &
background_pids+=($!)
for try in $(seq 100); do
    if [ -s "$work/port" ]; then break; fi
    if [ "$try" = 100 ] || ! kill -0 "${background_pids[0]}" 2>/dev/null; then
        echo "$bench: the server did not start on 127.0.0.1-$hosts:"
        tail -n 5 "$work/server.log" | sed 's/^/    /'
        exit 1
    fi
    sleep 0.1
done
port=$(cat "$work/port")
make_feeds 1
# An hour old, so that round a's touch gives every feed a new Last-Modified and ETag.
touch -d '1 hour ago' "$www"/feeds/*.xml
write_opml "$work/subscriptions.opml"
probe=$((feeds < hosts ? feeds - 1 : hosts - 1)) # the last host's first feed
if ! curl -sf -o /dev/null "http://$(address $probe):$port/feeds/$probe.xml"; then
    echo "$bench: the server does not serve http://$(address $probe):$port/feeds/$probe.xml:"
    tail -n 5 "$work/server.log" | sed 's/^/    /'
    exit 1
fi
access_log=$work/access.log

# The least a one-at-a-time client waits in a round: the feeds' delays added up (as the server draws them).
sequential_s=$(python3 - "$seed" "$min_ms" "$max_ms" "$feeds" <<'EOF'
import random, sys
seed, low, high, feeds = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
delays = [low + (high - low) * random.Random(f"{seed}\0/feeds/{f}.xml").random() for f in range(feeds)]
print(f"{sum(delays) / 1000:.1f}")
EOF
)

podcast_home=$work/podcast
gpo_home=$work/gpo
mkdir -p "$podcast_home" "$gpo_home/dl"
# An empty configuration of its own: the bench ignores yours (a file PODCAST_CONFIG names must exist).
: >"$work/config.toml"
run_podcast=(env PODCAST_HOME="$podcast_home" PODCAST_CONFIG="$work/config.toml" "$podcast")
run_gpo=(env GPODDER_HOME="$gpo_home" GPODDER_DOWNLOAD_DIR="$gpo_home/dl")

# Setup (untimed).
if ! "${run_podcast[@]}" import "$work/subscriptions.opml" --first 0 >"$work/podcast-import.log" 2>&1; then
    echo "$bench: podcast import failed:"
    tail -n 3 "$work/podcast-import.log" | sed 's/^/    /'
    exit 1
fi
if has_peer gpo; then
    "${run_gpo[@]}" gpo import "$work/subscriptions.opml" >"$work/gpo-import.log" 2>&1 || true
fi

echo "setup: $feeds feeds of $items items ($(du -sh "$www/feeds" | cut -f1) in all) on slow-server.py," \
    "127.0.0.1-$hosts:$port, each answer ${min_ms}-${max_ms} ms late (seed $seed);" \
    "the feeds' delays add up to $sequential_s s; homes in $work ($(df --output=fstype "$work" | tail -n 1));" \
    "tools: podcast $podcast, ${peers[*]:-no peers}"
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg) ($(nproc) cores)"

# Round a: every feed changed (touched: new Last-Modified and ETag): gpo's import fetched them all.
touch "$www"/feeds/*.xml
measure a podcast "${run_podcast[@]}" update -q
if has_peer gpo; then
    measure a gpo "${run_gpo[@]}" gpo update
    # What --first 0 is for podcast: the back catalogue is not new.
    sqlite3 "$gpo_home/Database" "UPDATE episode SET is_new = 0" 2>/dev/null || echo "$bench: could not mark gpo's episodes old"
fi

# Round b: nothing changed.
for ((run = 1; run <= runs; run++)); do
    measure b podcast "${run_podcast[@]}" update -q
done
if has_peer gpo; then measure b gpo "${run_gpo[@]}" bash -c 'gpo update && gpo download'; fi

# Round c: $gaining feeds gain one episode.
make_feeds 3
measure c podcast "${run_podcast[@]}" update -q
if has_peer gpo; then measure c gpo "${run_gpo[@]}" bash -c 'gpo update && gpo download'; fi
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"

# podcast names files by title (`… #101.mp3`), gpo by the enclosure's name (`f3-i101.mp3`).
new_files() { find "$1" \( -name "*-i$((items + 1)).mp3" -o -name "*#$((items + 1)).mp3" \) 2>/dev/null | wc -l; }
echo "round c new episodes on disk: podcast $(new_files "$podcast_home/Episodes")${peers[*]:+, gpo $(new_files "$gpo_home/dl")} (of $gaining)"

update_report "a=a all new (200)" "b=b unchanged (304)" "c=c $gaining new episodes"
echo "(wall and CPU: the least of the runs; peak RSS: the largest; wall/podcast: gpo's wall divided by podcast's)"

echo
echo "targets"
awk -v target_mib="$target_rss_mib" '
$2 == "podcast" { if ($5 > worst) worst = $5; seen = 1 }
END { if (seen) printf "%s: podcast peak RSS under %d MiB in every round with latency (%.1f MiB)\n", (worst < target_mib ? "PASS" : "MISS"), target_mib, worst }' "$work/best"
