// BIP-125 in the devnet's mempool: only a signalling transaction is replaced, only by one that pays
// enough (rules 3 and 4 and a higher fee rate), and the replaced transaction and its descendants
// leave the mempool, the UTXO set and the esplora routes, while the explorer points to the new one.
import { afterEach, describe, expect, it } from 'vitest';
import Fastify from 'fastify';
import { registerDevnetRoutes } from '../../src/devnet/http';
import { ALICE, BOB, type Devnet, openTestDevnet, refusal, signedSpend } from './fixtures';

const RBF = 0xfffffffd;

let cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups) await cleanup();
  cleanups = [];
});

async function fresh() {
  const { devnet, store } = await openTestDevnet();
  cleanups.push(async () => {
    devnet.stop();
    await store.close();
    store.cleanup();
  });
  return devnet;
}

async function coin(devnet: Devnet, sats: bigint) {
  const txid = await devnet.fund(ALICE.address, sats);
  await devnet.mine(1);
  const vout = (await devnet.getTx(txid))!.outputs.findIndex((o) => o.address === ALICE.address);
  return { txid, vout, value: sats, key: ALICE };
}

describe('BIP-125 replacement in the devnet mempool', () => {
  it('refuses to replace a transaction that does not signal', async () => {
    const devnet = await fresh();
    const input = await coin(devnet, 100_000n);
    const original = signedSpend([input], [{ script: BOB.script, amount: 99_800n }]);
    await devnet.broadcast(original.hex);
    const richer = signedSpend(
      [{ ...input, sequence: RBF }],
      [{ script: BOB.script, amount: 90_000n }],
    );
    expect(await refusal(devnet.broadcast(richer.hex))).toBe('txn-mempool-conflict');
    expect(await devnet.mempoolTxids()).toEqual([original.id]);
  });

  it('refuses a replacement at the same fee rate, or short of the incremental relay fee', async () => {
    const devnet = await fresh();
    const input = await coin(devnet, 100_000n);
    const original = signedSpend(
      [{ ...input, sequence: RBF }],
      [{ script: BOB.script, amount: 99_800n }],
    );
    await devnet.broadcast(original.hex);
    const fee = 200n;
    const vsize = original.vsize;

    // The same fee and size to another address: the same fee rate, which does not replace.
    const sameRate = signedSpend(
      [{ ...input, sequence: RBF }],
      [{ script: ALICE.script, amount: 100_000n - fee }],
    );
    expect(await refusal(devnet.broadcast(sameRate.hex))).toMatch(
      /^insufficient fee, rejecting replacement [0-9a-f]{64}; new feerate/,
    );

    // More fee and a higher rate, but less than the original's fee plus 1 sat/vB of its own size.
    const short = signedSpend(
      [{ ...input, sequence: RBF }],
      [{ script: BOB.script, amount: 100_000n - fee - BigInt(vsize) + 1n }],
    );
    expect(await refusal(devnet.broadcast(short.hex))).toMatch(
      /not enough additional fees to relay/,
    );
    expect(await devnet.mempoolTxids()).toEqual([original.id]);
  });

  it('accepts one that pays enough, evicting the original and its descendants', async () => {
    const devnet = await fresh();
    const input = await coin(devnet, 100_000n);
    const original = signedSpend(
      [{ ...input, sequence: RBF }],
      [{ script: ALICE.script, amount: 99_800n }],
    );
    await devnet.broadcast(original.hex);
    // A child spending the original's output, and a grandchild spending the child's.
    const child = signedSpend(
      [{ txid: original.id, vout: 0, value: 99_800n, key: ALICE }],
      [{ script: ALICE.script, amount: 99_500n }],
    );
    await devnet.broadcast(child.hex);
    const grandchild = signedSpend(
      [{ txid: child.id, vout: 0, value: 99_500n, key: ALICE }],
      [{ script: BOB.script, amount: 99_200n }],
    );
    await devnet.broadcast(grandchild.hex);
    const evictedFees = 200n + 300n + 300n;

    // Rule 3: the descendants' fees count; paying just over the original alone is not enough.
    const notAll = signedSpend(
      [{ ...input, sequence: RBF }],
      [{ script: BOB.script, amount: 100_000n - 200n - 200n }],
    );
    expect(await refusal(devnet.broadcast(notAll.hex))).toMatch(/less fees than conflicting txs/);

    const fee = evictedFees + 200n;
    const replacement = signedSpend(
      [{ ...input, sequence: RBF }],
      [{ script: BOB.script, amount: 100_000n - fee }],
    );
    expect(await devnet.broadcast(replacement.hex)).toBe(replacement.id);

    expect(await devnet.mempoolTxids()).toEqual([replacement.id]);
    for (const gone of [original.id, child.id, grandchild.id]) {
      expect(await devnet.getTx(gone)).toBeNull();
      expect(await devnet.replacedBy(gone)).toBe(replacement.id);
    }
    expect(await devnet.outspend(input.txid, input.vout)).toMatchObject({
      spent: true,
      txid: replacement.id,
    });
    // The evicted outputs are gone from the address's UTXOs; Bob holds only the replacement's.
    expect((await devnet.utxos(BOB.address)).map((u) => u.txid)).toEqual([replacement.id]);
    expect(
      (await devnet.utxos(ALICE.address)).some(
        (u) => u.txid === original.id || u.txid === child.id,
      ),
    ).toBe(false);
    expect((await devnet.getTx(replacement.id))!.fee).toBe(Number(fee));

    await devnet.mine(1);
    expect((await devnet.txStatus(replacement.id))?.confirmed).toBe(true);
  });

  it('refuses a replacement that adds an unconfirmed input', async () => {
    const devnet = await fresh();
    const input = await coin(devnet, 100_000n);
    const other = await coin(devnet, 50_000n);
    const original = signedSpend(
      [{ ...input, sequence: RBF }],
      [{ script: BOB.script, amount: 99_800n }],
    );
    await devnet.broadcast(original.hex);
    const unconfirmed = signedSpend([other], [{ script: ALICE.script, amount: 49_800n }]);
    await devnet.broadcast(unconfirmed.hex);
    const replacement = signedSpend(
      [
        { ...input, sequence: RBF },
        { txid: unconfirmed.id, vout: 0, value: 49_800n, key: ALICE },
      ],
      [{ script: BOB.script, amount: 140_000n }],
    );
    expect(await refusal(devnet.broadcast(replacement.hex))).toBe('replacement-adds-unconfirmed');
  });

  it('esplora answers 404 for the replaced txid and the explorer links to the replacement', async () => {
    const devnet = await fresh();
    const app = Fastify();
    cleanups.push(() => app.close());
    await registerDevnetRoutes(app, devnet, { network: 'devnet' });
    const input = await coin(devnet, 100_000n);
    const original = signedSpend(
      [{ ...input, sequence: RBF }],
      [{ script: BOB.script, amount: 99_800n }],
    );
    await devnet.broadcast(original.hex);
    const replacement = signedSpend(
      [{ ...input, sequence: RBF }],
      [{ script: BOB.script, amount: 99_000n }],
    );
    const posted = await app.inject({
      method: 'POST',
      url: '/esplora/tx',
      payload: replacement.hex,
      headers: { 'content-type': 'text/plain' },
    });
    expect(posted.body).toBe(replacement.id);

    expect((await app.inject(`/esplora/tx/${original.id}`)).statusCode).toBe(404);
    expect((await app.inject(`/esplora/tx/${replacement.id}`)).json()).toMatchObject({
      fee: 1_000,
      status: { confirmed: false },
    });
    const page = await app.inject(`/explorer/tx/${original.id}`);
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('Replaced');
    expect(page.body).toContain(`/explorer/tx/${replacement.id}`);
  });
});
