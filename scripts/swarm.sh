#!/usr/bin/env bash
# A swarm of three private engines for tests (one manager, two workers), each made by engine.sh in
# a network namespace and a UTS namespace of its own (hostnames manager, worker1, worker2), joined
# by a bridge in a hub namespace, with no default route anywhere. Debian's docker-registry listens
# in the hub on the bridge's address; every daemon trusts it (--insecure-registry), and the test
# image is pushed there as <registry>/svc-test/busybox:latest so that every node can pull it.
#   swarm.sh start DIR [FLAVOUR]   prints TEST_SWARM_MANAGER, _WORKERS, _REGISTRY and _DIR assignments
#   swarm.sh stop DIR
#   swarm.sh node-stop DIR N       stops worker N's daemon (N = 1 or 2); node-start DIR N starts it again
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cmd=$1 dir=$2
# Every address lives in the swarm's own namespaces, so each swarm may use the same subnet.
subnet=10.215.0
registry=$subnet.1:5000
nodes=(m w1 w2)
declare -A hostnames=([m]=manager [w1]=worker1 [w2]=worker2) addresses=([m]=$subnet.10 [w1]=$subnet.11 [w2]=$subnet.12)

if [ "$cmd" = start ]; then
  flavour=${3:-debian12}
  mkdir -p "$dir"
  dir=$(cd "$dir" && pwd)
  echo "hs$$" >"$dir/tag"
  echo "$flavour" >"$dir/flavour"
fi
[ -f "$dir/tag" ] || exit 0 # nothing started there
tag=$(cat "$dir/tag") flavour=$(cat "$dir/flavour")
if [ "$flavour" = current ]; then
  current=$(bash "$here/current-engine.sh")
  export PATH="$current/usr/bin:$PATH"
fi
hub=${tag}hub

# engine.sh for node $1 with its hostname and the registry trusted.
engine() {
  ENGINE_HOSTNAME=${hostnames[$2]} ENGINE_ARGS="--insecure-registry $registry" \
    bash "$here/engine.sh" "$1" "$tag$2" "$dir/$2" "$flavour"
}
on() { DOCKER_HOST="unix://$dir/$1/docker.sock" "${@:2}"; }
# Waits for every background job, failing if one failed.
wait_all() { local pid ok=0; for pid in "$@"; do wait "$pid" || ok=1; done; return $ok; }

case "$cmd" in
start)
  ip netns add "$hub"
  ip -n "$hub" link set lo up
  ip -n "$hub" link add br0 type bridge
  ip -n "$hub" addr add "$subnet.1/24" dev br0
  ip -n "$hub" link set br0 up
  mkdir -p "$dir/registry"
  printf 'version: 0.1\nlog:\n  level: info\nstorage:\n  filesystem:\n    rootdirectory: %s/registry/data\nhttp:\n  addr: %s\n' \
    "$dir" "$registry" >"$dir/registry/config.yml"
  ip netns exec "$hub" docker-registry serve "$dir/registry/config.yml" >"$dir/registry/log" 2>&1 &
  echo $! >"$dir/registry/pid"
  pids=()
  for n in "${nodes[@]}"; do engine start "$n" >/dev/null & pids+=($!); done
  wait_all "${pids[@]}"
  for n in "${nodes[@]}"; do
    ip -n "$hub" link add "v$n" type veth peer name eth0 netns "$tag$n"
    ip -n "$hub" link set "v$n" master br0 up
    ip -n "$tag$n" addr add "${addresses[$n]}/24" dev eth0
    ip -n "$tag$n" link set eth0 up
  done
  for _ in $(seq 1 100); do grep -q "listening on" "$dir/registry/log" && break; sleep 0.1; done
  grep -q "listening on" "$dir/registry/log" || { cat "$dir/registry/log" >&2; exit 1; }
  on m docker tag svc-test/busybox:latest "$registry/svc-test/busybox:latest"
  on m docker push -q "$registry/svc-test/busybox:latest" >/dev/null &
  push=$!
  on m docker swarm init --advertise-addr "${addresses[m]}" >/dev/null
  token=$(on m docker swarm join-token -q worker)
  pids=($push)
  for n in w1 w2; do
    on "$n" docker swarm join --token "$token" --advertise-addr "${addresses[$n]}" "${addresses[m]}:2377" >/dev/null & pids+=($!)
  done
  wait_all "${pids[@]}"
  for _ in $(seq 1 150); do
    [ "$(on m docker node ls --format '{{.Status}}' | grep -c Ready)" = 3 ] && break
    sleep 0.2
  done
  [ "$(on m docker node ls --format '{{.Status}}' | grep -c Ready)" = 3 ] || { on m docker node ls >&2; exit 1; }
  echo "TEST_SWARM_MANAGER=unix://$dir/m/docker.sock"
  echo "TEST_SWARM_WORKERS=unix://$dir/w1/docker.sock,unix://$dir/w2/docker.sock"
  echo "TEST_SWARM_REGISTRY=$registry"
  echo "TEST_SWARM_DIR=$dir"
  ;;
stop)
  pids=()
  for n in "${nodes[@]}"; do bash "$here/engine.sh" stop "$tag$n" "$dir/$n" & pids+=($!); done
  wait_all "${pids[@]}" || true
  [ -f "$dir/registry/pid" ] && kill "$(cat "$dir/registry/pid")" 2>/dev/null || true
  ip netns del "$hub" 2>/dev/null || true
  rm -rf "$dir"
  ;;
node-stop)
  engine down "w$3"
  ;;
node-start)
  engine up "w$3"
  ;;
*)
  echo "usage: swarm.sh start DIR [FLAVOUR] | stop DIR | node-stop DIR N | node-start DIR N" >&2
  exit 2
  ;;
esac
