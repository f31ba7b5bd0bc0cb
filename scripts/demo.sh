#!/usr/bin/env bash
# The offline demo: a local iTunes-like server on 127.0.0.1 serving a catalogue, a feed and
# generated audio, and podcast run against it the way a new user would. Needs no network.
set -euo pipefail
cd "$(dirname "$0")/.."

echo "demo: building (release)…"
# As `make build` builds it: the one release binary (`make deb` and its test package it) stays
# the one users install, not a second build with the Swift runtime loaded from the toolchain.
swift build -c release --product podcast --static-swift-stdlib >/dev/null
swift build -c release --product podcast-demo-server >/dev/null
bin=$(swift build -c release --show-bin-path)

work=$(mktemp -d "${TMPDIR:-/tmp}/podcast-demo.XXXXXX")
server_pid=""
cleanup() {
    # A background worker the demo started and left running (the demo was interrupted) goes too.
    local worker_pid
    worker_pid=$(cat "${PODCAST_HOME:-$work/home}/worker.pid" 2>/dev/null || true)
    if [ -n "$worker_pid" ] && tr '\0' ' ' <"/proc/$worker_pid/cmdline" 2>/dev/null | grep -q ' worker'; then
        kill "$worker_pid" 2>/dev/null || true
    fi
    [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null && wait "$server_pid" 2>/dev/null
    rm -rf "$work"
}
trap cleanup EXIT

"$bin/podcast-demo-server" --port-file "$work/port" >/dev/null &
server_pid=$!
for _ in $(seq 100); do
    [ -s "$work/port" ] && break
    kill -0 "$server_pid" 2>/dev/null || { echo "demo: the demo server did not start" >&2; exit 1; }
    sleep 0.05
done
[ -s "$work/port" ] || { echo "demo: the demo server did not report its port in 5 s" >&2; exit 1; }

# The demo server is local: never send its requests to a proxy from the environment.
export no_proxy="127.0.0.1,localhost${no_proxy:+,$no_proxy}"
export PODCAST_HOME="$work/home"
# An empty configuration of its own: the demo ignores yours (a file PODCAST_CONFIG names must exist).
: >"$work/config.toml"
export PODCAST_CONFIG="$work/config.toml"
export PODCAST_ITUNES_URL="http://127.0.0.1:$(cat "$work/port")"
echo "demo: server at $PODCAST_ITUNES_URL, state in $PODCAST_HOME"

step() {
    echo
    echo "\$ podcast $*"
    "$bin/podcast" "$@"
}

step search tones
step search --json --limit 1 tones
step episodes 1 --json --limit 1
step episodes 1
step download all
step download 1
echo
echo "\$ find \"\$PODCAST_HOME/Episodes\" -type f"
find "$PODCAST_HOME/Episodes" -type f -not -path '*/.partial/*' | sort
step search --media music --limit 3 sine
step download 1-2
# A background download: the command returns at once, a detached worker fetches the episode
# (slowed down here so there is something to watch), and status --watch follows it to the end.
step download 3 --background --limit-rate 100k \
    --on-complete 'echo "on-complete: batch $PODCAST_BATCH finished; summary in $PODCAST_SUMMARY"'
step status --watch
step status
echo
echo "\$ cat \"\$PODCAST_HOME/worker.log\""
for _ in $(seq 50); do grep -q '^on-complete:' "$PODCAST_HOME/worker.log" && break; sleep 0.1; done
cat "$PODCAST_HOME/worker.log"
# Subscriptions: the feed of search result 1 is subscribed (its newest episode already on disk),
# then update finds nothing new and says so; export writes the list as OPML.
step search tones --limit 1
step subscribe 1 --keep 5
step update
step subscriptions
step export
echo
echo "demo: done; the server is stopped and $work removed."
