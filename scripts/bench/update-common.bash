# Shared by the update benchmarks (40-update.sh, 41-update-latency.sh), which source it from the
# repository's root; its name does not end in .sh, so scripts/bench.sh does not run it.
#
# The caller sets `bench` (the name its messages start with), `feeds`, `items` and `gaining`
# before sourcing, and `www`, `port` and `hosts` before make_feeds and write_opml. It gives:
#   update_find_peers PACKAGE:COMMAND…  installs what is missing from Debian when it can; `peers`
#                                       holds the commands there are, has_peer asks
#   update_podcast_bin                  `podcast`: PODCAST_BIN, else .build/release/podcast (built
#                                       when missing), as an absolute path
#   update_work PREFIX                  `work`: a new directory on tmpfs (`tmpfs_root`: /dev/shm,
#                                       else /tmp if it is tmpfs, else empty and `work` is in
#                                       $TMPDIR or /tmp); removed on exit, with every process in
#                                       `background_pids` ended and every directory in
#                                       `cleanup_dirs` removed, on Ctrl-C too
#   make_feeds ROUND, write_opml FILE   the served feeds (make-update-feeds.py) and the OPML file
#                                       that subscribes to them
#   measure KEY TOOL COMMAND…           one timed run: a line in $work/results, and what the
#                                       server answered during it (when `access_log` names its
#                                       log, in nginx's combined format) in $work/answers
#   update_report KEY=LABEL…            the table, in the order given; $work/best keeps each
#                                       row's figures ("KEY TOOL wall cpu mib") for targets

peers=()
has_peer() { [[ " ${peers[*]} " == *" $1 "* ]]; }

