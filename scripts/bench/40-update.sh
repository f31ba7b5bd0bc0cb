#!/usr/bin/env bash
# Subscriptions: `podcast update` against gPodder's `gpo update` (+ `gpo download`) and `podget`,
# on UPDATE_FEEDS (300) feeds of UPDATE_ITEMS (100) items, served by one nginx listening on the 8
# loopback addresses 127.0.0.1–127.0.0.8 (feed i on 127.0.0.(i mod 8 + 1)), with ETag and
# Last-Modified as nginx sends them. Titles and show notes mix German, French, Japanese, Arabic
# and emoji with HTML and entities, as real feeds do.
#
# Three rounds, each tool in its own home:
#   1. first update: every feed answers 200 (the files are touched first), and is parsed; podcast
#      sets its baselines (subscribed with --first 0, so nothing is downloaded), gpo its episodes.
#      podget is left out of this round (its first run downloads, see below).
#   2. nothing changed: podcast and gpo ask with their validators and get 304; podget, which has
#      no conditional GET, fetches and reads every feed again.
#   3. 30 feeds gained one small episode: each tool fetches the feeds and downloads the 30 new
#      episodes (gpo: `gpo update` then `gpo download`, timed together).
# Setup, untimed: podcast imports an OPML file; gpo imports the same file, and after round 1 its
# episodes are marked old in its database (what --first 0 does for podcast); podget's first run
# (`-r 1`: the newest item of each feed) downloads 300 episodes before round 2.
#
# Wall, CPU and peak RSS from /usr/bin/time, best of UPDATE_RUNS (3) for round 2 (it changes
# nothing, so it can be repeated; podget once, as it takes minutes); rounds 1 and 3 run once per tool. Targets (PASS/MISS, never
# failing the build): round 2 of 300 feeds under 1 s and at least 20x faster than gpo, peak RSS
# under 40 MiB in every round.
set -euo pipefail
cd "$(dirname "$0")/../.."

feeds=${UPDATE_FEEDS:-300}
items=${UPDATE_ITEMS:-100}
gaining=${UPDATE_GAINING:-30}
runs=${UPDATE_RUNS:-3}
target_unchanged_s=1
target_vs_gpo=20
target_rss_mib=40

if [ ! -x /usr/bin/time ] || { ! command -v nginx >/dev/null && [ ! -x /usr/sbin/nginx ]; }; then
    scripts/setup.sh
