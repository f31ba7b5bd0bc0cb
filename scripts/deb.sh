#!/usr/bin/env bash
# Builds the Debian package of a podcast binary already built: .build/release/podcast (`make deb`
# builds it first), or the one PODCAST names. Writes $DEB_DIR/podcast_<version>_<arch>.deb
# (default .build/deb) and prints its path.
#
# Depends is computed on this machine: dpkg-shlibdeps for the libraries the binary links (libcurl,
# libcrypto, libxml2, SQLite…), and the packages of the ones it loads on first use with dlopen
# (TagLib's C API), which no tool sees: their sonames are read from the binary itself.
set -euo pipefail
cd "$(dirname "$0")/.."

podcast=${PODCAST:-.build/release/podcast}
out=${DEB_DIR:-.build/deb}
# Who the package names as its maintainer: DEBFULLNAME and DEBEMAIL, as dch reads them, else the
# address the project commits with.
maintainer="${DEBFULLNAME:-podcast maintainers} <${DEBEMAIL:-maintainers@users.noreply.a-seed-3efed6a4.example}>"

fail() {
    echo "deb: $*" >&2
    exit 1
}

[ -x "$podcast" ] || fail "no podcast binary at $podcast: run \`make build\`, or name one with PODCAST=path"
for tool in dpkg-deb dpkg-shlibdeps dpkg-architecture strip objdump strings gzip; do
    command -v "$tool" >/dev/null || fail "$tool is missing: run \`make setup\`"
done

# `podcast --version` says "podcast 0.1.0". The version has no Debian revision: the package is
# built from podcast's own source (a native package).
version=$("$podcast" --version)
version=${version#podcast }
[[ $version =~ ^[0-9][A-Za-z0-9.+~]*$ ]] || fail "\`$podcast --version\` gave no version a package can have: $version"
arch=$(dpkg --print-architecture)
multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
# The time of the last commit, for the changelog and the files' dates: the same source makes the
# same package (https://reproducible-builds.org/docs/source-date-epoch/).
export SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || date +%s)}

mkdir -p "$out"
# dpkg-shlibdeps wants debhelper's layout: debian/control, and the package's tree, with its DEBIAN/, in
# debian/<package>.
work=$(mktemp -d "$out/.build.XXXXXX")
trap 'rm -rf "$work"' EXIT
root=$work/debian/podcast

install -d "$root/DEBIAN"
install -D -m 0755 "$podcast" "$root/usr/bin/podcast"
# What dh_strip does to an executable: no symbols and no debugging information, half the size of
# a release build (18 MB of 38).
strip --remove-section=.comment --remove-section=.note --strip-unneeded "$root/usr/bin/podcast"

install -d "$root/usr/share/man/man1"
gzip -9n <man/podcast.1 >"$root/usr/share/man/man1/podcast.1.gz"

install -d "$root/usr/share/bash-completion/completions" "$root/usr/share/zsh/vendor-completions" \
    "$root/usr/share/fish/vendor_completions.d"
# Sourced, never run: no "#!/bin/bash" line (lintian: bash-completion-with-hashbang).
"$podcast" --generate-completion-script bash | sed "1{/^#!/d}" >"$root/usr/share/bash-completion/completions/podcast"
"$podcast" --generate-completion-script zsh >"$root/usr/share/zsh/vendor-completions/_podcast"
"$podcast" --generate-completion-script fish >"$root/usr/share/fish/vendor_completions.d/podcast.fish"

# The units in contrib/ run the podcast in ~/.local/bin; the package's runs /usr/bin/podcast.
install -d "$root/usr/lib/systemd/user"
for unit in contrib/systemd/podcast-update.service contrib/systemd/podcast-update.timer; do
    sed 's|^ExecStart=%h/.local/bin/podcast |ExecStart=/usr/bin/podcast |' "$unit" >"$root/usr/lib/systemd/user/${unit##*/}"
done
grep -q '^ExecStart=/usr/bin/podcast ' "$root/usr/lib/systemd/user/podcast-update.service" ||
    fail "contrib/systemd/podcast-update.service no longer starts %h/.local/bin/podcast: update the sed above"

