// The devnet on PostgreSQL: the same chain rules with pg's bigint-as-string rows. Runs when
// TEST_DATABASE_URL is set (scripts/ensure-postgres.sh), like the storage suite.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Transaction } from '@scure/btc-signer';
import { encodeRunestone, parseRuneId } from '@unit/bitcoin';
import { createDevnet } from '../../src/devnet/devnet';
import {
  ALICE,
  BOB,
  dropPostgresSchema,
  openPostgresTestDb,
  signedSpend,
  TREASURY,
  type TestDb,
} from './fixtures';

const pgUrl = process.env.TEST_DATABASE_URL;
/** The faucet's key file: the devnet keeps the key there, never in its tables. */
const faucetKeyFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'devnet-pg-')), 'faucet.key');

/** The devnet over `db`, its faucet key in the file above. */
const openDevnet = (db: TestDb['db']) =>
  createDevnet({ db, treasuryScript: TREASURY.trScript, blockIntervalMs: 0, faucetKeyFile });

/** A devnet over `db` where Alice holds `sats` in a block: the devnet and her coin. */
async function fundedAlice(db: TestDb['db'], sats: bigint) {
  const devnet = await openDevnet(db);
  const funding = await devnet.fund(ALICE.address, sats);
  await devnet.mine(1);
  const vout = (await devnet.getTx(funding))!.outputs.findIndex((o) => o.address === ALICE.address);
  return { devnet, funding, vout };
}

describe.runIf(pgUrl)('devnet on PostgreSQL', () => {
  it('moves BTC and UNIT, refuses a double spend, and survives a restart', async () => {
    const url = pgUrl!;
    const first = await openPostgresTestDb(url);
    try {
      const { devnet, funding, vout } = await fundedAlice(first.db, 80_000n);
      const [treasury] = await devnet.unitOutputs(TREASURY.trAddress);
      const transfer = signedSpend(
        [
          {
            txid: treasury!.txid,
            vout: treasury!.vout,
            value: 10_000n,
            key: TREASURY,
            taproot: true,
          },
          { txid: funding, vout, value: 80_000n, key: ALICE },
        ],
        [
          { script: TREASURY.trScript, amount: 10_000n },
          { script: BOB.script, amount: 10_000n },
          {
            script: encodeRunestone({
              edicts: [{ id: parseRuneId(devnet.unitRuneId), amount: 2_500n, output: 1 }],
              pointer: 0,
            }),
            amount: 0n,
          },
          { script: ALICE.script, amount: 69_000n },
        ],
      );
      await devnet.broadcast(transfer.hex);
      const conflict = signedSpend(
        [{ txid: funding, vout, value: 80_000n, key: ALICE }],
        [{ script: BOB.script, amount: 70_000n }],
      );
      await expect(devnet.broadcast(conflict.hex)).rejects.toThrow('txn-mempool-conflict');
      await devnet.mine(1);
      const tip = await devnet.tip();
      await first.close();

      const second = await openPostgresTestDb(url, first.schema);
      const after = await openDevnet(second.db);
      expect(await after.tip()).toEqual(tip);
      expect((await after.unitOutputs(BOB.address)).map((o) => o.unit_amount)).toEqual([2_500]);
      // Genesis splits the supply over 8 outputs; the spent one's change holds its share less 2,500.
      const treasuryAmounts = (await after.unitOutputs(TREASURY.trAddress))
        .filter((o) => !o.spent)
        .map((o) => o.unit_amount)
        .sort((a, b) => a - b);
      expect(treasuryAmounts).toEqual([12_500_000_000 - 2_500, ...Array(7).fill(12_500_000_000)]);
      const stats = await after.addressStats(ALICE.address);
      expect(stats.chain_stats).toMatchObject({
        funded_txo_sum: 80_000 + 69_000,
        spent_txo_sum: 80_000,
        tx_count: 2,
      });
      expect(await after.fees()).toEqual({
        fastestFee: 3,
        halfHourFee: 2,
        hourFee: 1,
        economyFee: 1,
        minimumFee: 1,
      });
      await second.close();
    } finally {
      await dropPostgresSchema(url, first.schema);
    }
  });

  it('holds lock times, BIP-68 and the 25-transaction chain limit, and reads its esplora lists', async () => {
    const url = pgUrl!;
    const store = await openPostgresTestDb(url);
    try {
      const { devnet, funding, vout } = await fundedAlice(store.db, 1_000_000n);
      const tip = (await devnet.tip()).height;
      const first = { txid: funding, vout, value: 1_000_000n, key: ALICE };
      const locked = (lockTime: number, sequence: number) => {
        const tx = new Transaction({ lockTime });
        tx.addInput({
          txid: funding,
          index: vout,
          witnessUtxo: { script: ALICE.script, amount: 1_000_000n },
          sequence,
        });
        tx.addOutput({ script: ALICE.script, amount: 999_000n });
        tx.sign(ALICE.secret);
        tx.finalize();
        return tx;
      };
      await expect(devnet.broadcast(locked(tip + 5, 0xfffffffe).hex)).rejects.toThrow('non-final');
      await expect(devnet.broadcast(locked(0, 4).hex)).rejects.toThrow('non-BIP68-final');
      let last = signedSpend([first], [{ script: ALICE.script, amount: 999_000n }]);
      await devnet.broadcast(last.hex);
      for (let i = 2; i <= 26; i++) {
        const next = signedSpend(
          [{ txid: last.id, vout: 0, value: last.getOutput(0).amount!, key: ALICE }],
          [{ script: ALICE.script, amount: last.getOutput(0).amount! - 1_000n }],
        );
        if (i === 26) {
          await expect(devnet.broadcast(next.hex)).rejects.toThrow(
            'too-long-mempool-chain, too many unconfirmed ancestors [limit: 25]',
          );
          break;
        }
        await devnet.broadcast(next.hex);
        last = next;
      }
      const stats = await devnet.mempoolStats();
      expect(stats.count).toBe(25);
      expect(stats.total_fee).toBe(25_000);
      const recent = await devnet.mempoolRecent();
      expect(recent[0]).toMatchObject({ txid: last.id, fee: 1_000, value: 999_000 - 24_000 });
      expect(await devnet.outspends(funding)).toHaveLength(
        (await devnet.getTx(funding))!.outputs.length,
      );
      const blocks = await devnet.esploraBlocks();
      expect(blocks[0]!.height).toBe(tip);
    } finally {
      await store.close();
      await dropPostgresSchema(url, store.schema);
    }
  });
});
