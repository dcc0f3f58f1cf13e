import { afterEach, describe, expect, it } from 'vitest';
import { hex } from '@scure/base';
import { Transaction } from '@scure/btc-signer';
import { decodeRunestone, transactionOutputs } from '@unit/bitcoin';
import {
  ALICE,
  BOB,
  type Devnet,
  GUARDIAN,
  openTestDevnet,
  refusal,
  signedSpend,
  TEST_FAUCET_SECRET,
  TREASURY,
} from './fixtures';

const opReturn = (data: string) =>
  hex.decode(`6a${(data.length / 2).toString(16).padStart(2, '0')}${data}`);

let cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups) await cleanup();
  cleanups = [];
});

async function fresh(now?: () => number) {
  const { devnet, store } = await openTestDevnet(now ? { now } : {});
  cleanups.push(async () => {
    devnet.stop();
    await store.close();
    store.cleanup();
  });
  return { devnet, store };
}

/** Funds the key's P2WPKH address from the faucet, mines it, and returns the output. */
async function fundedOutput(devnet: Devnet, key: typeof ALICE, sats: bigint) {
  const txid = await devnet.fund(key.address, sats);
  await devnet.mine(1);
  const tx = await devnet.getTx(txid);
  const vout = tx!.outputs.findIndex((o) => o.address === key.address);
  return { txid, vout, value: sats, key };
}

describe('devnet genesis', () => {
  it('etches UNIT with divisibility 2 and premines the whole supply over 8 treasury outputs', async () => {
    const { devnet } = await fresh();
    expect(devnet.unitRuneId).toBe('1:1');
    expect((await devnet.tip()).height).toBe(1);
    const treasury = await devnet.unitOutputs(TREASURY.trAddress);
    // One output per concurrent reservation; together they hold the whole supply.
    expect(treasury).toHaveLength(8);
    expect(treasury.map((o) => o.unit_amount)).toEqual(Array(8).fill(12_500_000_000));
    expect(treasury.every((o) => o.btc_amount === 10_000)).toBe(true);
    expect(new Set(treasury.map((o) => o.txid)).size).toBe(1);

    const etchingHex = await devnet.txHex(treasury[0]!.txid);
    const artifact = decodeRunestone(transactionOutputs(etchingHex!));
    expect(artifact && 'runestone' in artifact ? artifact.runestone.etching : null).toMatchObject({
      rune: 'UNITRUNETOKEN',
      divisibility: 2,
      symbol: '¤',
      premine: 100_000_000_000n,
    });
  });

  it('funds the guardian and the faucet at genesis', async () => {
    const { devnet } = await fresh();
    const guardian = await devnet.addressStats(GUARDIAN.address);
    expect(guardian.chain_stats.funded_txo_sum).toBe(10 * 100_000_000);
    const faucet = await devnet.addressStats(devnet.faucetAddress);
    const balance = faucet.chain_stats.funded_txo_sum - faucet.chain_stats.spent_txo_sum;
    expect(balance).toBeGreaterThan(900 * 100_000_000);
  });

  it('uses tb1 addresses for the faucet', async () => {
    const { devnet } = await fresh();
    expect(devnet.faucetAddress).toMatch(/^tb1q/);
  });
});

