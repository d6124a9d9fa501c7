#!/bin/sh
# A stand-in for `trivy` or `grype` (by the name it is called under) for tests: refuses arguments the
# real scanner would not get, records its arguments and DOCKER_HOST in $STAND_IN_ARGS, then prints
# the recorded report $STAND_IN_REPORT. $STAND_IN_SLEEP delays it, $STAND_IN_FAIL makes it fail.
name=$(basename "$0")
[ -n "$STAND_IN_ARGS" ] && printf '%s %s DOCKER_HOST=%s\n' "$name" "$*" "$DOCKER_HOST" >> "$STAND_IN_ARGS"
case "$name $*" in
  "trivy image --format json "*) ;;
  "grype -o json docker:"*) ;;
  *) echo "$name: unexpected arguments: $*" >&2; exit 2 ;;
esac
[ -n "$STAND_IN_SLEEP" ] && sleep "$STAND_IN_SLEEP"
[ -n "$STAND_IN_FAIL" ] && { echo "$STAND_IN_FAIL" >&2; exit 1; }
exec cat "$STAND_IN_REPORT"
