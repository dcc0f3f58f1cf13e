// Speed-up (BIP-125 replacement) of a vault transaction still in the mempool: the wallet's
// replacement PSBT, and the guardian's check that it changes nothing but the fee. The replacement
// keeps every input of the original in its place and every output but the change byte for byte
// (vault, state record, runestone, postage, tax, withdrawal); the extra fee comes from the user's
// side only: their change shrinks, or a new payment input of theirs is added.
import { hex } from '@scure/base';
import { TaprootControlBlock, Transaction } from '@scure/btc-signer';
import { concatBytes, equalBytes } from '@scure/btc-signer/utils.js';
import { ACTION_SHAPES, DUST_LIMIT_SATS, type VaultAction } from '@unit/protocol';
import { classifyTapLeaf, parseTransaction, type TapLeafScript, type VaultOutput } from '../core';
import type { PaymentUtxo } from './coin-select';
import {
  assembleVaultTx,
  VAULT_TX_OPTS,
  vaultLeaf,
  VaultTxError,
  walletInput,
  type AssembledVaultTx,
  type PlannedInput,
  type VaultLeafChoice,
} from './vault-tx';
import type { VaultWallet } from '../actions/params';
import { paymentScriptKind } from './vsize';

export interface SpeedUpParams {
  action: VaultAction;
  /** The original's raw hex and each input's prevout, as the chain has them. */
  original: { hex: string; prevouts: readonly { script: Uint8Array; amount: bigint }[] };
  wallet: VaultWallet;
  /**
   * The vault outputs the original spends: the user's through its update leaf, a liquidated one
   * through its liquidation leaf. Optional: without it, each leaf and its control block are read
   * back from the original's witness, which holds them.
   */
  vaults?: readonly {
    output: Pick<VaultOutput, 'script' | 'tapLeafScript'>;
    leaf: 'update' | 'liquidation';
    /** The guardian slot and oracle of the leaf the original spent (default 0, 0). */
    spendPath?: VaultLeafChoice;
  }[];
  /** The treasury's output script and key (open and borrow spend a treasury UNIT output). */
  /** `internalKey` absent for the guardian network's `OP_1 <group key>` (params.ts TreasuryUtxo). */
  treasury?: { script: Uint8Array; internalKey?: Uint8Array };
  /** Spare payment outputs of the wallet, for when the change cannot pay the extra fee. */
  utxos: readonly PaymentUtxo[];
  /** sat/vB of the replacement */
  feeRate: number;
  dustLimit?: bigint;
}

/** The leaf an input of the signed original spent, from its witness: `… <script> <control block>`. */
function witnessLeaf(
  witness: readonly Uint8Array[] | undefined,
): { leaf: TapLeafScript; kind: 'update' | 'liquidation' } | null {
  if (!witness || witness.length < 3) return null;
  const script = witness[witness.length - 2]!;
  const control = witness[witness.length - 1]!;
  const kind = classifyTapLeaf(script)?.kind;
  if (!kind) return null;
  try {
    const block = TaprootControlBlock.decode(control);
    // The control block's first byte also carries the output key's parity; the leaf version is
    // the rest of it (BIP-341).
    return { kind, leaf: [block, concatBytes(script, new Uint8Array([block.version & 0xfe]))] };
  } catch {
    return null;
  }
}

function plannedInput(
  params: SpeedUpParams,
  utxo: { txid: string; vout: number; value: bigint; script: Uint8Array },
  witness: readonly Uint8Array[] | undefined,
): PlannedInput {
  const { script } = utxo;
  const vaultInput = (leaf: TapLeafScript, kind: 'update' | 'liquidation'): PlannedInput => ({
    ...utxo,
    kind: kind === 'update' ? 'vault-update' : 'vault-liquidation',
    signers: kind === 'update' ? ['user', 'guardian'] : ['guardian'],
    tapLeafScript: [leaf],
  });
  for (const vault of params.vaults ?? []) {
    if (equalBytes(vault.output.script, script))
      return vaultInput(vaultLeaf(vault.output, vault.leaf, vault.spendPath), vault.leaf);
  }
  const spent = witnessLeaf(witness);
  if (spent) return vaultInput(spent.leaf, spent.kind);
  if (params.treasury && equalBytes(params.treasury.script, script))
    return {
      ...utxo,
      kind: 'p2tr',
      signers: ['treasury'],
      ...(params.treasury.internalKey ? { tapInternalKey: params.treasury.internalKey } : {}),
    };
  if (equalBytes(params.wallet.satsScript, script))
    return walletInput(utxo, params.wallet.paymentPublicKey);
  if (equalBytes(params.wallet.runesScript, script))
    return walletInput(utxo, params.wallet.runesPublicKey);
  throw new VaultTxError('unexpected_script_type', `input ${utxo.txid}:${utxo.vout} is not ours`);
}

