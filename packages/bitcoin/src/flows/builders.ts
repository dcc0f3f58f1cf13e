// One PSBT builder per vault action of docs/protocol.md ("Transactions"). Each states the action's
// fixed inputs and outputs in the contract's order and hands them to assembleVaultTx, which adds the
// payment inputs and BTC change.
import { repossessionTaxSats, UNIT_POSTAGE_SATS } from '@unit/protocol';
import {
  encodeRunestone,
  stateRecordScript,
  type RuneId,
  type StateAction,
  type StateRecord,
  type VaultOutput,
} from '../core';
import type { PaymentUtxo } from './coin-select';
import {
  assembleVaultTx,
  planWeight,
  vaultLeaf,
  VaultTxError,
  walletInput,
  type AssembledVaultTx,
  type PlannedInput,
  type PlannedOutput,
  type VaultTxPlan,
} from './vault-tx';
import { feeFor, weightToVsize } from './vsize';

/** The connected wallet: its sats address (payments, change) and runes address (UNIT). */
export interface VaultWallet {
  satsScript: Uint8Array;
  /** 33-byte key for P2WPKH / P2SH-P2WPKH, x-only (or 33-byte) for P2TR. */
  paymentPublicKey: Uint8Array;
  runesScript: Uint8Array;
  runesPublicKey: Uint8Array;
}

/** State record fields the caller brings from the oracle quote and the request (docs/protocol.md). */
export interface VaultStateFields {
  quotePriceCents: bigint;
  thresholdCents: bigint;
  quoteStamp: number;
  /** 16 bytes */
  nonce: Uint8Array;
  expiry: number;
  /** The vault's key: only an opening's record carries it (docs/protocol.md, version 2). */
  vaultPubkey?: Uint8Array;
}

/** A vault UTXO on chain with the debt its last state record holds. */
export interface VaultUtxo {
  txid: string;
  vout: number;
  value: bigint;
  unitDebt: bigint;
  /** From `vaultOutput` of the vault's keys and its current threshold hash. */
  output: Pick<VaultOutput, 'script' | 'tapLeafScript'>;
}

/** The treasury UNIT UTXO handed out by unit.reserve (ReserveResult.treasury_utxo). */
export interface TreasuryUtxo {
  txid: string;
  vout: number;
  value: bigint;
  script: Uint8Array;
  unitAmount: bigint;
  /** `treasury_pubkey` of /api/config: the P2TR key-path internal key. */
  internalKey: Uint8Array;
}

/** A UNIT output of the wallet's runes address (SPEC §3 UNIT output). */
export interface UnitUtxo {
  txid: string;
  vout: number;
  value: bigint;
  script: Uint8Array;
  unitAmount: bigint;
}

interface ActionBase {
  wallet: VaultWallet;
  utxos: readonly PaymentUtxo[];
  /** sat/vB */
  feeRate: number;
  state: VaultStateFields;
  /** The vault output after the action: its liquidation leaf commits to the new threshold. */
  newVault: Pick<VaultOutput, 'script'>;
  dustLimit?: bigint;
}

interface RuneIssue {
  unitRuneId: RuneId;
  /** Postage of the account's own UNIT output (its referral level's); default SPEC §9's. */
  postageSats?: bigint;
}

export interface OpenParams extends ActionBase, RuneIssue {
  depositAmount: bigint;
  borrowAmount: bigint;
  treasury: TreasuryUtxo;
}

export interface DepositParams extends ActionBase {
  vault: VaultUtxo;
  depositAmount: bigint;
}

export interface BorrowParams extends ActionBase, RuneIssue {
  vault: VaultUtxo;
  borrowAmount: bigint;
  treasury: TreasuryUtxo;
}

export interface RepayParams extends ActionBase, RuneIssue {
  vault: VaultUtxo;
  repayAmount: bigint;
  unitUtxos: readonly UnitUtxo[];
  treasuryScript: Uint8Array;
  /** Postage of the UNIT sent back to the treasury; default SPEC §9's. */
  treasuryPostageSats?: bigint;
}

export interface WithdrawParams {
  wallet: Pick<VaultWallet, 'satsScript'>;
  feeRate: number;
  state: VaultStateFields;
  newVault: Pick<VaultOutput, 'script'>;
  vault: VaultUtxo;
  withdrawAmount: bigint;
}

export interface RepossessParams extends ActionBase {
  /** The claimant's own vault. */
  vault: VaultUtxo;
  liquidated: VaultUtxo;
  treasuryScript: Uint8Array;
}

export interface BuiltVaultTx extends AssembledVaultTx {
  /** The state record the transaction carries. */
  state: StateRecord;
}

function positive(amount: bigint, what: string): void {
  if (amount <= 0n) throw new VaultTxError('bad_amount', `${what} must be positive`);
}

