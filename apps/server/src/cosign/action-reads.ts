// What the guardian reads from the store and the chain to check a vault request: the vaults and the
// reserved treasury UTXO its transaction must spend, every input's prevout as the chain has it, and
// the postage the requester's referral level sets. The checks on the transaction itself are the
// action's declaration's (packages/bitcoin/src/actions).
import { hex } from '@scure/base';
import { equalBytes } from '@scure/btc-signer/utils.js';
import { vaultOutput, type KnownUtxo, type Prevout } from '@unit/bitcoin';
import {
  accountPostageSats,
  referralLevel,
  termProblem,
  type VaultTerm,
  type ActionShape,
  type SignedVaultRequest,
} from '@unit/protocol';
import type { ChainOutput } from '../chain/port';
import { DomainError } from '../errors';
import { getReservation, termOf, type VaultRow } from '../store';
import { countReferrals } from '../store/users';
import type { GuardianContext } from './context';
import { catchUpVault } from './settle';

export const bad = (reason: string) =>
  new DomainError('bad_transaction', `Invalid transaction: ${reason}`);

/** An input of the PSBT as it claims it: its outpoint and prevout. */
export interface Outpoint {
  txid: string;
  vout: number;
  script: Uint8Array;
  amount: bigint;
}

/**
 * The quote's term, when it has one (layout 2): the protocol's at this server's chain tip, within
 * TERM_TIP_TOLERANCE_BLOCKS (vault-term.ts). None: the new output is layout 1.
 */
export async function checkedTerm(
  g: GuardianContext,
  quote: SignedVaultRequest<unknown>['quote'],
): Promise<VaultTerm | undefined> {
  if (!quote.term) return undefined;
  const term = { settleHeight: quote.term.settle_height, exitHeight: quote.term.exit_height };
  const problem = termProblem(term, (await g.chain.tip()).height, g.vaultTerm);
  if (problem)
    throw new DomainError(
      'bad_request',
      `The vault's term does not match the chain (${problem}); please try again.`,
    );
  return term;
}

/** The on-chain output of a vault the store knows, checked against the keys and threshold stored. */
export async function vaultUtxo(
  g: GuardianContext,
  row: VaultRow,
): Promise<KnownUtxo & { unitDebt: bigint }> {
  const output = await g.chain.output(row.vault_txid, row.vault_vout);
  // Spent by a transaction of ours whose request failed as its answer was lost (settle.ts): the
  // vault catches up with the chain, and this request, built on its old output, is refused.
  if ((!output || output.spent) && (await catchUpVault(g, row)))
    throw new DomainError('vault_changed', 'The vault just changed on the chain; please try again');
  if (!output || output.spent)
    throw new DomainError('vault_busy', 'The vault output is already being spent');
  const script = hex.decode(output.script_hex);
  // Under the newest guardian set's key, or an older set's until this action moves it (rotation).
  const thresholdHash = await g.oracle.thresholdHashes(BigInt(row.threshold_cents), row.stamp);
  const matches = g.guardPubkeys.some((guardPubkey) => {
    const expected = vaultOutput({
      vaultPubkey: hex.decode(row.vault_pubkey),
      guardPubkey,
      thresholdHash,
      network: g.network,
      ...termOf(row),
    }).script;
    return equalBytes(script, expected);
  });
  if (!matches)
    throw new DomainError('internal', 'The vault on chain does not match the stored vault');
  return {
    txid: row.vault_txid,
    vout: row.vault_vout,
    value: BigInt(output.value),
    script,
    unitDebt: BigInt(row.unit_borrowed),
  };
}

export interface TreasuryPick {
  utxo: KnownUtxo & { unitAmount: bigint };
  reservationId: string;
  reservedAmount: bigint;
}

