#!/usr/bin/env bash
# The "current" engine flavour for the tests, beside Debian 12's own: Debian 13's dockerd 26.1 and docker CLI,
# containerd 1.7 and the compose v2 plugin, fetched from the same Debian archive as the system's
# packages but never installed: each package is unpacked into .engines/current (git ignores it).
# Debian 13's runc needs a newer glibc than Debian 12's, so it is deleted and the host's runc serves.
# Idempotent; prints the folder. The engine is started by scripts/engine.sh with that folder.
set -euo pipefail
cd "$(dirname "$0")/.."
dest=$PWD/.engines/current
if [ -x "$dest/usr/bin/docker" ] && [ -x "$dest/cli-plugins/docker-compose" ]; then echo "$dest"; exit 0; fi

work=$PWD/.engines/apt
mirror=$(awk '/^URIs:/{print $2; exit}' /etc/apt/sources.list.d/debian.sources 2>/dev/null || true)
[ -n "$mirror" ] || mirror=$(awk '/^deb /{print $2; exit}' /etc/apt/sources.list 2>/dev/null || true)
[ -n "$mirror" ] || { echo "no Debian archive found in the system's apt sources" >&2; exit 1; }
rm -rf "$work" "$dest"
mkdir -p "$work/lists/partial" "$work/cache/archives/partial" "$dest"
echo "deb $mirror trixie main" >"$work/sources.list"
apt_opts=(-o "Dir::Etc::SourceList=$work/sources.list" -o Dir::Etc::SourceParts=/dev/null
  -o "Dir::State::Lists=$work/lists" -o "Dir::Cache=$work/cache" -o Debug::NoLocking=1)
apt-get "${apt_opts[@]}" update -qq >&2
(cd "$work" && apt-get "${apt_opts[@]}" download -qq docker.io docker-cli containerd docker-compose >&2)
for deb in "$work"/*.deb; do dpkg -x "$deb" "$dest"; done
# docker-init links to a package not fetched: the host's serves.
rm -f "$dest/usr/sbin/runc" "$dest/usr/bin/runc" "$dest/usr/bin/docker-init"
mkdir -p "$dest/cli-plugins"
ln -sf ../usr/libexec/docker/cli-plugins/docker-compose "$dest/cli-plugins/docker-compose"
rm -rf "$work"
echo "$dest"
