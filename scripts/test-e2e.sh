#!/usr/bin/env bash
# Browser journeys: Debian's Chromium driven by Playwright against the real server and devnet,
# which the tests start themselves on a free loopback port with a fresh database.
set -euo pipefail
cd "$(dirname "$0")/.."
json=${1:-.test-results/playwright.json}
mkdir -p "$(dirname "$json")"
if ! ls e2e/tests/*.spec.ts >/dev/null 2>&1; then echo "no browser journeys yet"; echo '{"stats":{"expected":0,"unexpected":0,"flaky":0,"skipped":0}}' > "$json"; exit 0; fi
bash scripts/ensure-chromium.sh
[ -d apps/web/dist ] || npm run build
case $json in /*) ;; *) json="$(pwd)/$json" ;; esac
PLAYWRIGHT_JSON_OUTPUT_NAME="$json" npx playwright test -c e2e/playwright.config.ts --reporter=list,json
