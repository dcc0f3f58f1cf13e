// The price quorum with real guardian processes on loopback, each reading its own local fake
// exchanges (one set per guardian): guardian 3's feeds are 10% low. The quorum's price holds; a
// liquidation is refused while only guardian 3 sees the price at or under the threshold, and
// signed once t = 2 guardians see it there by their own feeds.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { approveFirstRoster } from '../src/approve-first';
import { schnorr } from '@noble/curves/secp256k1.js';
import { randomBytes } from '@noble/hashes/utils.js';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hexToBytes } from '../src/canonical';
import { Coordinator, QuorumError, runDkg, type SignEvent } from '../src/coordinator';
import { parseSetBody, type GuardianSet } from '../src/guardian-set';
import { ensureIdentity } from '../src/identity';
import { collectPriceQuorum, PRICE_PATH } from '../src/price/quorum';
import { priceQuorumCommitment, signedPriceProblem } from '../src/price/signed-price';
import { CLI, freePorts, kill9, readGuardian, run, waitHealthy, type Proc } from './harness';
import { startFakeFeed, type FakeFeed } from './price-feeds';

const dir = mkdtempSync(join(tmpdir(), 'guardian-price-'));
let basePort = 0;
let set: GuardianSet;
let coordinator: Coordinator;
const procs: Proc[] = [];
/** Each guardian's own two exchanges. */
const feeds = new Map<number, FakeFeed[]>();
const url = (id: number) => `https://127.0.0.1:${basePort + id - 1}`;
const liquidation = { kind: 'liquidation', thresholdCents: 9_000_000 };

function setPrice(id: number, usd: string): void {
  for (const feed of feeds.get(id)!) feed.behave({ answer: 'price', usd });
}