fi
nginx=$(command -v nginx || echo /usr/sbin/nginx)
# The peers come from Debian; without apt (or offline) their rows are skipped with the reason.
peers=()
for peer in gpodder:gpo podget:podget; do
    package=${peer%%:*} command=${peer##*:}
    if ! command -v "$command" >/dev/null && command -v apt-get >/dev/null; then
        sudo=""
        [ "$(id -u)" -ne 0 ] && sudo=sudo
        DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "$package" >/dev/null 2>&1 || true
    fi
    if command -v "$command" >/dev/null; then
        peers+=("$command")
    else
        echo "update: $package ($command) is not installed and could not be; skipping its rows"
    fi
done

podcast=${PODCAST_BIN:-.build/release/podcast}
if [ ! -x "$podcast" ]; then
    echo "update: building $podcast"
    "${SWIFT:-swift}" build -c release --product podcast --static-swift-stdlib
fi
podcast=$(realpath "$podcast")

work=$(mktemp -d "${TMPDIR:-/tmp}/podcast-bench-update.XXXXXX")
nginx_pid=""
cleanup() {
    if [ -n "$nginx_pid" ]; then
        kill "$nginx_pid" 2>/dev/null || true
        wait "$nginx_pid" 2>/dev/null || true
    fi
    rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
chmod 0755 "$work"
www=$work/www
mkdir -p "$www/feeds" "$www/media" "$work/nginx"

port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
address() { echo "127.0.0.$(($1 % 8 + 1))"; }

# make_feeds ROUND: writes every feed; in round 3 the first $gaining feeds have one item more.
make_feeds() {
    python3 - "$www" "$feeds" "$items" "$gaining" "$1" "$port" <<'EOF'
import sys, os, datetime
www, feeds, items, gaining, round_, port = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]), sys.argv[6]
titles = ["Nachrichten am Morgen: Wirtschaft &amp; Börse", "Le journal de 8 h — édition spéciale", "今日のニュース：東京と大阪",
          "نشرة الأخبار المسائية", "Science Friday 🔬 — «Quantum» cats", "Über Größen, Maße &amp; Gewichte"]
notes = ("<p>Heute: <b>Größere</b> Themen &amp; Gäste. Ça marche très bien&nbsp;! "
         "<a href=\"https://example.com/notes\">Shownotes</a> — 詳しくはウェブサイトで。</p>") * 3
start = datetime.datetime(2026, 1, 1, 6, 0, tzinfo=datetime.timezone.utc)
for f in range(feeds):
    host = f"127.0.0.{f % 8 + 1}:{port}"
    count = items + (1 if round_ == 3 and f < gaining else 0)
    out = [f'<?xml version="1.0" encoding="UTF-8"?>\n<rss version="2.0" xmlns:itunes="http://www.itunes.com/dtds/podcast-1.0.dtd" '
           f'xmlns:content="http://purl.org/rss/1.0/modules/content/"><channel><title>Show {f} — {titles[f % len(titles)]}</title>'
           f'<link>https://example.com/show/{f}</link><description>Ein Podcast über alles. Un podcast sur tout. 何でもポッドキャスト。</description>'
           f'<itunes:author>Redaktion {f} &amp; Équipe</itunes:author>']
    for i in range(count, 0, -1):
        date = (start + datetime.timedelta(days=i)).strftime("%a, %d %b %Y %H:%M:%S +0000")
        media = f"f{f}-i{i}.mp3"
        out.append(f'<item><title>{titles[(f + i) % len(titles)]} #{i}</title><guid isPermaLink="false">show-{f}-item-{i}</guid>'
                   f'<pubDate>{date}</pubDate><description><![CDATA[{notes}]]></description>'
                   f'<itunes:duration>{1800 + i}</itunes:duration>'
                   f'<enclosure url="http://{host}/media/{media}" length="4096" type="audio/mpeg"/></item>')
        # Only the episodes someone downloads exist: the newest of each feed, and round 3's new ones.
        if i == count:
            path = os.path.join(www, "media", media)
            if not os.path.exists(path):
                with open(path, "wb") as file:
                    file.write(os.urandom(4096))
    out.append("</channel></rss>\n")
    with open(os.path.join(www, "feeds", f"{f}.xml"), "w", encoding="utf-8") as file:
        file.write("".join(out))
EOF
}

make_feeds 1
chmod -R a+rX "$www"
{
    echo '<?xml version="1.0" encoding="UTF-8"?><opml version="2.0"><head><title>bench</title></head><body>'
    for ((f = 0; f < feeds; f++)); do
        echo "<outline type=\"rss\" text=\"Show $f\" xmlUrl=\"http://$(address $f):$port/feeds/$f.xml\"/>"
    done
    echo '</body></opml>'
} >"$work/subscriptions.opml"
awk -F'"' '/xmlUrl/ { print $6 " BENCH Show" NR }' "$work/subscriptions.opml" >"$work/podget-serverlist"

listens=""
for n in 1 2 3 4 5 6 7 8; do listens+="        listen 127.0.0.$n:$port;"$'\n'; done
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
"$nginx" -p "$work/nginx/" -c "$work/nginx/nginx.conf" -e "$work/nginx/error.log" &
nginx_pid=$!
for try in $(seq 50); do
    if curl -sf -o /dev/null "http://127.0.0.8:$port/feeds/7.xml"; then break; fi
    if [ "$try" = 50 ] || ! kill -0 "$nginx_pid" 2>/dev/null; then
        echo "update: nginx did not start on 127.0.0.1-8:$port:"
        tail -n 5 "$work/nginx/error.log" | sed 's/^/    /'
        exit 1
    fi
    sleep 0.1
