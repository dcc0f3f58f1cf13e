// Checks one wallet-signed vault request against every rule before the guardian signs anything:
// the transaction's layout and amounts (parseVaultTransaction), its state record against the quote
// and the request, the collateral rules of @unit/protocol at the quote's price, the fee rate, and
// (once co-signed) every input's signature against the outputs the chain holds.
import { base64, hex } from '@scure/base';
import { Transaction } from '@scure/btc-signer';
import { tapLeafHash } from '@scure/btc-signer/payment.js';
import { equalBytes } from '@scure/btc-signer/utils.js';
import { schnorr } from '@noble/curves/secp256k1.js';
import {
  addLiquidationWitness,
  cosignVaultInput,
  feeFor,
  finalize,
  parseTransaction,
  parseVaultTransaction,
  scriptToAddress,
  signTreasuryInput,
  TAPSCRIPT_LEAF_VERSION,
  updateLeafScript,
  vaultOutput,
  verifyInputs,
  type KnownUtxo,
  type ParseContext,
  type ParsedVaultTransaction,
  type Prevout,
} from '@unit/bitcoin';
import {
  accountPostageSats,
  COLLATERAL_PERCENT,
  MIN_BTC_SATS,
  MIN_VAULT_BALANCE_SATS,
  liquidationThresholdCents,
  ratioAtLeast,
  referralLevel,
  sats,
  unitCents,
  type BorrowPayload,
  type CreateConfigPayload,
  type DepositPayload,
  type RepayPayload,
  type RepossessPayload,
  type SignedVaultRequest,
  type VaultAction,
  type WithdrawPayload,
} from '@unit/protocol';
import type { ChainOutput } from '../chain/port';
import { DomainError } from '../errors';
import { getReservation, getVault, getVaultByPubkey, type VaultRow } from '../store';
import { countReferrals } from '../store/users';
import type { GuardianContext } from './context';
import type { Effects, HistoryEffect, VaultAfter } from './effects';
import { claimLock, vaultLock } from './locks';
import type { Prechecked, Prepared } from './pipeline';
import { refuseSecondVault } from './reserve';
import { catchUpVault } from './settle';

// btc-signer refuses OP_RETURN outputs (state record, runestone) unless told they are wanted.
const PSBT_OPTS = { allowUnknownOutputs: true } as const;

/** Each action's payload and result: the wire contract's inferred types (@unit/protocol/wire). */
import type { ActionPayloads, ActionResults } from '@unit/protocol';
export type { ActionPayloads, ActionResults };

const bad = (reason: string) =>
  new DomainError('bad_transaction', `Invalid transaction: ${reason}`);

/** The on-chain output of a vault the store knows, checked against the keys and threshold stored. */
async function vaultUtxo(
  g: GuardianContext,
  row: VaultRow,
): Promise<KnownUtxo & { unitDebt: bigint }> {
  const output = await g.chain.output(row.vault_txid, row.vault_vout);
  // Spent by a transaction of ours whose request failed as its answer was lost (settle.ts): the
  // vault catches up with the chain, and this request, built on its old output, is refused.
  if (output?.spent && (await catchUpVault(g, row)))
    throw new DomainError('vault_changed', 'The vault just changed on the chain; please try again');
  if (!output || output.spent)
    throw new DomainError('vault_busy', 'The vault output is already being spent');
  const expected = vaultOutput({
    vaultPubkey: hex.decode(row.vault_pubkey),
    guardPubkey: g.guardPubkey,
    thresholdHash: g.oracle.thresholdHash(BigInt(row.threshold_cents), row.stamp),
    network: g.network,
  }).script;
  const script = hex.decode(output.script_hex);
  if (!equalBytes(script, expected))
    throw new DomainError('internal', 'The vault on chain does not match the stored vault');
  return {
    txid: row.vault_txid,
    vout: row.vault_vout,
    value: BigInt(output.value),
    script,
    unitDebt: BigInt(row.unit_borrowed),
  };
}

interface TreasuryPick {
  utxo: KnownUtxo & { unitAmount: bigint };
  reservationId: string;
  reservedAmount: bigint;
}

