#!/usr/bin/env bash
# The whole suite: installs what the tests need, checks the types, runs the unit and handler tests
# once, then the integration and UI tests against each engine flavour in turn, each time on two
# private Docker engines in network namespaces of their own:
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
stop_engines() {
  bash scripts/swarm.sh stop "$run/swarm" &
  local swarm=$!
  bash scripts/engine.sh stop "${tag}a" "$run/a" || true
  bash scripts/engine.sh stop "${tag}b" "$run/b" || true
  wait "$swarm" || true
}
trap 'stop_engines; rm -rf "$run"' EXIT

passed=0 failed=0 status=0
# Runs bun test, keeps its exit status, and adds its counts to the totals.
suite() {
  local log="$run/bun.log"
  bun test --timeout 120000 "$@" 2>&1 | tee "$log" || status=1
  passed=$((passed + $(awk '/^ *[0-9]+ pass$/ {n=$1} END {print n+0}' "$log")))
  failed=$((failed + $(awk '/^ *[0-9]+ fail$/ {n=$1} END {print n+0}' "$log")))
}

# The type check, first: its failure fails the run and counts as one failed test.
echo "== type check (tsc --noEmit) =="
if bunx tsc --noEmit; then passed=$((passed + 1)); else failed=$((failed + 1)) status=1; fi

[ $# -eq 0 ] && suite tests/lib tests/handlers

for flavour in $flavours; do
  echo "== integration and UI tests on the $flavour engine =="
  echo "$passed $failed 1" >"$run/counts" # what stands if the engines cannot start
  (
    if [ "$flavour" = current ]; then
      export PATH="$current/usr/bin:$PATH" DOCKER_CONFIG="$current" TEST_COMPOSE=v2
    else
      export TEST_COMPOSE=v1
    fi
    # TEST_RUN_DIR: what the tests build once per run goes there, removed with the run
    export TEST_FLAVOUR=$flavour TEST_IMAGE=svc-test/busybox:latest TEST_NETNS_A="${tag}a" TEST_NETNS_B="${tag}b" TEST_RUN_DIR="$run"
    export TEST_DOCKER_HOST TEST_DOCKER_HOST_B TEST_SWARM_MANAGER TEST_SWARM_WORKERS TEST_SWARM_REGISTRY TEST_SWARM_DIR
    bash scripts/swarm.sh start "$run/swarm" "$flavour" >"$run/swarm.env" &
    swarm=$!
    TEST_DOCKER_HOST=$(bash scripts/engine.sh start "${tag}a" "$run/a" "$flavour")
    TEST_DOCKER_HOST_B=$(bash scripts/engine.sh start "${tag}b" "$run/b" "$flavour")
    wait "$swarm"
    . "$run/swarm.env"
    if [ $# -gt 0 ]; then
      suite "$@"
    elif [ "$flavour" = "${flavours%% *}" ]; then
      suite tests/integration tests/ui
    else
      # Speech touches no engine: its integration tests run with the first flavour only.
      suite $(ls tests/integration/*.test.ts | grep -v '/tts.test.ts$') tests/ui
    fi
    echo "$passed $failed $status" >"$run/counts"
  ) || true
  read -r passed failed status <"$run/counts"
  stop_engines
done
echo "tests: $passed passed, $failed failed"
exit $status
