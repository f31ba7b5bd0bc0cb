#!/usr/bin/env bash
# Installs the system packages podcast builds, tests and benchmarks with.
# Runs apt-get only for what is missing; uses sudo only when not root.
set -euo pipefail

# sqlite3 (the shell): tests that edit or break a store the way a foreign writer would.
# openssl: tests that make a certificate for an https server on 127.0.0.1.
# man-db (with groff-base): the test that renders man/podcast.1 with `man -l`.
# libtagc0-dev: TagLib's C API, which writes tags (--tag). ffmpeg: tests that make MP3, M4A and
# Opus files to tag and read back.
# dpkg-dev (dpkg-shlibdeps, with binutils for strip and objdump): `make deb` computes Depends and
# strips the binary. lintian: the test that checks the package `make deb` builds.
packages=(libcurl4-openssl-dev libssl-dev libxml2-dev libsqlite3-dev libtagc0-dev sqlite3 pkg-config nginx-light openssl curl time aria2 man-db ffmpeg dpkg-dev lintian)

missing=()
for package in "${packages[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
        missing+=("$package")
    fi
done

if [ ${#missing[@]} -eq 0 ]; then
    echo "setup: all system packages present (${packages[*]})"
    exit 0
fi

if ! command -v apt-get >/dev/null; then
    echo "setup: missing ${missing[*]}, and this system has no apt-get; install them with your package manager" >&2
    exit 1
fi

sudo=""
if [ "$(id -u)" -ne 0 ]; then
    sudo="sudo"
fi

echo "setup: installing ${missing[*]}"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
