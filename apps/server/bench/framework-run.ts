// `npm run bench:api -w @unit/server`: only the API-against-bare-Fastify figures (framework.ts),
// on a fresh database of 1k history records; prints the machine's load beside them.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { frameworkFigures } from './framework';
import { startChild, verdict, type Child } from './measure';
import { migratedDatabase, seedHistory } from './seed';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'unit-bench-api-'));
const children: Child[] = [];
try {
  const dir = path.join(root, 'fresh');
  seedHistory(await migratedDatabase(dir), 1_000, Math.floor(Date.now() / 1000));
  const [app, bare] = await Promise.all([startChild('app', dir), startChild('bare')]);
  children.push(app, bare);
  const { figures, lines } = await frameworkFigures(app, bare);
  let failed = false;
  for (const f of figures) {
    const v = verdict(f);
    failed ||= v.failed;
    const goal = 'min' in f.goal ? `≥ ${f.goal.min.toFixed(2)}` : `≤ ${f.goal.max}`;
    console.log(
      `${f.name.padEnd(72)} ${f.value.toFixed(2).padStart(6)}  ${goal}  ${v.text}` +
        ` (noise ${(f.noise * 100).toFixed(0)}%)`,
    );
  }
  for (const line of lines) console.log(line);
  const load = os.loadavg().map((x) => x.toFixed(1));
  console.log(`load average ${load.join(' ')} on ${os.cpus().length} cores`);
  process.exitCode = failed ? 1 : 0;
} finally {
  for (const c of children) c.process.kill();
  fs.rmSync(root, { recursive: true, force: true });
}
