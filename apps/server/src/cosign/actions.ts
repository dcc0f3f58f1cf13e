// Checks one wallet-signed vault request against every rule before the guardian signs anything. The
// action's declaration (packages/bitcoin/src/actions) says what the transaction spends and who signs
// each input, lays out and parses its outputs, and checks the parsed transaction against the payload
// and the quote; this file reads what that needs from the store and the chain (action-reads.ts),
// and hands the pipeline the effects, the co-signing (cosign.ts) and the answer.
import { hex } from '@scure/base';
import {
  declarationOf,
  guardianCheck,
  parseVaultTransaction,
  scriptToAddress,
  vaultOutput,
  type ActionDeclaration,
  type ParseContext,
  type ParsedVaultTransaction,
  type StateRecordTerm,
  type VaultFields,
} from '@unit/bitcoin';
import type {
  ActionPayloads,
  ActionResults,
  CreateConfigPayload,
  RepossessPayload,
  SignedVaultRequest,
  VaultAction,
} from '@unit/protocol';
import { DomainError } from '../errors';
import { getVault, getVaultByPubkey, type VaultRow } from '../store';
import {
  bad,
  chainPrevouts,
  checkedTerm,
  refuseForeignVaults,
  requesterPostage,
  requireActive,
  reservedTreasury,
  vaultUtxo,
  type Outpoint,
  type TreasuryPick,
} from './action-reads';
import type { GuardianContext } from './context';
import { checkVaultSignature, cosign, outputScript, readPsbt } from './cosign';
import type { Effects, VaultAfter } from './effects';
import { claimLock, vaultLock } from './locks';
import type { Prechecked, Prepared } from './pipeline';
import { exitOf } from './exits';
import { refuseSecondVault } from './reserve';

/** Each action's payload and result: the wire contract's inferred types (@unit/protocol/wire). */
export type { ActionPayloads, ActionResults };

type Declaration = ActionDeclaration<VaultAction, never, VaultFields>;

/** A repossess of a liquidated vault whose owner took it back by the exit leaf first. */
export const EXITED_CLAIM =
  'Its owner took this vault back through its exit leaf after its exit height, before anyone repossessed it, so there is nothing left to repossess. Choose another vault from the liquidations list.';

/** The vault a repossess claims, named by its payload; null for every other action. */
function claimedVaultId(declaration: Declaration, payload: unknown): string | null {
  return declaration.shape.vault === 'claims'
    ? (payload as RepossessPayload).liquidated_vault_id.toLowerCase()
    : null;
}

export interface PrecheckedAction extends Prechecked {
  bytes: Uint8Array;
  inputs: Outpoint[];
}

/**
 * The checks that cost no database read: the PSBT parses and the vault key signed its input. Runs
 * before any lock is taken. Names the locks the request needs: its own vault, and the vault it
 * claims (repossess).
 */
export function precheckAction<A extends VaultAction>(
  g: GuardianContext,
  action: A,
  request: SignedVaultRequest<ActionPayloads[A]>,
): PrecheckedAction {
  const declaration = declarationOf(action);
  const { bytes, tx, inputs } = readPsbt(request.psbt);
  const vaultIndex = declaration.spends.findIndex((input) => input.role === 'vault');
  if (vaultIndex >= 0)
    checkVaultSignature(g, tx, inputs, vaultIndex, hex.decode(request.vault_pubkey.toLowerCase()));
  const lockKeys = [vaultLock(request.vault_pubkey)];
  const claimed = claimedVaultId(declaration, request.payload);
  if (claimed !== null) lockKeys.push(claimLock(claimed));
  return { bytes, inputs, lockKeys };
}

/** The known UTXOs and vault rows a request is checked against, read from the store and chain. */
interface Known {
  context: ParseContext;
  /** The key's vault as it was read: its closed one on open, its active one otherwise. */
  existing: VaultRow | null;
  own: VaultRow | null;
  /** The requester's account: the vault's creation account, or on open its first wallet input's. */
  account: string | null;
  treasury: TreasuryPick | null;
  liquidated: VaultRow | null;
  secret: Uint8Array | null;
  /** The new output's term and exit sibling (layout 2); null for layout 1. */
  term: StateRecordTerm | null;
}

