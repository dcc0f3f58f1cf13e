// The price quorum end to end: three real `--policy vault` guardian processes,
// each on its own two local exchanges (feeds.txt in its directory), guardian 3's 10% low, and the
// real app coordinating them (GUARDIAN_NETWORK=external). The app's quote is the guardians'
// quorum, not its own price; each guardian checks a request's quote evidence against the set
// (vault-policy/quote-quorum.ts) and refuses a quote with t-1 prices or a forged one, naming why;
// with two guardians' feeds down no quorum exists, the price goes stale and nothing is signed.
// The app's price series (/api/bitcoin-price, the price events, the sweep) is that quorum too, not
// one guardian's price nor the devnet's market (which these guardians do not read).
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hex } from '@scure/base';
import { schnorr } from '@noble/curves/secp256k1.js';
import { collectPriceQuorum, priceDigest, verifySet, type GuardianSet } from '@unit/guardian-net';
import { findStateRecord, priceQuorumCommitment } from '@unit/bitcoin';
import {
  estimateVsize,
  PRICE_PAUSE_COPY,
  type BitcoinPriceDto,
  type ConfigDto,
  type OperationQuoteDto,
} from '@unit/protocol';
import {
  bitcoinPriceSchema,
  priceQuorumAuditSchema,
  type OracleQuoteDto,
  type SignedVaultRequest,
} from '@unit/protocol/wire';
import { getGuardianRequest, getVaultByPubkey, recordPriceQuorum } from '../../src/store';
import { startTestApp, type RunningApp } from '../support';
import { openEvents } from '../cluster/instances';
import { call, type Harness, type TestWallet } from '../guardian/harness';
import { waitHealthy } from '../../../../packages/guardian-net/test/harness';
import { startFakeFeed, type FakeFeed } from '../../../../packages/guardian-net/test/price-feeds';
import { lastApprovals, progressRecorder } from './adversary-harness';
import {
  appHarness,
  onChain,
  quorumAt,
  startGuardianNetwork,
  type TestGuardianNetwork,
} from './signer-harness';

const HONEST_USD = '95000';
const LOW_USD = '85500'; // guardian 3: 10% under the honest guardians' exchanges

let network: TestGuardianNetwork;
let set: GuardianSet;
let unit: RunningApp;
let h: Harness;
let alice: TestWallet;
const feeds = new Map<number, FakeFeed[]>();
/** The quorum commitments the second test read from the chain's records. */
const committed: Uint8Array[] = [];

const health = (id: number) => waitHealthy(set.members[id - 1]!, 5_000);