function stateOutput(
  action: StateAction,
  fields: VaultStateFields,
  unitDebt: bigint,
  vaultSats: bigint,
): { output: PlannedOutput; record: StateRecord } {
  const { vaultPubkey, ...rest } = fields;
  const key = action === 'o' && vaultPubkey ? { vaultPubkey } : {};
  const record: StateRecord = { action, unitDebt, vaultSats, ...rest, ...key };
  return { output: { script: stateRecordScript(record), amount: 0n }, record };
}

/** The vault spent through its update leaf: the wallet signs with vault_pubkey, the guardian co-signs. */
function vaultUpdateInput(vault: VaultUtxo): PlannedInput {
  return {
    txid: vault.txid,
    vout: vault.vout,
    value: vault.value,
    script: vault.output.script,
    kind: 'vault-update',
    signers: ['user', 'guardian'],
    tapLeafScript: [vaultLeaf(vault.output, 'update')],
  };
}

function treasuryInput(treasury: TreasuryUtxo): PlannedInput {
  return {
    txid: treasury.txid,
    vout: treasury.vout,
    value: treasury.value,
    script: treasury.script,
    kind: 'p2tr',
    signers: ['treasury'],
    tapInternalKey: treasury.internalKey,
  };
}

/** docs/protocol.md: one edict of `amount` UNIT to output 1, pointer 2 for the rest. */
export function unitRunestoneScript(unitRuneId: RuneId, amount: bigint): Uint8Array {
  return encodeRunestone({ edicts: [{ id: unitRuneId, amount, output: 1 }], pointer: 2 });
}

function payment(base: ActionBase): VaultTxPlan['payment'] {
  return {
    utxos: base.utxos,
    publicKey: base.wallet.paymentPublicKey,
    changeScript: base.wallet.satsScript,
    feeRate: base.feeRate,
    ...(base.dustLimit !== undefined ? { dustLimit: base.dustLimit } : {}),
  };
}

function build(plan: VaultTxPlan, record: StateRecord): BuiltVaultTx {
  return { ...assembleVaultTx(plan), state: record };
}

/** Issuing UNIT from the treasury: postage to the runes address, treasury change, runestone. */
function issueOutputs(
  params: RuneIssue & { wallet: VaultWallet; treasury: TreasuryUtxo },
  amount: bigint,
) {
  if (params.treasury.unitAmount < amount)
    throw new VaultTxError('insufficient_funds', 'the treasury UTXO holds too little UNIT');
  const postage = params.postageSats ?? BigInt(UNIT_POSTAGE_SATS);
  return [
    { script: params.wallet.runesScript, amount: postage },
    { script: params.treasury.script, amount: params.treasury.value },
    { script: unitRunestoneScript(params.unitRuneId, amount), amount: 0n },
  ];
}

/** open `o`: treasury UNIT UTXO, P… → vault, UNIT postage, treasury change, R, S, C. */
export function openPlan(params: OpenParams): { plan: VaultTxPlan; record: StateRecord } {
  const state = stateOutput('o', params.state, params.borrowAmount, params.depositAmount);
  return {
    plan: {
      inputs: [treasuryInput(params.treasury)],
      outputs: [
        { script: params.newVault.script, amount: params.depositAmount },
        ...issueOutputs(params, params.borrowAmount),
        state.output,
      ],
      payment: payment(params),
    },
    record: state.record,
  };
}

export function buildOpenPsbt(params: OpenParams): BuiltVaultTx {
  positive(params.depositAmount, 'deposit amount');
  positive(params.borrowAmount, 'borrow amount');
  const { plan, record } = openPlan(params);
  return build(plan, record);
}

/** deposit `d`: vault, P… → vault, S, C. */
export function depositPlan(params: DepositParams): { plan: VaultTxPlan; record: StateRecord } {
  const vaultSats = params.vault.value + params.depositAmount;
  const state = stateOutput('d', params.state, params.vault.unitDebt, vaultSats);
  return {
    plan: {
      inputs: [vaultUpdateInput(params.vault)],
      outputs: [{ script: params.newVault.script, amount: vaultSats }, state.output],
      payment: payment(params),
    },
    record: state.record,
  };
}

export function buildDepositPsbt(params: DepositParams): BuiltVaultTx {
  positive(params.depositAmount, 'deposit amount');
  const { plan, record } = depositPlan(params);
  return build(plan, record);
}

/** borrow `b`: vault, treasury UNIT UTXO, P… → vault, UNIT postage, treasury change, R, S, C. */
export function buildBorrowPsbt(params: BorrowParams): BuiltVaultTx {
  positive(params.borrowAmount, 'borrow amount');
  const debt = params.vault.unitDebt + params.borrowAmount;
  const state = stateOutput('b', params.state, debt, params.vault.value);
  return build(
    {
      inputs: [vaultUpdateInput(params.vault), treasuryInput(params.treasury)],
      outputs: [
        { script: params.newVault.script, amount: params.vault.value },
        ...issueOutputs(params, params.borrowAmount),
        state.output,
      ],
      payment: payment(params),
    },
    state.record,
  );
}