async function readKnown(
  g: GuardianContext,
  declaration: Declaration,
  request: SignedVaultRequest<unknown>,
  inputs: Outpoint[],
): Promise<Known> {
  const { shape } = declaration;
  const pubkey = request.vault_pubkey.toLowerCase();
  const existing = await getVaultByPubkey(g.db, pubkey);
  const creates = shape.vault === 'creates';
  if (creates) refuseSecondVault(existing);
  const own = creates ? null : requireActive(existing);
  // On open, the first wallet input (after the declared ones) pays for the vault: its address
  // becomes the creation account (checked against the chain below, with every input).
  const payer = inputs[declaration.spends.length];
  const account = creates
    ? payer
      ? scriptToAddress(payer.script, g.network)
      : null
    : (own?.creation_account ?? null);
  // Layout 2: the new output also commits to the quote's term, checked against the chain's tip.
  const term = await checkedTerm(g, request.quote);
  const newVault = vaultOutput({
    vaultPubkey: hex.decode(pubkey),
    guardPubkey: g.guardPubkey,
    thresholdHash: await g.oracle.thresholdHashes(BigInt(request.quote.th), request.quote.ts),
    network: g.network,
    ...(term ? { term } : {}),
  });
  const context: ParseContext = {
    treasuryScript: g.treasuryScript,
    newVaultScript: newVault.script,
    unitRuneId: g.runeId,
    postageSats: await requesterPostage(g, shape, account),
    treasuryPostageSats: BigInt(g.postageSats),
  };
  if (own) context.vault = await vaultUtxo(g, own);
  let treasury: TreasuryPick | null = null;
  if (shape.reserve === 'treasury-utxo') {
    treasury = await reservedTreasury(g, request, declaration.action);
    context.treasury = treasury.utxo;
  }
  const claimed = claimedVaultId(declaration, request.payload);
  let liquidated: VaultRow | null = null;
  let secret: Uint8Array | null = null;
  if (claimed !== null) {
    liquidated = await getVault(g.db, claimed);
    if (!liquidated) throw new DomainError('not_found', 'No such liquidated vault');
    if (liquidated.status === 'exited') throw new DomainError('not_liquidated', EXITED_CLAIM);
    if (liquidated.status !== 'liquidated' || liquidated.vault_id === own?.vault_id)
      throw new DomainError('not_liquidated', 'This vault is not liquidated');
    secret = await g.oracle.revealSecret(BigInt(liquidated.threshold_cents), liquidated.stamp);
    if (!secret)
      throw new DomainError('not_liquidated', 'The oracle has not revealed this vault’s threshold');
    context.liquidated = await claimedUtxo(g, liquidated);
  }
  const written = term && newVault.exitBranch ? { ...term, exitBranch: newVault.exitBranch } : null;
  return { context, existing, own, account, treasury, liquidated, secret, term: written };
}

/**
 * The liquidated vault's output a repossess spends. When its owner's exit spent it first (in a
 * block the exit pass has not read yet, or waiting in the mempool), the repossess is refused in
 * the words it gets once the pass closed the vault.
 */
async function claimedUtxo(g: GuardianContext, liquidated: VaultRow) {
  try {
    return await vaultUtxo(g, liquidated);
  } catch (error) {
    if (
      error instanceof DomainError &&
      error.code === 'vault_busy' &&
      (await exitOf(g.chain, liquidated, { mined: false }))
    )
      throw new DomainError('not_liquidated', EXITED_CLAIM);
    throw error;
  }
}

