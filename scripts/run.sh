#!/usr/bin/env bash
# Installs what is needed and starts the service. Starts the host's Docker engine first when it
# is installed but not running (a machine without systemd).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
if [ -z "${DOCKER_HOST:-}" ] && [ ! -S /var/run/docker.sock ] && [ "$(id -u)" = 0 ]; then
  echo "starting dockerd (log: /var/log/dockerd.log)"
  nohup dockerd >/var/log/dockerd.log 2>&1 &
  for _ in $(seq 1 50); do [ -S /var/run/docker.sock ] && break; sleep 0.2; done
fi
exec bun run start
