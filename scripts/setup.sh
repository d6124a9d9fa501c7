#!/usr/bin/env bash
# Installs what the service (and, with "test", the test suite) needs on Debian. Idempotent.
set -euo pipefail
cd "$(dirname "$0")/.."

runtime=(docker.io docker-compose git openssh-client espeak-ng libespeak-ng1 flite libflite1 restic rclone)
testing=(busybox-static python3-aiosmtpd openssl docker-registry chromium caddy lame ffmpeg nginx-light prometheus iproute2 util-linux procps curl pocketsphinx pocketsphinx-en-us strace e2fsprogs)
packages=("${runtime[@]}")
[ "${1:-}" = test ] && packages+=("${testing[@]}")

missing=()
for p in "${packages[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing: ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# Swarm stacks need a docker CLI with `stack config` (Debian 12's 20.10 has none): Debian 13's, from
# the files scripts/current-engine.sh unpacks, in a folder of the service's own (lib/stacks/stack-cli.ts).
stack_cli=/usr/local/lib/harbormaster/docker
[ -x "$stack_cli/docker" ] || install -D -m 0755 "$(bash scripts/current-engine.sh)/usr/bin/docker" "$stack_cli/docker"

command -v bun >/dev/null 2>&1 || npm install -g bun >/dev/null
bun install --frozen-lockfile >/dev/null
bun scripts/routes.ts
bun scripts/ui.ts
