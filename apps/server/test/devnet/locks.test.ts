// The devnet's mempool takes only what Bitcoin Core would: a transaction final in the next block
// (nLockTime against height and median time past), its BIP-68 relative locks met, and its chain of
// unconfirmed ancestors and descendants within Core's default limits, each refused with Core's reason.
import { describe, expect, it } from 'vitest';
import { Transaction } from '@scure/btc-signer';
import { ALICE, BOB, devnetPerTest, refusal, type Devnet } from './fixtures';

const openDevnet = devnetPerTest();

const START_MS = Date.UTC(2026, 0, 1);

async function fresh() {
  let now = START_MS;
  const { devnet } = await openDevnet({ now: () => now });
  /** Mines `n` blocks, the clock `stepS` seconds further for each. */
  const mine = async (n = 1, stepS = 600) => {
    for (let i = 0; i < n; i++) {
      now += stepS * 1000;
      await devnet.mine(1);
    }
  };
  return { devnet, mine };
}

interface Coin {
  txid: string;
  vout: number;
  value: bigint;
}

async function coin(devnet: Devnet, sats: bigint, confirm = true): Promise<Coin> {
  const txid = await devnet.fund(ALICE.address, sats);
  if (confirm) await devnet.mine(1);
  const vout = (await devnet.getTx(txid))!.outputs.findIndex((o) => o.address === ALICE.address);
  return { txid, vout, value: sats };
}

/** Alice spends `coins` to `outputs` outputs of Bob's (the fee split off the first). */
function spend(
  coins: Coin[],
  opts: {
    version?: number;
    lockTime?: number;
    sequence?: number;
    outputs?: number;
    fee?: bigint;
    opReturn?: number;
  } = {},
): Transaction {
  const tx = new Transaction({
    version: opts.version ?? 2,
    lockTime: opts.lockTime ?? 0,
    allowUnknownOutputs: true,
  });
  for (const c of coins)
    tx.addInput({
      txid: c.txid,
      index: c.vout,
      witnessUtxo: { script: ALICE.script, amount: c.value },
      sequence: opts.sequence ?? 0xffffffff,
    });
  const total = coins.reduce((s, c) => s + c.value, 0n) - (opts.fee ?? 1_000n);
  const count = BigInt(opts.outputs ?? 1);
  for (let i = 0n; i < count; i++)
    tx.addOutput({
      script: ALICE.script,
      amount: total / count + (i === 0n ? total % count : 0n),
    });
  if (opts.opReturn)
    tx.addOutput({
      script: Uint8Array.of(
        0x6a,
        0x4d,
        opts.opReturn & 0xff,
        opts.opReturn >> 8,
        ...new Uint8Array(opts.opReturn),
      ),
      amount: 0n,
    });
  tx.sign(ALICE.secret);
  tx.finalize();
  return tx;
}

/** The outputs of a transaction as coins Alice can spend. */
const coinsOf = (tx: Transaction): Coin[] =>
  Array.from({ length: tx.outputsLength }, (_, vout) => ({
    txid: tx.id,
    vout,
    value: tx.getOutput(vout).amount!,
  })).filter((c) => c.value > 0n);

describe('nLockTime finality', () => {
  it('refuses a height lock not below the next block, takes one that is', async () => {
    const { devnet, mine } = await fresh();
    const c = await coin(devnet, 100_000n);
    const tip = (await devnet.tip()).height;
    // The next block is tip + 1: a lock at tip + 1 is not yet final, one at tip is.
    const early = spend([c], { lockTime: tip + 1, sequence: 0xfffffffe });
    expect(await refusal(devnet.broadcast(early.hex))).toBe('non-final');
    expect(await devnet.mempoolTxids()).toEqual([]);
    await mine(1);
    expect(await devnet.broadcast(early.hex)).toBe(early.id);
    await mine(1);
    expect((await devnet.txStatus(early.id))?.confirmed).toBe(true);
  });

  it('refuses a time lock of 1,900,000,000 (a time years ahead), takes one behind the median time past', async () => {
    const { devnet } = await fresh();
    const c = await coin(devnet, 100_000n);
    const far = spend([c], { lockTime: 1_900_000_000, sequence: 0xfffffffd });
    expect(await refusal(devnet.broadcast(far.hex))).toBe('non-final');
    await devnet.mine(1);
    expect(await devnet.txStatus(far.id)).toBeNull();
    // A time already behind the tip's median time past is final.
    const mtp = await devnet.medianTimePastAt((await devnet.tip()).height);
    const past = spend([c], { lockTime: mtp - 1, sequence: 0xfffffffd });
    expect(await devnet.broadcast(past.hex)).toBe(past.id);
  });

  it('compares a time lock with the median time past, not the newest block time', async () => {
    const { devnet, mine } = await fresh();
    const c = await coin(devnet, 100_000n);
    await mine(11);
    const tip = await devnet.tip();
    const mtp = await devnet.medianTimePastAt(tip.height);
    expect(mtp).toBeLessThan(tip.time);
    const between = spend([c], { lockTime: mtp, sequence: 0 });
    expect(await refusal(devnet.broadcast(between.hex))).toBe('non-final');
  });

  it('takes any lock time when every input is final (nSequence 0xffffffff)', async () => {
    const { devnet } = await fresh();
    const c = await coin(devnet, 100_000n);
    const tx = spend([c], { lockTime: 1_900_000_000 });
    expect(await devnet.broadcast(tx.hex)).toBe(tx.id);
  });
});

