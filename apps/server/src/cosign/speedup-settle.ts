// A speed-up whose broadcast answer was lost is settled from the chain like any
// other lost answer (settle.ts): it is never taken for a refusal. The replacement is kept beside the
// original it replaces, and each block, each recovery round and the next request on the vault ask
// the chain about it: once the chain holds it (mempool or block), the store follows it as after an
// answered speed-up; one the chain lacks is sent once more (the user signed it to be sent), and
// when the network refuses it (the original confirmed, or a conflicting spend took the inputs) the
// original stays the store's. Nothing is locked while the chain is silent, so the vault never
// stays busy: a request built on the original meanwhile is refused as changed once the chain shows
// the replacement (catchUpVault), and its retry spends the replacement's output.
import type { Kysely, Migration } from 'kysely';
import type { GuardianContext } from './context';
import { acquireLocks, lockOwner, releaseLocks, vaultLock } from './locks';
import { findOrSend } from './broadcast';
import { followReplacement, rememberReplacement } from './replacement-records';
import { createIndexOn, createTableOf } from '../store/columns';

export const unansweredReplacementMigrations: Record<string, Migration> = {
  guardian_0006_unanswered_replacements: {
    async up(db: Kysely<unknown>): Promise<void> {
      await createTableOf(
        db,
        'guardian_unanswered_replacements',
        `
            txid text primary key, raw_hex text not null, original_txid text not null,
            original_hex text not null, nonce text not null, vault_pubkey text not null,
            error text not null, created_at bigint not null`,
      );
      // The next request on a vault looks for its vault's: an indexed read.
      await createIndexOn(
        db,
        'guardian_unanswered_replacements_vault',
        'guardian_unanswered_replacements',
        ['vault_pubkey'],
      );
    },
    async down(db: Kysely<unknown>): Promise<void> {
      await db.schema.dropTable('guardian_unanswered_replacements').execute();
    },
  },
};

/** Most unanswered replacements one round asks the chain about; the next round takes the rest. */
const SETTLE_BATCH = 100;

export interface UnansweredReplacement {
  nonce: string;
  vaultPubkey: string;
  originalTxid: string;
  originalHex: string;
}

/** Keeps a replacement whose broadcast the network did not answer, for the chain to settle. */
export async function handOffReplacement(
  g: GuardianContext,
  original: UnansweredReplacement,
  signed: { txid: string; hex: string },
  reason: string,
): Promise<void> {
  await g.db
    .insertInto('guardian_unanswered_replacements')
    .values({
      txid: signed.txid,
      raw_hex: signed.hex,
      original_txid: original.originalTxid,
      original_hex: original.originalHex,
      nonce: original.nonce,
      vault_pubkey: original.vaultPubkey,
      error: reason,
      created_at: g.now(),
    })
    .onConflict((oc) => oc.column('txid').doNothing())
    .execute();
  g.log.warn(
    { original: original.originalTxid, txid: signed.txid, reason },
    'speed-up unanswered: the chain settles it',
  );
}

type Row = {
  txid: string;
  raw_hex: string;
  original_txid: string;
  original_hex: string;
  nonce: string;
};

export type ReplacementOutcome = 'followed' | 'original' | 'waiting';

/**
 * Settles one unanswered replacement from the chain. Run under the vault's lock (or by the request
 * holding it). 'waiting': the chain did not answer, asked again next time.
 */
async function settleOne(g: GuardianContext, row: Row): Promise<ReplacementOutcome> {
  const drop = () =>
    g.db.deleteFrom('guardian_unanswered_replacements').where('txid', '=', row.txid).execute();
  // The request moved on meanwhile (another speed-up followed): this one is history.
  const request = await g.db
    .selectFrom('guardian_requests')
    .select('txid')
    .where('nonce', '=', row.nonce)
    .executeTakeFirst();
  if (request?.txid !== row.original_txid) {
    await drop();
    return 'original';
  }
  const sent = await findOrSend(g.chain, row.txid, row.raw_hex);
  if (sent.outcome === 'unknown') return 'waiting';
  if (sent.outcome === 'refused') {
    await drop();
    g.log.warn(
      { original: row.original_txid, txid: row.txid, reason: sent.reason },
      'an unanswered speed-up did not reach the chain: the original stands',
    );
    return 'original';
  }
  const signed = { txid: row.txid, hex: row.raw_hex };
  await followReplacement(g, row.nonce, row.original_txid, signed);
  await rememberReplacement(g, row.nonce, row.original_txid, row.original_hex, row.txid);
  await drop();
  g.log.info(
    { original: row.original_txid, txid: row.txid, rebroadcast: sent.outcome === 'sent' },
    'an unanswered speed-up is on the chain: the vault follows it',
  );
  return 'followed';
}

const pending = (g: GuardianContext) =>
  g.db
    .selectFrom('guardian_unanswered_replacements')
    .select(['txid', 'raw_hex', 'original_txid', 'original_hex', 'nonce', 'vault_pubkey'])
    .orderBy('created_at')
    .limit(SETTLE_BATCH);

/**
 * The vault's unanswered speed-up of the output the store has, settled now: true when the vault
 * now follows the replacement. Run under the vault's lock (catchUpVault, a request's).
 */
export async function settleVaultReplacement(
  g: GuardianContext,
  vault: { vault_pubkey: string; vault_txid: string },
): Promise<boolean> {
  const rows = await pending(g)
    .where('vault_pubkey', '=', vault.vault_pubkey)
    .where('original_txid', '=', vault.vault_txid)
    .execute();
  for (const row of rows) if ((await settleOne(g, row)) === 'followed') return true;
  return false;
}

/** Each block and recovery round: every unanswered speed-up asked of the chain, under its vault's lock. */
export async function settleUnansweredReplacements(
  g: GuardianContext,
): Promise<Record<ReplacementOutcome, string[]>> {
  const settled: Record<ReplacementOutcome, string[]> = { followed: [], original: [], waiting: [] };
  for (const row of await pending(g).execute()) {
    const holder = { owner: lockOwner('speedup-settle'), instanceId: g.instance.id };
    // A vault a request is spending right now: that request settles it, or the next round does.
    if (!(await acquireLocks(g.db, [vaultLock(row.vault_pubkey)], holder, g.now()))) {
      settled.waiting.push(row.txid);
      continue;
    }
    try {
      settled[await settleOne(g, row)].push(row.txid);
    } finally {
      await releaseLocks(g.db, holder.owner);
    }
  }
  return settled;
}
