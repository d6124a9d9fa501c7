#!/usr/bin/env bash
# An OpenSSH server for the git stacks' ssh test, from the system's Debian archive but never
# installed (installing it would start a host sshd): openssh-server and libwrap0 unpacked into
# .engines/sshd (git ignores it). tests/support/sshd.ts runs it on loopback in a mount namespace of
# its own. Idempotent; prints the folder.
set -euo pipefail
cd "$(dirname "$0")/.."
dest=$PWD/.engines/sshd
if [ -x "$dest/usr/sbin/sshd" ]; then echo "$dest"; exit 0; fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
chmod 755 "$work"
(cd "$work" && { apt-get download -qq openssh-server libwrap0 2>/dev/null || { apt-get update -qq && apt-get download -qq openssh-server libwrap0; }; } >&2)
rm -rf "$dest"
mkdir -p "$dest"
for deb in "$work"/*.deb; do dpkg -x "$deb" "$dest"; done
echo "$dest"