/** Until guardian `id` serves `cents` (or, with null, serves no price); its tick is 200 ms. */
async function untilPrice(id: number, cents: number | null): Promise<Record<string, unknown>> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const res = await readGuardian(set.members[id - 1]!, PRICE_PATH, 2_000);
    const json = res.body as Record<string, unknown>;
    if (cents === null ? res.status === 503 : json.priceCents === cents) return json;
    if (Date.now() > deadline) throw new Error(`guardian ${id} serves ${JSON.stringify(json)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function health(id: number): Promise<Record<string, unknown>> {
  return (await readGuardian(set.members[id - 1]!, '/v1/health')).body as Record<string, unknown>;
}

beforeAll(async () => {
  const kinds = [
    ['kraken', 'coinbase'],
    ['mempool', 'bitstamp'],
    ['coinbase', 'bitstamp'],
  ] as const;
  for (const [i, pair] of kinds.entries()) {
    const usd = i === 2 ? '85500.00' : '95000.00';
    feeds.set(
      i + 1,
      await Promise.all(pair.map((k) => startFakeFeed(k, { answer: 'price', usd }))),
    );
  }
  basePort = await freePorts(3);
  // The guardians start in DKG mode with their feeds and stay up once the set is installed, so
  // their first prices are signed for the roster (version 0) and signed again for the set.
  const gdir = (id: number) => join(dir, `guardian-${id}`);
  const members = [1, 2, 3].map((id) => {
    mkdirSync(gdir(id), { recursive: true, mode: 0o700 });
    const identity = ensureIdentity(join(gdir(id), 'identity.json'));
    return { id, name: `guardian-${id}`, identityKey: identity.publicKey, url: url(id) };
  });
  mkdirSync(join(dir, 'coordinator'), { mode: 0o700 });
  const coordinatorId = ensureIdentity(join(dir, 'coordinator', 'identity.json'));
  const roster = parseSetBody({
    kind: 'unit/guardian-set',
    version: 0,
    t: 2,
    n: 3,
    members,
    coordinators: [{ name: 'coordinator', identityKey: coordinatorId.publicKey }],
  });
  writeFileSync(join(dir, 'roster.json'), JSON.stringify(roster));
  // Each guardian's operator approves the roster it is started with (`start --roster`).
  for (const id of [1, 2, 3]) approveFirstRoster(gdir(id), roster, true);
  for (const id of [1, 2, 3]) {
    const entries = feeds.get(id)!.map((f) => f.entry);
    procs.push(
      run(CLI, [
        'start',
        '--id',
        String(id),
        '--dir',
        gdir(id),
        '--roster',
        join(dir, 'roster.json'),
        '--policy',
        'approve-all',
        '--feeds',
        entries.join(','),
        '--price-tick',
        '200',
        '--feed-timeout',
        '1000',
      ]),
    );
  }
  await Promise.all([1, 2, 3].map((id) => waitHealthy(url(id))));
  set = await runDkg(roster, coordinatorId);
  writeFileSync(join(dir, 'guardian-set.json'), JSON.stringify(set));
  coordinator = new Coordinator(set, coordinatorId, 10_000);
  await Promise.all([untilPrice(1, 9_500_000), untilPrice(2, 9_500_000), untilPrice(3, 8_550_000)]);
});

afterAll(async () => {
  await Promise.all(procs.map(kill9));
  await Promise.all([...feeds.values()].flat().map((f) => f.close()));
  rmSync(dir, { recursive: true, force: true });
});

describe('the guardian price quorum (real processes, own feeds each)', () => {
  it('holds at the honest median with one guardian’s feeds 10% off, and commits to the two prices', async () => {
    const quote = await coordinator.priceQuorum();
    expect(quote.valid).toBe(true);
    if (!quote.valid) return;
    expect(quote.priceCents).toBe(9_500_000);
    expect(quote.prices.map((p) => p.guardian)).toEqual([1, 2]);
    for (const p of quote.prices) expect(signedPriceProblem(set, p)).toBeNull();
    expect(quote.commitment).toBe(priceQuorumCommitment(quote.prices));
    expect(quote.left).toEqual([
      { guardian: 3, reason: '8550000 cents is more than 3% from the median 9500000' },
    ]);
    // The CLI prints each guardian's price and the quorum.
    const cli = run(CLI, ['price', '--dir', dir]);
    expect(await cli.exited, cli.output()).toBe(0);
    const lines = cli
      .output()
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines.filter((l) => l.event === 'guardian-price').map((l) => l.priceCents)).toEqual([
      9_500_000, 9_500_000, 8_550_000,
    ]);
    expect(lines.find((l) => l.event === 'quorum')).toMatchObject({
      valid: true,
      priceCents: 9_500_000,
      t: 2,
    });
  });

  it('/v1/health shows each guardian’s last price, its version and uptime', async () => {
    const h = await health(3);
    expect(h).toMatchObject({
      id: 3,
      lastPrice: { priceCents: 8_550_000 },
      priceFresh: true,
      priceProblem: null,
      version: expect.any(String),
      uptimeMs: expect.any(Number),
    });
  });

  it('refuses a liquidation that only the guardian 10% off sees under its threshold', async () => {
    const events: SignEvent[] = [];
    const error = await coordinator
      .sign(randomBytes(32), liquidation, (e) => void events.push(e), { waitForAll: true })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(QuorumError);
    const decisions = (error as QuorumError).decisions.sort((a, b) => a.guardian - b.guardian);
    expect(decisions).toEqual([
      {
        guardian: 1,
        approved: false,
        reason: "this guardian's price $95,000.00 is above the threshold $90,000.00",
      },
      {
        guardian: 2,
        approved: false,
        reason: "this guardian's price $95,000.00 is above the threshold $90,000.00",
      },
      { guardian: 3, approved: true, reason: null },
    ]);
    expect(events.some((e) => e.kind === 'committed' || e.kind === 'signed')).toBe(false);
  });

  it('signs the liquidation once a second guardian’s own feeds are at or under it', async () => {
    setPrice(1, '89500.00');
    await untilPrice(1, 8_950_000);
    const msg = randomBytes(32);
    const result = await coordinator.sign(msg, liquidation, undefined, { waitForAll: true });
    expect(result.signers).toEqual([1, 3]);
    expect(schnorr.verify(result.signature, msg, hexToBytes(set.groupKey!))).toBe(true);
    expect(result.decisions.find((d) => d.guardian === 2)).toMatchObject({ approved: false });
    expect((await health(1)).lastSignatureAt).toEqual(expect.any(Number));
    expect((await health(2)).lastSignatureAt).toBeNull();
  });

  it('a guardian whose feeds fail serves no price and refuses a liquidation', async () => {
    for (const feed of feeds.get(3)!) feed.behave({ answer: 'http500' });
    const answer = await untilPrice(3, null);
    expect(answer).toEqual({
      error: { code: 'no-price', message: 'no fresh price: 0 fresh price sources' },
    });
    expect(await health(3)).toMatchObject({
      priceFresh: false,
      lastPrice: { priceCents: 8_550_000 },
    });
    const error = await coordinator
      .sign(randomBytes(32), liquidation, undefined, { waitForAll: true })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(QuorumError);
    expect((error as QuorumError).message).toContain(
      'guardian 3: this guardian has no fresh price (0 fresh price sources)',
    );
    const quote = await collectPriceQuorum(set);
    expect(quote.left.find((l) => l.guardian === 3)).toEqual({
      guardian: 3,
      reason: 'no fresh price: 0 fresh price sources',
    });
  });

  it('keeps its last price and last share time across a kill -9 and restart', async () => {
    const before = await health(3);
    expect(before.lastSignatureAt).toEqual(expect.any(Number));
    await kill9(procs[2]!);
    const gdir = join(dir, 'guardian-3');
    const entries = feeds.get(3)!.map((f) => f.entry);
    // Its feeds still fail: whatever it shows was read before the kill, from its store.
    procs[2] = run(CLI, [
      ...['start', '--id', '3', '--dir', gdir, '--policy', 'approve-all'],
      ...['--feeds', entries.join(','), '--price-tick', '200', '--feed-timeout', '1000'],
    ]);
    await waitHealthy(url(3));
    const after = await health(3);
    expect(after.uptimeMs).toBeLessThan(before.uptimeMs as number);
    expect(after).toMatchObject({ priceFresh: false, lastPrice: before.lastPrice });
    expect(after.lastPrice).toMatchObject({ priceCents: 8_550_000 });
    // The stored time is its session row's signed_at: the nonce spent, a few ms before the share.
    const signedAt = before.lastSignatureAt as number;
    expect(after.lastSignatureAt).toBeLessThanOrEqual(signedAt);
    expect(after.lastSignatureAt).toBeGreaterThan(signedAt - 1_000);
  });
});