/** The reserved treasury UNIT UTXO of an action that issues UNIT (unit.reserve). */
export async function reservedTreasury(
  g: GuardianContext,
  request: SignedVaultRequest<unknown>,
  action: string,
): Promise<TreasuryPick> {
  const missing = new DomainError(
    'reservation_missing',
    'The UNIT reservation is missing or has expired; please try again',
  );
  if (!request.reservation_id) throw missing;
  const reservation = await getReservation(g.db, request.reservation_id);
  if (
    !reservation ||
    reservation.status !== 'active' ||
    reservation.expires_at <= g.now() ||
    reservation.vault_pubkey !== request.vault_pubkey.toLowerCase() ||
    reservation.vault_action !== action ||
    reservation.treasury_txid === null ||
    reservation.treasury_vout === null
  )
    throw missing;
  const output = await g.chain.output(reservation.treasury_txid, reservation.treasury_vout);
  if (!output || output.spent) throw missing;
  return {
    utxo: {
      txid: output.txid,
      vout: output.vout,
      value: BigInt(output.value),
      script: hex.decode(output.script_hex),
      unitAmount: BigInt(output.unit_amount),
    },
    reservationId: reservation.reservation_id,
    reservedAmount: BigInt(reservation.unit_amount),
  };
}

/**
 * Every input's prevout as the chain has it: the signatures are checked against these, never
 * against what the PSBT claims, and an input the chain does not hold unspent is refused.
 */
export async function chainPrevouts(g: GuardianContext, inputs: Outpoint[]): Promise<Prevout[]> {
  const outputs = await Promise.all(inputs.map((i) => g.chain.output(i.txid, i.vout)));
  return outputs.map((output: ChainOutput | null, index) => {
    const input = inputs[index]!;
    if (!output || output.spent) throw bad(`input ${index} is not an unspent output`);
    const script = hex.decode(output.script_hex);
    if (!equalBytes(script, input.script) || BigInt(output.value) !== input.amount)
      throw bad(`input ${index} does not match the output on chain`);
    return { script, amount: BigInt(output.value) };
  });
}

/** Refuses a request that spends a vault of another key (only a liquidated one may be claimed). */
export async function refuseForeignVaults(
  g: GuardianContext,
  inputs: Outpoint[],
  pubkey: string,
  claimable: string | null,
): Promise<void> {
  if (inputs.length === 0) return;
  const rows = await g.db
    .selectFrom('vaults')
    .select(['vault_id', 'vault_pubkey', 'vault_txid', 'vault_vout'])
    .where(
      'vault_txid',
      'in',
      inputs.map((i) => i.txid),
    )
    .execute();
  for (const row of rows) {
    const spent = inputs.some((i) => i.txid === row.vault_txid && i.vout === row.vault_vout);
    if (spent && row.vault_pubkey !== pubkey && row.vault_id !== claimable)
      throw new DomainError('foreign_vault', 'This transaction spends a vault of another key');
  }
}

export function requireActive(row: VaultRow | null): VaultRow {
  if (!row) throw new DomainError('not_found', 'No vault exists for this key');
  if (row.status === 'settled')
    throw new DomainError(
      'vault_liquidated',
      'This vault was settled by the guardians at its term and holds nothing now; open a new vault to borrow again',
    );
  if (row.status === 'exited')
    throw new DomainError(
      'vault_liquidated',
      'This vault was closed by its exit and holds nothing now; open a new vault to borrow again',
    );
  if (row.status !== 'active')
    throw new DomainError('vault_liquidated', 'This vault has been liquidated');
  return row;
}

/**
 * The postage the requester's own UNIT outputs must carry: its account's referral level's, the
 * default below the first level (missions.ts `accountPostageSats`).
 */
export async function requesterPostage(
  g: GuardianContext,
  shape: ActionShape,
  account: string | null,
): Promise<bigint> {
  if (!shape.accountPostage || !account) return BigInt(g.postageSats);
  const level = referralLevel(await countReferrals(g.db, account));
  return BigInt(accountPostageSats(level, g.postageSats));
}
