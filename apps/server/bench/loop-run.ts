// `npm run bench:loop -w @unit/server`: only the event-loop figures (loop-figures.ts), after a
// build: the app's longest hold of its loop under the read routes and server-drawn pages, and
// under ten CSV exports of a 200,000-record history; prints the machine's load beside them.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { exportsUnderLoad } from './load';
import type { LoopPauses } from './loop';
import { LOOP_HOLD_GOAL_MS, loadReads, loopClockLine, loopFigure } from './loop-figures';
import { startChild, verdict, type Child } from './measure';
import { migratedDatabase, seedHistory, VAULT_ID } from './seed';

const EXPORT_RECORDS = 200_000;
const EXPORT_CLIENTS = 10;

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'unit-bench-loop-'));
const children: Child[] = [];
try {
  const now = Math.floor(Date.now() / 1000);
  const readsDir = path.join(root, 'reads');
  const exportDir = path.join(root, 'export');
  seedHistory(await migratedDatabase(readsDir), 1_000, now);
  seedHistory(await migratedDatabase(exportDir), EXPORT_RECORDS, now);
  const [reads, exporter] = await Promise.all([
    startChild('app', readsDir),
    startChild('app', exportDir),
  ]);
  children.push(reads, exporter);
  // One round to warm up (the first answer of each route compiles its code), then measured.
  await loadReads(reads, 1);
  await reads.ask({ cmd: 'delay', reset: true });
  await loadReads(reads, 3);
  const readPauses = await reads.ask<LoopPauses>({ cmd: 'delay' });
  await exporter.ask({ cmd: 'delay', reset: true });
  const load = await exportsUnderLoad(
    exporter.url,
    `/api/vaults/${VAULT_ID}/history.csv`,
    EXPORT_CLIENTS,
  );
  const exportPauses = await exporter.ask<LoopPauses>({ cmd: 'delay' });
  const whole = load.completed === load.asked && load.lines.every((n) => n === EXPORT_RECORDS + 1);
  if (!whole) throw new Error(`exports: ${load.completed} of ${load.asked} whole`);
  const loads = [
    ['read routes and first pages', readPauses],
    [`${EXPORT_CLIENTS} CSV exports of 200k`, exportPauses],
  ] as const;
  let failed = false;
  for (const [name, pauses] of loads) {
    const f = loopFigure(name, pauses);
    const v = verdict(f);
    failed ||= v.failed;
    console.log(
      `${f.name.padEnd(72)} ${f.value.toFixed(1).padStart(6)} ms  ≤ ${LOOP_HOLD_GOAL_MS} ms  ${v.text}`,
    );
    console.log(loopClockLine(name, pauses));
  }
  console.log(
    `  exports: ${load.megabytes.toFixed(1)} MB in ${load.seconds.toFixed(1)} s; /api/health ` +
      `worst ${load.healthWorstMs.toFixed(1)} ms of ${load.healthChecks}, median ` +
      `${load.healthMedianMs.toFixed(1)} ms (idle worst ${load.idleHealthWorstMs.toFixed(1)} ms)`,
  );
  const loadAvg = os.loadavg().map((x) => x.toFixed(1));
  console.log(`load average ${loadAvg.join(' ')} on ${os.cpus().length} cores`);
  process.exitCode = failed ? 1 : 0;
} finally {
  for (const c of children) c.process.kill();
  fs.rmSync(root, { recursive: true, force: true });
}