done

: >"$work/results"
# measure ROUND TOOL COMMAND…: times COMMAND, records "ROUND TOOL OK wall user sys kib" (or FAILED).
measure() {
    local round=$1 tool=$2 status=0
    shift 2
    /usr/bin/time -f "%e %U %S %M" -o "$work/time" "$@" >"$work/$tool-$round.log" 2>&1 || status=$?
    if [ "$status" = 0 ]; then
        echo "$round $tool OK $(tail -n 1 "$work/time")" >>"$work/results"
    else
        echo "$round $tool FAILED exit $status" >>"$work/results"
        echo "update: $tool failed in round $round (exit $status); its log ends:"
        tail -n 3 "$work/$tool-$round.log" | sed 's/^/    /'
    fi
}
# measure_pair ROUND TOOL 'COMMAND1' 'COMMAND2': both, timed as one (gpo update + gpo download).
measure_pair() {
    local round=$1 tool=$2
    measure "$round" "$tool" bash -c "$3 && $4"
}

podcast_home=$work/podcast
gpo_home=$work/gpo
podget_home=$work/podget
mkdir -p "$podcast_home" "$gpo_home/dl" "$podget_home/lib"
# An empty configuration of its own: the bench ignores yours (a file PODCAST_CONFIG names must exist).
: >"$work/config.toml"
run_podcast=(env PODCAST_HOME="$podcast_home" PODCAST_CONFIG="$work/config.toml" "$podcast")
gpo_env=(env GPODDER_HOME="$gpo_home" GPODDER_DOWNLOAD_DIR="$gpo_home/dl")

# Setup (untimed).
if ! "${run_podcast[@]}" import "$work/subscriptions.opml" --first 0 >"$work/podcast-import.log" 2>&1; then
    echo "update: podcast import failed:"
    tail -n 3 "$work/podcast-import.log" | sed 's/^/    /'
    exit 1
fi
if [[ " ${peers[*]} " == *" gpo "* ]]; then
    "${gpo_env[@]}" gpo import "$work/subscriptions.opml" >"$work/gpo-import.log" 2>&1 || true
fi
if [[ " ${peers[*]} " == *" podget "* ]]; then
    podget -d "$podget_home/conf" -l "$podget_home/lib" -s >/dev/null 2>&1 || true
    cp "$work/podget-serverlist" "$podget_home/conf/serverlist"
fi
podget_run=(podget -d "$podget_home/conf" -l "$podget_home/lib" -r 1 -n -s)

echo "setup: $feeds feeds of $items items ($(du -sh "$www/feeds" | cut -f1) in all) on nginx $("$nginx" -v 2>&1 | sed 's|.*/||')," \
    "127.0.0.1-8:$port; tools: podcast $podcast, ${peers[*]:-no peers}"
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg) ($(nproc) cores)"