/** What the store records once the transaction is out: the vault after it and its history row. */
function effectsOf(
  g: GuardianContext,
  declaration: Declaration,
  request: SignedVaultRequest<unknown>,
  tx: ParsedVaultTransaction,
  known: Known,
  bytes: Uint8Array,
): Effects {
  const { quote } = request;
  const { context } = known;
  const after: VaultAfter = {
    btc_locked: Number(tx.state.vaultSats),
    unit_borrowed: Number(tx.state.unitDebt),
    threshold_cents: quote.th,
    stamp: quote.ts,
    utxo_script: hex.encode(context.newVaultScript),
    ...(known.term
      ? { settle_height: known.term.settleHeight, exit_height: known.term.exitHeight }
      : {}),
  };
  const moved = declaration.historyAmounts(tx, context);
  const history = {
    action: tx.state.action,
    btc_amt: Number(moved.btc),
    unit_amt: Number(moved.unit),
    // Whole dollars: the history's oracle price is an integer column read as USD by the app.
    oracle_price: Math.floor(quote.price_cents / 100),
  };
  const { vault } = declaration.shape;
  if (vault === 'creates')
    return {
      kind: 'open',
      vault_pubkey: request.vault_pubkey.toLowerCase(),
      name: (request.payload as CreateConfigPayload).vault_label.trim(),
      // The first wallet input pays for the vault: its address is the creation account.
      creation_account: known.account ?? '',
      // The UNIT issued goes to the runes address: output 1 (docs/protocol.md).
      runes_account: scriptToAddress(outputScript(bytes, 1), g.network) ?? '',
      after,
      history,
      reservation_id: known.treasury!.reservationId,
    };
  if (vault === 'claims') {
    const taken = context.liquidated!;
    const own = known.own!;
    return {
      kind: 'repossess',
      vault_id: own.vault_id,
      after,
      history,
      liquidated: {
        vault_id: known.liquidated!.vault_id,
        btc_amt: Number(taken.value),
        unit_amt: Number(taken.unitDebt),
        utxo_script: hex.encode(taken.script),
      },
      before: {
        ...{ vault_txid: own.vault_txid, vault_vout: own.vault_vout },
        ...{ btc_locked: Number(own.btc_locked), unit_borrowed: Number(own.unit_borrowed) },
        ...{ threshold_cents: Number(own.threshold_cents), stamp: Number(own.stamp) },
        ...{ settle_height: own.settle_height, exit_height: own.exit_height },
      },
    };
  }
  return {
    kind: 'update',
    vault_id: known.own!.vault_id,
    after,
    history,
    reservation_id: known.treasury?.reservationId ?? request.reservation_id ?? null,
  };
}

/** Prepares one vault action for the pipeline; throws a DomainError for every refusal. */
export async function prepareAction<A extends VaultAction>(
  g: GuardianContext,
  action: A,
  request: SignedVaultRequest<ActionPayloads[A]>,
  { bytes, inputs }: PrecheckedAction,
): Promise<Prepared<ActionResults[A]>> {
  const declaration = declarationOf(action) as Declaration;
  const pubkey = request.vault_pubkey.toLowerCase();
  await refuseForeignVaults(g, inputs, pubkey, claimedVaultId(declaration, request.payload));
  const known = await readKnown(g, declaration, request, inputs);

  const parsed = parseVaultTransaction(action, bytes, known.context);
  if (!parsed.ok) throw bad(parsed.reason);
  const tx = parsed.value;
  const refusal = guardianCheck(declaration, {
    parsed: tx,
    payload: request.payload,
    quote: request.quote,
    nonce: request.nonce,
    expiresAt: request.expires_at,
    vaultPubkey: pubkey,
    reservedUnit: known.treasury?.reservedAmount ?? null,
    term: known.term ?? undefined,
  });
  if (refusal) throw new DomainError(refusal.code, refusal.message);

  const prevouts = await chainPrevouts(g, inputs);
  const effects = effectsOf(g, declaration, request, tx, known, bytes);

  // The vaults as validated: the same output and status must hold at the broadcast.
  const unchanged = (row: VaultRow | null, was: VaultRow | null) =>
    row === null || was === null
      ? row === was
      : row.status === was.status &&
        row.vault_txid === was.vault_txid &&
        row.vault_vout === was.vault_vout;
  const { own, liquidated, treasury } = known;
  const stillCurrent = async () =>
    // An open was validated against the key's closed vault, if any (refuseSecondVault).
    unchanged(await getVaultByPubkey(g.db, pubkey), known.existing) &&
    (liquidated === null || unchanged(await getVault(g.db, liquidated.vault_id), liquidated));

  return {
    vaultId: own?.vault_id ?? null,
    treasuryOutput: treasury ? { txid: treasury.utxo.txid, vout: treasury.utxo.vout } : null,
    stillCurrent,
    effects,
    cosign: (onApprovals) =>
      cosign(
        g,
        { action, request, nonce: request.nonce, onApprovals },
        declaration.spends,
        bytes,
        prevouts,
        known.secret,
      ),
    result: (txid) => declaration.result(txid, own?.vault_id ?? txid) as ActionResults[A],
  };
}
