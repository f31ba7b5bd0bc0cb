#!/usr/bin/env bash
# Bytes re-fetched after kill -9: `podcast download all` of 4 episodes of 16 MiB from a local
# nginx capped at 4 MiB/s per connection, killed with SIGKILL at random instants KILLS times
# (default 10), each time continued with `podcast resume`, then run to the end. The figure is
# what nginx sent (its access log's body bytes) minus the size of the files: bytes that crossed
# the network twice. Side by side: `curl -C -` and `aria2c -c` under the same kills, each file
# continued by the tool's own resume. Every run's files are compared byte for byte with the
# served ones; a tool whose result differs is marked CORRUPT. Target: podcast near zero.
#
# PODCAST_BIN overrides the binary (default .build/release/podcast); KILLS the number of kills;
# KILL_SEED the random seed (default 42), so a run can be repeated.
set -euo pipefail
cd "$(dirname "$0")/../.."

kills=${KILLS:-10}
seed=${KILL_SEED:-42}
files=4
mib=16
rate=4m
podcast=${PODCAST_BIN:-.build/release/podcast}
if [ ! -x "$podcast" ]; then
    echo "kill-resume: building $podcast"
    "${SWIFT:-swift}" build -c release --product podcast --static-swift-stdlib
fi
podcast=$(realpath "$podcast")
nginx=$(command -v nginx || echo /usr/sbin/nginx)
if [ ! -x "$nginx" ] || ! command -v curl >/dev/null || ! command -v aria2c >/dev/null; then
    scripts/setup.sh
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/podcast-bench-kill.XXXXXX")
nginx_pid=""
cleanup() {
    if [ -n "$nginx_pid" ]; then kill "$nginx_pid" 2>/dev/null || true; wait "$nginx_pid" 2>/dev/null || true; fi
    rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
chmod 0755 "$work"
mkdir -p "$work/www" "$work/nginx"
for i in $(seq 1 $files); do head -c $((mib * 1024 * 1024)) /dev/urandom >"$work/www/e$i.mp3"; done
chmod -R a+rX "$work/www"

port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
cat >"$work/nginx/nginx.conf" <<EOF
daemon off;
worker_processes 1;
pid $work/nginx/nginx.pid;
error_log $work/nginx/error.log warn;
events { worker_connections 256; }
http {
    log_format sent '\$body_bytes_sent';
    access_log $work/nginx/access.log sent;
    limit_rate $rate;
    sendfile on;
    sendfile_max_chunk 64k;
    types { audio/mpeg mp3; application/rss+xml xml; }
    client_body_temp_path $work/nginx/body;
    proxy_temp_path $work/nginx/proxy;
    server { listen 127.0.0.1:$port; root $work/www; }
}
EOF
"$nginx" -p "$work/nginx/" -c "$work/nginx/nginx.conf" -e "$work/nginx/error.log" &
nginx_pid=$!
for _ in $(seq 50); do curl -sf -o /dev/null -r 0-0 "http://127.0.0.1:$port/e1.mp3" && break; sleep 0.1; done

{
    echo '<?xml version="1.0"?><rss version="2.0"><channel><title>Kill</title>'
    for i in $(seq 1 $files); do
        echo "<item><title>Episode $i</title><guid>k$i</guid><pubDate>Mon, 0$i Jan 2024 10:00:00 GMT</pubDate>"
        echo "<enclosure url=\"http://127.0.0.1:$port/e$i.mp3\" type=\"audio/mpeg\" length=\"$((mib * 1024 * 1024))\"/></item>"
    done
    echo '</channel></rss>'
} >"$work/www/feed.xml"

RANDOM=$seed
# kill_later PID: SIGKILL after a random 0.3–2.3 s, unless it ended first.
kill_later() {
    local pause
    pause=$(awk -v r=$RANDOM 'BEGIN { printf "%.2f", 0.3 + (r % 2000) / 1000 }')
    sleep "$pause"
    kill -9 "$1" 2>/dev/null || true
}

sent() { awk '{ total += $1 } END { print total + 0 }' "$work/nginx/access.log"; }

# run_tool NAME DIR FIRST-COMMAND RESUME-COMMAND: the kills, then the resume command to the end;
# the files are checked in DIR.
run_tool() {
    local name=$1 dir=$2 first=$3 again=$4 round before after status
    : >"$work/nginx/access.log"
    kill -USR1 "$nginx_pid" 2>/dev/null || true
    before=$(sent)
    for round in $(seq 1 "$kills"); do
        local command=$again
        [ "$round" = 1 ] && command=$first
        bash -c "$command" >"$work/$name.log" 2>&1 &
        local pid=$!
        kill_later "$pid"
        wait "$pid" 2>/dev/null || true
    done
    status=0
    bash -c "$again" >"$work/$name.log" 2>&1 || status=$?
    after=$(sent)
    local verdict=OK
    for i in $(seq 1 $files); do
        # podcast names files "<date> <title>.mp3" in the podcast's folder; the others keep e<i>.mp3.
        local got=$dir/e$i.mp3
        [ "$name" = podcast ] && got="$dir/Kill/2024-01-0$i Episode $i.mp3"
        if ! cmp -s "$got" "$work/www/e$i.mp3"; then verdict=CORRUPT; fi
    done
    [ "$status" = 0 ] || verdict="FAILED($status)"
    local total=$((files * mib * 1024 * 1024)) served=$((after - before))
    last_refetched=$((served - total)) last_verdict=$verdict
    printf '%-8s %8s %14d %14d %8.2f%%\n' "$name" "$verdict" "$served" "$((served - total))" \
        "$(awk -v s=$((served - total)) -v t=$total 'BEGIN { print 100 * s / t }')"
}

echo "workload: $files x $mib MiB at $rate per connection, $kills kills at random instants (seed $seed), then run to the end"
printf '%-8s %8s %14s %14s %9s\n' tool result "bytes served" "re-fetched" "of files"

export PODCAST_HOME=$work/home
"$podcast" episodes "http://127.0.0.1:$port/feed.xml" >/dev/null 2>&1
run_tool podcast "$work/home/Episodes" "'$podcast' download all --concurrency 4" "'$podcast' resume --concurrency 4"
podcast_refetched=$last_refetched podcast_verdict=$last_verdict

mkdir -p "$work/curl"
urls=$(for i in $(seq 1 $files); do printf ' -o e%s.mp3 http://127.0.0.1:%s/e%s.mp3' "$i" "$port" "$i"; done)
run_tool curl "$work/curl" "cd '$work/curl' && curl -s --parallel --parallel-max 4 -C - $urls" \
    "cd '$work/curl' && curl -s --parallel --parallel-max 4 -C - $urls"

mkdir -p "$work/aria2"
for i in $(seq 1 $files); do echo "http://127.0.0.1:$port/e$i.mp3"; done >"$work/aria2.urls"
run_tool aria2c "$work/aria2" "aria2c -q -c -j 4 -x 1 -d '$work/aria2' -i '$work/aria2.urls'" \
    "aria2c -q -c -j 4 -x 1 -d '$work/aria2' -i '$work/aria2.urls'"

echo
echo "target"
# "Near zero": under 1% of the files; what remains is data in flight in socket buffers at the kill.
if [ "$podcast_verdict" = OK ] && [ "$podcast_refetched" -lt $((files * mib * 1024 * 1024 / 100)) ]; then
    echo "PASS: podcast re-fetched $podcast_refetched bytes after $kills kills -9 (under 1% of the files)"
else
    echo "MISS: podcast re-fetched $podcast_refetched bytes after $kills kills -9 ($podcast_verdict)"
fi
