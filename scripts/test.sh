#!/usr/bin/env bash
# The whole suite: installs what the tests need, checks the types, runs the unit and handler tests
# once, and the integration and UI tests against each engine flavour, side by side, each flavour on
# two private Docker engines in network namespaces of their own:
#   debian12  Debian 12's docker.io 20.10 (API 1.41) with docker-compose 1.29 (v1)
#   current   Debian 13's dockerd 26.1 (API 1.45) refusing API versions below 1.44 as Docker 29
#             does, with the containerd image store and the compose v2 plugin
# Each flavour also gets a swarm of three engines (scripts/swarm.sh; TEST_SWARM_* in the environment).
# TEST_FLAVOURS="debian12" (or "current") runs one flavour only. Arguments are test files or
# folders for `bun test`: they run once per flavour instead of the whole suite.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh test
current=$(bash scripts/current-engine.sh)
flavours=${TEST_FLAVOURS:-debian12 current}

run=$(mktemp -d /tmp/hm-test.XXXXXX)
tag=hm$$
# Each flavour's engines: a and b, and its swarm, under $run/<flavour>.
stop_engines() {
  local f=$1 dir=$run/$1
  bash scripts/swarm.sh stop "$dir/swarm" &
  local swarm=$!
  bash scripts/engine.sh stop "$tag${f:0:1}a" "$dir/a" || true
  bash scripts/engine.sh stop "$tag${f:0:1}b" "$dir/b" || true
  wait "$swarm" || true
}
trap 'for f in $flavours; do stop_engines "$f"; done; rm -rf "$run"' EXIT

# Runs bun test into $1/bun.log, its lines shown as they come with the prefix [$2], and writes
# "passed failed status" to $1/counts.
suite() {
  local dir=$1 name=$2 status=0
  shift 2
  bun test --timeout 120000 "$@" 2>&1 | tee "$dir/bun.log" | sed -u "s/^/[$name] /" || status=1
  echo "$(awk '/^ *[0-9]+ pass$/ {n=$1} END {print n+0}' "$dir/bun.log") $(awk '/^ *[0-9]+ fail$/ {n=$1} END {print n+0}' "$dir/bun.log") $status" >"$dir/counts"
}

# The integration, crash and UI tests on one flavour's engines (the arguments, when given, instead).
flavour_suite() {
  local flavour=$1 dir=$run/$1 short=$tag${1:0:1}
  shift
  mkdir -p "$dir"
  echo "0 0 1" >"$dir/counts" # what stands if the engines cannot start
  (
    if [ "$flavour" = current ]; then
      export PATH="$current/usr/bin:$PATH" DOCKER_CONFIG="$current" TEST_COMPOSE=v2
    else
      export TEST_COMPOSE=v1
    fi
    # TEST_RUN_DIR: what the tests build once per run goes there, removed with the run
    export TEST_FLAVOUR=$flavour TEST_IMAGE=svc-test/busybox:latest TEST_NETNS_A="${short}a" TEST_NETNS_B="${short}b" TEST_RUN_DIR="$dir"
    export TEST_DOCKER_HOST TEST_DOCKER_HOST_B TEST_SWARM_MANAGER TEST_SWARM_WORKERS TEST_SWARM_REGISTRY TEST_SWARM_DIR
    bash scripts/swarm.sh start "$dir/swarm" "$flavour" >"$dir/swarm.env" &
    swarm=$!
    TEST_DOCKER_HOST=$(bash scripts/engine.sh start "${short}a" "$dir/a" "$flavour")
    TEST_DOCKER_HOST_B=$(bash scripts/engine.sh start "${short}b" "$dir/b" "$flavour")
    wait "$swarm"
    . "$dir/swarm.env"
    if [ $# -gt 0 ]; then
      suite "$dir" "$flavour" "$@"
    elif [ "$flavour" = "${flavours%% *}" ]; then
      suite "$dir" "$flavour" tests/integration tests/crash tests/ui
    else
      # Speech touches no engine: its integration tests run with the first flavour only.
      suite "$dir" "$flavour" $(ls tests/integration/*.test.ts | grep -v '/tts.test.ts$') tests/crash tests/ui
    fi
  ) || true
  stop_engines "$flavour"
}

# The type check and the formatter, first: a failure of either fails the run and counts as one failed test.
echo "== type check (tsc --noEmit) and format (biome format, biome.json) =="
typecheck=0
bunx tsc --noEmit || typecheck=1
bunx biome format . >/dev/null 2>&1 || { bunx biome format . 2>&1 | head -40; echo "unformatted code: run bunx biome format --write ."; typecheck=1; }

# The unit and handler tests and each flavour's integration and UI tests run side by side: they
# share nothing (each flavour has engines, namespaces and a run folder of its own), and most of an
# integration test's time is spent waiting on its engines.
echo "== unit and handler tests, and integration and UI tests on: $flavours =="
jobs=()
if [ $# -eq 0 ]; then
  mkdir -p "$run/unit"
  suite "$run/unit" unit tests/lib tests/handlers &
  jobs+=($!)
fi
for flavour in $flavours; do
  flavour_suite "$flavour" "$@" &
  jobs+=($!)
done
wait "${jobs[@]}" || true

passed=$((1 - typecheck)) failed=$typecheck status=$typecheck
for counts in "$run"/*/counts; do
  read -r p f s <"$counts"
  echo "${counts%/counts}: $p passed, $f failed" | sed "s|$run/||"
  passed=$((passed + p)) failed=$((failed + f))
  [ "$s" = 0 ] || status=1
done
echo "tests: $passed passed, $failed failed"
exit $status