/** repay `r`: vault, user UNIT outputs…, P… → vault, UNIT to treasury, UNIT change, R, S, C. */
export function buildRepayPsbt(params: RepayParams): BuiltVaultTx {
  positive(params.repayAmount, 'repay amount');
  if (params.repayAmount > params.vault.unitDebt)
    throw new VaultTxError('bad_amount', 'repay amount exceeds the UNIT debt');
  const held = params.unitUtxos.reduce((sum, utxo) => sum + utxo.unitAmount, 0n);
  if (held < params.repayAmount)
    throw new VaultTxError('insufficient_funds', 'the UNIT outputs hold too little UNIT');
  const postage = params.postageSats ?? BigInt(UNIT_POSTAGE_SATS);
  const treasuryPostage = params.treasuryPostageSats ?? BigInt(UNIT_POSTAGE_SATS);
  const state = stateOutput(
    'r',
    params.state,
    params.vault.unitDebt - params.repayAmount,
    params.vault.value,
  );
  return build(
    {
      inputs: [
        vaultUpdateInput(params.vault),
        ...params.unitUtxos.map((utxo) => walletInput(utxo, params.wallet.runesPublicKey)),
      ],
      outputs: [
        { script: params.newVault.script, amount: params.vault.value },
        { script: params.treasuryScript, amount: treasuryPostage },
        { script: params.wallet.runesScript, amount: postage },
        { script: unitRunestoneScript(params.unitRuneId, params.repayAmount), amount: 0n },
        state.output,
      ],
      payment: payment(params),
    },
    state.record,
  );
}

function withdrawOutputs(params: WithdrawParams, vaultSats: bigint) {
  const state = stateOutput('w', params.state, params.vault.unitDebt, vaultSats);
  return {
    state,
    outputs: [
      { script: params.newVault.script, amount: vaultSats },
      { script: params.wallet.satsScript, amount: params.withdrawAmount },
      state.output,
    ],
  };
}

/**
 * The fee of a withdraw: fixed for a given sats address type, so the caller can know the vault's
 * balance after it (and its threshold) before building.
 */
export function withdrawFee(params: WithdrawParams): bigint {
  const { outputs } = withdrawOutputs(params, 0n);
  const weight = planWeight({ inputs: [vaultUpdateInput(params.vault)], outputs });
  return feeFor(weightToVsize(weight), params.feeRate);
}

/** withdraw `w`: vault → vault, withdrawal to sats address, S; the fee comes out of the vault. */
export function buildWithdrawPsbt(params: WithdrawParams): BuiltVaultTx {
  positive(params.withdrawAmount, 'withdraw amount');
  const vaultSats = params.vault.value - params.withdrawAmount - withdrawFee(params);
  if (vaultSats <= 0n)
    throw new VaultTxError(
      'insufficient_funds',
      'the vault cannot pay this withdrawal and its fee',
    );
  const { state, outputs } = withdrawOutputs(params, vaultSats);
  return build({ inputs: [vaultUpdateInput(params.vault)], outputs }, state.record);
}

/** The repossession tax, as @unit/protocol defines it, in plain bigint for the builders. */
export function repossessionTax(liquidatedSats: bigint): bigint {
  return repossessionTaxSats(liquidatedSats);
}

/**
 * repossess `x`: liquidated vault (liquidation leaf), claimant's vault, P… → claimant's vault, tax
 * to treasury, S, C. The claimant's vault takes on the liquidated debt and the collateral less tax.
 */
export function buildRepossessPsbt(params: RepossessParams): BuiltVaultTx {
  const tax = repossessionTax(params.liquidated.value);
  const vaultSats = params.vault.value + params.liquidated.value - tax;
  const debt = params.vault.unitDebt + params.liquidated.unitDebt;
  const state = stateOutput('x', params.state, debt, vaultSats);
  const liquidatedInput: PlannedInput = {
    txid: params.liquidated.txid,
    vout: params.liquidated.vout,
    value: params.liquidated.value,
    script: params.liquidated.output.script,
    kind: 'vault-liquidation',
    signers: ['guardian'],
    tapLeafScript: [vaultLeaf(params.liquidated.output, 'liquidation')],
  };
  return build(
    {
      inputs: [liquidatedInput, vaultUpdateInput(params.vault)],
      outputs: [
        { script: params.newVault.script, amount: vaultSats },
        { script: params.treasuryScript, amount: tax },
        state.output,
      ],
      payment: payment(params),
    },
    state.record,
  );
}