describe('devnet blocks and the faucet', () => {
  it('keeps a faucet payment in the mempool until a block confirms it', async () => {
    const { devnet } = await fresh();
    const txid = await devnet.fund(ALICE.address, 150_000_000n);
    expect(await devnet.txStatus(txid)).toEqual({ confirmed: false });
    expect((await devnet.addressStats(ALICE.address)).mempool_stats.funded_txo_sum).toBe(
      150_000_000,
    );
    expect(await devnet.mempoolTxids()).toEqual([txid]);

    const [hash] = await devnet.mine(1);
    const status = await devnet.txStatus(txid);
    expect(status).toMatchObject({ confirmed: true, block_height: 2, block_hash: hash });
    const stats = await devnet.addressStats(ALICE.address);
    expect(stats.chain_stats).toMatchObject({
      funded_txo_sum: 150_000_000,
      funded_txo_count: 1,
      tx_count: 1,
    });
    expect(stats.mempool_stats.funded_txo_sum).toBe(0);
    await devnet.mine(2);
    expect((await devnet.getTx(txid))!.confirmations).toBe(3);
  });

  it('pays the subsidy plus the fees of the block to the faucet in the coinbase', async () => {
    const { devnet } = await fresh();
    const txid = await devnet.fund(ALICE.address, 10_000n);
    const fee = (await devnet.getTx(txid))!.fee;
    await devnet.mine(1);
    const coinbase = (await devnet.addressTxids(devnet.faucetAddress))[0]!;
    const tx = await devnet.getTx(coinbase);
    expect(tx!.inputs[0]!.is_coinbase).toBe(true);
    expect(tx!.outputs).toEqual([
      expect.objectContaining({ address: devnet.faucetAddress, value: 50 * 100_000_000 + fee }),
    ]);
  });

  it('chains several faucet payments inside one block', async () => {
    const { devnet } = await fresh();
    const first = await devnet.fund(ALICE.address, 100n * 100_000_000n);
    const second = await devnet.fund(BOB.address, 100n * 100_000_000n);
    await devnet.mine(1);
    expect((await devnet.txStatus(first))!.block_height).toBe(2);
    expect((await devnet.txStatus(second))!.block_height).toBe(2);
  });

  it('serialises txids and raw hex as real transactions', async () => {
    const { devnet } = await fresh();
    const txid = await devnet.fund(ALICE.address, 20_000n);
    const raw = await devnet.txHex(txid);
    expect(Transaction.fromRaw(hex.decode(raw!)).id).toBe(txid);
  });

  it('mines on its timer when started and stops when told', async () => {
    const { devnet, store } = await openTestDevnet();
    const { createDevnet } = await import('../../src/devnet/devnet');
    const timed = await createDevnet({
      db: store.db,
      treasuryScript: TREASURY.trScript,
      blockIntervalMs: 20,
      faucetSecret: TEST_FAUCET_SECRET,
    });
    cleanups.push(async () => {
      timed.stop();
      await store.close();
      store.cleanup();
    });
    const seen: number[] = [];
    timed.onBlock((tip) => seen.push(tip.height));
    timed.start();
    await new Promise((resolve) => setTimeout(resolve, 150));
    timed.stop();
    expect(seen.length).toBeGreaterThanOrEqual(2);
    const height = (await devnet.tip()).height;
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect((await devnet.tip()).height).toBe(height);
  });
});

