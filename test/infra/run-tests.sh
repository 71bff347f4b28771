#!/usr/bin/env bash
# `npm test`: the type check, the dependency rules and the test suite side by side instead of one
# after the other. tsc (several minutes of one core at load) and dependency-cruiser (`npm run deps`,
# .dependency-cruiser.cjs) run niced, so they take the cycles vitest leaves idle (servers starting,
# browsers, waits) rather than slowing the tests. Fails if any fails; the type errors and the
# dependency report are printed after vitest's report. Arguments go to vitest (`npm test -- test/x.test.ts`).
set -uo pipefail
cd "$(dirname "$0")/../.."
tsc_log=$(mktemp)
deps_log=$(mktemp)
trap 'rm -f "$tsc_log" "$deps_log"' EXIT
nice -n 10 npx tsc --noEmit >"$tsc_log" 2>&1 &
tsc_pid=$!
nice -n 10 npm run --silent deps >"$deps_log" 2>&1 &
deps_pid=$!
# The servers, workers and CLIs the tests start run the bundle, as `npm start` does: built once
# here, so they never race to rebuild it.
node src/app-bundle/launch.mjs --build || exit 1
npx vitest run "$@"
vitest_rc=$?
wait "$tsc_pid"
tsc_rc=$?
wait "$deps_pid"
deps_rc=$?
if [ "$tsc_rc" != 0 ]; then
  echo "tsc --noEmit failed:" >&2
  cat "$tsc_log" >&2
fi
if [ "$deps_rc" != 0 ]; then
  echo "dependency rules (npm run deps) failed:" >&2
fi
cat "$deps_log" >&2
[ "$vitest_rc" = 0 ] && [ "$tsc_rc" = 0 ] && [ "$deps_rc" = 0 ]
