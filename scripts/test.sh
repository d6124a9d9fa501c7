#!/usr/bin/env bash
# The whole suite, unit and integration: installs what the tests need, starts two private Docker
# engines (each in its own network namespace), runs `bun test` (arguments are passed on), cleans up.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh test

run=$(mktemp -d /tmp/hm-test.XXXXXX)
tag=hm$$
cleanup() {
  bash scripts/engine.sh stop "${tag}a" "$run/a" || true
  bash scripts/engine.sh stop "${tag}b" "$run/b" || true
  rm -rf "$run"
}
trap cleanup EXIT
export TEST_DOCKER_HOST TEST_DOCKER_HOST_B
TEST_DOCKER_HOST=$(bash scripts/engine.sh start "${tag}a" "$run/a")
TEST_DOCKER_HOST_B=$(bash scripts/engine.sh start "${tag}b" "$run/b")
export TEST_IMAGE=svc-test/busybox:latest TEST_NETNS_A="${tag}a" TEST_NETNS_B="${tag}b"
bun test --timeout 120000 "$@"
