// The pieces the action declarations share: the vault and state-record slots every action's outputs
// open and close with, the UNIT issue of open and borrow, the fixed inputs, and the payment plan.
import { ACTION_SHAPES, UNIT_POSTAGE_SATS, type VaultAction } from '@unit/protocol';
import { equalBytes } from '@scure/btc-signer/utils.js';
import {
  classifyTapLeaf,
  encodeRunestone,
  parseStateRecordScript,
  stateRecordScript,
  type RuneId,
  type StateRecord,
} from '../core';
import {
  assembleVaultTx,
  vaultLeaf,
  VaultTxError,
  type PlannedInput,
  type PlannedOutput,
  type VaultTxPlan,
} from '../flows/vault-tx';
import type { ActionBase, BuiltVaultTx, TreasuryUtxo, VaultStateFields, VaultUtxo } from './params';
import {
  check,
  type BuiltPlan,
  type InputRole,
  type OutputCoder,
  type ParseContext,
  type VaultFields,
} from './types';

export function positive(amount: bigint, what: string): void {
  if (amount <= 0n) throw new VaultTxError('bad_amount', `${what} must be positive`);
}

/** The state record `action` writes: its letter (docs/protocol.md) and the vault after it. */
export function stateRecord(
  vaultAction: VaultAction,
  fields: VaultStateFields,
  unitDebt: bigint,
  vaultSats: bigint,
): StateRecord {
  const action = ACTION_SHAPES[vaultAction].code;
  const { vaultPubkey, quorumCommitment, ...rest } = fields;
  const key = action === 'o' && vaultPubkey ? { vaultPubkey } : {};
  const committed = quorumCommitment ? { quorumCommitment } : {};
  return { action, unitDebt, vaultSats, ...rest, ...key, ...committed };
}

/** docs/protocol.md: one edict of `amount` UNIT to output 1, pointer 2 for the rest. */
export function unitRunestoneScript(unitRuneId: RuneId, amount: bigint): Uint8Array {
  return encodeRunestone({ edicts: [{ id: unitRuneId, amount, output: 1 }], pointer: 2 });
}

export const defaultPostage = (sats: bigint | undefined): bigint =>
  sats ?? BigInt(UNIT_POSTAGE_SATS);

// ---- the first and last slots of every layout: the new vault and its state record ----

export const vaultSlot = (fields: VaultFields): PlannedOutput => ({
  script: fields.vaultScript,
  amount: fields.vaultSats,
});

export const stateSlot = (fields: VaultFields): PlannedOutput => ({
  script: stateRecordScript(fields.state),
  amount: 0n,
});

/**
 * Reads the vault (output 0) and the state record (the last slot) and checks they agree with each
 * other and with the context.
 */
export function decodeVault(
  outputs: readonly PlannedOutput[],
  action: VaultAction,
  ctx: ParseContext,
): VaultFields {
  const code = ACTION_SHAPES[action].code;
  const vaultOut = outputs[0]!;
  check(equalBytes(vaultOut.script, ctx.newVaultScript), 'output 0 is not the expected vault');
  const stateOut = outputs[outputs.length - 1]!;
  const state = parseStateRecordScript(stateOut.script);
  check(state !== null, 'no state record where the layout puts it');
  check(stateOut.amount === 0n, 'the state record carries sats');
  check(state.action === code, `state record action is ${state.action}`);
  check(state.vaultSats === vaultOut.amount, 'state record BTC differs from the vault output');
  return { vaultScript: vaultOut.script, vaultSats: vaultOut.amount, state };
}

// ---- the UNIT issue of open and borrow: postage to the runes address, treasury change, runestone ----

export interface IssueFields {
  runesScript: Uint8Array;
  postageSats: bigint;
  treasuryScript: Uint8Array;
  treasuryValue: bigint;
  unitRuneId: RuneId;
  amount: bigint;
}

export type IssuedVaultFields = VaultFields & { issue: IssueFields };

export function encodeIssue(fields: IssuedVaultFields): PlannedOutput[] {
  const { issue } = fields;
  return [
    vaultSlot(fields),
    { script: issue.runesScript, amount: issue.postageSats },
    { script: issue.treasuryScript, amount: issue.treasuryValue },
    { script: unitRunestoneScript(issue.unitRuneId, issue.amount), amount: 0n },
    stateSlot(fields),
  ];
}

/** Checks outputs 1-3 issue exactly `amount` from the reserved treasury UTXO. */
export function decodeIssue(
  outputs: readonly PlannedOutput[],
  amount: bigint,
  ctx: ParseContext,
): IssueFields {
  const treasury = ctx.treasury;
  check(treasury !== undefined, 'context has no treasury UTXO');
  const postage = outputs[1]!;
  const change = outputs[2]!;
  const runestone = outputs[3]!;
  check(amount > 0n, 'no UNIT issued');
  check(amount <= treasury.unitAmount, 'the treasury UTXO holds too little UNIT');
  check(postage.amount === defaultPostage(ctx.postageSats), 'UNIT postage amount');
  check(!equalBytes(postage.script, ctx.treasuryScript), 'UNIT postage goes to the treasury');
  check(
    equalBytes(change.script, ctx.treasuryScript) && change.amount === treasury.value,
    'treasury change must return the treasury UTXO',
  );
  check(
    equalBytes(runestone.script, unitRunestoneScript(ctx.unitRuneId, amount)),
    'runestone does not issue the recorded debt',
  );
  return {
    runesScript: postage.script,
    postageSats: postage.amount,
    treasuryScript: change.script,
    treasuryValue: change.amount,
    unitRuneId: ctx.unitRuneId,
    amount,
  };
}

