// vault.speedup: the guardian co-signs a BIP-125 replacement of a vault transaction it broadcast,
// only while the original is unconfirmed and only when the replacement changes nothing but the fee
// (checkFeeOnlyReplacement: same version, lock time and sequences, same inputs, same vault output,
// state record, runestone and every other amount; the extra fee from the user's change or an added
// payment input of theirs; a refusal names what differed). Once the
// network takes it, the store follows the new txid, so history keeps one record per action.
import { randomBytes } from 'node:crypto';
import { base64, hex } from '@scure/base';
import { Transaction } from '@scure/btc-signer';
import { equalBytes } from '@scure/btc-signer/utils.js';
import type { Kysely, Migration } from 'kysely';
import {
  declarationOf,
  parseTransaction,
  speedUp as speedUpDeclaration,
  type Prevout,
} from '@unit/bitcoin';
import {
  replacementRefusal,
  VAULT_ACTIONS,
  type SpeedUpRequest,
  type SpeedUpResult,
  type VaultAction,
} from '@unit/protocol';
import { ChainUnavailableError } from '../chain/port';
import { DomainError } from '../errors';
import { getVault, openRequestsForVault } from '../store';
import { cosign } from './cosign';
import type { GuardianContext } from './context';
import { type Effects } from './effects';
import { sendOrFind } from './broadcast';
import { followReplacement, rememberReplacement } from './replacement-records';
import { handOffReplacement } from './speedup-settle';
import { columns } from '../store/columns';

/**
 * Replacements whose original may still be mined instead (on a real network a miner may hold the
 * original): until one of the two confirms, the store can be pointed back at the original.
 */
export const speedUpMigrations: Record<string, Migration> = {
  guardian_0002_replacements: {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('guardian_replacements')
        .$call(
          columns(`
            txid text not null, replaced_txid text not null, replaced_hex text not null,
            nonce text not null, created_at bigint not null`),
        )
        .addPrimaryKeyConstraint('guardian_replacements_pk', ['txid', 'replaced_txid'])
        .execute();
      // A speed-up finds its original by txid and moves every row that names it: indexed reads.
      for (const [table, column] of [
        ['guardian_requests', 'txid'],
        ['vaults', 'vault_txid'],
        ['vault_history', 'utxo'],
        ['liquidations', 'claim_txid'],
      ] as const)
        await db.schema
          .createIndex(`${table}_${column}_speedup`)
          .on(table)
          .column(column)
          .execute();
    },
    async down(db: Kysely<unknown>): Promise<void> {
      for (const name of [
        'guardian_requests_txid_speedup',
        'vaults_vault_txid_speedup',
        'vault_history_utxo_speedup',
        'liquidations_claim_txid_speedup',
      ])
        await db.schema.dropIndex(name).execute();
      await db.schema.dropTable('guardian_replacements').execute();
    },
  },
};

/** How many open replacements one block looks at: a bounded read per block. */
const SETTLE_BATCH = 100;

/**
 * On each block: a replacement that confirmed is settled; one whose original confirmed instead has
 * the store pointed back at the original, so history records the transaction that confirmed.
 * Returns the txids the store now follows again.
 */
export async function settleReplacements(g: GuardianContext): Promise<string[]> {
  const db = g.db;
  const rows = await db
    .selectFrom('guardian_replacements')
    .selectAll()
    .orderBy('created_at')
    .limit(SETTLE_BATCH)
    .execute();
  const restored: string[] = [];
  for (const row of rows) {
    const replacement = await g.chain.txStatus(row.txid);
    if (replacement?.confirmed) {
      await db.deleteFrom('guardian_replacements').where('txid', '=', row.txid).execute();
      continue;
    }
    const original = await g.chain.txStatus(row.replaced_txid);
    if (!original?.confirmed) continue;
    await followReplacement(g, row.nonce, row.txid, {
      txid: row.replaced_txid,
      hex: row.replaced_hex,
    });
    await db.deleteFrom('guardian_replacements').where('txid', '=', row.txid).execute();
    g.log.warn({ replacement: row.txid, original: row.replaced_txid }, 'the original confirmed');
    restored.push(row.replaced_txid);
  }
  return restored;
}

