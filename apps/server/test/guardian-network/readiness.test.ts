// Readiness and metrics of an app coordinating a guardian network (GUARDIAN_NETWORK=external): three
// real guardian processes reading the app's devnet price, the real app with METRICS_TOKEN. With all
// three answering, /readyz names a passing `guardians` check and unit_guardians_online reads 3 of
// the set's t = 2 needed; with two of them killed the quorum is lost and /readyz says so by name,
// with the reason, and the gauge reads 1.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifySet } from '@unit/guardian-net';
import { startTestApp, type RunningApp } from '../support';
import {
  appReadingFlags,
  quorumAt,
  startGuardianNetwork,
  type TestGuardianNetwork,
} from './signer-harness';

const TOKEN = 'metrics-token-0123456789abcdef';

let network: TestGuardianNetwork;
let unit: RunningApp;
let version: number;

interface ReadyAnswer {
  status: string;
  checks: Record<string, string>;
  reasons?: Record<string, string>;
}

const readyz = async () => {
  const res = await fetch(`${unit.url}/readyz`, { signal: AbortSignal.timeout(10_000) });
  return { status: res.status, body: (await res.json()) as ReadyAnswer };
};

const scrape = async () =>
  (
    await fetch(`${unit.url}/metrics`, {
      headers: { authorization: `Bearer ${TOKEN}` },
      signal: AbortSignal.timeout(10_000),
    })
  ).text();

/** The value of the sample whose name and labels are `prefix`, or null. */
function sample(text: string, prefix: string): number | null {
  const line = text.split('\n').find((l) => l.startsWith(`${prefix} `));
  return line ? Number(line.slice(line.lastIndexOf(' ') + 1)) : null;
}

async function until<T>(what: string, probe: () => Promise<T | null>): Promise<T> {
  const deadline = Date.now() + 40_000;
  for (;;) {
    const value = await probe();
    if (value !== null) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 300));
  }
}

beforeAll(async () => {
  network = await startGuardianNetwork({ policy: 'approve-all', start: false });
  version = verifySet(
    JSON.parse(readFileSync(join(network.dir, 'guardian-set.json'), 'utf8')),
  ).version;
  unit = await startTestApp({
    GUARDIAN_NETWORK: 'external',
    GUARDIAN_DIR: network.dir,
    METRICS_TOKEN: TOKEN,
  });
  await network.startAll(appReadingFlags(unit.url));
  await quorumAt(unit);
}, 120_000);

afterAll(async () => {
  await unit?.stop();
  await network?.close();
});

describe('readiness and metrics of the guardian network', () => {
  it('with every guardian answering: a passing guardians check, and 3 online of 2 needed', async () => {
    const ready = await until('a ready app', async () => {
      const r = await readyz();
      return r.status === 200 ? r : null;
    });
    expect(ready.body).toEqual({
      status: 'ready',
      checks: { database: 'ok', chain: 'ok', price: 'ok', guardians: 'ok' },
    });
    // The health round takes the first t answers plus a grace, so on a loaded machine the third
    // guardian may miss one round; with all three answering it is counted by a later one.
    const text = await until('all three guardians counted online', async () => {
      const t = await scrape();
      return sample(t, `unit_guardians_online{set="${version}"}`) === 3 ? t : null;
    });
    expect(sample(text, `unit_guardians_online{set="${version}"}`)).toBe(3);
    expect(sample(text, `unit_guardians_needed{set="${version}"}`)).toBe(2);
  });

  it('with two of three guardians stopped: not ready, the guardians check failing with its reason, 1 online', async () => {
    await network.kill(2);
    await network.kill(3);
    const lost = await until('the guardians check to fail', async () => {
      const r = await readyz();
      return r.body.checks.guardians === 'failing' ? r : null;
    });
    expect(lost.status).toBe(503);
    expect(lost.body.status).toBe('not_ready');
    expect(lost.body.reasons?.guardians).toBe(
      `1 of the 3 guardians of set ${version} answer with a fresh price; 2 are needed for the price quorum`,
    );
    const text = await scrape();
    expect(sample(text, `unit_guardians_online{set="${version}"}`)).toBe(1);
    expect(sample(text, `unit_guardians_needed{set="${version}"}`)).toBe(2);
  }, 60_000);
});