/** What an issuing action reads from its vault before the issue: how much UNIT it issues. */
export interface IssuingVault {
  vault: VaultFields;
  /** The debt the state record adds: the UNIT the runestone must issue. */
  issued: bigint;
  /** The BTC the user moved into the vault. */
  btcAmount: bigint;
}

/**
 * The outputs of an action that issues UNIT from the treasury (open, borrow): the vault, the UNIT
 * postage to the runes address, the treasury change, the runestone and the state record.
 * `decodeVaultPart` reads and checks the action's own part, the vault.
 */
export function issueCoder(
  decodeVaultPart: (outputs: readonly PlannedOutput[], ctx: ParseContext) => IssuingVault,
): OutputCoder<IssuedVaultFields> {
  return {
    slots: ['vault', 'postage', 'treasury change', 'runestone', 'state'],
    encode: encodeIssue,
    decode(outs, ctx) {
      const { vault, issued, btcAmount } = decodeVaultPart(outs, ctx);
      const issue = decodeIssue(outs, issued, ctx);
      return { fields: { ...vault, issue }, btcAmount, unitAmount: issue.amount };
    },
  };
}

/** The issue fields of a builder's parameters; refuses a treasury UTXO too small for `amount`. */
export function issueOf(
  params: { wallet: { runesScript: Uint8Array }; treasury: TreasuryUtxo; unitRuneId: RuneId },
  postageSats: bigint | undefined,
  amount: bigint,
): IssueFields {
  if (params.treasury.unitAmount < amount)
    throw new VaultTxError('insufficient_funds', 'the treasury UTXO holds too little UNIT');
  return {
    runesScript: params.wallet.runesScript,
    postageSats: defaultPostage(postageSats),
    treasuryScript: params.treasury.script,
    treasuryValue: params.treasury.value,
    unitRuneId: params.unitRuneId,
    amount,
  };
}

// ---- fixed inputs ----

export const VAULT_INPUT: InputRole = {
  role: 'vault',
  name: 'vault',
  kind: 'vault-update',
  signers: ['user', 'guardian'],
};
export const TREASURY_INPUT: InputRole = {
  role: 'treasury',
  name: 'treasury UTXO',
  kind: 'p2tr',
  signers: ['treasury'],
};
export const LIQUIDATED_INPUT: InputRole = {
  role: 'liquidated',
  name: 'liquidated vault',
  kind: 'vault-liquidation',
  signers: ['guardian'],
};

/** The vault spent through its update leaf (of `spendPath`'s slot): the wallet signs with vault_pubkey, the guardian co-signs. */
export function vaultUpdateInput(vault: VaultUtxo): PlannedInput {
  return {
    txid: vault.txid,
    vout: vault.vout,
    value: vault.value,
    script: vault.output.script,
    kind: VAULT_INPUT.kind,
    signers: VAULT_INPUT.signers,
    tapLeafScript: [vaultLeaf(vault.output, 'update', vault.spendPath)],
  };
}

/**
 * A liquidated vault spent through a liquidation leaf of `spendPath`'s slot: the guardian alone
 * signs. With `spendPath.oracle` that oracle's leaf; without, every liquidation leaf of the slot
 * (one per oracle commitment), and the guardian spends the one its revealed secret opens (the fee
 * counts the deepest).
 */
export function liquidatedInput(vault: VaultUtxo): PlannedInput {
  const path = vault.spendPath ?? {};
  const slotKey = classifyTapLeaf(vaultLeaf(vault.output, 'update', path)[1].subarray(0, -1))!;
  const leaves =
    path.oracle !== undefined
      ? [vaultLeaf(vault.output, 'liquidation', path)]
      : vault.output.tapLeafScript.filter(([, s]) => {
          const leaf = classifyTapLeaf(s.subarray(0, -1));
          return leaf?.kind === 'liquidation' && equalBytes(leaf.guardPubkey, slotKey.guardPubkey);
        });
  return {
    txid: vault.txid,
    vout: vault.vout,
    value: vault.value,
    script: vault.output.script,
    kind: LIQUIDATED_INPUT.kind,
    signers: LIQUIDATED_INPUT.signers,
    tapLeafScript: leaves,
  };
}

export function treasuryInput(treasury: TreasuryUtxo): PlannedInput {
  return {
    txid: treasury.txid,
    vout: treasury.vout,
    value: treasury.value,
    script: treasury.script,
    kind: TREASURY_INPUT.kind,
    signers: TREASURY_INPUT.signers,
    ...(treasury.internalKey ? { tapInternalKey: treasury.internalKey } : {}),
  };
}

export function payment(base: ActionBase): VaultTxPlan['payment'] {
  return {
    utxos: base.utxos,
    publicKey: base.wallet.paymentPublicKey,
    changeScript: base.wallet.satsScript,
    feeRate: base.feeRate,
    ...(base.dustLimit !== undefined ? { dustLimit: base.dustLimit } : {}),
  };
}

export function assemble({ plan, record }: BuiltPlan): BuiltVaultTx {
  return { ...assembleVaultTx(plan), state: record };
}

/**
 * The PSBT builder of an action whose only check before its plan is that each amount it moves is
 * above zero; `amounts` names each as a refusal says it ("deposit amount must be positive").
 */
export function amountsBuilder<P>(
  plan: (params: P) => BuiltPlan,
  amounts: (params: P) => Record<string, bigint>,
): (params: P) => BuiltVaultTx {
  return (params) => {
    for (const [what, amount] of Object.entries(amounts(params))) positive(amount, what);
    return assemble(plan(params));
  };
}