const bad = (reason: string) =>
  new DomainError('bad_transaction', `Invalid replacement: ${reason}`);

/** Vaults with a speed-up in this process right now. */
const speeding = new Set<string>();

export async function speedUp(g: GuardianContext, request: SpeedUpRequest): Promise<SpeedUpResult> {
  const pubkey = request.vault_pubkey.toLowerCase();
  const originalTxid = request.original_txid.toLowerCase();
  let psbt: Uint8Array;
  try {
    psbt = base64.decode(request.psbt);
  } catch {
    throw bad('not a readable PSBT');
  }
  if (speeding.has(pubkey))
    throw new DomainError('vault_busy', 'Another request is already spending this vault');
  speeding.add(pubkey);
  try {
    if ((await openRequestsForVault(g.db, pubkey, g.now())).length > 0)
      throw new DomainError('vault_busy', 'Another request is already spending this vault');

    // ---- the original: a transaction this guardian broadcast for this key, still unconfirmed ----
    const row = await g.db
      .selectFrom('guardian_requests')
      .select(['nonce', 'method', 'vault_pubkey', 'raw_hex', 'effects'])
      .where('txid', '=', originalTxid)
      .where('state', '=', 'broadcast')
      .limit(1)
      .executeTakeFirst();
    const action = row?.method.replace(/^vault\./, '') as VaultAction | undefined;
    if (
      !row ||
      row.vault_pubkey !== pubkey ||
      !row.raw_hex ||
      !row.effects ||
      !action ||
      !VAULT_ACTIONS.includes(action)
    )
      throw new DomainError('not_found', 'No transaction of this vault to speed up');
    const status = await g.chain.txStatus(originalTxid);
    if (!status)
      throw new DomainError(
        'not_replaceable',
        'The transaction is no longer waiting in the mempool',
      );
    if (status.confirmed)
      throw new DomainError('not_replaceable', 'The transaction is already confirmed');
    const effects = JSON.parse(row.effects) as Effects;

    // ---- the replacement against the original, then every input against the chain ----
    const original = parseTransaction(row.raw_hex);
    const originalPrevouts: Prevout[] = [];
    for (let i = 0; i < original.inputsLength; i++) {
      const input = original.getInput(i);
      const output = await g.chain.output(hex.encode(input.txid!), input.index!);
      if (!output) throw new DomainError('not_replaceable', 'An input of the transaction is gone');
      originalPrevouts.push({
        script: hex.decode(output.script_hex),
        amount: BigInt(output.value),
      });
    }
    const check = speedUpDeclaration.check(
      action,
      { hex: row.raw_hex, prevouts: originalPrevouts },
      psbt,
    );
    if (!check.ok) throw bad(check.reason);
    const replacement = await replacementPrevouts(g, psbt, originalPrevouts, check.addedInputs);

    let secret: Uint8Array | null = null;
    // The liquidation leaf of a repossess needs the threshold secret again: the one the original
    // revealed in its witness (`<sig> <secret> <leaf> <control block>`), which opens the leaf the
    // replacement spends (with the guardians as oracles another guardian's would open another).
    if ('liquidated' in effects) {
      const liquidated = await getVault(g.db, effects.liquidated.vault_id);
      const index = declarationOf(action).spends.findIndex((s) => s.role === 'liquidated');
      const revealed = original.getInput(index).finalScriptWitness?.[1] ?? null;
      secret = liquidated
        ? (revealed ??
          (await g.oracle.revealSecret(BigInt(liquidated.threshold_cents), liquidated.stamp)))
        : null;
      if (!secret)
        throw new DomainError(
          'not_liquidated',
          'The oracle has not revealed this vault’s threshold',
        );
    }
    // With the guardian network the replacement is a request of its own (its own sessions): the
    // guardians see the speed-up and the original request's nonce.
    const signed = await cosign(
      g,
      {
        action: 'speedup',
        request: { ...request, action, original_nonce: row.nonce },
        nonce: randomBytes(16).toString('hex'),
      },
      declarationOf(action).spends,
      psbt,
      replacement,
      secret,
    );
    const signedTx = parseTransaction(signed.hex);
    const fee = (tx: typeof original, prevouts: Prevout[]) => {
      let total = prevouts.reduce((s, p) => s + p.amount, 0n);
      for (let i = 0; i < tx.outputsLength; i++) total -= tx.getOutput(i).amount!;
      return total;
    };
    const before = { fee: fee(original, originalPrevouts), vsize: original.vsize };
    const refusal = replacementRefusal(
      { fee: fee(signedTx, replacement), vsize: signedTx.vsize },
      [before],
      [before],
    );
    if (refusal)
      throw new DomainError(
        'fee_too_low',
        'The new fee does not pay enough to replace the transaction',
      );

    // A lost answer is asked of the chain (settle.ts); one it cannot tell is not a refusal.
    const sent = await sendOrFind(g.chain, signed.txid, signed.hex);
    if (sent.outcome === 'refused') {
      g.log.warn(
        { original: originalTxid, txid: signed.txid, reason: sent.reason },
        'replacement refused',
      );
      throw new DomainError(
        'broadcast_failed',
        `The network refused the replacement: ${sent.reason}`,
      );
    }
    if (sent.outcome === 'unknown') {
      // It may be on the network: the chain settles it (speedup-settle.ts), never taken as refused.
      await handOffReplacement(
        g,
        { nonce: row.nonce, vaultPubkey: pubkey, originalTxid, originalHex: row.raw_hex },
        signed,
        sent.reason,
      );
      throw new ChainUnavailableError(sent.reason);
    }
    await followReplacement(g, row.nonce, originalTxid, signed);
    await rememberReplacement(g, row.nonce, originalTxid, row.raw_hex, signed.txid);
    g.log.info({ original: originalTxid, txid: signed.txid }, 'vault transaction sped up');
    return speedUpDeclaration.result(signed.txid, originalTxid);
  } finally {
    speeding.delete(pubkey);
  }
}

