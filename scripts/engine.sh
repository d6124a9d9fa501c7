#!/usr/bin/env bash
# A private Docker engine for tests, in a network namespace of its own so that it never meets the
# host's engine: engine.sh start NAME DIR [FLAVOUR] | engine.sh stop NAME DIR. Prints the DOCKER_HOST.
# FLAVOUR is "debian12" (the system's docker.io 20.10, the default) or "current": Debian 13's dockerd
# 26.1 from scripts/current-engine.sh, refusing API versions below 1.44 as Docker 29 does, with the
# containerd image store that Docker 29 uses on new installs.
# engine.sh down NAME DIR stops the daemon alone (namespace, data and containers' records kept);
# engine.sh up NAME DIR [FLAVOUR] starts it again there.
# ENGINE_HOSTNAME gives the daemon a UTS namespace with that hostname; ENGINE_ARGS are more dockerd flags.
set -euo pipefail
cmd=$1 name=$2 dir=$3 flavour=${4:-debian12}

# Starts dockerd in the namespace and waits until it answers.
daemon() {
  if [ "$flavour" = current ]; then
    current=$(bash "$(dirname "$0")/current-engine.sh")
    export PATH="$current/usr/bin:$current/usr/sbin:$PATH" DOCKER_MIN_API_VERSION=1.44
    echo '{"features":{"containerd-snapshotter":true}}' >"$dir/etc-docker/daemon.json"
  fi
  local uts=() host=""
  [ -n "${ENGINE_HOSTNAME:-}" ] && uts=(-u) host="hostname '$ENGINE_HOSTNAME' && "
  nsenter --net="/run/netns/$name" unshare -m "${uts[@]}" --propagation private sh -c \
    "${host}mount --bind '$dir/etc-docker' /etc/docker && exec dockerd --host 'unix://$dir/docker.sock' \
     --data-root '$dir/root' --exec-root '$dir/exec' --pidfile '$dir/docker.pid' --cgroup-parent '/$name' ${ENGINE_ARGS:-}" \
    >>"$dir/dockerd.log" 2>&1 &
  for _ in $(seq 1 100); do
    DOCKER_HOST="unix://$dir/docker.sock" docker version >/dev/null 2>&1 && break
    sleep 0.2
  done
  DOCKER_HOST="unix://$dir/docker.sock" docker version >/dev/null || { cat "$dir/dockerd.log" >&2; exit 1; }
}

# Stops the daemon: TERM, then KILL after 10 s.
stop_daemon() {
  [ -f "$dir/docker.pid" ] || return 0
  local pid
  pid=$(cat "$dir/docker.pid")
  kill "$pid" 2>/dev/null || true
  for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
  kill -9 "$pid" 2>/dev/null || true
}

case "$cmd" in
start)
  mkdir -p "$dir/etc-docker" "$dir/root" "$dir/exec"
  ip netns add "$name"
  ip -n "$name" link set lo up
  daemon
  # The test image: a busybox-static rootfs, since nothing can be pulled here.
  rootfs=$(mktemp -d)
  mkdir -p "$rootfs/bin" "$rootfs/tmp" "$rootfs/etc"
  cp /bin/busybox "$rootfs/bin/busybox"
  for applet in $(/bin/busybox --list); do [ "$applet" = busybox ] || ln -sf busybox "$rootfs/bin/$applet"; done
  echo 'root:x:0:0:root:/root:/bin/sh' >"$rootfs/etc/passwd"
  tar -C "$rootfs" -c . | DOCKER_HOST="unix://$dir/docker.sock" docker import -c 'ENV PATH=/bin' -c 'CMD ["sh"]' - svc-test/busybox:latest >/dev/null
  rm -rf "$rootfs"
  echo "unix://$dir/docker.sock"
  ;;
up)
  daemon
  ;;
down)
  stop_daemon
  ;;
stop)
  # Containers first: the engine leaves their processes (and PTYs) running when it is killed.
  DOCKER_HOST="unix://$dir/docker.sock" timeout 60 docker ps -aq 2>/dev/null |
    DOCKER_HOST="unix://$dir/docker.sock" xargs -r timeout 120 docker rm -f >/dev/null 2>&1 || true
  stop_daemon
  # Whatever still runs from this engine's folders (its containerd, shims of containers it left).
  pkill -9 -f -- "$dir/" 2>/dev/null || true
  ip netns del "$name" 2>/dev/null || true
  umount -R "$dir/root" 2>/dev/null || true
  rm -rf "$dir" 2>/dev/null || true
  ;;
esac