/** The reserved treasury UNIT UTXO of an open or borrow (unit.reserve). */
async function reservedTreasury(
  g: GuardianContext,
  request: SignedVaultRequest<unknown>,
  action: 'open' | 'borrow',
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

interface Outpoint {
  txid: string;
  vout: number;
  script: Uint8Array;
  amount: bigint;
}

function readPsbt(psbtBase64: string): { bytes: Uint8Array; tx: Transaction; inputs: Outpoint[] } {
  let bytes: Uint8Array;
  let tx: Transaction;
  try {
    bytes = base64.decode(psbtBase64);
    tx = Transaction.fromPSBT(bytes, PSBT_OPTS);
  } catch {
    throw bad('not a readable PSBT');
  }
  const inputs: Outpoint[] = [];
  for (let i = 0; i < tx.inputsLength; i++) {
    const input = tx.getInput(i);
    if (!input.txid || input.index === undefined || !input.witnessUtxo)
      throw bad(`input ${i} has no witnessUtxo`);
    inputs.push({
      txid: hex.encode(input.txid),
      vout: input.index,
      script: input.witnessUtxo.script,
      amount: input.witnessUtxo.amount,
    });
  }
  return { bytes, tx, inputs };
}

/** Where the wallet signs its own vault's update leaf; an open spends no vault. */
const VAULT_INPUT: Record<VaultAction, number | null> = {
  open: null,
  deposit: 0,
  withdraw: 0,
  borrow: 0,
  repay: 0,
  repossess: 1,
};

/**
 * The vault key's signature of its vault input, over the prevouts the PSBT itself claims: CPU only,
 * no database or chain. A request that carries only someone's public vault key cannot pass it, so
 * it never gets to lock that vault. (The prevouts are checked against the chain later; a lie there
 * makes this signature fail the final check.)
 */
function checkVaultSignature(
  g: GuardianContext,
  tx: Transaction,
  inputs: Outpoint[],
  index: number,
  vaultPubkey: Uint8Array,
): void {
  const refused = new DomainError(
    'bad_signature',
    'The vault input is not signed by the vault key',
  );
  if (index >= inputs.length) throw bad('the vault input is missing');
  const leafScript = updateLeafScript(vaultPubkey, g.guardPubkey);
  const leafHash = tapLeafHash(leafScript, TAPSCRIPT_LEAF_VERSION);
  const entry = tx
    .getInput(index)
    .tapScriptSig?.find(
      ([key]) => equalBytes(key.pubKey, vaultPubkey) && equalBytes(key.leafHash, leafHash),
    );
  if (!entry) throw refused;
  const signature = entry[1];
  if (signature.length !== 64 && signature.length !== 65) throw refused;
  const hashType = signature.length === 65 ? signature[64]! : 0;
  let ok = false;
  try {
    const message = tx.preimageWitnessV1(
      index,
      inputs.map((i) => i.script),
      hashType,
      inputs.map((i) => i.amount),
      -1,
      leafScript,
      TAPSCRIPT_LEAF_VERSION,
    );
    ok = schnorr.verify(signature.subarray(0, 64), message, vaultPubkey);
  } catch {
    ok = false;
  }
  if (!ok) throw refused;
}

export interface PrecheckedAction extends Prechecked {
  bytes: Uint8Array;
  inputs: Outpoint[];
}

/**
 * The checks that cost no database read: the PSBT parses and the vault key signed its input. Runs
 * before any lock is taken. Names the locks the request needs: its own vault, and for repossess
 * the vault it claims.
 */
export function precheckAction<A extends VaultAction>(
  g: GuardianContext,
  action: A,
  request: SignedVaultRequest<ActionPayloads[A]>,
): PrecheckedAction {
  const { bytes, tx, inputs } = readPsbt(request.psbt);
  const vaultIndex = VAULT_INPUT[action];
  if (vaultIndex !== null)
    checkVaultSignature(g, tx, inputs, vaultIndex, hex.decode(request.vault_pubkey.toLowerCase()));
  const lockKeys = [vaultLock(request.vault_pubkey)];
  if (action === 'repossess')
    lockKeys.push(claimLock((request.payload as RepossessPayload).liquidated_vault_id));
  return { bytes, inputs, lockKeys };
}

/**
 * Every input's prevout as the chain has it: the signatures are checked against these, never
 * against what the PSBT claims, and an input the chain does not hold unspent is refused.
 */
async function chainPrevouts(g: GuardianContext, inputs: Outpoint[]): Promise<Prevout[]> {
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
async function refuseForeignVaults(
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

function requireActive(row: VaultRow | null): VaultRow {
  if (!row) throw new DomainError('not_found', 'No vault exists for this key');
  if (row.status !== 'active')
    throw new DomainError('vault_liquidated', 'This vault has been liquidated');
  return row;
}

function mustEqual(
  actual: bigint | number | string,
  expected: bigint | number | string,
  what: string,
) {
  if (String(actual) !== String(expected)) throw bad(`${what} does not match the request`);
}

/**
 * The postage the requester's own UNIT outputs must carry: its account's referral level's, the
 * default below the first level (missions.ts `accountPostageSats`).
 */
async function requesterPostage(
  g: GuardianContext,
  action: VaultAction,
  account: string | null,
): Promise<bigint> {
  if (action !== 'open' && action !== 'borrow' && action !== 'repay') return BigInt(g.postageSats);
  if (!account) return BigInt(g.postageSats);
  const level = referralLevel(await countReferrals(g.db, account));
  return BigInt(accountPostageSats(level, g.postageSats));
}

/** Prepares one vault action for the pipeline; throws a DomainError for every refusal. */
export async function prepareAction<A extends VaultAction>(
  g: GuardianContext,
  action: A,
  request: SignedVaultRequest<ActionPayloads[A]>,
  { bytes, inputs }: PrecheckedAction,
): Promise<Prepared<ActionResults[A]>> {
  const pubkey = request.vault_pubkey.toLowerCase();
  const { quote } = request;
  const payload = request.payload as ActionPayloads[VaultAction];

  const liquidatedId =
    action === 'repossess' ? (payload as RepossessPayload).liquidated_vault_id.toLowerCase() : null;
  await refuseForeignVaults(g, inputs, pubkey, liquidatedId);

  // ---- the vaults and the treasury UTXO the transaction must spend, read from the chain ----
  const existing = await getVaultByPubkey(g.db, pubkey);
  let own: VaultRow | null = null;
  if (action === 'open') {
    refuseSecondVault(existing);
  } else {
    own = requireActive(existing);
  }
  // The requester's account: the vault's creation account, or on open the address of the first
  // wallet input, which becomes it (checked against the chain below, with every input).
  const account =
    action === 'open'
      ? inputs[1]
        ? scriptToAddress(inputs[1].script, g.network)
        : null
      : (own?.creation_account ?? null);
  const context: ParseContext = {
    treasuryScript: g.treasuryScript,
    newVaultScript: vaultOutput({
      vaultPubkey: hex.decode(pubkey),
      guardPubkey: g.guardPubkey,
      thresholdHash: g.oracle.thresholdHash(BigInt(quote.th), quote.ts),
      network: g.network,
    }).script,
    unitRuneId: g.runeId,
    postageSats: await requesterPostage(g, action, account),
    treasuryPostageSats: BigInt(g.postageSats),
  };
  if (own) context.vault = await vaultUtxo(g, own);
  let treasury: TreasuryPick | null = null;
  if (action === 'open' || action === 'borrow') {
    treasury = await reservedTreasury(g, request, action);
    context.treasury = treasury.utxo;
  }
  let liquidated: VaultRow | null = null;
  let secret: Uint8Array | null = null;
  if (liquidatedId !== null) {
    liquidated = await getVault(g.db, liquidatedId);
    if (!liquidated) throw new DomainError('not_found', 'No such liquidated vault');
    if (liquidated.status !== 'liquidated' || liquidated.vault_id === own?.vault_id)
      throw new DomainError('not_liquidated', 'This vault is not liquidated');
    secret = g.oracle.revealedSecret(BigInt(liquidated.threshold_cents), liquidated.stamp);
    if (!secret)
      throw new DomainError('not_liquidated', 'The oracle has not revealed this vault’s threshold');
    const utxo = await vaultUtxo(g, liquidated);
    context.liquidated = utxo;
  }

  const parsed = parseVaultTransaction(action, bytes, context);
  if (!parsed.ok) throw bad(parsed.reason);
  const tx = parsed.value;
  checkStateRecord(tx, request);
  checkAmounts(action, payload, tx, treasury);
  checkRules(action, tx, quote.price_cents, payload.tx_feerate);

  const prevouts = await chainPrevouts(g, inputs);
  const after: VaultAfter = {
    btc_locked: Number(tx.state.vaultSats),
    unit_borrowed: Number(tx.state.unitDebt),
    threshold_cents: quote.th,
    stamp: quote.ts,
    utxo_script: hex.encode(context.newVaultScript),
  };
  // Whole dollars: the history's oracle price is an integer column read as USD by the app.
  const oraclePrice = Math.floor(quote.price_cents / 100);
  const history = (btc: bigint, unit: bigint): HistoryEffect => ({
    action: tx.state.action,
    btc_amt: Number(btc),
    unit_amt: Number(unit),
    oracle_price: oraclePrice,
  });
  let effects: Effects;
  if (action === 'open') {
    const open = payload as CreateConfigPayload;
    effects = {
      kind: 'open',
      vault_pubkey: pubkey,
      name: open.vault_label.trim(),
      // The first wallet input pays for the vault: its address is the creation account.
      creation_account: account ?? '',
      runes_account: scriptToAddress(outputScript(bytes, 1), g.network) ?? '',
      after,
      history: history(tx.btcAmount, tx.unitAmount),
      reservation_id: treasury!.reservationId,
    };
  } else if (action === 'repossess') {
    const taken = context.liquidated!;
    effects = {
      kind: 'repossess',
      vault_id: own!.vault_id,
      after,
      history: history(taken.value - tx.btcAmount, taken.unitDebt),
      liquidated: {
        vault_id: liquidated!.vault_id,
        btc_amt: Number(taken.value),
        unit_amt: Number(taken.unitDebt),
        utxo_script: hex.encode(taken.script),
      },
    };
  } else {
    effects = {
      kind: 'update',
      vault_id: own!.vault_id,
      after,
      history: history(tx.btcAmount, tx.unitAmount),
      reservation_id: treasury?.reservationId ?? request.reservation_id ?? null,
    };
  }

  // The vaults as validated: the same output and status must hold at the broadcast.
  const unchanged = (row: VaultRow | null, was: VaultRow | null) =>
    row === null || was === null
      ? row === was
      : row.status === was.status &&
        row.vault_txid === was.vault_txid &&
        row.vault_vout === was.vault_vout;
  const stillCurrent = async () =>
    // An open was validated against the key's closed vault, if any (refuseSecondVault).
    unchanged(await getVaultByPubkey(g.db, pubkey), action === 'open' ? existing : own) &&
    (liquidated === null || unchanged(await getVault(g.db, liquidated.vault_id), liquidated));

  return {
    vaultId: own?.vault_id ?? null,
    treasuryOutput: treasury ? { txid: treasury.utxo.txid, vout: treasury.utxo.vout } : null,
    stillCurrent,
    effects,
    cosign: () => cosign(g, action, bytes, prevouts, secret),
    result: (txid) => resultOf(action, txid, own?.vault_id ?? txid) as ActionResults[A],
  };
}

function outputScript(psbt: Uint8Array, index: number): Uint8Array {
  return Transaction.fromPSBT(psbt, PSBT_OPTS).getOutput(index).script ?? new Uint8Array();
}

/** The state record binds the quote and the request (docs/protocol.md, The state record). */
function checkStateRecord(tx: ParsedVaultTransaction, request: SignedVaultRequest<unknown>) {
  const { state } = tx;
  const { quote } = request;
  mustEqual(state.quotePriceCents, quote.price_cents, 'the recorded quote price');
  mustEqual(state.thresholdCents, quote.th, 'the recorded threshold');
  mustEqual(state.quoteStamp, quote.ts, 'the recorded quote stamp');
  mustEqual(hex.encode(state.nonce), request.nonce.toLowerCase(), 'the recorded nonce');
  mustEqual(state.expiry, request.expires_at, 'the recorded expiry');
  // th_cents is the liquidation price after the action: the vault's leaf must open exactly there.
  mustEqual(
    liquidationThresholdCents(sats(state.vaultSats), unitCents(state.unitDebt)),
    quote.th,
    'the liquidation threshold of the new state',
  );
}

function checkAmounts(
  action: VaultAction,
  payload: ActionPayloads[VaultAction],
  tx: ParsedVaultTransaction,
  treasury: TreasuryPick | null,
) {
  switch (action) {
    case 'open': {
      const p = payload as CreateConfigPayload;
      mustEqual(tx.btcAmount, p.deposit_amount, 'the deposit');
      mustEqual(tx.unitAmount, p.borrow_amount, 'the borrowed UNIT');
      break;
    }
    case 'deposit':
      mustEqual(tx.btcAmount, (payload as DepositPayload).deposit_amount, 'the deposit');
      break;
    case 'borrow':
      mustEqual(tx.unitAmount, (payload as BorrowPayload).borrow_amount, 'the borrowed UNIT');
      break;
    case 'repay':
      mustEqual(tx.unitAmount, (payload as RepayPayload).repay_amount, 'the repaid UNIT');
      break;
    case 'withdraw':
      mustEqual(tx.btcAmount, (payload as WithdrawPayload).change_amount, 'the withdrawal');
      break;
    case 'repossess':
      break;
  }
  if (treasury && tx.unitAmount > treasury.reservedAmount)
    throw new DomainError('reservation_missing', 'The UNIT reservation is for a smaller amount');
}

function checkRules(
  action: VaultAction,
  tx: ParsedVaultTransaction,
  priceCents: number,
  txFeerate: number,
) {
  if (
    (action === 'open' || action === 'deposit' || action === 'withdraw') &&
    tx.btcAmount < BigInt(MIN_BTC_SATS)
  )
    throw new DomainError('below_minimum', 'The amount is below the minimum of 0.00005 BTC');
  if (tx.vaultSats < BigInt(MIN_VAULT_BALANCE_SATS))
    throw new DomainError('below_minimum', 'The vault would hold less than its minimum balance');
  // api.ts tx_feerate: what the user chose, and never under 1 sat/vB.
  const required = feeFor(tx.vsize, Math.max(1, txFeerate));
  if (tx.fee < required)
    throw new DomainError(
      'fee_too_low',
      `The fee pays ${tx.fee} sats; ${required} are needed at ${txFeerate} sat/vB`,
    );
  // ARCHITECTURE.md: borrow and withdraw (and a vault taking on debt) stay at 160% or more at the
  // oracle's price; deposit and repay only raise the ratio.
  if (
    (action === 'open' || action === 'borrow' || action === 'withdraw' || action === 'repossess') &&
    !ratioAtLeast(
      sats(tx.vaultSats),
      unitCents(tx.state.unitDebt),
      priceCents / 100,
      COLLATERAL_PERCENT,
    )
  )
    throw new DomainError(
      'ratio_too_low',
      `This would leave the collateral ratio under ${COLLATERAL_PERCENT}%`,
    );
}

/** Adds the guardian's (and treasury's) signatures, finalizes, and checks every input. */
export function cosign(
  g: GuardianContext,
  action: VaultAction,
  psbt: Uint8Array,
  prevouts: Prevout[],
  secret: Uint8Array | null,
): { txid: string; hex: string } {
  let signed = psbt;
  switch (action) {
    case 'open':
      signed = signTreasuryInput(signed, g.treasuryKey, 0);
      break;
    case 'borrow':
      signed = cosignVaultInput(signed, g.guardianKey, 0);
      signed = signTreasuryInput(signed, g.treasuryKey, 1);
      break;
    case 'repossess':
      signed = addLiquidationWitness(signed, 0, { secret: secret!, guardianKey: g.guardianKey });
      signed = cosignVaultInput(signed, g.guardianKey, 1);
      break;
    default:
      signed = cosignVaultInput(signed, g.guardianKey, 0);
  }
  let raw: string;
  try {
    raw = finalize(signed);
  } catch {
    throw new DomainError('bad_signature', 'The wallet signatures are missing');
  }
  const verified = verifyInputs(raw, prevouts);
  if (!verified.ok)
    throw new DomainError(
      'bad_signature',
      `The signature of input ${verified.input} is not valid (${verified.reason})`,
    );
  return { txid: parseTransaction(raw).id, hex: raw };
}

function resultOf(action: VaultAction, txid: string, vaultId: string) {
  switch (action) {
    case 'open':
      // Open and borrow are one transaction: issue_txid equals vault_txid (api.ts).
      return { issue_txid: txid, vault_txid: txid, vault_id: vaultId };
    case 'borrow':
      return { issue_txid: txid, vault_txid: txid };
    case 'repay':
      return { repay_txid: txid, vault_txid: txid };
    default:
      return { vault_txid: txid };
  }
}
