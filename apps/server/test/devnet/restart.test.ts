import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createDevnet } from '../../src/devnet/devnet';
import { ALICE, BOB, openTestDb, signedSpend, TREASURY } from './fixtures';

describe('devnet persistence', () => {
  it('keeps blocks, mempool, balances and the faucet key across a restart on the same database', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'devnet-restart-'));
    try {
      const first = await openTestDb(dir);
      const before = await createDevnet({
        db: first.db,
        treasuryScript: TREASURY.trScript,
        blockIntervalMs: 0,
        faucetKeyFile: join(dir, 'faucet.key'),
      });
      const funding = await before.fund(ALICE.address, 60_000n);
      await before.mine(2);
      const vout = (await before.getTx(funding))!.outputs.findIndex(
        (o) => o.address === ALICE.address,
      );
      const waiting = signedSpend(
        [{ txid: funding, vout, value: 60_000n, key: ALICE }],
        [{ script: BOB.script, amount: 59_000n }],
      );
      await before.broadcast(waiting.hex);
      const tip = await before.tip();
      const treasury = await before.unitOutputs(TREASURY.trAddress);
      await first.close();

      const second = await openTestDb(dir);
      const after = await createDevnet({
        db: second.db,
        treasuryScript: TREASURY.trScript,
        blockIntervalMs: 0,
        faucetKeyFile: join(dir, 'faucet.key'),
      });
      expect(await after.tip()).toEqual(tip);
      expect(after.faucetAddress).toBe(before.faucetAddress);
      expect(after.unitRuneId).toBe(before.unitRuneId);
      expect(await after.mempoolTxids()).toEqual([waiting.id]);
      expect(await after.unitOutputs(TREASURY.trAddress)).toEqual(treasury);
      // The restarted chain goes on from where it stopped, and still refuses the spent coin.
      await expect(after.broadcast(waiting.hex)).rejects.toThrow('txn-already-in-mempool');
      const [hash] = await after.mine(1);
      expect(await after.txStatus(waiting.id)).toMatchObject({
        confirmed: true,
        block_height: tip.height + 1,
        block_hash: hash,
      });
      expect((await after.addressStats(BOB.address)).chain_stats.funded_txo_sum).toBe(59_000);
      await second.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
