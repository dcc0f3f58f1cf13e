// What one open live stream keeps alive, by kind of object: the app with no stream open and then
// with N open (held by stream-clients.ts in a process of its own), a heap snapshot of each, and
// the difference per stream by constructor. `npx tsx --expose-gc bench/stream-heap.ts [N]`.
import { fork } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import v8 from 'node:v8';
import pino from 'pino';
import { buildApp } from '../src/app';
import { loadConfig } from '../src/config';
import { migratedDatabase } from './seed';
import type { Opened, ToClients } from './stream-clients';

const N = Number(process.argv[2] ?? 1000);
const CLIENTS = path.join(path.dirname(fileURLToPath(import.meta.url)), 'stream-clients.ts');

const collect = () => {
  for (let i = 0; i < 3; i++) (globalThis as { gc?: () => void }).gc?.();
};

/** Self size and count of every kind of heap object: constructor names, strings as one. */
function census(): Map<string, { count: number; size: number }> {
  collect();
  const file = path.join(os.tmpdir(), `stream-heap-${process.pid}-${Date.now()}.heapsnapshot`);
  v8.writeHeapSnapshot(file);
  const snap = JSON.parse(fs.readFileSync(file, 'utf8')) as {
    snapshot: { meta: { node_fields: string[]; node_types: [string[]] } };
    nodes: number[];
    strings: string[];
  };
  fs.rmSync(file);
  const fields = snap.snapshot.meta.node_fields;
  const types = snap.snapshot.meta.node_types[0];
  const [T, NAME, SIZE] = ['type', 'name', 'self_size'].map((f) => fields.indexOf(f));
  const out = new Map<string, { count: number; size: number }>();
  for (let i = 0; i < snap.nodes.length; i += fields.length) {
    const type = types[snap.nodes[i + T!]!]!;
    const name = snap.strings[snap.nodes[i + NAME!]!]!;
    const key =
      type === 'string' || type === 'concatenated string' || type === 'sliced string'
        ? '(strings)'
        : type === 'number'
          ? '(heap numbers)'
          : `${type}: ${name.length > 60 ? `${name.slice(0, 60)}…` : name}`;
    const entry = out.get(key) ?? { count: 0, size: 0 };
    entry.count++;
    entry.size += snap.nodes[i + SIZE!]!;
    out.set(key, entry);
  }
  return out;
}

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'unit-stream-heap-'));
await migratedDatabase(dir);
const config = loadConfig({
  DATA_DIR: dir,
  PORT: '0',
  BLOCK_INTERVAL: '3600000',
  PRICE_TICK: '86400000',
  LOG_LEVEL: 'warn',
});
const unit = await buildApp(config, { logger: pino({ level: 'warn' }), telegramPolling: false });
const url = await unit.app.listen({ port: 0, host: '127.0.0.1' });
const clients = fork(CLIENTS, [], { execArgv: ['--import', 'tsx'], stdio: 'inherit' });
await new Promise((resolve) => clients.once('message', resolve));
const ask = <T>(message: ToClients) =>
  new Promise<T>((done) => {
    clients.once('message', (reply: T) => done(reply));
    clients.send(message);
  });
// One stream opened and closed first, so lazily built parts of the app are in both censuses.
await ask<Opened>({ cmd: 'open', urls: [url], count: 8 });
const mem = () => {
  collect();
  const m = process.memoryUsage();
  return { heap: m.heapUsed, external: m.external, rss: m.rss };
};
const before = census();
const m0 = mem();
const opened = await ask<Opened>({ cmd: 'open', urls: [url], count: N });
await new Promise((resolve) => setTimeout(resolve, 500));
const m1 = mem();
const after = census();
const open = unit.live.count() - 8;
console.log(`${opened.opened} opened (${open} counted by the app), ${opened.refused} refused`);
const per = (a: number, b: number) => ((b - a) / open).toFixed(0).padStart(6);
console.log(
  `per stream: heap ${per(m0.heap, m1.heap)} B, external ${per(m0.external, m1.external)} B, ` +
    `rss ${per(m0.rss, m1.rss)} B`,
);
const rows = [...after]
  .map(([key, a]) => {
    const b = before.get(key) ?? { count: 0, size: 0 };
    return { key, count: (a.count - b.count) / open, size: (a.size - b.size) / open };
  })
  .filter((r) => Math.abs(r.size) >= 8)
  .sort((x, y) => y.size - x.size);
let total = 0;
for (const r of rows) {
  total += r.size;
  console.log(`${r.size.toFixed(0).padStart(6)} B  ${r.count.toFixed(2).padStart(6)} ×  ${r.key}`);
}
console.log(`${total.toFixed(0).padStart(6)} B  in all (self sizes in the snapshot)`);
clients.send({ cmd: 'close' });
await unit.close();
fs.rmSync(dir, { recursive: true, force: true });
process.exit(0);