describe('devnet refusals', () => {
  it('refuses malformed hex', async () => {
    const { devnet } = await fresh();
    expect(await refusal(devnet.broadcast('zz'))).toBe('TX decode failed');
    expect(await refusal(devnet.broadcast('0200000001'))).toBe('TX decode failed');
  });

  it('refuses a spend of an output that does not exist', async () => {
    const { devnet } = await fresh();
    const tx = signedSpend(
      [{ txid: 'ab'.repeat(32), vout: 0, value: 50_000n, key: ALICE }],
      [{ script: BOB.script, amount: 40_000n }],
    );
    expect(await refusal(devnet.broadcast(tx.hex))).toBe('bad-txns-inputs-missingorspent');
  });

  it('refuses a double spend against the mempool', async () => {
    const { devnet } = await fresh();
    const coin = await fundedOutput(devnet, ALICE, 100_000n);
    const first = signedSpend([coin], [{ script: BOB.script, amount: 90_000n }]);
    const second = signedSpend([coin], [{ script: BOB.script, amount: 80_000n }]);
    expect(await devnet.broadcast(first.hex)).toBe(first.id);
    expect(await refusal(devnet.broadcast(second.hex))).toBe('txn-mempool-conflict');
    expect(await refusal(devnet.broadcast(first.hex))).toBe('txn-already-in-mempool');
  });

  it('refuses a double spend of an output spent in a block', async () => {
    const { devnet } = await fresh();
    const coin = await fundedOutput(devnet, ALICE, 100_000n);
    await devnet.broadcast(signedSpend([coin], [{ script: BOB.script, amount: 90_000n }]).hex);
    await devnet.mine(1);
    const again = signedSpend([coin], [{ script: BOB.script, amount: 80_000n }]);
    expect(await refusal(devnet.broadcast(again.hex))).toBe('bad-txns-inputs-missingorspent');
  });

  it('refuses outputs above the inputs', async () => {
    const { devnet } = await fresh();
    const coin = await fundedOutput(devnet, ALICE, 100_000n);
    // The signer is told the coin is bigger than it is; the devnet knows its real value.
    const tx = signedSpend(
      [{ ...coin, value: 200_000n }],
      [{ script: BOB.script, amount: 100_001n }],
    );
    expect(await refusal(devnet.broadcast(tx.hex))).toBe(
      'bad-txns-in-belowout, value in (0.001) < value out (0.00100001)',
    );
  });

  it('refuses a fee rate below 1 sat/vB', async () => {
    const { devnet } = await fresh();
    const coin = await fundedOutput(devnet, ALICE, 100_000n);
    const tx = signedSpend([coin], [{ script: BOB.script, amount: 99_950n }]);
    expect(tx.vsize).toBeGreaterThan(50);
    expect(await refusal(devnet.broadcast(tx.hex))).toBe(`min relay fee not met, 50 < ${tx.vsize}`);
    const ok = signedSpend([coin], [{ script: BOB.script, amount: 100_000n - BigInt(tx.vsize) }]);
    expect(await devnet.broadcast(ok.hex)).toBe(ok.id);
  });

  it('refuses dust outputs but accepts several OP_RETURN outputs', async () => {
    const { devnet } = await fresh();
    const coin = await fundedOutput(devnet, ALICE, 100_000n);
    const dust = signedSpend([coin], [{ script: BOB.script, amount: 545n }]);
    expect(await refusal(devnet.broadcast(dust.hex))).toBe('dust');
    const tx = signedSpend(
      [coin],
      [
        { script: BOB.script, amount: 546n },
        { script: opReturn('aa'), amount: 0n },
        { script: opReturn('bb'), amount: 0n },
      ],
    );
    expect(await devnet.broadcast(tx.hex)).toBe(tx.id);
  });

  it('refuses a signature made by another key', async () => {
    const { devnet } = await fresh();
    const coin = await fundedOutput(devnet, ALICE, 100_000n);
    const tx = new Transaction();
    tx.addInput({
      txid: coin.txid,
      index: coin.vout,
      witnessUtxo: { script: BOB.script, amount: coin.value },
    });
    tx.addOutput({ script: BOB.script, amount: 90_000n });
    tx.signIdx(BOB.secret, 0);
    tx.finalize();
    expect(await refusal(devnet.broadcast(tx.hex))).toMatch(
      /^mandatory-script-verify-flag-failed \(input 0: pubkey-mismatch\)$/,
    );
  });

  it('refuses a forged signature over the right key', async () => {
    const { devnet } = await fresh();
    const coin = await fundedOutput(devnet, ALICE, 100_000n);
    const honest = signedSpend([coin], [{ script: BOB.script, amount: 90_000n }]);
    // Re-target the signed transaction to pay more to Bob: the signature no longer commits to it.
    const forged = hex
      .encode(honest.toBytes(true, true))
      .replace(
        hex.encode(new Uint8Array([0x90, 0x5f, 0x01, 0, 0, 0, 0, 0])),
        hex.encode(new Uint8Array([0x91, 0x5f, 0x01, 0, 0, 0, 0, 0])),
      );
    expect(forged).not.toBe(honest.hex);
    expect(await refusal(devnet.broadcast(forged))).toBe(
      'mandatory-script-verify-flag-failed (input 0: bad-signature)',
    );
  });

  it('accepts a P2TR key-path spend', async () => {
    const { devnet } = await fresh();
    const txid = await devnet.fund(ALICE.trAddress, 100_000n);
    const vout = (await devnet.getTx(txid))!.outputs.findIndex(
      (o) => o.address === ALICE.trAddress,
    );
    const tx = signedSpend(
      [{ txid, vout, value: 100_000n, key: ALICE, taproot: true }],
      [{ script: BOB.script, amount: 99_000n }],
    );
    expect(await devnet.broadcast(tx.hex)).toBe(tx.id);
  });
});