/**
 * The replacement PSBT at `feeRate`: the original's inputs and fixed outputs, then whatever extra
 * payment inputs the fee needs and the change back to the original's change script (the sats
 * address when it had none). The caller picks a rate that meets BIP-125 (speedUpFeeRate).
 */
export function buildSpeedUpPsbt(params: SpeedUpParams): AssembledVaultTx {
  const original = parseTransaction(params.original.hex);
  const layout = ACTION_SHAPES[params.action].outputs.length;
  if (original.outputsLength < layout || original.outputsLength > layout + 1)
    throw new VaultTxError('bad_amount', `a ${params.action} has ${layout} outputs and a change`);
  const inputs: PlannedInput[] = [];
  for (let i = 0; i < original.inputsLength; i++) {
    const input = original.getInput(i);
    const prevout = params.original.prevouts[i];
    if (!prevout) throw new VaultTxError('bad_amount', `no prevout for input ${i}`);
    inputs.push(
      plannedInput(
        params,
        {
          txid: hex.encode(input.txid!),
          vout: input.index!,
          value: prevout.amount,
          script: prevout.script,
        },
        input.finalScriptWitness,
      ),
    );
  }
  const outputs = [];
  for (let i = 0; i < layout; i++) {
    const out = original.getOutput(i);
    outputs.push({ script: out.script!, amount: out.amount! });
  }
  const changeScript =
    original.outputsLength > layout ? original.getOutput(layout).script! : params.wallet.satsScript;
  const spent = new Set(inputs.map((i) => `${i.txid}:${i.vout}`));
  return assembleVaultTx({
    inputs,
    outputs,
    payment: {
      utxos: params.utxos.filter((u) => !spent.has(`${u.txid}:${u.vout}`)),
      publicKey: params.wallet.paymentPublicKey,
      changeScript,
      feeRate: params.feeRate,
      ...(params.dustLimit !== undefined ? { dustLimit: params.dustLimit } : {}),
    },
  });
}

export type ReplacementCheck =
  | {
      ok: true;
      /** Indexes of inputs the original did not have: the user's added payment inputs. */
      addedInputs: number[];
      /** Sats the replacement pays more than the original. */
      extraFee: bigint;
    }
  | { ok: false; reason: string };

interface Side {
  version: number;
  lockTime: number;
  inputs: { outpoint: string; script: Uint8Array; amount: bigint; sequence: number }[];
  outputs: { script: Uint8Array; amount: bigint }[];
}

/** nSequence of an input that sets none (BIP-125 and BIP-68 read it as final). */
const FINAL_SEQUENCE = 0xffffffff;

function sideOf(
  tx: Transaction,
  prevouts?: readonly { script: Uint8Array; amount: bigint }[],
): Side {
  const inputs = [];
  for (let i = 0; i < tx.inputsLength; i++) {
    const input = tx.getInput(i);
    const prev = prevouts?.[i] ?? input.witnessUtxo;
    if (!input.txid || input.index === undefined || !prev)
      throw new Error(`input ${i} is incomplete`);
    inputs.push({
      outpoint: `${hex.encode(input.txid)}:${input.index}`,
      script: prev.script,
      amount: prev.amount,
      sequence: input.sequence ?? FINAL_SEQUENCE,
    });
  }
  const outputs = [];
  for (let i = 0; i < tx.outputsLength; i++) {
    const out = tx.getOutput(i);
    if (!out.script || out.amount === undefined) throw new Error(`output ${i} is incomplete`);
    outputs.push({ script: out.script, amount: out.amount });
  }
  return { version: tx.version, lockTime: tx.lockTime, inputs, outputs };
}