/** Until each of `ids` says its own price is (or is not) fresh. */
async function untilEvery(ids: number[], fresh: boolean): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const seen = await Promise.all(ids.map(async (id) => (await health(id)).priceFresh));
    if (seen.every((f) => f === fresh)) return;
    if (Date.now() > deadline) throw new Error(`guardians ${ids.join(', ')}: priceFresh ${seen}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

async function quoteRoute(): Promise<{
  status: number;
  body: OracleQuoteDto & { code?: string; error?: string };
}> {
  const ts = Math.floor(Date.now() / 1000);
  const res = await fetch(`${unit.url}/api/oracle/quote?th=0&ts=${ts}`, {
    signal: AbortSignal.timeout(15_000),
  });
  return {
    status: res.status,
    body: (await res.json()) as OracleQuoteDto & { code?: string; error?: string },
  };
}

/** Guardian `id`'s two exchanges answer `usd`, and its own signed price says so. */
async function exchangesAt(id: number, usd: string): Promise<void> {
  for (const f of feeds.get(id)!) f.behave({ answer: 'price', usd });
  const cents = Math.round(Number(usd) * 100);
  const deadline = Date.now() + 30_000;
  const seen = async () => {
    const h = await health(id);
    return h.priceFresh === true && (h.lastPrice as { priceCents?: number } | null)?.priceCents;
  };
  while ((await seen()) !== cents) {
    if (Date.now() > deadline) throw new Error(`guardian ${id} never read ${usd}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** GET /api/bitcoin-price: the app's recorded price, what the chart and the page show. */
async function appPrice(): Promise<BitcoinPriceDto> {
  const res = await fetch(`${unit.url}/api/bitcoin-price`, { signal: AbortSignal.timeout(5_000) });
  return bitcoinPriceSchema.parse(await res.json());
}

/** Sends a vault request through the app and the network; the refusal, or null when signed. */
async function send(method: string, request: SignedVaultRequest<unknown>) {
  const ctx = progressRecorder();
  const error = await call(unit.guardian, method, request, ctx).then(
    () => null,
    (e: unknown) => e as { code?: string; message: string },
  );
  return { error, approvals: lastApprovals(ctx)! };
}

beforeAll(async () => {
  network = await startGuardianNetwork({ policy: 'vault', start: false });
  set = verifySet(JSON.parse(readFileSync(join(network.dir, 'guardian-set.json'), 'utf8')));
  for (const id of [1, 2, 3]) {
    const usd = id === 3 ? LOW_USD : HONEST_USD;
    const own = [
      await startFakeFeed('mempool', { answer: 'price', usd }),
      await startFakeFeed('coinbase', { answer: 'price', usd }),
    ];
    feeds.set(id, own);
    writeFileSync(
      join(network.dir, `guardian-${id}`, 'feeds.txt'),
      own.map((f) => f.entry).join('\n'),
    );
  }
  unit = await startTestApp({ GUARDIAN_NETWORK: 'external', GUARDIAN_DIR: network.dir });
  const flags = [
    '--chain',
    `${unit.url}/esplora`,
    '--app',
    unit.url,
    '--network',
    'devnet',
    '--price-tick',
    '500',
  ];
  await network.startAll(flags).catch((e: unknown) => {
    throw new Error(`${(e as Error).message}\n${network.output(1)}`);
  });
  await untilEvery([1, 2, 3], true);
  h = appHarness(unit, hex.decode(set.groupKey!));
  alice = await h.wallet('alice');
}, 120_000);

afterAll(async () => {
  await unit?.stop();
  await network?.close();
  await Promise.all([...feeds.values()].flat().map((f) => f.close()));
});

describe("the app's quote is the guardians' price quorum, and each guardian checks it", () => {
  it('with guardian 3 10% low, the quote is the honest median of guardians 1 and 2, and vault actions are signed', async () => {
    const { status, body } = await quoteRoute();
    expect(status).toBe(200);
    expect(body.price_cents).toBe(9_500_000);
    expect(body.quorum!.map((p) => p.guardian)).toEqual([1, 2]);
    expect(body.time).toBe(Math.min(...body.quorum!.map((p) => p.time)));
    // The devnet's market (these guardians read their own exchanges, not it) plays no part in the
    // quote, nor in the app's own price: that is the quorum's median too, stamped within 60 s.
    await unit.oracle.setPrice(12_000_000);
    expect((await quoteRoute()).body.price_cents).toBe(9_500_000);
    const shown = await appPrice();
    expect(shown).toMatchObject({ USD: 95_000, stale: false });
    expect(Math.floor(Date.now() / 1000) - shown.time).toBeLessThanOrEqual(60);

    const opened = await send('vault.open', (await alice.open(2_000_000n, 50_000n)).request);
    expect(opened.error).toBeNull();
    const borrowed = await send('vault.borrow', (await alice.borrow(5_000n)).request);
    expect(borrowed.error).toBeNull();
    // Guardian 3 reads $85,500: never among the approvers; when it decided, it said why.
    for (const { approvals } of [opened, borrowed]) {
      const three = approvals.guardians.find((g) => g.id === 3)!;
      expect(three.state).not.toBe('approved');
      if (three.state === 'refused')
        expect(three.reason).toBe(
          "the quote's price $95,000.00 is more than 3% from this guardian's $85,500.00",
        );
    }
  }, 120_000);

  it("each record commits to its quote's quorum: an opening's and a withdraw's, read from the chain", async () => {
    // The web is told the mode, and the app's fee quote counts the record's 32 more bytes.
    const config = (await (
      await fetch(`${unit.url}/api/config`, { signal: AbortSignal.timeout(15_000) })
    ).json()) as ConfigDto;
    expect(config.constants.priceQuorum).toBe(true);
    const quoted = (await (
      await fetch(`${unit.url}/api/quote?action=withdraw&feeRate=2`, {
        signal: AbortSignal.timeout(15_000),
      })
    ).json()) as OperationQuoteDto;
    // Layout 2: the record carries the term, and the vault spent is counted as layout 2.
    const shape = {
      action: 'withdraw',
      paymentInputs: 0,
      oracles: 3,
      term: true,
      spentTermed: true,
    } as const;
    expect(quoted.vsize).toBe(estimateVsize({ ...shape, quorumCommitment: true }));
    // 32 bytes: a layout 2 record is already past 75 bytes, so its push costs no byte more.
    expect(quoted.vsize).toBe(estimateVsize(shape) + 32);

    const erin = await h.wallet('erin');
    /** Signs and broadcasts `request`; its record as the chain holds it, checked against its quote. */
    const recorded = async (method: string, request: SignedVaultRequest<unknown>) => {
      const result = await call<{ vault_txid: string }>(unit.guardian, method, request);
      const { record } = findStateRecord((await onChain(unit, result.vault_txid)).tx)!;
      expect(request.quote.quorum!.length, method).toBeGreaterThanOrEqual(2);
      // The hash of the quote's signed prices ends the record (versions 3 and 4).
      expect(record.quorumCommitment, method).toEqual(priceQuorumCommitment(request.quote.quorum!));
      committed.push(record.quorumCommitment!);
      return record;
    };
    const opening = await recorded('vault.open', (await erin.open(1_000_000n, 10_000n)).request);
    expect(hex.encode(opening.vaultPubkey!)).toBe(erin.vaultPubkey);
    // A withdraw's fee comes out of the vault: it was sized with the commitment, or the record's
    // vault and threshold would not match the quote's (guardianCheck).
    const withdrawn = await recorded('vault.withdraw', (await erin.withdraw(100_000n)).request);
    expect(withdrawn.action).toBe('w');
    expect(withdrawn).not.toHaveProperty('vaultPubkey');
  }, 120_000);

  it("anyone can audit a record's quorum: /api/price-quorum/<the chain's commitment> gives prices that hash to it, signed by the set", async () => {
    expect(committed).toHaveLength(2);
    const audit = async (commitment: string) => {
      const res = await fetch(`${unit.url}/api/price-quorum/${commitment}`, {
        signal: AbortSignal.timeout(15_000),
      });
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    };
    for (const commitment of committed) {
      const { status, body } = await audit(hex.encode(commitment).toUpperCase());
      expect(status).toBe(200);
      const answer = priceQuorumAuditSchema.parse(body);
      expect(answer.commitment).toBe(hex.encode(commitment));
      expect(priceQuorumCommitment(answer.prices)).toEqual(commitment);
      expect(answer).toMatchObject({ set_version: set.version, threshold: set.t, verified: true });
      expect(answer.problem).toBeNull();
      expect(answer.prices.map((p) => p.guardian)).toEqual([1, 2]);
      expect(answer.price_cents).toBe(9_500_000);
      // Each signature checked here too, against the identity keys of the set on disk.
      for (const p of answer.prices) {
        const member = set.members.find((m) => m.id === p.guardian)!;
        const ok = schnorr.verify(
          hex.decode(p.sig),
          priceDigest(p),
          hex.decode(member.identityKey),
        );
        expect(ok, `guardian ${p.guardian}`).toBe(true);
      }
    }
    // A kept quorum whose signature is not its guardian's hashes to its key but does not verify.
    const real = priceQuorumAuditSchema.parse((await audit(hex.encode(committed[0]!))).body);
    const forged = [{ ...real.prices[0]!, sig: real.prices[1]!.sig }, real.prices[1]!];
    const key = await recordPriceQuorum(unit.store.db, forged, 1);
    const refused = priceQuorumAuditSchema.parse((await audit(key)).body);
    expect(refused.verified).toBe(false);
    expect(refused.problem).toBe('guardian 1: price signature does not verify');
    await unit.store.db.deleteFrom('price_quorums').where('commitment', '=', key).execute();

    const unknown = await audit('ab'.repeat(32));
    expect(unknown.status).toBe(404);
    expect(unknown.body.code).toBe('not_found');
    for (const bad of ['ab'.repeat(31), `${'ab'.repeat(31)}zz`, 'ab'.repeat(33)]) {
      const malformed = await audit(bad);
      expect(malformed.status, bad).toBe(400);
      expect(malformed.body.code).toBe('bad_request');
    }
    // Public, so limited per client address: within a minute's 60 lookups, a 429.
    let last = 200;
    for (let i = 0; i < 60 && last !== 429; i++) last = (await audit('cd'.repeat(32))).status;
    expect(last).toBe(429);
  }, 60_000);

  it('a quote with t-1 guardian prices, or a forged one, is refused by the guardians with the reason', async () => {
    const cases: [string, (q: OracleQuoteDto['quorum'] & object) => unknown[], string][] = [
      [
        't-1 prices',
        (q) => q.slice(0, 1),
        'the price quote is not a quorum of guardian prices: 1 guardian prices, 2 needed',
      ],
      [
        "guardian 2's price altered",
        (q) => [q[0], { ...q[1]!, priceCents: q[1]!.priceCents + 100 }],
        "guardian 2's price in the quote: price signature does not verify",
      ],
      [
        "guardian 3's low price in guardian 2's place",
        (q) => [q[0], { ...q[1]!, guardian: 3, priceCents: 8_550_000 }],
        "guardian 3's price in the quote: price signature does not verify",
      ],
    ];
    for (const [label, forge, reason] of cases) {
      // The record commits to the forged quorum, so the app's own check lets it through.
      const { request } = await alice.borrow(5_000n, { quorum: (q) => forge(q) as never });
      const { error, approvals } = await send('vault.borrow', request);
      expect(error?.code, label).toBe('guardians_refused');
      const refused = approvals.guardians.filter((g) => g.state === 'refused');
      expect(refused.length, label).toBeGreaterThanOrEqual(2);
      for (const g of refused) expect(g.reason, `${label}: ${g.name}`).toBe(reason);
      expect(
        approvals.guardians.some((g) => g.state === 'approved'),
        label,
      ).toBe(false);
      // Two refusals decide it: the message names the guardians that refused, whichever two
      // answered first.
      for (const g of refused) expect(error!.message, label).toContain(`${g.name}: ${reason}`);
      expect((await getGuardianRequest(unit.store.db, request.nonce))!.state).toBe('failed');
    }
    // A quorum swapped after the record was built: the app refuses it itself (guardianCheck).
    const { request } = await alice.borrow(5_000n);
    const quote = { ...request.quote, quorum: request.quote.quorum!.slice(0, 1) };
    const { error } = await send('vault.borrow', { ...request, quote });
    expect(error).toMatchObject({
      code: 'bad_transaction',
      message:
        "Invalid transaction: the state record's price quorum commitment is not the hash of the quote's quorum",
    });
  }, 120_000);

  it("the app's sweep and price events follow the quorum; a repossess is signed only once t guardians see the price at or under the threshold themselves", async () => {
    const [carol, bob, dave] = [await h.wallet('carol'), await h.wallet('bob'), await h.wallet('dave')]; // prettier-ignore
    expect(
      (await send('vault.open', (await carol.open(1_000_000n, 59_000n)).request)).error,
    ).toBeNull();
    expect(
      (await send('vault.open', (await bob.open(5_000_000n, 10_000n)).request)).error,
    ).toBeNull();
    const claimed = (await getVaultByPubkey(unit.store.db, carol.vaultPubkey))!;
    expect(claimed.threshold_cents).toBe(7_965_000);
    // The feeds are put back whatever fails, so a retry (or the next test) starts from the honest
    // quorum.
    try {
      const events = await openEvents(unit);
      const status = async (w: TestWallet) =>
        (await getVaultByPubkey(unit.store.db, w.vaultPubkey))!.status;
      // The devnet's market, then guardian 3's own price, fall under the threshold: the app's price
      // stays the quorum's $95,000, so its sweep liquidates nothing.
      await unit.oracle.setPrice(7_800_000);
      await exchangesAt(3, '79000');
      await quorumAt(unit, 9_500_000);
      expect(await appPrice()).toMatchObject({ USD: 95_000, stale: false });
      expect(await status(carol)).not.toBe('liquidated');

      // The app's engine forced to a price of its own (as a compromised server could): the guardians
      // still decide on theirs.
      await unit.guardian.onPriceTick(7_800_000, Math.floor(Date.now() / 1000));
      await expect
        .poll(async () => (await getVaultByPubkey(unit.store.db, carol.vaultPubkey))!.status, {
          timeout: 30_000,
        })
        .toBe('liquidated');

      // Only guardian 3's exchanges are under it: guardians 1 and 2 refuse on their own price, and
      // guardian 3 refuses the quote itself, 17% from its own. Two refusals decide it, so the
      // message names whichever two answered first, each with its reason.
      const early = await send(
        'vault.repossess',
        (await bob.repossess(carol.vaultPubkey, claimed.vault_id)).request,
      );
      expect(early.error?.code).toBe('guardians_refused');
      const reasons: Record<string, string> = {
        'guardian-1':
          "this guardian's price $95,000.00 is above the claimed vault's threshold $79,650.00",
        'guardian-2':
          "this guardian's price $95,000.00 is above the claimed vault's threshold $79,650.00",
        'guardian-3':
          "the quote's price $95,000.00 is more than 3% from this guardian's $79,000.00",
      };
      const refused = early.approvals.guardians.filter((g) => g.state === 'refused');
      expect(refused.length).toBeGreaterThanOrEqual(2);
      expect(early.approvals.guardians.some((g) => g.state === 'approved')).toBe(false);
      for (const g of refused) {
        expect(g.reason, g.name).toBe(reasons[g.name]);
        expect(early.error!.message).toContain(`${g.name}: ${reasons[g.name]}`);
      }

      // Dave's threshold, $79,515, is between the quorum's $95,000 and its next $79,250.
      expect((await send('vault.open', (await dave.open(1_000_000n, 58_900n)).request)).error).toBeNull(); // prettier-ignore
      expect((await getVaultByPubkey(unit.store.db, dave.vaultPubkey))!.threshold_cents).toBe(7_951_500); // prettier-ignore
      // Guardian 1's exchanges fall too: the quorum is guardians 1 and 3's median, $79,250. The app's
      // price, its price event and its sweep follow: dave is liquidated. Guardians 1 and 3 sign the
      // repossess, guardian 2 never approves.
      await exchangesAt(1, '79500');
      await quorumAt(unit, 7_925_000);
      expect(await appPrice()).toMatchObject({ USD: 79_250, stale: false });
      await events.next((e) => e.type === 'price' && e.data.USD === 79_250, 30_000);
      await expect.poll(() => status(dave), { timeout: 30_000 }).toBe('liquidated');
      const prices = events.events.flatMap((e) => (e.type === 'price' ? [e.data.USD] : []));
      expect(new Set(prices)).toEqual(new Set([95_000, 79_250]));
      events.close();
      const { request } = await bob.repossess(carol.vaultPubkey, claimed.vault_id);
      const late = await send('vault.repossess', request);
      expect(late.error).toBeNull();
      expect(late.approvals.guardians.map((g) => g.state)).toEqual([
        'approved',
        expect.not.stringMatching(/^approved$/),
        'approved',
      ]);
      expect((await getVaultByPubkey(unit.store.db, carol.vaultPubkey))!.status).not.toBe(
        'liquidated',
      );
    } finally {
      await exchangesAt(1, HONEST_USD);
      await exchangesAt(3, LOW_USD);
      await quorumAt(unit, 9_500_000);
    }
  }, 120_000);

  it("with two guardians' feeds down there is no quorum: the price goes stale and nothing is signed", async () => {
    const before = (await getVaultByPubkey(unit.store.db, alice.vaultPubkey))!;
    const { request } = await alice.borrow(5_000n);
    for (const id of [1, 2]) for (const f of feeds.get(id)!) f.behave({ answer: 'http500' });
    await untilEvery([1, 2], false);
    const round = await collectPriceQuorum(set, { timeoutMs: 3_000 });
    expect(round.valid).toBe(false);
    expect(round.left.map((l) => l.guardian)).toEqual([1, 2]);
    // The request made on the last quorum: guardians 1 and 2 have no price, 3 is 10% off. Unless
    // the app's own 5 s round has already seen the quorum gone (a loaded machine can take that
    // long to get here): then the app refuses it itself, stale, before asking any guardian.
    const { error, approvals } = await send('vault.borrow', request);
    if (error?.code === 'no_price') expect(approvals).toBeUndefined();
    else {
      expect(error?.code).toBe('guardians_refused');
      expect(approvals.guardians.some((g) => g.state === 'approved')).toBe(false);
      expect(approvals.guardians.find((g) => g.id === 1)!.reason).toMatch(
        /^this guardian has no fresh price/,
      );
    }
    expect(await getVaultByPubkey(unit.store.db, alice.vaultPubkey)).toMatchObject({
      unit_borrowed: before.unit_borrowed,
    });
    // Guardians 1 and 2 answer that they have no fresh price: that withdraws their prices from the
    // last quorum, one price is left, and the quote is stale at once (oracle/quorum.ts).
    await expect
      .poll(async () => (await quoteRoute()).body.code, { timeout: 20_000, interval: 500 })
      .toBe('no_price');
    const refusal = await quoteRoute();
    expect(refusal.status).toBe(503);
    // the user reads the cause, a full sentence, and what to do
    expect(refusal.body.error).toBe(PRICE_PAUSE_COPY.refusal.no_quorum);
    // The app's own price is stale with it (the page's stale state, no sweep): the next round. The
    // page is told why, so its paused banner names the guardians' quorum before any click.
    await unit.oracle.refreshQuorum();
    expect(await appPrice()).toMatchObject({ USD: 95_000, stale: true, stale_reason: 'no_quorum' });
    const answer = (await (await fetch(`${unit.url}/api/health`)).json()) as {
      price_stale: boolean;
    };
    expect(answer.price_stale).toBe(true);
  }, 60_000);
});
