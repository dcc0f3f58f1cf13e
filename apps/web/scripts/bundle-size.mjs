// Measures the JS the dashboard route ships: the entry chunk plus every chunk it imports
// statically (transitively), and the lazy chunks the dashboard requests as soon as it renders
// (the chart below the cards) with theirs, gzip-compressed. Run after `vite build`.
import { readFileSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const BUDGET_KB = 180;
const dist = join(dirname(fileURLToPath(import.meta.url)), '..', 'dist');
let manifest;
try {
  manifest = JSON.parse(readFileSync(join(dist, '.vite', 'manifest.json'), 'utf8'));
} catch {
  console.error('dist/.vite/manifest.json not found: run `vite build` first');
  process.exit(1);
}

const entries = Object.entries(manifest).filter(([, chunk]) => chunk.isEntry);
if (entries.length === 0) {
  console.error('no entry chunk in the manifest');
  process.exit(1);
}

const seen = new Set();
const visit = (key) => {
  if (seen.has(key)) return;
  seen.add(key);
  for (const dep of manifest[key]?.imports ?? []) visit(dep);
};
for (const [key] of entries) visit(key);
// Lazy for the cards' sake, but loaded on every dashboard visit: it counts.
const DASHBOARD_LAZY = ['src/chart/RatioChart.tsx'];
for (const key of DASHBOARD_LAZY) {
  if (!manifest[key]) {
    console.error(`${key} is not a chunk of this build: update DASHBOARD_LAZY`);
    process.exit(1);
  }
  visit(key);
}

let bytes = 0;
for (const key of seen) {
  const file = manifest[key].file;
  if (!file.endsWith('.js')) continue;
  bytes += gzipSync(readFileSync(join(dist, file)), { level: 9 }).length;
}
const kb = Math.round((bytes / 1024) * 10) / 10;
console.log(`dashboard JS: ${kb} KB gzip (budget ${BUDGET_KB} KB)`);
if (kb > BUDGET_KB) process.exit(1);
