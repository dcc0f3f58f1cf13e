// The app's side of the settlement at the term: the vaults due (active, layout 2, the tip at or past
// their settlement height; bounded, oldest term first), the settlement planned from a vault's row
// only when the chain holds its output unspent and exactly as the row describes it, and the context
// the guardians are asked with, in the shape their policy reads.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { schnorr } from '@noble/curves/secp256k1.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { hex } from '@scure/base';
import { p2tr, TEST_NETWORK } from '@scure/btc-signer';
import { ownerPayoutScript, thresholdHash, vaultOutput } from '@unit/bitcoin';
import { settleContextSchema } from '@unit/guardian-net';
import {
  insertVault,
  migrateToLatest,
  openStore,
  vaultsDueForSettlement,
  type Store,
  type VaultRow,
} from '../../src/store';
import { accountMigrations } from '../../src/auth/migrations';
import { devnetMigrations } from '../../src/devnet/migrations';
import type { ChainOutput } from '../../src/chain/port';
import { NotSettleable, prepareSettlement } from '../../src/cosign/term-settle';
import { settleContext } from '../../src/network-client/settle-cosign';

const key = (label: string) => sha256(new TextEncoder().encode(`term settle: ${label}`));
const OWNER = hex.encode(schnorr.getPublicKey(key('owner')));
const GROUP = schnorr.getPublicKey(key('group'));
const HASH = thresholdHash(new Uint8Array(32).fill(9));
const TREASURY = p2tr(GROUP, undefined, TEST_NETWORK).script;

function row(id: string, settleHeight: number | null, status: 'active' | 'liquidated' = 'active') {
  return {
    vault_id: id.repeat(64),
    vault_tag: `tag${id}`,
    // One live vault per key.
    vault_pubkey: id.repeat(64),
    name: 'Term',
    creation_account: 'tb1qowner',
    runes_account: 'tb1qowner',
    btc_locked: 2_000_000,
    unit_borrowed: 40_000,
    vault_txid: id.repeat(64),
    vault_vout: 1,
    threshold_cents: 4_050_000,
    stamp: 1_700_000_000,
    status,
    created_at: 1_700_000_000,
    settle_height: settleHeight,
    exit_height: settleHeight === null ? null : settleHeight + 20,
  };
}

describe('the vaults due for settlement', () => {
  let dir: string;
  let store: Store;
  beforeEach(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'unit-settle-'));
    store = await openStore({ file: path.join(dir, 'unit.db') });
    await migrateToLatest(store.db, { ...devnetMigrations, ...accountMigrations });
  });
  afterEach(async () => {
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('are the active layout 2 vaults whose term the tip has reached, oldest term first, bounded', async () => {
    for (const r of [
      row('a', 120),
      row('b', 100),
      row('c', 121),
      row('d', null),
      row('e', 90, 'liquidated'),
      row('f', 100),
    ])
      await insertVault(store.db, r);
    const due = await vaultsDueForSettlement(store.db, 120);
    expect(due.map((v) => v.vault_tag)).toEqual(['tagb', 'tagf', 'taga']);
    expect((await vaultsDueForSettlement(store.db, 120, 2)).map((v) => v.vault_tag)).toEqual([
      'tagb',
      'tagf',
    ]);
    expect(await vaultsDueForSettlement(store.db, 99)).toEqual([]);
  });
});

describe('a settlement planned from a vault row', () => {
  const term = { settleHeight: 900, exitHeight: 920 };
  const vault = vaultOutput({
    vaultPubkey: hex.decode(OWNER),
    guardPubkey: GROUP,
    thresholdHash: HASH,
    network: TEST_NETWORK,
    term,
  });
  const base = { ...row('9', term.settleHeight), vault_pubkey: OWNER };
  const held = {
    ...{ txid: base.vault_txid, vout: 1, value: 2_000_000, address: vault.address },
    ...{ script_hex: hex.encode(vault.script), unit_amount: 0, spent: false },
    status: { confirmed: true },
  } as ChainOutput;
  let onChain: ChainOutput | null;
  const facts = {
    chain: { output: () => Promise.resolve(onChain) },
    thresholdHashes: () => Promise.resolve([HASH]),
    network: TEST_NETWORK,
  };
  const terms = {
    guardPubkey: GROUP,
    priceCents: 8_000_000n,
    treasuryScript: TREASURY,
    feeRate: 2,
  };
  beforeEach(() => {
    onChain = held;
  });
  const prepare = (r: Partial<VaultRow> = {}) =>
    prepareSettlement(facts, { ...base, ...r } as VaultRow, terms);

  it('splits the chain output at the price: 400 UNIT at $80,000 is 500,000 sats and 75,000 of tax', async () => {
    const { plan, request } = await prepare();
    expect(plan.treasurySats).toBe(575_000n);
    expect(plan.ownerSats).toBe(2_000_000n - 575_000n - plan.feeSats);
    expect(plan.tx.getOutput(1).script).toEqual(ownerPayoutScript(hex.decode(OWNER)));
    expect(plan.tx.lockTime).toBe(900);
    const quote = {
      ...{ price_cents: 8_000_000, time: 1_700_000_100, th: 0, ts: 1_700_000_100 },
      signature: 'ab'.repeat(64),
    };
    const context = settleContext(plan, request, OWNER, quote);
    expect(settleContextSchema.parse(context)).toEqual(context);
  });

  it('is refused for a layout 1 vault, an output spent or missing, or one the row does not describe', async () => {
    await expect(prepare({ settle_height: null, exit_height: null })).rejects.toThrow(/layout 1/);
    onChain = { ...held, spent: true };
    await expect(prepare()).rejects.toThrow(/already spent/);
    onChain = null;
    await expect(prepare()).rejects.toThrow(/not on the chain/);
    onChain = { ...held, script_hex: '5120' + '00'.repeat(32) };
    await expect(prepare()).rejects.toThrow(NotSettleable);
    onChain = held;
    // Another owner key makes another output than the chain's.
    await expect(prepare({ vault_pubkey: '02'.repeat(32) })).rejects.toThrow(/row describes/);
    // The fee the vault cannot pay is refused before anything is asked of the guardians.
    onChain = { ...held, value: 500 };
    await expect(prepare()).rejects.toThrow(/too little to settle/);
  });
});