describe('BIP-68 relative locks', () => {
  it('waits the number of blocks an input asks, counted from its coin', async () => {
    const { devnet, mine } = await fresh();
    const c = await coin(devnet, 100_000n);
    const tx = spend([c], { sequence: 3 });
    // The coin is at the tip: valid at tip + 3 at the earliest, so two more blocks.
    expect(await refusal(devnet.broadcast(tx.hex))).toBe('non-BIP68-final');
    await mine(1);
    expect(await refusal(devnet.broadcast(tx.hex))).toBe('non-BIP68-final');
    await mine(1);
    expect(await devnet.broadcast(tx.hex)).toBe(tx.id);
  });

  it('applies to version 2 only, and not to inputs with the disable flag', async () => {
    const { devnet } = await fresh();
    const [a, b] = [await coin(devnet, 100_000n), await coin(devnet, 100_000n)];
    const v1 = spend([a], { version: 1, sequence: 100 });
    expect(await devnet.broadcast(v1.hex)).toBe(v1.id);
    const disabled = spend([b], { sequence: (0x80000000 | 100) >>> 0 });
    expect(await devnet.broadcast(disabled.hex)).toBe(disabled.id);
  });

  it('refuses a relative lock on a coin still in the mempool', async () => {
    const { devnet } = await fresh();
    const parent = await coin(devnet, 100_000n, false);
    expect(await refusal(devnet.broadcast(spend([parent], { sequence: 1 }).hex))).toBe(
      'non-BIP68-final',
    );
    const free = spend([parent], { sequence: 0 });
    expect(await devnet.broadcast(free.hex)).toBe(free.id);
  });

  it('waits 512-second units of median time past for a time-based lock', async () => {
    const { devnet, mine } = await fresh();
    const c = await coin(devnet, 100_000n);
    // Type flag, 2 units: 1,024 s of median time past after the coin's block's parent.
    const tx = spend([c], { sequence: 0x00400000 | 2 });
    expect(await refusal(devnet.broadcast(tx.hex))).toBe('non-BIP68-final');
    await mine(6, 100);
    expect(await refusal(devnet.broadcast(tx.hex))).toBe('non-BIP68-final');
    await mine(12, 100);
    expect(await devnet.broadcast(tx.hex)).toBe(tx.id);
  });
});

describe('ancestor and descendant limits', () => {
  it('takes a chain of 25 unconfirmed transactions and refuses the 26th', async () => {
    const { devnet } = await fresh();
    let last = spend([await coin(devnet, 1_000_000n)]);
    await devnet.broadcast(last.hex);
    for (let i = 2; i <= 25; i++) {
      last = spend(coinsOf(last));
      await devnet.broadcast(last.hex);
    }
    expect(await devnet.mempoolTxids()).toHaveLength(25);
    const next = spend(coinsOf(last));
    expect(await refusal(devnet.broadcast(next.hex))).toBe(
      'too-long-mempool-chain, too many unconfirmed ancestors [limit: 25]',
    );
    // Once the chain confirms, the same transaction is welcome.
    await devnet.mine(1);
    expect(await devnet.broadcast(next.hex)).toBe(next.id);
  });

  it('lets the faucet pay from mined outputs first, so its payments do not chain', async () => {
    const { devnet, mine } = await fresh();
    await mine(6);
    for (let i = 0; i < 6; i++) {
      const txid = await devnet.fund(BOB.address, 10_000n);
      for (const input of (await devnet.getTx(txid))!.inputs)
        expect((await devnet.txStatus(input.txid))?.confirmed).toBe(true);
    }
  });

  it('refuses a 25th descendant of one unconfirmed transaction', async () => {
    const { devnet } = await fresh();
    const parent = spend([await coin(devnet, 3_000_000n)], { outputs: 25 });
    await devnet.broadcast(parent.hex);
    const outputs = coinsOf(parent);
    for (let i = 0; i < 24; i++) await devnet.broadcast(spend([outputs[i]!]).hex);
    expect(await refusal(devnet.broadcast(spend([outputs[24]!]).hex))).toBe(
      `too-long-mempool-chain, too many descendants for tx ${parent.id} [limit: 25]`,
    );
  });

  it('refuses a chain past 101 kvB', async () => {
    const { devnet } = await fresh();
    // Each transaction carries a 30,000-byte OP_RETURN: four of them pass 101,000 vB.
    let last = spend([await coin(devnet, 1_000_000n)], { opReturn: 30_000, fee: 40_000n });
    await devnet.broadcast(last.hex);
    for (let i = 0; i < 2; i++) {
      last = spend(coinsOf(last), { opReturn: 30_000, fee: 40_000n });
      await devnet.broadcast(last.hex);
    }
    const fourth = spend(coinsOf(last), { opReturn: 30_000, fee: 40_000n });
    const [first] = await devnet.mempoolTxids();
    expect(await refusal(devnet.broadcast(fourth.hex))).toBe(
      `too-long-mempool-chain, exceeds descendant size limit for tx ${first} [limit: 101000]`,
    );
    // Bob's unrelated payment is not held back by Alice's chain.
    const other = await coin(devnet, 50_000n);
    const tx = new Transaction();
    tx.addInput({
      txid: other.txid,
      index: other.vout,
      witnessUtxo: { script: ALICE.script, amount: other.value },
    });
    tx.addOutput({ script: BOB.script, amount: 49_000n });
    tx.sign(ALICE.secret);
    tx.finalize();
    expect(await devnet.broadcast(tx.hex)).toBe(tx.id);
  });
});
