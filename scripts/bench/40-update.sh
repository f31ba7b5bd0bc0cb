#!/usr/bin/env bash
# Subscriptions: `podcast update` against gPodder's `gpo update` (+ `gpo download`) and `podget`,
# on UPDATE_FEEDS (300) feeds of UPDATE_ITEMS (100) items, served by one nginx listening on the 8
# loopback addresses 127.0.0.1–127.0.0.8 (feed i on 127.0.0.(i mod 8 + 1)), with ETag and
# Last-Modified as nginx sends them. Titles and show notes mix German, French, Japanese, Arabic
# and emoji with HTML and entities, as real feeds do (make-update-feeds.py, shared with the
# latency round of 41-update-latency.sh).
#
# Three rounds, each tool in its own home:
#   1. first update: every feed answers 200 (the files are touched first), and is parsed; podcast
#      sets its baselines (subscribed with --first 0, so nothing is downloaded), gpo its episodes.
#      podget is left out of this round (its first run downloads, see below).
#   2. nothing changed: podcast and gpo ask with their validators and get 304; podget, which has
#      no conditional GET, fetches and reads every feed again.
#   3. 30 feeds gained one small episode: only those are written again, so the other 270 keep
#      their validators and answer 304; each tool fetches the 30 and downloads their new
#      episodes (gpo: `gpo update` then `gpo download`, timed together).
# Setup, untimed: podcast imports an OPML file; gpo imports the same file (and fetches every feed
# then: hence the touch before round 1), and after round 1 its episodes are marked old in its
# database (what --first 0 does for podcast); podget's first run (`-r 1`: the newest item of each
# feed) downloads 300 episodes before round 2.
#
# Storage: podcast and gpo run every round twice, in two pairs of homes, one on tmpfs (/dev/shm,
# else /tmp if it is tmpfs) and one on the disk (a directory under .build/bench-disk), taking
# turns run by run; the served files are on tmpfs (or in $TMPDIR when there is none). Both tools
# write a database with every feed's episodes in round 1, and podcast syncs its store, which
# costs more on a disk. podget runs on the first storage only (it takes minutes, fetching one
# feed at a time). `sync` runs before every timed run so no tool pays for the previous one's
# writeback.
#
# Wall, CPU and peak RSS from /usr/bin/time, best of UPDATE_RUNS (3) for round 2 (it changes
# nothing, so it can be repeated; podget once, as it takes minutes); rounds 1 and 3 run once per
# tool and storage. The table also says what nginx answered during each row's (last) run, from
# its access log. Targets, on each storage (PASS/MISS, never failing the build): round 2 of 300
# feeds under 1 s and at least 20x faster than gpo, peak RSS under 40 MiB in every round.
# UPDATE_STORAGE (both, tmpfs or disk) runs one storage only, for quick trials.
set -euo pipefail
cd "$(dirname "$0")/../.."

bench=update
feeds=${UPDATE_FEEDS:-300}
items=${UPDATE_ITEMS:-100}
gaining=${UPDATE_GAINING:-30}
runs=${UPDATE_RUNS:-3}
storages=${UPDATE_STORAGE:-both}
target_unchanged_s=1
target_vs_gpo=20
target_rss_mib=40
# shellcheck source=update-common.bash
source scripts/bench/update-common.bash

if [ ! -x /usr/bin/time ] || { ! command -v nginx >/dev/null && [ ! -x /usr/sbin/nginx ]; }; then
    scripts/setup.sh
fi
nginx=$(command -v nginx || echo /usr/sbin/nginx)
update_find_peers gpodder:gpo podget:podget
update_podcast_bin
update_work podcast-bench-update
mkdir -p .build/bench-disk
disk=$(mktemp -d "$PWD/.build/bench-disk/update.XXXXXX")
cleanup_dirs+=("$disk")

case $storages in
both) wanted=(tmpfs disk) ;;
tmpfs | disk) wanted=("$storages") ;;
*) echo "$bench: UPDATE_STORAGE is tmpfs, disk or both, not $storages"; exit 1 ;;
esac
storage_list=()
for storage in "${wanted[@]}"; do
    if [ "$storage" = tmpfs ] && [ -z "$tmpfs_root" ]; then
        echo "$bench: no tmpfs (/dev/shm, /tmp); skipping the tmpfs runs"
    else
        storage_list+=("$storage")
    fi
