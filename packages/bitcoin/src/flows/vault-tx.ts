// The one assembly line behind every vault action's PSBT: fixed inputs and outputs in the order of
// docs/protocol.md, then the user's payment inputs and BTC change chosen by coin selection. The
// per-action builders (builders.ts) only say which inputs and outputs an action has.
import { p2wpkh, Transaction } from '@scure/btc-signer';
import { equalBytes } from '@scure/btc-signer/utils.js';
import { REPLACEABLE_SEQUENCE } from '@unit/protocol';
import { classifyTapLeaf, type TapLeafScript, type VaultOutput } from '../core';
import { selectCoins, type PaymentUtxo } from './coin-select';
import { paymentScriptKind, transactionWeight, weightToVsize, type InputKind } from './vsize';

/** btc-signer refuses OP_RETURN outputs (state record, runestone) unless told they are wanted. */
export const VAULT_TX_OPTS = { allowUnknownOutputs: true } as const;

export type VaultTxErrorCode = 'insufficient_funds' | 'unexpected_script_type' | 'bad_amount';

/** Why a vault transaction cannot be built; `code` is the guardian error code it maps to. */
export class VaultTxError extends Error {
  readonly code: VaultTxErrorCode;
  constructor(code: VaultTxErrorCode, message: string) {
    super(message);
    this.name = 'VaultTxError';
    this.code = code;
  }
}

/** Who signs an input: the wallet, the guardian's vault key, or the guardian's treasury key. */
export type InputSigner = 'user' | 'guardian' | 'treasury';

export interface PlannedInput {
  txid: string;
  vout: number;
  value: bigint;
  script: Uint8Array;
  kind: InputKind;
  signers: readonly InputSigner[];
  tapLeafScript?: TapLeafScript[];
  tapInternalKey?: Uint8Array;
  redeemScript?: Uint8Array;
}

export interface PlannedOutput {
  script: Uint8Array;
  amount: bigint;
}

export interface PaymentPlan {
  utxos: readonly PaymentUtxo[];
  /** The key of the wallet's sats address: 33 bytes (P2WPKH, P2SH-P2WPKH) or x-only (P2TR). */
  publicKey: Uint8Array;
  changeScript: Uint8Array;
  feeRate: number;
  dustLimit?: bigint;
}

export interface VaultTxPlan {
  inputs: PlannedInput[];
  outputs: PlannedOutput[];
  /** Absent when the vault itself pays the fee (withdraw): no payment inputs, no change. */
  payment?: PaymentPlan;
}

export interface SignInputs {
  /** Inputs the wallet signs: its payment and UNIT inputs, and the vault's update leaf. */
  user: number[];
  /** Inputs the guardian co-signs with its vault key (update or liquidation leaf). */
  guardian: number[];
  /** The treasury UNIT input, signed with the guardian's treasury key (key path). */
  treasury: number[];
}

export interface AssembledVaultTx {
  /** The unsigned PSBT (version 0), witnessUtxo on every input. */
  psbt: Uint8Array;
  signInputs: SignInputs;
  /** Sats paid to the miners: inputs minus outputs. */
  fee: bigint;
  /** Estimated vsize of the signed transaction (never below the real one). */
  vsize: number;
  /** BTC change to the sats address, 0n when left out as dust. */
  change: bigint;
}

function xOnly(publicKey: Uint8Array): Uint8Array {
  return publicKey.length === 33 ? publicKey.slice(1) : publicKey;
}

/** A payment or UNIT UTXO of the wallet as a planned input, with what its script type needs to sign. */
export function walletInput(
  utxo: { txid: string; vout: number; value: bigint; script: Uint8Array },
  publicKey: Uint8Array,
): PlannedInput {
  const kind = paymentScriptKind(utxo.script);
  if (!kind) throw new VaultTxError('unexpected_script_type', 'Unexpected script type'); // SPEC §8
  const base = { ...utxo, kind, signers: ['user'] as const };
  if (kind === 'p2sh') {
    if (publicKey.length !== 33)
      throw new Error('a P2SH-P2WPKH input needs the 33-byte public key');
    return { ...base, redeemScript: p2wpkh(publicKey).script };
  }
  if (kind === 'p2tr') return { ...base, tapInternalKey: xOnly(publicKey) };
  return base;
}

/** Which leaf of a vault to spend: a guardian slot and, for a liquidation, an oracle (both 0 by default). */
export interface VaultLeafChoice {
  slot?: number;
  oracle?: number;
}

/**
 * The vault's `[control block, script]` entry for its update leaf of a guardian slot, or its
 * liquidation leaf of a (slot, oracle) pair. Slots are the guardian keys in leaf order (the order
 * of `vaultOutput`'s `tapLeafScript`), oracles the liquidation leaves of a slot's key in that order.
 */
