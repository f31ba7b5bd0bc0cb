#!/usr/bin/env bash
# Transfers: `podcast download` against `curl --parallel` and `aria2c`, fetching the same files
# from a local nginx, in two workloads: (A) 8 files of 64 MiB with 4 in flight, (B) 2,000 files
# of 64 KiB with 16 in flight.
#
# The comparison is set up so that concurrency is fair: podcast opens at most 2 connections to
# one host (CURLMOPT_MAX_HOST_CONNECTIONS), so nginx listens on 8 loopback ports (ports picked
# free at run time) and the files are spread over them round-robin; curl and aria2c get exactly
# the URLs the feed lists. The served files live in a temporary directory on tmpfs and are in the
# page cache; what changes between the two storages is where the tools write: tmpfs, or a
# directory under .build/bench-disk on the disk. Nothing is dropped from the page cache; `sync`
# runs before every run so no tool pays for the previous one's writeback.
#
# Every figure comes from /usr/bin/time: wall seconds, user+sys CPU seconds, peak RSS; the tools
# take turns, 3 times, and the table shows the least wall and CPU and the largest peak RSS.
# podcast's figure is `podcast download all` only; the `podcast episodes FEED` that creates the
# listing runs untimed before it (its time is printed as a note). Every run's output is compared
# byte for byte with the served files (`diff -rq`: names, count, bytes); a run that exits non-zero
# or writes wrong bytes is marked FAILED and not timed. Targets are printed as PASS/MISS and never
# fail the build (timings vary by machine and load).
#
# What the Episodes directory costs is measured in the same interleaved turns: on workload A,
# "podcast+tag" is the same binary with --tag (every file gets ID3v2 tags written by TagLib into a
# copy, which is then hashed); with PODCAST_BASE_BIN set, "base" is another podcast binary on
# both workloads (an earlier commit, to see what a change costs). A's files are MPEG
# audio frames with random payloads, so TagLib takes them for the MP3s they claim to be, and
# every file's bytes still differ; a tagged file is verified with its ID3 tags taken off.
# PODCAST_BASE_REF (a commit, e.g. c20dff6) makes that base when PODCAST_BASE_BIN is not set: the
# commit is checked out in a worktree of its own under .build-bench-base (git-ignored, and kept, so
# the next run's build is incremental) and built as `make bench` builds podcast; a base that does
# not build is left out, with one line saying so.
#
# On loopback at about 1 GB/s, with nginx on the same cores, workload A is bound by CPU, so every
# CPU second podcast spends (the digests, the tags) shows in its wall time. Users download over a
# network, where the CPU mostly waits: a fast home line is about 1 Gbit/s, most are far slower. So
# workload A@25M is A again (the same files, 4 in flight, the same tools and variants, verified the
# same way) with every connection served at 25 MiB/s (100 MiB/s in all, about 840 Mbit/s), by a
# second nginx server block on 8 more loopback ports with limit_rate, and sendfile_max_chunk 256k
# so that the rate is kept smoothly rather than in 2 MiB bursts. Its runs take about 5.5 s each,
# so there are fewer of them.
#
# PODCAST_BIN overrides the binary (default .build/release/podcast, which `make bench` builds).
# TRANSFER_RATED_RUNS (3) is how many times A@25M runs; TRANSFER_RATED=0 leaves it out.
# For quick trials only: TRANSFER_RUNS (3), TRANSFER_STORAGE (tmpfs, disk or both), TRANSFER_A_FILES,
# TRANSFER_A_KIB, TRANSFER_B_FILES, TRANSFER_B_KIB; the workload actually run is always printed.
set -euo pipefail
cd "$(dirname "$0")/../.."