# The peers come from Debian; without apt (or offline) their rows are skipped with the reason.
# When an install fails, the package lists are updated once (a new machine may have none) and it
# is tried again.
update_find_peers() {
    local peer package command sudo="" updated=""
    if [ "$(id -u)" -ne 0 ]; then sudo=sudo; fi
    for peer in "$@"; do
        package=${peer%%:*} command=${peer##*:}
        if ! command -v "$command" >/dev/null && command -v apt-get >/dev/null; then
            if ! DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "$package" >/dev/null 2>&1 &&
                [ -z "$updated" ]; then
                updated=1
                $sudo apt-get update -qq >/dev/null 2>&1 || true
                DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "$package" >/dev/null 2>&1 || true
            fi
        fi
        if command -v "$command" >/dev/null; then
            peers+=("$command")
        else
            echo "$bench: $package ($command) is not installed and could not be; skipping its rows"
        fi
    done
}

update_podcast_bin() {
    podcast=${PODCAST_BIN:-.build/release/podcast}
    if [ ! -x "$podcast" ]; then
        echo "$bench: building $podcast"
        "${SWIFT:-swift}" build -c release --product podcast --static-swift-stdlib
    fi
    podcast=$(realpath "$podcast")
}

background_pids=()
cleanup_dirs=()
update_cleanup() {
    local pid
    for pid in "${background_pids[@]}"; do
        kill "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
    done
    if [ ${#cleanup_dirs[@]} -gt 0 ]; then rm -rf "${cleanup_dirs[@]}"; fi
}
update_work() {
    local candidate
    tmpfs_root=""
    for candidate in /dev/shm /tmp; do
        if [ -d "$candidate" ] && [ -w "$candidate" ] && [ "$(stat -f -c %T "$candidate")" = tmpfs ]; then
            tmpfs_root=$candidate
            break
        fi
    done
    work=$(mktemp -d "${tmpfs_root:-${TMPDIR:-/tmp}}/$1.XXXXXX")
    cleanup_dirs+=("$work")
    trap update_cleanup EXIT
    trap 'exit 130' INT TERM
    # A server's workers may run as another user (nobody when started by root): let them read.
    chmod 0755 "$work"
    : >"$work/results"
    : >"$work/answers"
}

make_feeds() {
    python3 scripts/bench/make-update-feeds.py "$www" "$feeds" "$items" "$gaining" "$1" "$port" "$hosts"
    chmod -R a+rX "$www"
}
address() { echo "127.0.0.$(($1 % hosts + 1))"; }
write_opml() {
    local f
    {
        echo '<?xml version="1.0" encoding="UTF-8"?><opml version="2.0"><head><title>bench</title></head><body>'
        for ((f = 0; f < feeds; f++)); do
            echo "<outline type=\"rss\" text=\"Show $f\" xmlUrl=\"http://$(address $f):$port/feeds/$f.xml\"/>"
        done
        echo '</body></opml>'
    } >"$1"
}

# measure KEY TOOL COMMAND…: times COMMAND, records "KEY TOOL OK wall user sys kib" (or FAILED).
# KEY names the round (no spaces). A sync first, untimed, so no run pays for another's writeback.
access_log=""
measure() {
    local key=$1 tool=$2 status=0 before=0
    shift 2
    sync
    if [ -n "$access_log" ]; then before=$(wc -l <"$access_log"); fi
    /usr/bin/time -f "%e %U %S %M" -o "$work/time" "$@" >"$work/$tool-$key.log" 2>&1 || status=$?
    if [ "$status" = 0 ]; then
        echo "$key $tool OK $(tail -n 1 "$work/time")" >>"$work/results"
    else
        echo "$key $tool FAILED exit $status" >>"$work/results"
        echo "$bench: $tool failed in round $key (exit $status); its log ends:"
        tail -n 3 "$work/$tool-$key.log" | sed 's/^/    /'
    fi
    if [ -n "$access_log" ]; then
        # "feeds 304:270 200:30; media 200:30": what the server answered, by kind and status.
        echo "$key $tool $(tail -n +"$((before + 1))" "$access_log" | awk -F'"' '
            { split($2, request, " "); split($3, answer, " ")
              kind = request[2] ~ /^\/feeds\// ? "feeds" : request[2] ~ /^\/media\// ? "media" : "other"
              if (request[1] != "GET") kind = request[1] " " kind
              if (!(kind in seen)) { seen[kind] = 1; kinds[++n] = kind }
              if (!((kind, answer[1]) in count)) codes[kind] = codes[kind] " " answer[1]
              count[kind, answer[1]]++ }
            END { if (!n) printf "none"
                  for (k = 1; k <= n; k++) { printf "%s%s", (k > 1 ? "; " : ""), kinds[k]
                      split(substr(codes[kinds[k]], 2), list, " ")
                      for (c = 1; c in list; c++) printf " %s:%d", list[c], count[kinds[k], list[c]] } }')" >>"$work/answers"
    fi
}

# update_report KEY=LABEL…: per round and tool the least wall (and that run's CPU) and the largest
# peak RSS; the ratio is the tool's wall divided by podcast's in the same round.
update_report() {
    local labels=""
    labels=$(printf '%s\n' "$@")
    awk -v labels="$labels" -v best="$work/best" '
    FILENAME ~ /answers$/ { key = $1 SUBSEP $2; $1 = $2 = ""; answers[key] = substr($0, 3); next }
    $3 == "OK" {
        key = $1 SUBSEP $2
        if (!(key in wall) || $4 < wall[key]) { wall[key] = $4; cpu[key] = $5 + $6 }
        if ($7 / 1024 > mib[key]) mib[key] = $7 / 1024
        if (!($2 in seen)) { seen[$2] = 1; tools[++n] = $2 }
        runs[key]++
    }
    $3 == "FAILED" { failed[$1 SUBSEP $2] = 1; if (!($2 in seen)) { seen[$2] = 1; tools[++n] = $2 } }
    END {
        rounds = split(labels, lines, "\n")
        width = 5
        for (r = 1; r <= rounds; r++) { i = index(lines[r], "="); if (length(lines[r]) - i > width) width = length(lines[r]) - i }
        printf "\n%-" width "s  %-8s %7s %7s %13s %13s  %s\n", "round", "tool", "wall s", "CPU s", "peak RSS MiB", "wall/podcast", "server answers"
        for (r = 1; r <= rounds; r++) {
            i = index(lines[r], "="); round = substr(lines[r], 1, i - 1); label = substr(lines[r], i + 1)
            for (t = 1; t <= n; t++) {
                key = round SUBSEP tools[t]; base = round SUBSEP "podcast"
                if (key in failed && !(key in wall)) { printf "%-" width "s  %-8s FAILED\n", label, tools[t]; continue }
                if (!(key in wall)) continue
                ratio = (tools[t] == "podcast" || !(base in wall) || wall[base] == 0) ? "-" : sprintf("%.1fx", wall[key] / wall[base])
                printf "%-" width "s  %-8s %7.2f %7.2f %13.1f %13s  %s\n", label, tools[t], wall[key], cpu[key], mib[key], ratio, answers[key]
                printf "%s %s %s %s %s %d\n", round, tools[t], wall[key], cpu[key], mib[key], runs[key] >best
            }
        }
    }' "$work/answers" "$work/results"
    touch "$work/best"
}