done
if [ ${#storage_list[@]} -eq 0 ]; then exit 0; fi
# root_of STORAGE: where that storage's homes live.
root_of() { if [ "$1" = tmpfs ]; then echo "$work/tmpfs"; else echo "$disk"; fi; }

www=$work/www
hosts=8
mkdir -p "$work/nginx"
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
make_feeds 1
# An hour old, so that round 1's touch gives every feed a new Last-Modified and ETag.
touch -d '1 hour ago' "$www"/feeds/*.xml
write_opml "$work/subscriptions.opml"
awk -F'"' '/xmlUrl/ { print $6 " BENCH Show" NR }' "$work/subscriptions.opml" >"$work/podget-serverlist"

listens=""
for ((n = 1; n <= hosts; n++)); do listens+="        listen 127.0.0.$n:$port;"$'\n'; done
cat >"$work/nginx/nginx.conf" <<EOF
daemon off;
worker_processes 1;
pid $work/nginx/nginx.pid;
error_log $work/nginx/error.log warn;
events { worker_connections 1024; }
http {
    access_log $work/nginx/access.log;
    sendfile on;
    gzip off;
    keepalive_requests 100000;
    types { audio/mpeg mp3; application/rss+xml xml; }
    default_type application/octet-stream;
    client_body_temp_path $work/nginx/body;
    proxy_temp_path $work/nginx/proxy;
    fastcgi_temp_path $work/nginx/fastcgi;
    uwsgi_temp_path $work/nginx/uwsgi;
    scgi_temp_path $work/nginx/scgi;
    server {
$listens        root $www;
    }
}
EOF
probe=$((feeds < hosts ? feeds - 1 : hosts - 1)) # the last host's first feed
"$nginx" -p "$work/nginx/" -c "$work/nginx/nginx.conf" -e "$work/nginx/error.log" &
background_pids+=($!)
for try in $(seq 50); do
    if curl -sf -o /dev/null "http://$(address $probe):$port/feeds/$probe.xml"; then break; fi
    if [ "$try" = 50 ] || ! kill -0 "${background_pids[0]}" 2>/dev/null; then
        echo "$bench: nginx did not start on 127.0.0.1-$hosts:$port:"
        tail -n 5 "$work/nginx/error.log" | sed 's/^/    /'
        exit 1
    fi
    sleep 0.1
done
access_log=$work/nginx/access.log

# An empty configuration of its own: the bench ignores yours (a file PODCAST_CONFIG names must exist).
: >"$work/config.toml"
# homes STORAGE: run_podcast and run_gpo, the commands that run each tool in that storage's home.
homes() {
    local root
    root=$(root_of "$1")
    run_podcast=(env PODCAST_HOME="$root/podcast" PODCAST_CONFIG="$work/config.toml" "$podcast")
    run_gpo=(env GPODDER_HOME="$root/gpo" GPODDER_DOWNLOAD_DIR="$root/gpo/dl")
}
# gpo_round ROUND STORAGE: gpo update and gpo download, timed together.
gpo_round() {
    homes "$2"
    measure "$1-$2" gpo "${run_gpo[@]}" bash -c 'gpo update && gpo download'
}

# Setup (untimed).
for storage in "${storage_list[@]}"; do
    root=$(root_of "$storage")
    mkdir -p "$root/podcast" "$root/gpo/dl"
    homes "$storage"
    if ! "${run_podcast[@]}" import "$work/subscriptions.opml" --first 0 >"$work/podcast-import-$storage.log" 2>&1; then
        echo "$bench: podcast import failed:"
        tail -n 3 "$work/podcast-import-$storage.log" | sed 's/^/    /'
        exit 1
    fi
    if has_peer gpo; then
        "${run_gpo[@]}" gpo import "$work/subscriptions.opml" >"$work/gpo-import-$storage.log" 2>&1 || true
    fi
done
podget_storage=${storage_list[0]}
podget_home=$(root_of "$podget_storage")/podget
podget_run=(podget -d "$podget_home/conf" -l "$podget_home/lib" -r 1 -n -s)
if has_peer podget; then
    mkdir -p "$podget_home/lib"
    podget -d "$podget_home/conf" -l "$podget_home/lib" -s >/dev/null 2>&1 || true
    cp "$work/podget-serverlist" "$podget_home/conf/serverlist"
fi

echo "setup: $feeds feeds of $items items ($(du -sh "$www/feeds" | cut -f1) in all) on nginx $("$nginx" -v 2>&1 | sed 's|.*/||')," \
    "127.0.0.1-$hosts:$port; tools: podcast $podcast, ${peers[*]:-no peers}"
for storage in "${storage_list[@]}"; do
    echo "$storage: homes in $(root_of "$storage") ($(df --output=fstype "$(root_of "$storage")" | tail -n 1))"
done
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg) ($(nproc) cores)"

# Round 1: every feed changed (touched: new Last-Modified and ETag).
touch "$www"/feeds/*.xml
for storage in "${storage_list[@]}"; do
    homes "$storage"
    measure "1-$storage" podcast "${run_podcast[@]}" update -q
    if has_peer gpo; then
        measure "1-$storage" gpo "${run_gpo[@]}" gpo update
        # What --first 0 is for podcast: the back catalogue is not new.
        sqlite3 "$(root_of "$storage")/gpo/Database" "UPDATE episode SET is_new = 0" 2>/dev/null ||
            echo "$bench: could not mark gpo's episodes old on $storage"
    fi
done
if has_peer podget; then
    "${podget_run[@]}" >/dev/null 2>&1 || true
fi

# Round 2: nothing changed.
for ((run = 1; run <= runs; run++)); do
    for storage in "${storage_list[@]}"; do
        homes "$storage"
        measure "2-$storage" podcast "${run_podcast[@]}" update -q
        if has_peer gpo; then gpo_round 2 "$storage"; fi
    done
done
# podget takes minutes for what the others do in a second: once is enough.
if has_peer podget; then measure "2-$podget_storage" podget "${podget_run[@]}"; fi

# Round 3: $gaining feeds gain one episode.
make_feeds 3
for storage in "${storage_list[@]}"; do
    homes "$storage"
    measure "3-$storage" podcast "${run_podcast[@]}" update -q
    if has_peer gpo; then gpo_round 3 "$storage"; fi
done
if has_peer podget; then measure "3-$podget_storage" podget "${podget_run[@]}"; fi
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"

# What each downloaded in round 3 (the $gaining new episodes).
# podcast names files by title (`… #101.mp3`), gpo and podget by the enclosure's name (`f3-i101.mp3`).
new_files() { find "$1" \( -name "*-i$((items + 1)).mp3" -o -name "*#$((items + 1)).mp3" \) 2>/dev/null | wc -l; }
for storage in "${storage_list[@]}"; do
    root=$(root_of "$storage")
    line="round 3 new episodes on disk ($storage): podcast $(new_files "$root/podcast/Episodes")"
    if has_peer gpo; then line+=", gpo $(new_files "$root/gpo/dl")"; fi
    if has_peer podget && [ "$storage" = "$podget_storage" ]; then line+=", podget $(new_files "$podget_home/lib")"; fi
    echo "$line (of $gaining)"
done

labels=()
for round in 1 2 3; do
    for storage in "${storage_list[@]}"; do
        case $round in
        1) labels+=("1-$storage=1 all changed (200), $storage") ;;
        2) labels+=("2-$storage=2 unchanged (304), $storage") ;;
        3) labels+=("3-$storage=3 $gaining new episodes, $storage") ;;
        esac
    done
done
update_report "${labels[@]}"

echo
echo "targets"
for storage in "${storage_list[@]}"; do
    awk -v storage="$storage" -v target_s="$target_unchanged_s" -v target_ratio="$target_vs_gpo" -v target_mib="$target_rss_mib" -v feeds="$feeds" '
    { wall[$1 SUBSEP $2] = $3; mib[$1 SUBSEP $2] = $5 }
    END {
        p = "2-" storage SUBSEP "podcast"; g = "2-" storage SUBSEP "gpo"
        if (p in wall) {
            printf "%s: %d unchanged feeds in under %s s on %s (%.2f s)\n", (wall[p] < target_s ? "PASS" : "MISS"), feeds, target_s, storage, wall[p]
            if (g in wall) printf "%s: unchanged update at least %dx faster than gpo on %s (%.1fx)\n", (wall[g] >= target_ratio * wall[p] ? "PASS" : "MISS"), target_ratio, storage, wall[g] / wall[p]
        }
        worst = -1
        for (r = 1; r <= 3; r++) { key = r "-" storage SUBSEP "podcast"; if (key in mib && mib[key] > worst) worst = mib[key] }
        if (worst >= 0) printf "%s: podcast peak RSS under %d MiB in every round on %s (%.1f MiB)\n", (worst < target_mib ? "PASS" : "MISS"), target_mib, storage, worst
    }' "$work/best"
done