a_files=${TRANSFER_A_FILES:-8}
a_kib=${TRANSFER_A_KIB:-65536}
a_jobs=4
b_files=${TRANSFER_B_FILES:-2000}
b_kib=${TRANSFER_B_KIB:-64}
b_jobs=16
ports_wanted=8
runs=${TRANSFER_RUNS:-3}
# The rated copy of A: a workload named X@RATE serves X's files (the directory is the name up to the @).
rated=${TRANSFER_RATED:-1}
rated_runs=${TRANSFER_RATED_RUNS:-3}
rated_mib=25
rated_workload=A@${rated_mib}M
storages=${TRANSFER_STORAGE:-both}
target_wall_vs_curl=1.1
target_rss_mib=30
# "Flat in file size": the 64 MiB files of A may cost at most this much more RSS than the
# 64 KiB files of B (whole files held in memory would cost 64 MiB each).
target_flat_mib=2
# Tags (podcast+tag) may cost at most this much of A@25M's wall time (at loopback the figure is a
# NOTE: the tagged copy of each file is most of such a run); a change against the base at most
# this much of any workload's.
target_cost_pct=5

if [ ! -x /usr/bin/time ] || ! command -v curl >/dev/null || ! command -v aria2c >/dev/null \
    || { ! command -v nginx >/dev/null && [ ! -x /usr/sbin/nginx ]; }; then
    scripts/setup.sh
fi
nginx=$(command -v nginx || echo /usr/sbin/nginx)

podcast=${PODCAST_BIN:-.build/release/podcast}
if [ ! -x "$podcast" ]; then
    echo "transfer: building $podcast"
    "${SWIFT:-swift}" build -c release --product podcast --static-swift-stdlib
fi
podcast=$(realpath "$podcast")

