// One round of the settlement at the term: every vault due at the tip is settled under its vault
// lock, signed (here by one key standing for the guardians' group key: the chain sees one BIP-340
// signature either way) and sent, the transaction passing the script check with the quote's split
// to the sat, and stored as the vault's end (settled, history `s`); a vault a request holds, or
// whose output moved, is left to a later round by name; a settlement the network did not answer is
// handed to recovery with its lock and settled from the chain; a fee rate over the cap waits.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import pino from 'pino';
import { schnorr } from '@noble/curves/secp256k1.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { hex } from '@scure/base';
import { p2tr, TEST_NETWORK } from '@scure/btc-signer';
import {
  finishSettlement,
  parseTransaction,
  settlementSighash,
  thresholdHash,
  vaultOutput,
  verifyInputs,
} from '@unit/bitcoin';
import { getVault, insertVault, migrateToLatest, openStore, type Store } from '../../src/store';
import { guardianMigrations } from '../../src/cosign/migrations';
import { acquireLocks, vaultLock } from '../../src/cosign/locks';
import { HANDED_OFF } from '../../src/cosign/settle';
import { guardianContext, type OracleForGuardian } from '../../src/cosign/context';
import { recoverRequests } from '../../src/cosign/recover';
import type { Chain, ChainOutput } from '../../src/chain/port';
import {
  settleDueVaults,
  settlementFeeRate,
  type SettleRoundDeps,
} from '../../src/cosign/term-settle-round';
import { SETTLEMENT_MAX_FEE_RATE } from '@unit/protocol';

const key = (label: string) => sha256(new TextEncoder().encode(`settle round: ${label}`));
const GROUP_SECRET = key('group');
const GROUP = schnorr.getPublicKey(GROUP_SECRET);
const HASH = thresholdHash(new Uint8Array(32).fill(5));
const TREASURY = p2tr(GROUP, undefined, TEST_NETWORK).script;
const TERM = { settleHeight: 700, exitHeight: 720 };
const PRICE = 6_000_000;

/** A vault of layout 2 with 0.03 BTC and `debt` UNIT hundredths, its row and its chain output. */
function vault(id: string, debt: number) {
  const vaultPubkey = schnorr.getPublicKey(key(`owner ${id}`));
  const output = vaultOutput({
    ...{ vaultPubkey, guardPubkey: GROUP, thresholdHash: HASH, network: TEST_NETWORK },
    term: TERM,
  });
  const txid = id.repeat(64);
  return {
    row: {
      ...{ vault_id: txid, vault_tag: `tag${id}`, vault_pubkey: hex.encode(vaultPubkey) },
      ...{ name: 'Term', creation_account: 'tb1qowner', runes_account: 'tb1qowner' },
      ...{ btc_locked: 3_000_000, unit_borrowed: debt, vault_txid: txid, vault_vout: 0 },
      ...{ threshold_cents: 4_000_000, stamp: 1_700_000_000, status: 'active' as const },
      ...{ created_at: 1_700_000_000, settle_height: TERM.settleHeight },
      exit_height: TERM.exitHeight,
    },
    chain: {
      ...{ txid, vout: 0, value: 3_000_000, address: output.address },
      ...{ script_hex: hex.encode(output.script), unit_amount: 0, spent: false },
      status: { confirmed: true },
    } as ChainOutput,
  };
}

