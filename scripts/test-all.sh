#!/usr/bin/env bash
# Every test of the repository: lint, types, unit and integration suites (SQLite and PostgreSQL),
# the dashboard's bundle budget and the browser journeys in Chromium. Ends with one summary line
# that sums every runner: `N passed, N failed`.
#
# Most of the suites wait (devnet blocks, servers, guardian processes, the web app's timers) more
# than they compute, so the steps run at once rather than one after another: each step's output
# is kept in $out/<name>.log and printed whole when it ends, so two steps' lines never interleave.
# Each step's wall and CPU time (user + system, its child processes included) close its output
# and the run's, CPU time being the figure that stays the same however busy the machine is.
set -uo pipefail
cd "$(dirname "$0")/.."
out=.test-results
rm -rf "$out" && mkdir -p "$out"
failed_steps=()
declare -A step_pids=()

start_step() {
  local name=$1; shift
  # Bash's own `time` (wall, user and system seconds of the step and every process it waited for):
  # /usr/bin/time is a package a fresh Debian may not have.
  { TIMEFORMAT='%R %U %S'; time "$@" >"$out/$name.log" 2>&1; } 2>"$out/$name.time" &
  step_pids[$name]=$!
}
step_times() {
  local name=$1 wall user sys
  read -r wall user sys < <(tail -n 1 "$out/$name.time" 2>/dev/null) || true
  awk -v w="${wall:-0}" -v u="${user:-0}" -v s="${sys:-0}" \
    'BEGIN { printf "wall %.0f s, CPU %.0f s (user %.0f, sys %.0f)", w, u + s, u, s }'
}
finish_step() {
  local name=$1
  if ! wait "${step_pids[$name]}"; then failed_steps+=("$name"); fi
  echo "::: $name"
  cat "$out/$name.log"
  echo "::: $name: $(step_times "$name")"
}

pg_env=$(bash scripts/ensure-postgres.sh) || { echo "could not start PostgreSQL"; failed_steps+=(postgres); }
eval "$pg_env"
trap '[ -n "${UNIT_PG_DIR:-}" ] && bash scripts/ensure-postgres.sh stop "$UNIT_PG_DIR"' EXIT

# Lint, types and the web build are each mostly one single-threaded process; the Vitest suites
# start beside them. With TEST_DATABASE_URL set, the run holds the guardian flow suite a second
# time, on PostgreSQL (the project server-flows-postgres, apps/server/vitest.flows-postgres.config.ts).
start_step lint npm run lint
start_step typecheck npm run typecheck
start_step build npm run build
start_step vitest npx vitest run --maxWorkers="${VITEST_MAX_WORKERS:-2}" --reporter=default \
  --reporter=json --outputFile.json="$out/vitest.json"

# The browser journeys need the build; they start as soon as it is there, beside the rest.
wait "${step_pids[build]}"; build_status=$?
# The dashboard's JS budget (at most 180 KB gzip) on this build: a size, the same on every machine.
# The timed figures are `npm run bench`'s, on a machine doing nothing else (README, Tests).
if [ "$build_status" = 0 ]; then
  start_step bundle-budget npm run bench -w @unit/web
  # The journeys' screenshots are for a person to look at (npm run test:e2e keeps them); here a
  # failed journey keeps its own screenshot and trace, and the rest are not taken.
  E2E_SCREENSHOTS=0 start_step e2e bash scripts/test-e2e.sh "$out/playwright.json"
fi

finish_step lint
finish_step typecheck
echo "::: build"; cat "$out/build.log"; echo "::: build: $(step_times build)"
if [ "$build_status" != 0 ]; then
  failed_steps+=(build)
else
  finish_step bundle-budget
fi
finish_step vitest
[ "$build_status" = 0 ] && finish_step e2e

echo "::: time per step"
for name in lint typecheck build bundle-budget vitest e2e; do
  [ -f "$out/$name.time" ] && echo "$name: $(step_times "$name")"
done
node scripts/summarize.mjs "$out" "${failed_steps[@]}"