# base_from_ref REF: sets base_podcast (and base_commit) to REF built in its worktree under
# .build-bench-base, or says in one line why there is no base.
base_from_ref() {
    local ref=$1 commit dir log error
    if ! commit=$(git rev-parse --verify --quiet "$ref^{commit}"); then
        echo "transfer: PODCAST_BASE_REF $ref is not a commit of this repository; running without base"
        return
    fi
    dir=.build-bench-base/${ref//[^A-Za-z0-9._-]/_}
    if [ -e "$dir/.git" ]; then
        if [ "$(git -C "$dir" rev-parse HEAD 2>/dev/null)" != "$commit" ] \
            && ! error=$(git -C "$dir" checkout -q --detach "$commit" 2>&1); then
            echo "transfer: could not check out $ref in $dir ($(tail -n 1 <<<"$error")); running without base"
            return
        fi
    elif ! error=$(git worktree add -q --detach "$dir" "$commit" 2>&1); then
        echo "transfer: could not make a worktree of $ref in $dir ($(tail -n 1 <<<"$error")); running without base"
        return
    fi
    # Package.resolved is not committed: the base resolves its dependencies as this checkout did.
    if [ ! -e "$dir/Package.resolved" ] && [ -e Package.resolved ]; then cp Package.resolved "$dir/"; fi
    mkdir -p "$dir/.build"
    log=$dir/.build/bench-build.log
    echo "transfer: building base $(git rev-parse --short "$commit") in $dir (log: $log)"
    if ! (cd "$dir" && "${SWIFT:-swift}" build -c release --product podcast --static-swift-stdlib) >"$log" 2>&1 \
        || [ ! -x "$dir/.build/release/podcast" ]; then
        echo "transfer: the base $ref did not build (log: $log); running without base"
        return
    fi
    base_podcast=$(realpath "$dir/.build/release/podcast")
    base_commit=$(git rev-parse --short "$commit")
}
base_podcast=""
base_commit=""
if [ -n "${PODCAST_BASE_BIN:-}" ]; then
    base_podcast=$(realpath "$PODCAST_BASE_BIN")
elif [ -n "${PODCAST_BASE_REF:-}" ]; then
    base_from_ref "$PODCAST_BASE_REF"
fi

# tmpfs for the served files and the tmpfs runs: /dev/shm, else /tmp if it is tmpfs.
tmpfs_root=""
for candidate in /dev/shm /tmp; do
    if [ -d "$candidate" ] && [ -w "$candidate" ] && [ "$(stat -f -c %T "$candidate")" = tmpfs ]; then
        tmpfs_root=$candidate
        break
    fi
done
work=$(mktemp -d "${tmpfs_root:-${TMPDIR:-/tmp}}/podcast-bench-transfer.XXXXXX")
mkdir -p .build/bench-disk
disk=$(mktemp -d "$PWD/.build/bench-disk/run.XXXXXX")
nginx_pid=""
cleanup() {
    if [ -n "$nginx_pid" ]; then
        kill "$nginx_pid" 2>/dev/null || true
        wait "$nginx_pid" 2>/dev/null || true
    fi
    rm -rf "$work" "$disk"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# nginx's workers may run as another user (nobody when started by root): let them read.
chmod 0755 "$work"
src=$work/www
mkdir -p "$src/A" "$src/B" "$work/nginx"

# Incompressible, different bytes in every file: AES-CTR keystream when openssl is there (fast),
# else /dev/urandom.
random_bytes() {
    if command -v openssl >/dev/null; then
        # openssl dies of SIGPIPE when head has enough: that is its normal end here.
        { openssl enc -aes-128-ctr -nosalt -pbkdf2 -pass "pass:podcast-bench-$1" </dev/zero 2>/dev/null || true; } | head -c "$2"
    else
        head -c "$2" /dev/urandom
    fi
}
random_bytes A $((a_files * a_kib * 1024)) | (cd "$src/A" && split -b $((a_kib * 1024)) -a 4 -d --additional-suffix=.mp3 - f)
# Every 417 bytes an MPEG-1 Layer III frame header (128 kbit/s, 44.1 kHz, no padding: frames of
# 417 bytes), so the random bytes read as an MP3 to TagLib.
python3 -c '
import sys
for path in sys.argv[1:]:
    with open(path, "r+b") as f:
        data = bytearray(f.read())
        for offset, byte in enumerate(b"\xff\xfb\x90\x64"):
            data[offset::417] = bytes([byte]) * len(range(offset, len(data), 417))
        f.seek(0)
        f.write(data)
' "$src"/A/*.mp3
random_bytes B $((b_files * b_kib * 1024)) | (cd "$src/B" && split -b $((b_kib * 1024)) -a 4 -d --additional-suffix=.mp3 - f)
chmod -R a+rX "$src"
if [ "$(find "$src/A" -type f | wc -l)" != "$a_files" ] || [ "$(find "$src/B" -type f | wc -l)" != "$b_files" ]; then
    echo "transfer: could not generate the served files in $src"
    exit 1
fi

# Free loopback ports: bound to port 0 at once, so they differ, then released for nginx.
free_ports() {
    python3 -c '
import socket, sys
sockets = [socket.socket() for _ in range(int(sys.argv[1]))]
for s in sockets: s.bind(("127.0.0.1", 0))
print(" ".join(str(s.getsockname()[1]) for s in sockets))
' "$1"
}

start_nginx() {
    local conf=$work/nginx/nginx.conf port listens="" rated_server=""
    for port in "${ports[@]}"; do listens+="        listen 127.0.0.1:$port;"$'\n'; done
    if [ ${#rated_ports[@]} -gt 0 ]; then
        rated_server="    server {"$'\n'
        for port in "${rated_ports[@]}"; do rated_server+="        listen 127.0.0.1:$port;"$'\n'; done
        rated_server+="        root $src;"$'\n'"        limit_rate ${rated_mib}m;"$'\n'"        sendfile_max_chunk 256k;"$'\n'"    }"$'\n'
    fi
    cat >"$conf" <<EOF
daemon off;
worker_processes 1;
pid $work/nginx/nginx.pid;
error_log $work/nginx/error.log warn;
events { worker_connections 1024; }
http {
    access_log off;
    sendfile on;
    tcp_nopush on;
    gzip off;
    keepalive_requests 100000;
    types { audio/mpeg mp3; }
    default_type application/octet-stream;
    client_body_temp_path $work/nginx/body;
    proxy_temp_path $work/nginx/proxy;
    fastcgi_temp_path $work/nginx/fastcgi;
    uwsgi_temp_path $work/nginx/uwsgi;
    scgi_temp_path $work/nginx/scgi;
    server {
$listens        root $src;
    }
$rated_server}
EOF
    "$nginx" -p "$work/nginx/" -c "$conf" -e "$work/nginx/error.log" &
    nginx_pid=$!
    for _ in $(seq 50); do
        local ready=1
        for port in "${ports[@]}" "${rated_ports[@]}"; do
            curl -sf -o /dev/null -r 0-0 "http://127.0.0.1:$port/A/f0000.mp3" || { ready=0; break; }
        done
        [ "$ready" = 1 ] && return 0
        kill -0 "$nginx_pid" 2>/dev/null || break
        sleep 0.1
    done
    kill "$nginx_pid" 2>/dev/null || true
    wait "$nginx_pid" 2>/dev/null || true
    nginx_pid=""
    return 1
}

# A port picked free can be taken before nginx binds it: try again with new ports. The rated
# server block gets its own 8 ports, picked in the same go.
rated_ports=()
ports_picked=$ports_wanted
if [ "$rated" != 0 ]; then ports_picked=$((ports_wanted * 2)); fi
for attempt in 1 2 3; do
    read -r -a ports <<<"$(free_ports "$ports_picked")"
    rated_ports=("${ports[@]:ports_wanted}")
    ports=("${ports[@]:0:ports_wanted}")
    if start_nginx; then break; fi
    if [ "$attempt" = 3 ]; then
        echo "transfer: nginx did not start on 127.0.0.1:${ports[*]} ${rated_ports[*]}:"
        tail -n 5 "$work/nginx/error.log" | sed 's/^/    /'
        exit 1
    fi
done

# make_inputs WORKLOAD COUNT KIB PORT…: the workload's URLs (round-robin over the ports), and
# podcast's feed listing the same URLs.
make_inputs() {
    local workload=$1 count=$2 kib=$3 i name
    shift 3
    local on=("$@")
    : >"$work/$workload.urls"
    for ((i = 0; i < count; i++)); do
        printf -v name 'f%04d.mp3' "$i"
        echo "http://127.0.0.1:${on[i % ${#on[@]}]}/${workload%@*}/$name" >>"$work/$workload.urls"
    done
    awk -v bytes=$((kib * 1024)) -v workload="$workload" '
    BEGIN {
        print "<?xml version=\"1.0\" encoding=\"UTF-8\"?>"
        print "<rss version=\"2.0\"><channel><title>Bench " workload "</title><link>http://127.0.0.1/</link>"
        print "<description>Transfer benchmark</description>"
    }
    {
        n = split($0, parts, "/"); name = parts[n]; sub(/\.mp3$/, "", name)
        printf "<item><title>%s</title><guid isPermaLink=\"false\">%s-%s</guid>", name, workload, name
        printf "<enclosure url=\"%s\" length=\"%d\" type=\"audio/mpeg\"/></item>\n", $0, bytes
    }
    END { print "</channel></rss>" }' "$work/$workload.urls" >"$work/$workload.xml"
}
make_inputs A "$a_files" "$a_kib" "${ports[@]}"
make_inputs B "$b_files" "$b_kib" "${ports[@]}"
if [ "$rated" != 0 ]; then make_inputs "$rated_workload" "$a_files" "$a_kib" "${rated_ports[@]}"; fi

: >"$work/results"
: >"$work/notes"
: >"$work/listing-times"

# verify SERVED WRITTEN: empty when WRITTEN holds exactly SERVED's files with the same bytes,
# else why not.
verify() {
    local served=$1 written=$2 differences
    [ -d "$written" ] || { echo "no output directory"; return; }
    differences=$(diff -rq "$served" "$written" 2>&1 | wc -l) || true
    if [ "$differences" != 0 ]; then
        echo "$differences files missing, extra or with wrong bytes"
    fi
}

# verify_tagged SERVED WRITTEN: like verify, for files podcast tagged: each written file, its ID3v2
# tag (at the start) and ID3v1 tag (the last 128 bytes, "TAG…") taken off, is its served file.
verify_tagged() {
    local served=$1 written=$2
    [ -d "$written" ] || { echo "no output directory"; return; }
    python3 -c '
import os, sys
served, written = sys.argv[1], sys.argv[2]
names = sorted(os.listdir(served))
bad = 0
if sorted(n for n in os.listdir(written) if not n.startswith(".")) != names:
    bad += 1
for name in names:
    path = os.path.join(written, name)
    if not os.path.exists(path):
        continue
    data = open(path, "rb").read()
    start = 0
    if data[:3] == b"ID3":
        size = data[6] << 21 | data[7] << 14 | data[8] << 7 | data[9]
        start = 10 + size + (10 if data[5] & 0x10 else 0)
    end = len(data) - 128 if data[-128:-125] == b"TAG" else len(data)
    if data[start:end] != open(os.path.join(served, name), "rb").read() or start == 0:
        bad += 1
if bad:
    print("%d files missing, extra, untagged or with wrong audio bytes" % bad)
' "$served" "$written"
}

# measure STORAGE WORKLOAD TOOL OUT WRITTEN COMMAND…: times COMMAND once, verifies WRITTEN
# against the served files and records a line in $work/results.
measure() {
    local storage=$1 workload=$2 tool=$3 out=$4 written=$5
    shift 5
    local log=$work/$storage-$workload-$tool.log status=0 why start end sync_s
    sync -f "$(dirname "$out")" 2>/dev/null || sync
    /usr/bin/time -f "%e %U %S %M" -o "$work/time" "$@" >"$log" 2>&1 || status=$?
    start=$(date +%s%N)
    sync -f "$(dirname "$out")" 2>/dev/null || sync
    end=$(date +%s%N)
    sync_s=$(awk -v ns=$((end - start)) 'BEGIN { printf "%.2f", ns / 1e9 }')
    if [ "$tool" = podcast+tag ]; then why=$(verify_tagged "$src/${workload%@*}" "$written"); else why=$(verify "$src/${workload%@*}" "$written"); fi
    if [ "$status" != 0 ]; then why="exit $status${why:+; $why}"; fi
    if [ -n "$why" ]; then
        echo "$storage $workload $tool FAILED $why" >>"$work/results"
        echo "transfer: $tool failed on $workload ($storage): $why; its log ends:"
        tail -n 3 "$log" | sed 's/^/    /'
    else
        # time's last line is the format's (a failing command adds a line before it).
        echo "$storage $workload $tool OK $(tail -n 1 "$work/time") $sync_s" >>"$work/results"
    fi
    rm -rf "$out"
}

# run_workload STORAGE BASE WORKLOAD JOBS RUNS: the three tools in turn, RUNS times (interleaved,
# so a burst of other load on the machine does not hit one tool's every run).
run_workload() {
    local storage=$1 base=$2 workload=$3 jobs=$4 count=$5 out home start end run
    out=$base/out
    home=$base/home
    for ((run = 1; run <= count; run++)); do
        # podcast: the listing first (untimed), then the download.
        rm -rf "$home" "$out" && mkdir -p "$home"
        start=$(date +%s%N)
        if PODCAST_HOME=$home "$podcast" episodes "$work/$workload.xml" >"$work/episodes.log" 2>&1; then
            end=$(date +%s%N)
            echo "$workload $storage $((end - start))" >>"$work/listing-times"
            measure "$storage" "$workload" podcast "$out" "$out/Bench $workload" \
                env PODCAST_HOME="$home" "$podcast" download all --concurrency "$jobs" --episodes-dir "$out"
        else
            echo "$storage $workload podcast FAILED podcast episodes failed" >>"$work/results"
            tail -n 3 "$work/episodes.log" | sed 's/^/    /'
        fi
        rm -rf "$home"

        # What the Episodes directory costs: tags (workload A and its rated copy), and the digests
        # against the base.
        local variant binary options variants=()
        if [ "${workload%@*}" = A ]; then variants+=(podcast+tag); fi
        if [ -n "$base_podcast" ]; then variants+=(base); fi
        if [ ${#variants[@]} -gt 0 ]; then
            for variant in "${variants[@]}"; do
                binary=$podcast options=--tag
                if [ "$variant" = base ]; then binary=$base_podcast options=""; fi
                rm -rf "$home" "$out" && mkdir -p "$home"
                if PODCAST_HOME=$home "$binary" episodes "$work/$workload.xml" >"$work/episodes.log" 2>&1; then
                    # shellcheck disable=SC2086 # options is one word or none
                    measure "$storage" "$workload" "$variant" "$out" "$out/Bench $workload" \
                        env PODCAST_HOME="$home" "$binary" download all --concurrency "$jobs" --episodes-dir "$out" $options
                else
                    echo "$storage $workload $variant FAILED podcast episodes failed" >>"$work/results"
                fi
                rm -rf "$home"
            done
        fi

        # curl: one config file of url/output pairs.
        mkdir -p "$out"
        awk -v out="$out" '{ n = split($0, p, "/"); printf "url = \"%s\"\noutput = \"%s/%s\"\n", $0, out, p[n] }' \
            "$work/$workload.urls" >"$work/curl.config"
        measure "$storage" "$workload" curl "$out" "$out" \
            curl --parallel --parallel-max "$jobs" --no-progress-meter --fail -K "$work/curl.config"

        mkdir -p "$out"
        measure "$storage" "$workload" aria2c "$out" "$out" \
            aria2c -j "$jobs" -x 1 -i "$work/$workload.urls" --dir "$out" --allow-overwrite=true \
            --auto-file-renaming=false --file-allocation=none --console-log-level=warn --summary-interval=0
    done
}

echo "setup: podcast opens at most 2 connections per host, so to compare concurrency fairly nginx" \
    "$("$nginx" -v 2>&1 | sed 's|.*/||') listens on ${#ports[@]} loopback ports (127.0.0.1:$(IFS=,; echo "${ports[*]}"); 1 worker," \
    "sendfile, no gzip), the files are spread round-robin over them, and curl and aria2c get exactly" \
    "the URLs of podcast's feed; the served files are on $(df --output=fstype "$src" | tail -n 1) (in the page cache)"
if [ "$rated" != 0 ]; then
    echo "rated: $rated_workload is A as over a fast home line: a second server block on ${#rated_ports[@]} more loopback" \
        "ports (127.0.0.1:$(IFS=,; echo "${rated_ports[*]}")) serves A's files at $rated_mib MiB/s per connection (limit_rate ${rated_mib}m;" \
        "sendfile_max_chunk 256k, so the rate holds smoothly), $a_jobs in flight = $((rated_mib * a_jobs)) MiB/s, about" \
        "$(((rated_mib * a_jobs * 8 * 1048576 + 500000) / 1000000)) Mbit/s; there the tools mostly wait on the network, so the CPU they spend shows less in wall time"
fi
echo "tools: $(curl --version | head -n 1 | cut -d' ' -f1-2), $(aria2c --version | head -n 1), podcast $podcast${base_podcast:+, base $base_podcast}${base_commit:+ (commit $base_commit)}"
rated_desc="$rated_workload: $a_files x $((a_kib / 1024)) MiB, $a_jobs in flight, each connection at $rated_mib MiB/s"
rated_line=""
if [ "$rated" != 0 ]; then rated_line="$rated_workload = A with each connection at $rated_mib MiB/s; "; fi
echo "workloads: A = $a_files files x $((a_kib / 1024)) MiB, $a_jobs in flight; ${rated_line}B = $b_files files x $b_kib KiB, $b_jobs in flight"
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg) ($(nproc) cores)"

storage_list=()
case $storages in
both) storage_list=(tmpfs disk) ;;
tmpfs | disk) storage_list=("$storages") ;;
*) echo "transfer: TRANSFER_STORAGE is tmpfs, disk or both, not $storages"; exit 1 ;;
esac
for storage in "${storage_list[@]}"; do
    if [ "$storage" = tmpfs ]; then
        if [ -z "$tmpfs_root" ]; then
            echo "transfer: no tmpfs (/dev/shm, /tmp); skipping the tmpfs runs"
            continue
        fi
        base=$work/run
    else
        base=$disk
    fi
    mkdir -p "$base"
    echo "$storage: writing to $base ($(df --output=fstype "$base" | tail -n 1))" >>"$work/notes"
    run_workload "$storage" "$base" A "$a_jobs" "$runs"
    if [ "$rated" != 0 ]; then run_workload "$storage" "$base" "$rated_workload" "$a_jobs" "$rated_runs"; fi
    run_workload "$storage" "$base" B "$b_jobs" "$runs"
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
cat "$work/notes"
awk '!($1 SUBSEP $2 in best) || $3 < best[$1 SUBSEP $2] { if (!($1 SUBSEP $2 in best)) order[++n] = $1 SUBSEP $2; best[$1 SUBSEP $2] = $3 }
END { for (i = 1; i <= n; i++) { split(order[i], k, SUBSEP); printf "podcast episodes FEED (untimed, before each download) for %s on %s: %.2f s\n", k[1], k[2], best[order[i]] / 1e9 } }' \
    "$work/listing-times"
echo "(wall and CPU are the least of the runs, peak RSS the largest; ratios are the tool's figure"
echo " divided by podcast's; 'sync after' is the writeback the tool left behind, not in its wall time:"
echo " podcast fdatasyncs each file before renaming it, curl and aria2c do not)"

awk -v wall_vs_curl="$target_wall_vs_curl" -v rss_mib="$target_rss_mib" -v flat_mib="$target_flat_mib" -v cost_pct="$target_cost_pct" \
    -v a_desc="A: $a_files x $((a_kib / 1024)) MiB, $a_jobs in flight" \
    -v b_desc="B: $b_files x $b_kib KiB, $b_jobs in flight" \
    -v rated_workload="$rated_workload" -v rated_desc="$rated_desc" -v rated_runs="$rated_runs" \
    -v a_size="$((a_kib / 1024)) MiB" -v b_size="$b_kib KiB" -v runs="$runs" '
{
    key = $1 SUBSEP $2 SUBSEP $3
    if (!(($1 SUBSEP $2) in seen)) { seen[$1 SUBSEP $2] = 1; order[++groups] = $1 SUBSEP $2 }
    if (!(key in ok)) { tools[$1 SUBSEP $2] = tools[$1 SUBSEP $2] " " $3; ok[key] = 1 }
    if ($4 != "OK") {
        # One run with wrong bytes or a failure marks the tool FAILED: its times mean nothing.
        if (ok[key]) { ok[key] = 0; why[key] = $0; sub(/^[^ ]+ [^ ]+ [^ ]+ FAILED /, "", why[key]) }
        next
    }
    # Best of the runs: least wall, least CPU, least writeback; largest peak RSS.
    if (!(key in wall) || $5 < wall[key]) wall[key] = $5
    if (!(key in cpu) || $6 + $7 < cpu[key]) cpu[key] = $6 + $7
    if (!(key in synced) || $9 < synced[key]) synced[key] = $9
    if ($8 / 1024 > mib[key]) mib[key] = $8 / 1024
    runs_done[key]++
}
function verdict(pass) { return pass ? "PASS" : "MISS" }
END {
    for (g = 1; g <= groups; g++) {
        split(order[g], sw, SUBSEP)
        storage = sw[1]; workload = sw[2]
        desc = workload == "A" ? a_desc : workload == rated_workload ? rated_desc : b_desc
        printf "\n%s, on %s (best of %d runs)\n", desc, storage, (workload == rated_workload ? rated_runs : runs)
        printf "%-11s %8s %7s %13s %14s %13s %11s\n", "tool", "wall s", "CPU s", "peak RSS MiB", "wall/podcast", "CPU/podcast", "sync after"
        base = storage SUBSEP workload SUBSEP "podcast"
        n = split(tools[order[g]], names, " ")
        for (i = 1; i <= n; i++) {
            key = storage SUBSEP workload SUBSEP names[i]
            if (!ok[key]) { printf "%-11s FAILED: %s\n", names[i], why[key]; continue }
            wr = "-"; cr = "-"
            if (names[i] != "podcast" && ok[base] && wall[base] > 0 && cpu[base] > 0) {
                wr = sprintf("%.2fx", wall[key] / wall[base]); cr = sprintf("%.2fx", cpu[key] / cpu[base])
            }
            printf "%-11s %8.2f %7.2f %13.1f %14s %13s %10.2fs\n", names[i], wall[key], cpu[key], mib[key], wr, cr, synced[key]
        }
    }
    print "\ntargets"
    for (g = 1; g <= groups; g++) {
        split(order[g], sw, SUBSEP)
        storage = sw[1]; workload = sw[2]
        base = storage SUBSEP workload SUBSEP "podcast"
        curl = storage SUBSEP workload SUBSEP "curl"
        aria = storage SUBSEP workload SUBSEP "aria2c"
        label = workload " on " storage
        if (!ok[base]) { printf "MISS: %s: podcast FAILED\n", label; continue }
        if (ok[curl] && wall[curl] > 0) {
            r = wall[base] / wall[curl]
            printf "%s: %s: podcast wall at most %.1fx curl (is %.2fx: %.2f s vs %.2f s)\n", verdict(r <= wall_vs_curl), label, wall_vs_curl, r, wall[base], wall[curl]
        } else printf "SKIP: %s: podcast wall at most %.1fx curl (curl did not succeed)\n", label, wall_vs_curl
        if (ok[aria]) {
            printf "%s: %s: podcast faster than aria2c (%.2f s vs %.2f s)\n", verdict(wall[base] < wall[aria]), label, wall[base], wall[aria]
        } else printf "SKIP: %s: podcast faster than aria2c (aria2c did not succeed)\n", label
        printf "%s: %s: podcast peak RSS at most %d MiB (is %.1f MiB)\n", verdict(mib[base] <= rss_mib), label, rss_mib, mib[base]
        tagged = storage SUBSEP workload SUBSEP "podcast+tag"
        if (ok[tagged] && wall[base] > 0) {
            # Tags are written into a copy of each file: at loopback that copy is most of the run,
            # so only a workload at a home line rate (named X@RATE) is held to the target.
            tag_verdict = workload ~ /@/ ? verdict(wall[tagged] <= wall[base] * (1 + cost_pct / 100)) : "NOTE"
            printf "%s: %s: --tag costs at most %d%% (wall %+.1f%%: %.2f s vs %.2f s; CPU %+.1f%%)\n", tag_verdict, label, cost_pct, (wall[tagged] / wall[base] - 1) * 100, wall[tagged], wall[base], (cpu[tagged] / cpu[base] - 1) * 100
        }
        earlier = storage SUBSEP workload SUBSEP "base"
        if (ok[earlier] && wall[earlier] > 0) {
            printf "%s: %s: podcast costs at most %d%% more than base (wall %+.1f%%: %.2f s vs %.2f s; CPU %+.1f%%)\n", verdict(wall[base] <= wall[earlier] * (1 + cost_pct / 100)), label, cost_pct, (wall[base] / wall[earlier] - 1) * 100, wall[base], wall[earlier], (cpu[base] / cpu[earlier] - 1) * 100
        }
    }
    for (g = 1; g <= groups; g++) {
        split(order[g], sw, SUBSEP)
        storage = sw[1]
        if (done[storage]++) continue
        a = storage SUBSEP "A" SUBSEP "podcast"; b = storage SUBSEP "B" SUBSEP "podcast"
        if (ok[a] && ok[b]) {
            d = mib[a] - mib[b]
            printf "%s: %s: podcast peak RSS flat in file size: A (%s files) at most %d MiB above B (%s files) (is %+.1f MiB)\n", verdict(d <= flat_mib), storage, a_size, flat_mib, b_size, d
        } else printf "SKIP: %s: podcast peak RSS flat in file size (a podcast run failed)\n", storage
    }
}' "$work/results"