# Round 1: every feed changed (touched: new Last-Modified and ETag).
touch "$www"/feeds/*.xml
measure 1 podcast "${run_podcast[@]}" update -q
if [[ " ${peers[*]} " == *" gpo "* ]]; then
    measure 1 gpo "${gpo_env[@]}" gpo update
    # What --first 0 is for podcast: the back catalogue is not new.
    sqlite3 "$gpo_home/Database" "UPDATE episode SET is_new = 0" 2>/dev/null || echo "update: could not mark gpo's episodes old"
fi
if [[ " ${peers[*]} " == *" podget "* ]]; then
    "${podget_run[@]}" >/dev/null 2>&1 || true
fi

# Round 2: nothing changed.
for ((run = 1; run <= runs; run++)); do
    measure 2 podcast "${run_podcast[@]}" update -q
    if [[ " ${peers[*]} " == *" gpo "* ]]; then measure_pair 2 gpo "${gpo_env[*]} gpo update" "${gpo_env[*]} gpo download"; fi
done
# podget takes minutes for what the others do in a second: once is enough.
if [[ " ${peers[*]} " == *" podget "* ]]; then measure 2 podget "${podget_run[@]}"; fi

# Round 3: $gaining feeds gain one episode.
make_feeds 3
chmod -R a+rX "$www"
measure 3 podcast "${run_podcast[@]}" update -q
if [[ " ${peers[*]} " == *" gpo "* ]]; then measure_pair 3 gpo "${gpo_env[*]} gpo update" "${gpo_env[*]} gpo download"; fi
if [[ " ${peers[*]} " == *" podget "* ]]; then measure 3 podget "${podget_run[@]}"; fi
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"

# What each downloaded in round 3 (the $gaining new episodes).
# podcast names files by title (`… #101.mp3`), gpo and podget by the enclosure's name (`f3-i101.mp3`).
new_files() { find "$1" \( -name "*-i$((items + 1)).mp3" -o -name "*#$((items + 1)).mp3" \) 2>/dev/null | wc -l; }
echo "round 3 new episodes on disk: podcast $(new_files "$podcast_home/Episodes")" \
    "${peers[*]:+, gpo $(new_files "$gpo_home/dl"), podget $(new_files "$podget_home/lib")} (of $gaining)"

awk -v target_s="$target_unchanged_s" -v target_ratio="$target_vs_gpo" -v target_mib="$target_rss_mib" -v feeds="$feeds" -v gaining="$gaining" '
$3 == "OK" {
    key = $1 SUBSEP $2
    if (!(key in wall) || $4 < wall[key]) { wall[key] = $4; cpu[key] = $5 + $6 }
    if ($7 / 1024 > mib[key]) mib[key] = $7 / 1024
    if (!($2 in seen)) { seen[$2] = 1; tools[++n] = $2 }
}
$3 == "FAILED" { failed[$1 SUBSEP $2] = 1; if (!($2 in seen)) { seen[$2] = 1; tools[++n] = $2 } }
END {
    label[1] = "1 all changed (200)"; label[2] = "2 unchanged (304)"; label[3] = "3 " gaining " new episodes"
    printf "\n%-22s %-8s %7s %7s %13s %14s\n", "round", "tool", "wall s", "CPU s", "peak RSS MiB", "wall/podcast"
    for (r = 1; r <= 3; r++) for (t = 1; t <= n; t++) {
        key = r SUBSEP tools[t]; base = r SUBSEP "podcast"
        if (key in failed && !(key in wall)) { printf "%-22s %-8s FAILED\n", label[r], tools[t]; continue }
        if (!(key in wall)) continue
        ratio = (tools[t] == "podcast" || !(base in wall) || wall[base] == 0) ? "-" : sprintf("%.1fx", wall[key] / wall[base])
        printf "%-22s %-8s %7.2f %7.2f %13.1f %14s\n", label[r], tools[t], wall[key], cpu[key], mib[key], ratio
    }
    print "\ntargets"
    p = 2 SUBSEP "podcast"; g = 2 SUBSEP "gpo"
    if (p in wall) {
        printf "%s: %d unchanged feeds in under %s s (%.2f s)\n", (wall[p] < target_s ? "PASS" : "MISS"), feeds, target_s, wall[p]
        if (g in wall) printf "%s: unchanged update at least %dx faster than gpo (%.1fx)\n", (wall[g] >= target_ratio * wall[p] ? "PASS" : "MISS"), target_ratio, wall[g] / wall[p]
    }
    worst = 0
    for (r = 1; r <= 3; r++) if ((r SUBSEP "podcast") in mib && mib[r SUBSEP "podcast"] > worst) worst = mib[r SUBSEP "podcast"]
    printf "%s: podcast peak RSS under %d MiB in every round (%.1f MiB)\n", (worst < target_mib ? "PASS" : "MISS"), target_mib, worst
}' "$work/results"