install -d "$root/usr/share/doc/podcast"
install -m 0644 contrib/debian/copyright "$root/usr/share/doc/podcast/copyright"
# Policy wants a changelog in every package; a native package's is changelog.gz. What changed for
# users is in CHANGELOG.md, which this entry points to.
gzip -9n >"$root/usr/share/doc/podcast/changelog.gz" <<EOF
podcast ($version) unstable; urgency=medium

  * Built from podcast's source$(git rev-parse --short HEAD 2>/dev/null | sed 's/^/ at commit /').
    What changed is in the source's CHANGELOG.md.

 -- $maintainer  $(date -u -R -d "@$SOURCE_DATE_EPOCH")
EOF

# The libraries the binary links (its NEEDED entries), with versions from their symbols files.
printf 'Source: podcast\n\nPackage: podcast\nArchitecture: any\n' >"$work/debian/control"
linked=$(cd "$work" && dpkg-shlibdeps -O debian/podcast/usr/bin/podcast)
linked=${linked#shlibs:Depends=}
# libcurl's symbols say 7.83, but podcast needs 7.85 (CURLOPT_PROTOCOLS_STR): with less, every
# request would fail. The floor the symbols give is raised, never lowered.
linked=$(sed -E 's/libcurl4 \(>= 7\.8[0-4](\.[0-9]+)?\)/libcurl4 (>= 7.85.0)/' <<<"$linked")

# The libraries it loads with dlopen, by the sonames in the binary (libtag_c.so.0…) that it does
# not link (the linked ones' sonames are in the binary too, as its NEEDED entries). A library tried under two sonames (TagLib 1's libtag_c.so.0, else TagLib
# 2's libtag_c.so.2) is one dependency with alternatives: those installed here.
needed=$(objdump -p "$root/usr/bin/podcast" | awk '$1 == "NEEDED" { print $2 }')
declare -A alternatives=()
for soname in $(strings -a "$root/usr/bin/podcast" | grep -E '^lib[A-Za-z0-9_+-]+\.so\.[0-9]+$' | sort -u); do
    grep -qxF "$soname" <<<"$needed" && continue
    library=${soname%%.so.*}
    alternatives[$library]=${alternatives[$library]-}
    package=""
    for directory in "/usr/lib/$multiarch" "/lib/$multiarch"; do
        package=$(dpkg -S "$directory/$soname" 2>/dev/null | cut -d: -f1) && break
    done
    [ -n "$package" ] || continue
    # The package's shlibs line for this soname (`libtag_c 0 libtagc0 (>= 1.13)`) gives the
    # version to depend on, as dpkg-shlibdeps would for a linked library without a symbols file.
    dependency=$(dpkg-query --control-show "$package" shlibs 2>/dev/null |
        awk -v name="$library" -v major="${soname##*.so.}" '$1 == name && $2 == major { $1 = $2 = ""; sub(/^ +/, ""); print; exit }')
    alternatives[$library]+="${alternatives[$library]:+ | }${dependency:-$package}"
done
depends=$linked
for library in $(printf '%s\n' "${!alternatives[@]}" | sort); do
    [ -n "${alternatives[$library]}" ] ||
        fail "podcast loads $library with dlopen, and no installed package has it: run \`make setup\`"
    depends+=", ${alternatives[$library]}"
done
echo "deb: Depends: $depends" >&2

cat >"$root/DEBIAN/control" <<EOF
Package: podcast
Version: $version
Architecture: $arch
Maintainer: $maintainer
Installed-Size: $(du -sk --exclude=DEBIAN "$root" | cut -f1)
Depends: $depends
Section: sound
Priority: optional
Description: command-line podcast downloader
 podcast finds podcasts in the iTunes catalogue, lists a feed's episodes and
 downloads them concurrently, with resume that is checked against the server:
 an interrupted download continues where it stopped, or starts over and says
 why, and never leaves a corrupt file under a final name.
 .
 Subscriptions are kept up to date by "podcast update", which the systemd user
 timer runs twice a day once enabled:
 systemctl --user enable --now podcast-update.timer
EOF

# What dpkg --verify checks the installed files against.
(cd "$root" && find usr -type f -print0 | LC_ALL=C sort -z | xargs -0 md5sum) >"$root/DEBIAN/md5sums"
find "$root" -exec touch --no-dereference --date="@$SOURCE_DATE_EPOCH" {} +
deb="$out/podcast_${version}_${arch}.deb"
dpkg-deb --root-owner-group --build "$root" "$deb" >/dev/null
echo "$deb"
