// A guardian's public routes cost nothing to flood, a fresh price is only the coordinator's to ask,
// and a slow member costs nothing: real `--policy vault` guardian processes and the real app
// coordinating them on its devnet (GUARDIAN_NETWORK=external).
// - A flood of /v1/oracle/hash from four loopback addresses, in its own process, during a vault
//   open: answered 429 past each address's limit, far fewer statements signed than asked, and the
//   open about as fast as without it.
// - GET /v1/price?fresh=1, and the `price/fresh` message from anyone but a coordinator: refused.
// - Guardian 3 frozen (SIGSTOP) and then killed: a devnet price move and a vault open each take
//   about as long frozen as killed (the fan-outs take the first t answers plus a grace).
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { describe, expect, it } from 'vitest';
import { loadIdentity, newIdentity, type GuardianSet } from '@unit/guardian-net';
import { callParty } from '../../../../packages/guardian-net/src/transport';
import type { RunningApp } from '../support';
import { readGuardian } from '../../../../packages/guardian-net/test/harness';
import { call, type Harness } from '../guardian/harness';
import { nodeArgs } from '../../../../packages/guardian-net/test/bins';
import { quorumAt, vaultPolicyWorldPerFile, type TestGuardianNetwork } from './signer-harness';

let network: TestGuardianNetwork;
let unit: RunningApp;
let h: Harness;
let set: GuardianSet;

vaultPolicyWorldPerFile((world) => ({ network, unit, h, set } = world), 180_000);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function timed<T>(f: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const started = performance.now();
  const value = await f();
  return { ms: performance.now() - started, value };
}

/** A new wallet's vault open (the wallet made first, untimed), timed from its quote to the answer. */
async function timedOpen(label: string) {
  const wallet = await h.wallet(label);
  return timed(async () => {
    // The quote asks every guardian for its oracle hash; the open, t of them to sign.
    const { request } = await wallet.open(1_000_000n, 59_000n);
    return call<{ vault_txid: string }>(unit.guardian, 'vault.open', request);
  });
}

/** POST /api/devnet/price, timed, past the guardians' spacing of reads on demand (2 s). */
async function timedPriceMove(usd: number) {
  await sleep(2_500);
  const moved = await timed(() =>
    fetch(`${unit.url}/api/devnet/price`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ usd }),
      signal: AbortSignal.timeout(30_000),
    }),
  );
  expect(moved.value.status).toBe(200);
  await quorumAt(unit, usd * 100);
  return moved;
}

const healthOf = async (id: number) =>
  (await readGuardian(set.members[id - 1]!, '/v1/health')).body as Record<string, number>;

