#!/usr/bin/env bash
# `npm test`: the type check and the test suite side by side instead of one after the other. tsc
# (several minutes of one core at load) runs niced, so it takes the cycles vitest leaves idle
# (servers starting, browsers, waits) rather than slowing the tests. Fails if either fails; tsc's
# errors are printed after vitest's report. Arguments go to vitest (`npm test -- test/x.test.ts`).
set -uo pipefail
cd "$(dirname "$0")/../.."
tsc_log=$(mktemp)
trap 'rm -f "$tsc_log"' EXIT
nice -n 10 npx tsc --noEmit >"$tsc_log" 2>&1 &
# The servers, workers and CLIs the tests start run the bundle, as `npm start` does: built once
# here, so they never race to rebuild it.
node src/app-bundle/launch.mjs --build || exit 1
tsc_pid=$!
npx vitest run "$@"
vitest_rc=$?
wait "$tsc_pid"
tsc_rc=$?
if [ "$tsc_rc" != 0 ]; then
  echo "tsc --noEmit failed:" >&2
  cat "$tsc_log" >&2
fi
[ "$vitest_rc" = 0 ] && [ "$tsc_rc" = 0 ]