export function vaultLeaf(
  vault: Pick<VaultOutput, 'tapLeafScript'>,
  kind: 'update' | 'liquidation',
  { slot = 0, oracle = 0 }: VaultLeafChoice = {},
): TapLeafScript {
  const leaves = vault.tapLeafScript.flatMap((entry) => {
    const leaf = classifyTapLeaf(entry[1].subarray(0, -1));
    return leaf ? [{ entry, leaf }] : [];
  });
  const ofKind = leaves.filter(({ leaf }) => leaf.kind === kind);
  if (ofKind.length === 0) throw new Error(`vault has no ${kind} leaf`);
  const slotKeys: Uint8Array[] = [];
  for (const { leaf } of leaves)
    if (!slotKeys.some((key) => equalBytes(key, leaf.guardPubkey))) slotKeys.push(leaf.guardPubkey);
  const guard = slotKeys[slot];
  if (!guard) throw new Error(`vault has no guardian slot ${slot}`);
  const ofSlot = ofKind.filter(({ leaf }) => equalBytes(leaf.guardPubkey, guard));
  const index = kind === 'update' ? 0 : oracle;
  const found = ofSlot[index];
  if (!found)
    throw new Error(
      kind === 'update'
        ? `vault has no update leaf for guardian slot ${slot}`
        : `vault has no liquidation leaf for guardian slot ${slot}, oracle ${oracle}`,
    );
  return found.entry;
}

/** The deepest vault leaf (3 keys, 3 hashes: a liquidation leaf of slot 1 or 2) has 5 siblings. */
const MAX_VAULT_LEAF_SIBLINGS = 5;

/**
 * Witness weight a vault input's leaf adds over what its kind assumes (a control block with one
 * sibling hash, the two-leaf tree): 32 per deeper level, when the vault commits to more than one
 * guardian key or threshold hash; 0 for the one-key, one-hash vault. Capped at the deepest leaf a
 * vault can have, so a PSBT cannot inflate the guardian's size estimate with a made-up path.
 */
export function deeperLeafWeight(input: Pick<PlannedInput, 'kind' | 'tapLeafScript'>): number {
  if (input.kind !== 'vault-update' && input.kind !== 'vault-liquidation') return 0;
  // Several leaves (a liquidated vault's, one per oracle): the guardian may spend any, so the deepest.
  const siblings = Math.max(1, ...(input.tapLeafScript ?? []).map(([cb]) => cb.merklePath.length));
  return 32 * (Math.min(MAX_VAULT_LEAF_SIBLINGS, Math.max(1, siblings)) - 1);
}

/** Weight of the plan's fixed inputs and outputs, without payment inputs or change. */
export function planWeight(plan: Pick<VaultTxPlan, 'inputs' | 'outputs'>): number {
  return (
    transactionWeight(
      plan.inputs.map((input) => input.kind),
      plan.outputs.map((output) => output.script),
    ) + plan.inputs.reduce((sum, input) => sum + deeperLeafWeight(input), 0)
  );
}

function sum(values: readonly bigint[]): bigint {
  return values.reduce((a, b) => a + b, 0n);
}

/** Builds the PSBT of a plan: fixed inputs, payment inputs, fixed outputs, then change. */
export function assembleVaultTx(plan: VaultTxPlan): AssembledVaultTx {
  for (const output of plan.outputs) {
    if (output.amount < 0n) throw new VaultTxError('bad_amount', 'an output amount is negative');
  }
  const inputs = [...plan.inputs];
  const outputs = [...plan.outputs];
  let change = 0n;
  let vsize = weightToVsize(planWeight(plan));
  if (plan.payment) {
    const { payment } = plan;
    const changeKind = paymentScriptKind(payment.changeScript);
    if (!changeKind) throw new VaultTxError('unexpected_script_type', 'Unexpected script type');
    const selection = selectCoins({
      utxos: payment.utxos,
      target: sum(plan.outputs.map((o) => o.amount)) - sum(plan.inputs.map((i) => i.value)),
      feeRate: payment.feeRate,
      baseWeight: planWeight(plan),
      changeScriptType: changeKind,
      ...(payment.dustLimit !== undefined ? { dustLimit: payment.dustLimit } : {}),
    });
    if (!selection.ok) {
      if (selection.error === 'unexpected_script_type')
        throw new VaultTxError('unexpected_script_type', selection.message);
      throw new VaultTxError(
        'insufficient_funds',
        `needs ${selection.needed} sats from the wallet, has ${selection.available}`,
      );
    }
    for (const utxo of selection.inputs) inputs.push(walletInput(utxo, payment.publicKey));
    if (selection.change > 0n)
      outputs.push({ script: payment.changeScript, amount: (change = selection.change) });
    vsize = selection.vsize;
  }
  const fee = sum(inputs.map((i) => i.value)) - sum(outputs.map((o) => o.amount));
  if (fee < 0n) throw new VaultTxError('insufficient_funds', 'outputs exceed inputs');

  const tx = new Transaction(VAULT_TX_OPTS);
  const signInputs: SignInputs = { user: [], guardian: [], treasury: [] };
  inputs.forEach((input, index) => {
    tx.addInput({
      txid: input.txid,
      index: input.vout,
      witnessUtxo: { script: input.script, amount: input.value },
      // BIP-125: every vault transaction may be replaced by one paying more (speed-up). None of
      // the vault's leaves reads nSequence (no CSV), so this changes nothing else.
      sequence: REPLACEABLE_SEQUENCE,
      ...(input.tapLeafScript ? { tapLeafScript: input.tapLeafScript } : {}),
      ...(input.tapInternalKey ? { tapInternalKey: input.tapInternalKey } : {}),
      ...(input.redeemScript ? { redeemScript: input.redeemScript } : {}),
    });
    for (const signer of input.signers) signInputs[signer].push(index);
  });
  for (const output of outputs) tx.addOutput({ script: output.script, amount: output.amount });
  return { psbt: tx.toPSBT(0), signInputs, fee, vsize, change };
}
