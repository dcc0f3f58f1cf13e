#!/usr/bin/env bash
# Every test of the repository: lint, types, unit and integration suites (SQLite and PostgreSQL),
# then the browser journeys in Chromium. Ends with one summary line that
# sums every runner: `N passed, N failed`.
set -uo pipefail
cd "$(dirname "$0")/.."
out=.test-results
rm -rf "$out" && mkdir -p "$out"
failed_steps=()

run_step() {
  local name=$1; shift
  echo "::: $name"
  if ! "$@"; then failed_steps+=("$name"); fi
}

# Steps that run beside others: started with their output kept in $out/<name>.log, then waited for
# and printed whole, so two steps' lines never interleave.
declare -A step_pids=()
start_step() {
  local name=$1; shift
  "$@" >"$out/$name.log" 2>&1 &
  step_pids[$name]=$!
}
finish_step() {
  local name=$1
  echo "::: $name"
  if ! wait "${step_pids[$name]}"; then failed_steps+=("$name"); fi
  cat "$out/$name.log"
}

# Lint and types at once: each is mostly one single-threaded process, so together they fill the two
# cores CI has. The web build goes beside them: the browser journeys need it and nothing waits on it
# until then.
start_step lint npm run lint
start_step typecheck npm run typecheck
start_step build npm run build
finish_step lint
finish_step typecheck
finish_step build

pg_env=$(bash scripts/ensure-postgres.sh) || { echo "could not start PostgreSQL"; failed_steps+=(postgres); }
eval "$pg_env"
trap '[ -n "${UNIT_PG_DIR:-}" ] && bash scripts/ensure-postgres.sh stop "$UNIT_PG_DIR"' EXIT

# One test file per core (Vitest's own default leaves one core free: one file at a time on CI's two).
# Many files mostly wait (servers, devnets, PostgreSQL, the web app's real poll timers), so a second
# file at once overlaps one file's waits with another's work. VITEST_MAX_WORKERS=1 runs one at a time.
# With TEST_DATABASE_URL set, the run holds the guardian flow suite a second time, on PostgreSQL
# (the project server-flows-postgres, apps/server/vitest.flows-postgres.config.ts): its files fill
# the workers beside the others' rather than a phase of their own after them.
run_step vitest npx vitest run --maxWorkers=100% --reporter=default --reporter=json \
  --outputFile.json="$out/vitest.json"
# The dashboard's JS budget (at most 180 KB gzip) on this build: a size, the same on every machine.
# The timed figures are `npm run bench`'s, on a machine doing nothing else (README, Tests).
run_step bundle-budget npm run bench -w @unit/web
run_step e2e bash scripts/test-e2e.sh "$out/playwright.json"

node scripts/summarize.mjs "$out" "${failed_steps[@]}"