/** The flooder (flooder.ts) in its own process; resolves with its counts when it is done. */
function flood(urls: string[], sources: string[], perSource: number) {
  const child = spawn(
    process.execPath,
    [...nodeArgs(join(__dirname, 'flooder.ts')), JSON.stringify({ urls, sources, perSource, concurrency: 8 })], // prettier-ignore
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  return new Promise<{ statuses: Record<string, number>; retryAfter: string | null }>(
    (resolve, reject) => {
      createInterface({ input: child.stdout }).once('line', (line) => resolve(JSON.parse(line)));
      child.once('exit', (code) => code !== 0 && reject(new Error(`flooder exited ${code}`)));
    },
  );
}

describe("a guardian's public routes under a flood", () => {
  it('answers 429 past each address limit, signs each statement once, and a vault open stays fast', async () => {
    const quiet = await timedOpen('quiet');
    const before = await Promise.all([1, 2, 3].map(healthOf));
    // Five (th, ts) asked of guardian 1 over and over from four addresses: 4,000 requests.
    const urls = [1, 2, 3, 4, 5].map(
      (i) => `${set.members[0]!.url}/v1/oracle/hash?th=${8_000_000 + i}&ts=1700000000`,
    );
    const sources = ['127.0.0.2', '127.0.0.3', '127.0.0.4', '127.0.0.5'];
    const floodStarted = performance.now();
    const flooding = flood(urls, sources, 1_000);
    await sleep(1_500); // the flooder's process is up and sending
    const during = await timedOpen('flooded');
    const counts = await flooding;
    const floodSeconds = (performance.now() - floodStarted) / 1000;
    const after = await Promise.all([1, 2, 3].map(healthOf));
    const sent = Object.values(counts.statuses).reduce((a, b) => a + b, 0);
    expect(sent).toBe(4_000);
    // Each of the 4 addresses: at most its burst (60) and 20 a second while the flood lasted.
    expect(counts.statuses['429']).toBeGreaterThan(0);
    expect(counts.statuses['200']).toBeLessThanOrEqual(4 * (60 + 20 * floodSeconds));
    expect(Number(counts.retryAfter)).toBeGreaterThanOrEqual(1);
    const signed = after.reduce((sum, a, i) => sum + a.oracleStatementsSigned! - before[i]!.oracleStatementsSigned!, 0); // prettier-ignore
    // Guardian 1: its five flood statements; each guardian: those of the flooded open's quote and
    // of its wallet's first quote, at most (a cached statement signs nothing).
    expect(signed).toBeLessThanOrEqual(5 + 2 * 3);
    expect(after[0]!.publicRequestsLimited! - before[0]!.publicRequestsLimited!).toBe(
      counts.statuses['429'],
    );
    // Generous (a shared 2-core machine): unmetered, the flood took an open from 0.5 s to 4.5 s.
    expect(during.ms).toBeLessThan(2 * quiet.ms + 2_000);
  }, 180_000);
});

describe('a fresh price read', () => {
  it('is refused on the public route and to anyone but a coordinator', async () => {
    const m = set.members[0]!;
    const res = await readGuardian(m, '/v1/price?fresh=1');
    expect(res.status).toBe(403);
    expect((res.body as { error: { code: string } }).error.code).toBe('not-allowed');
    const ask = (identity: ReturnType<typeof newIdentity>) =>
      callParty({ url: m.url, identity, to: m.identityKey, setVersion: set.version, type: 'price/fresh', body: {}, auth: 'mac' }); // prettier-ignore
    await expect(ask(newIdentity())).rejects.toMatchObject({ code: 'sender-not-in-set' });
    const peer = loadIdentity(join(network.dir, 'guardian-2', 'identity.json'));
    await expect(ask(peer)).rejects.toMatchObject({
      code: 'not-allowed',
      message: 'price/fresh is for the coordinator only',
    });
    const coordinator = loadIdentity(join(network.dir, 'coordinator', 'identity.json'));
    const { payload } = await ask(coordinator);
    expect(payload.body).toMatchObject({ guardian: 1, setVersion: set.version });
  }, 60_000);
});

describe("a devnet guardian's facts", () => {
  it('come from the app only because it is pinned to the devnet, and it says so', () => {
    // Its chain is pinned (--chain); the rune id and the oracle key it read from the app.
    expect(network.output(1)).toMatch(
      /"event":"facts-from-app","devnet":true,"fromApp":\["rune id","oracle key"\]/,
    );
  });
});

describe('one guardian frozen', () => {
  /** The faster of two price moves and of two vault opens: one noisy moment of a shared machine is not the network. */
  async function measure(label: string, usd: number) {
    const moves = [await timedPriceMove(usd), await timedPriceMove(usd + 500)];
    const opens = [await timedOpen(`${label}-1`), await timedOpen(`${label}-2`)];
    return { move: Math.min(...moves.map((m) => m.ms)), open: Math.min(...opens.map((o) => o.ms)) };
  }

  it('costs a price move and a vault open no more than the guardian gone', async () => {
    network.pause(3);
    let frozen: { move: number; open: number };
    try {
      frozen = await measure('frozen', 96_000);
      // /api/network lists it as not answering, after its own short time-out.
      const page = await timed(() => fetch(`${unit.url}/api/network`).then((r) => r.json()));
      const guardians = (page.value as { guardians: { id: number; online: boolean }[] }).guardians;
      expect(guardians.map((g) => g.online)).toEqual([true, true, false]);
      expect(page.ms).toBeLessThan(2_000);
    } finally {
      network.resume(3);
    }
    await network.kill(3);
    let killed: { move: number; open: number };
    try {
      killed = await measure('killed', 97_000);
    } finally {
      await network.start(3);
    }
    // Frozen, a fan-out waits its grace (500 ms) for the third answer; killed, that call fails at
    // once: the bound is 1.5x + 500 ms on top of that one grace.
    const bound = (ms: number) => 1.5 * ms + 500 + 500;
    expect(frozen.move).toBeLessThan(bound(killed.move));
    expect(frozen.open).toBeLessThan(bound(killed.open));
  }, 240_000);
});