/**
 * Prevouts of the replacement's inputs: the original's as read above (they are spent, by the
 * original), and each added input unspent on chain, matching what the PSBT claims, carrying no UNIT
 * (it would fall to the runestone's pointer) and not the treasury's.
 */
async function replacementPrevouts(
  g: GuardianContext,
  psbt: Uint8Array,
  originalPrevouts: Prevout[],
  added: number[],
): Promise<Prevout[]> {
  const tx = Transaction.fromPSBT(psbt, { allowUnknownOutputs: true });
  const prevouts = [...originalPrevouts];
  for (let i = 0; i < originalPrevouts.length; i++) {
    const claimed = tx.getInput(i).witnessUtxo;
    const known = originalPrevouts[i]!;
    if (!claimed || !equalBytes(claimed.script, known.script) || claimed.amount !== known.amount)
      throw bad(`input ${i} does not match the output on chain`);
  }
  for (const index of added) {
    const input = tx.getInput(index);
    const output = await g.chain.output(hex.encode(input.txid!), input.index!);
    if (!output || output.spent) throw bad(`input ${index} is not an unspent output`);
    const script = hex.decode(output.script_hex);
    if (
      !equalBytes(script, input.witnessUtxo!.script) ||
      BigInt(output.value) !== input.witnessUtxo!.amount
    )
      throw bad(`input ${index} does not match the output on chain`);
    if (output.unit_amount > 0 || equalBytes(script, g.treasuryScript))
      throw bad(`input ${index} is not a payment output of the user`);
    prevouts[index] = { script, amount: BigInt(output.value) };
  }
  return prevouts;
}