describe('a settlement round', () => {
  let dir: string;
  let store: Store;
  let outputs: Map<string, ChainOutput>;
  let sent: string[];
  let deps: SettleRoundDeps;
  beforeEach(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'unit-settle-round-'));
    store = await openStore({ file: path.join(dir, 'unit.db') });
    await migrateToLatest(store.db, guardianMigrations);
    outputs = new Map();
    sent = [];
    const chain = {
      tip: () => Promise.resolve({ height: TERM.settleHeight, hash: '00'.repeat(32) }),
      output: (txid: string, vout: number) =>
        Promise.resolve(outputs.get(`${txid}:${vout}`) ?? null),
      broadcast: (raw: string) => {
        sent.push(raw);
        return Promise.resolve(parseTransaction(raw).id);
      },
      txStatus: (txid: string) =>
        Promise.resolve(
          sent.some((raw) => parseTransaction(raw).id === txid) ? { confirmed: false } : null,
        ),
    };
    deps = {
      db: store.db,
      chain,
      facts: { chain, thresholdHashes: () => Promise.resolve([HASH]), network: TEST_NETWORK },
      guardKeyOf: () => Promise.resolve(GROUP),
      treasuryScript: TREASURY,
      quote: () =>
        Promise.resolve({ price_cents: PRICE, time: 1, th: 0, ts: 1, signature: '00'.repeat(64) }),
      feeRate: () => Promise.resolve(2),
      sign: ({ plan, request }) =>
        Promise.resolve(
          finishSettlement(
            plan,
            request,
            schnorr.sign(settlementSighash(plan, request), GROUP_SECRET),
          ),
        ),
      instanceId: 'test',
      now: () => 1_700_000_000,
      log: pino({ level: 'silent' }),
    };
  });
  afterEach(async () => {
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  async function add(id: string, debt: number) {
    const v = vault(id, debt);
    await insertVault(store.db, v.row);
    outputs.set(`${v.chain.txid}:0`, v.chain);
    return v;
  }

  it('settles each vault due: 300 UNIT at $60,000 is 500,000 sats and 75,000 of tax', async () => {
    const a = await add('a', 300_00);
    await add('b', 0);
    const result = await settleDueVaults(deps);
    expect(result.left).toEqual([]);
    expect(result.settled.map((s) => s.vault_id)).toEqual([a.row.vault_id, 'b'.repeat(64)]);
    const tx = parseTransaction(sent[0]!);
    const prevout = { script: hex.decode(a.chain.script_hex), amount: 3_000_000n };
    expect(verifyInputs(sent[0]!, [prevout])).toEqual({ ok: true });
    expect(tx.lockTime).toBe(TERM.settleHeight);
    expect(tx.getOutput(0)).toMatchObject({ script: TREASURY, amount: 575_000n });
    const fee = 3_000_000n - 575_000n - tx.getOutput(1).amount!;
    expect(fee).toBe(2n * BigInt(Math.ceil(tx.weight / 4)));
    // No debt: the whole vault less the fee returns to its owner.
    expect(parseTransaction(sent[1]!).outputsLength).toBe(1);
    // Stored as the vault's end: settled, nothing left in it, its history `s` naming what it held.
    const row = await getVault(store.db, a.row.vault_id);
    expect(row).toMatchObject({ status: 'settled', btc_locked: 0, unit_borrowed: 0 });
    const history = await store.db.selectFrom('vault_history').selectAll().execute();
    expect(history.find((h) => h.vault_id === a.row.vault_id)).toMatchObject({
      ...{ action: 's', btc_amt: 3_000_000, unit_amt: 300_00, vault_amount: 0 },
      ...{ amount_borrowed: 0, oracle_price: 60_000, transaction_id: tx.id, confirmed: 0 },
      utxo: `${tx.id}:1`,
    });
    // Every lock the round took is free again.
    expect(await store.db.selectFrom('guardian_locks').selectAll().execute()).toEqual([]);
  });

  it('leaves a vault a request holds, or whose output moved, and settles the others', async () => {
    const held = await add('c', 100_00);
    const moved = await add('d', 100_00);
    const due = await add('e', 100_00);
    const other = { owner: 'request', instanceId: 'test' };
    expect(
      await acquireLocks(store.db, [vaultLock(held.row.vault_pubkey)], other, 1_700_000_000),
    ).toBe(true);
    outputs.set(`${moved.chain.txid}:0`, { ...moved.chain, spent: true });
    const result = await settleDueVaults(deps);
    expect(result.settled.map((s) => s.vault_id)).toEqual([due.row.vault_id]);
    expect(result.left).toEqual([
      { vault_id: held.row.vault_id, reason: 'a request holds the vault' },
      { vault_id: moved.row.vault_id, reason: 'the vault output is already spent' },
    ]);
    expect(sent).toHaveLength(1);
  });

  it('leaves a vault the guardians refuse, and settles nothing before the term', async () => {
    const v = await add('f', 100_00);
    const refusing = {
      ...deps,
      sign: () => Promise.reject(new Error('guardian 2: the vault reaches its term later')),
    };
    expect(await settleDueVaults(refusing)).toEqual({
      settled: [],
      left: [{ vault_id: v.row.vault_id, reason: 'guardian 2: the vault reaches its term later' }],
    });
    const early = {
      ...deps,
      chain: { ...deps.chain, tip: () => Promise.resolve({ height: 699, hash: '00'.repeat(32) }) },
    };
    expect(await settleDueVaults(early)).toEqual({ settled: [], left: [] });
    expect(sent).toEqual([]);
  });

  it('hands a settlement the network did not answer to recovery with its lock, and waits out high fees', async () => {
    const lost = await add('9', 100_00);
    const silent = {
      ...deps,
      chain: {
        ...deps.chain,
        broadcast: () => Promise.reject(new Error('socket hang up')),
        txStatus: () => Promise.resolve(null),
      },
    };
    const result = await settleDueVaults(silent);
    expect(result.left).toEqual([
      {
        vault_id: lost.row.vault_id,
        reason: expect.stringMatching(/did not answer.*from the chain/),
      },
    ]);
    const request = await store.db
      .selectFrom('guardian_requests')
      .selectAll()
      .executeTakeFirstOrThrow();
    expect(request).toMatchObject({
      method: 'term.settle',
      state: 'cosigned',
      instance_id: HANDED_OFF,
    });
    expect(JSON.parse(request.effects!)).toMatchObject({
      kind: 'settle',
      vault_id: lost.row.vault_id,
    });
    // Its lock stays with recovery, so no later round signs the vault again meanwhile.
    expect(await settleDueVaults(deps)).toEqual({
      settled: [],
      left: [{ vault_id: lost.row.vault_id, reason: 'a request holds the vault' }],
    });
    expect((await getVault(store.db, lost.row.vault_id))?.status).toBe('active');
    // Recovery asks the chain, which holds it after all: the vault is settled, its lock freed.
    const raw = request.raw_hex!;
    const guardian = guardianContext({
      ...{ db: store.db, log: deps.log, now: deps.now, network: TEST_NETWORK },
      chain: {
        ...silent.chain,
        txStatus: (txid: string) =>
          Promise.resolve(txid === request.txid ? { confirmed: false } : null),
      } as unknown as Chain,
      oracle: {} as OracleForGuardian,
      guardianKey: GROUP_SECRET,
      treasuryKey: GROUP_SECRET,
      unitRuneId: '1:0',
    });
    expect((await recoverRequests(guardian)).committed).toEqual([request.nonce]);
    expect(await getVault(store.db, lost.row.vault_id)).toMatchObject({ status: 'settled' });
    expect(await store.db.selectFrom('guardian_locks').selectAll().execute()).toEqual([]);
    expect(parseTransaction(raw).id).toBe(request.txid);
    // A vault due while the network asks more than the cap waits for a later block.
    const later = await add('8', 100_00);
    const dear = { ...deps, feeRate: () => Promise.resolve(SETTLEMENT_MAX_FEE_RATE + 0.5) };
    expect((await settleDueVaults(dear)).left).toEqual([
      {
        vault_id: later.row.vault_id,
        reason: expect.stringMatching(/over a settlement's 50: it waits/),
      },
    ]);
    expect(settlementFeeRate(1.2)).toBe(2);
    expect(settlementFeeRate(SETTLEMENT_MAX_FEE_RATE)).toBe(SETTLEMENT_MAX_FEE_RATE);
  });
});