const sum = (values: readonly bigint[]) => values.reduce((a, b) => a + b, 0n);

/**
 * The guardian's test of a speed-up: true only when `replacementPsbt` changes nothing of the
 * original `action` transaction but its fee, paid from the user's side. The same version and
 * nLockTime (a far lock time would hold the vault's output unminable), every input of the original
 * in its place with its nSequence (added inputs only after them, each a payment script with the
 * original's nSequence, so no relative lock comes in either); every output before the
 * change identical in script and amount (so the same vault, state record with its nonce, runestone
 * with its edicts, postage, tax and withdrawal); a change only to the original's change script (or,
 * when it had none, to an added input's script), at least dust; and a higher fee.
 */
export function checkFeeOnlyReplacement(
  action: VaultAction,
  original: { hex: string; prevouts: readonly { script: Uint8Array; amount: bigint }[] },
  replacementPsbt: Uint8Array,
  dustLimit: bigint = BigInt(DUST_LIMIT_SATS),
): ReplacementCheck {
  let before: Side;
  let after: Side;
  try {
    before = sideOf(parseTransaction(original.hex), original.prevouts);
    after = sideOf(Transaction.fromPSBT(replacementPsbt, VAULT_TX_OPTS));
  } catch {
    return { ok: false, reason: 'not a readable transaction' };
  }
  const layout = ACTION_SHAPES[action].outputs.length;
  if (after.version !== before.version)
    return {
      ok: false,
      reason: `the version differs from the original (${after.version}, was ${before.version})`,
    };
  if (after.lockTime !== before.lockTime)
    return {
      ok: false,
      reason: `the lock time differs from the original (${after.lockTime}, was ${before.lockTime})`,
    };
  if (after.inputs.length < before.inputs.length)
    return { ok: false, reason: 'an input of the original is missing' };
  for (let i = 0; i < before.inputs.length; i++) {
    const was = before.inputs[i]!;
    const now = after.inputs[i]!;
    if (now.outpoint !== was.outpoint)
      return { ok: false, reason: `input ${i} is not the original's` };
    if (now.sequence !== was.sequence)
      return {
        ok: false,
        reason: `input ${i}'s sequence differs from the original (${now.sequence}, was ${was.sequence})`,
      };
  }
  const addedInputs: number[] = [];
  const addedSequence = before.inputs[0]?.sequence ?? FINAL_SEQUENCE;
  for (let i = before.inputs.length; i < after.inputs.length; i++) {
    const added = after.inputs[i]!;
    if (paymentScriptKind(added.script) === null)
      return { ok: false, reason: `added input ${i} is not a payment output` };
    if (added.sequence !== addedSequence)
      return {
        ok: false,
        reason: `added input ${i}'s sequence is not the original's (${added.sequence}, not ${addedSequence})`,
      };
    addedInputs.push(i);
  }
  if (after.outputs.length !== layout && after.outputs.length !== layout + 1)
    return { ok: false, reason: `expected ${layout} outputs and an optional change` };
  for (let i = 0; i < layout; i++) {
    const was = before.outputs[i]!;
    const now = after.outputs[i]!;
    if (!equalBytes(was.script, now.script))
      return { ok: false, reason: `output ${i}'s script differs from the original` };
    if (was.amount !== now.amount)
      return {
        ok: false,
        reason: `output ${i}'s amount differs from the original (${now.amount}, was ${was.amount})`,
      };
  }
  if (after.outputs.length > layout) {
    const change = after.outputs[layout]!;
    const previous = before.outputs[layout];
    const allowed = previous
      ? equalBytes(change.script, previous.script)
      : addedInputs.some((i) => equalBytes(after.inputs[i]!.script, change.script));
    if (!allowed) return { ok: false, reason: 'the change goes to another address' };
    if (change.amount < dustLimit) return { ok: false, reason: 'change is dust' };
  }
  const feeOf = (side: Side) =>
    sum(side.inputs.map((i) => i.amount)) - sum(side.outputs.map((o) => o.amount));
  const extraFee = feeOf(after) - feeOf(before);
  if (extraFee <= 0n) return { ok: false, reason: 'the replacement pays no more fee' };
  return { ok: true, addedInputs, extraFee };
}
