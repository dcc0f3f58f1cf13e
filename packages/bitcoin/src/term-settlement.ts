// The guardians' settlement of a vault its owner left to its term (docs/protocol.md, "Leaving without
// the guardians"): one input, the vault through its slot's settlement leaf with nLockTime at the
// term; outputs the treasury's part (the debt at the quorum's price and the liquidation tax,
// `termSettlement` of @unit/protocol) and the owner's rest, paid to `OP_1 <vault_pubkey>`, the key
// the owner's wallet signs the vault with, so the guardians choose no destination. The guardian
// signs only a transaction equal to the one `planSettlement` builds from its own facts.
import { SigHash, TaprootControlBlock, Transaction } from '@scure/btc-signer';
import { concatBytes, equalBytes } from '@scure/btc-signer/utils.js';
import {
  DUST_LIMIT_SATS,
  lockTimeReaches,
  SETTLEMENT_MAX_FEE_RATE,
  termSettlement,
  type TermSettlement,
} from '@unit/protocol';
import { TAPSCRIPT_LEAF_VERSION, type VaultOutput } from './vault-script';
import { EXIT_SEQUENCE } from './exit-spend';

export interface SettlementRequest {
  /** The vault output as the guardians rebuild it (layout 2). */
  vault: VaultOutput;
  /** The guardian slot whose group key signs. */
  slot: number;
  utxo: { txid: string; vout: number; amount: bigint };
  /** The vault's debt, UNIT hundredths (its last state record). */
  debtCents: bigint;
  /** The quorum's price, USD cents per BTC. */
  priceCents: bigint;
  treasuryScript: Uint8Array;
  feeRate: number;
}

export interface SettlementPlan {
  tx: Transaction;
  split: TermSettlement;
  feeSats: bigint;
  /** What each output receives; an output below dust is left out and its sats go to the other. */
  treasurySats: bigint;
  ownerSats: bigint;
  ownerScript: Uint8Array;
}

/** The owner's output: `OP_1 <vault_pubkey>`, a key-path output of the vault key itself. */
export const ownerPayoutScript = (vaultPubkey: Uint8Array): Uint8Array =>
  concatBytes(Uint8Array.of(0x51, 0x20), vaultPubkey);

const TX_FIXED_WEIGHT = 4 * (4 + 1 + 1 + 4) + 2;
const INPUT_WEIGHT = 4 * (32 + 4 + 1 + 4);
const outputWeight = (script: Uint8Array) => 4 * (8 + 1 + script.length);

function settlementWeight(
  req: SettlementRequest,
  ownerScript: Uint8Array,
  outputs: number,
): number {
  const leaf = req.vault.settlementLeaves![req.slot]!;
  const witness = 1 + (1 + 64) + (1 + leaf.script.length) + (1 + leaf.controlBlock.length);
  const scripts = outputs === 2 ? [req.treasuryScript, ownerScript] : [ownerScript];
  return (
    TX_FIXED_WEIGHT + INPUT_WEIGHT + witness + scripts.reduce((s, x) => s + outputWeight(x), 0)
  );
}

/** The settlement transaction, unsigned, from the guardians' own facts. */
export function planSettlement(req: SettlementRequest): SettlementPlan {
  const { vault, slot } = req;
  if (!vault.term || !vault.settlementLeaves?.[slot])
    throw new Error('only a vault with a term (layout 2) has a settlement leaf');
  // The fee is the owner's: capped well below the owner's own exit's (SETTLEMENT_MAX_FEE_RATE).
  if (!Number.isInteger(req.feeRate) || req.feeRate < 1 || req.feeRate > SETTLEMENT_MAX_FEE_RATE)
    throw new Error(
      `a settlement's fee rate is a whole number from 1 to ${SETTLEMENT_MAX_FEE_RATE} sat/vB`,
    );
  const ownerScript = ownerPayoutScript(vaultPubkeyOf(vault));
  const dust = BigInt(DUST_LIMIT_SATS);
  // Sized with both outputs: a left-out one only lowers the real size.
  const feeSats = BigInt(Math.ceil(settlementWeight(req, ownerScript, 2) / 4) * req.feeRate);
  const split = termSettlement({
    collateralSats: req.utxo.amount,
    debtCents: req.debtCents,
    priceCents: req.priceCents,
    feeSats: 0n,
  });
  const total = req.utxo.amount - feeSats;
  if (total < dust) throw new Error('the vault holds too little to settle at this fee rate');
  // The fee comes out of the owner's rest; an output below dust is left out, its sats to the other.
  let treasurySats = split.treasurySats;
  let ownerSats = split.ownerSats - feeSats;
  if (ownerSats < dust) [treasurySats, ownerSats] = [total, 0n];
  else if (treasurySats < dust) [treasurySats, ownerSats] = [0n, total];
  const leaf = vault.settlementLeaves[slot]!;
  const tx = new Transaction({ lockTime: vault.term.settleHeight, allowUnknownInputs: true });
  tx.addInput({
    txid: req.utxo.txid,
    index: req.utxo.vout,
    sequence: EXIT_SEQUENCE,
    witnessUtxo: { script: vault.script, amount: req.utxo.amount },
    tapLeafScript: [
      [
        TaprootControlBlock.decode(leaf.controlBlock),
        concatBytes(leaf.script, Uint8Array.of(TAPSCRIPT_LEAF_VERSION)),
      ],
    ],
  });
  if (treasurySats > 0n) tx.addOutput({ script: req.treasuryScript, amount: treasurySats });
  if (ownerSats > 0n) tx.addOutput({ script: ownerScript, amount: ownerSats });
  return { tx, split, feeSats, treasurySats, ownerSats, ownerScript };
}

/** The vault key a layout 2 output commits to: the key of its exit leaf. */
function vaultPubkeyOf(vault: VaultOutput): Uint8Array {
  const script = vault.exitLeaf!.script;
  return script.slice(script.length - 33, script.length - 1);
}

/**
 * Null when `tx` is exactly the settlement the guardian's facts make (same input, lock, sequence
 * and outputs), else the reason it refuses: no other spend of the settlement leaf is signed.
 */
export function checkSettlement(tx: Transaction, req: SettlementRequest): string | null {
  let expected: SettlementPlan;
  try {
    expected = planSettlement(req);
  } catch (error) {
    return (error as Error).message;
  }
  if (tx.inputsLength !== 1) return 'a settlement spends the vault alone';
  const input = tx.getInput(0);
  if (
    input.txid === undefined ||
    !equalBytes(input.txid, expected.tx.getInput(0).txid!) ||
    input.index !== req.utxo.vout
  )
    return 'a settlement spends the vault output';
  const leafProblem = settlementLeafProblem(input, req);
  if (leafProblem) return leafProblem;
  if (input.sequence !== EXIT_SEQUENCE)
    return 'a settlement input signals replacement and keeps the lock';
  if (tx.lockTime !== expected.tx.lockTime) return 'a settlement is locked at the term';
  if (tx.outputsLength !== expected.tx.outputsLength)
    return 'a settlement pays the treasury and the owner, nothing else';
  for (let i = 0; i < tx.outputsLength; i++) {
    const [got, want] = [tx.getOutput(i), expected.tx.getOutput(i)];
    if (!got.script || !equalBytes(got.script, want.script!) || got.amount !== want.amount)
      return `settlement output ${i} is not the one the quorum price makes`;
  }
  return null;
}

/**
 * Why the input does not spend the slot's settlement leaf alone, or null: a PSBT that names another
 * leaf (an update, liquidation or exit leaf, another slot's), or a witness through one, is refused.
 */
function settlementLeafProblem(
  input: ReturnType<Transaction['getInput']>,
  req: SettlementRequest,
): string | null {
  const leaf = req.vault.settlementLeaves![req.slot]!;
  const refusal = "a settlement spends the vault through its slot's settlement leaf";
  if (input.finalScriptSig?.length) return refusal;
  const witness = input.finalScriptWitness;
  if (witness) {
    const [, script, control] = witness;
    const spends =
      witness.length === 3 &&
      equalBytes(script!, leaf.script) &&
      equalBytes(control!, leaf.controlBlock);
    return spends ? null : refusal;
  }
  const named = input.tapLeafScript ?? [];
  if (named.length === 0) return null;
  const [control, script] = named[0]!;
  const want = concatBytes(leaf.script, Uint8Array.of(TAPSCRIPT_LEAF_VERSION));
  if (
    named.length !== 1 ||
    !equalBytes(script, want) ||
    !equalBytes(TaprootControlBlock.encode(control), leaf.controlBlock)
  )
    return refusal;
  return null;
}

/**
 * What each guardian runs before it signs: null when the chain's tip (`tipHeight`, its own view)
 * has reached the vault's term and `tx` is exactly the settlement its facts make, else the reason.
 */
export function settlementRefusal(
  tx: Transaction,
  req: SettlementRequest,
  tipHeight: number,
): string | null {
  const settleHeight = req.vault.term?.settleHeight;
  if (settleHeight !== undefined && !lockTimeReaches(tipHeight, settleHeight))
    return `the vault reaches its term at block ${settleHeight} and the chain is at block ${tipHeight}: a settlement waits for the term`;
  return checkSettlement(tx, req);
}

/** The settlement's sighash for the slot's group key (SIGHASH_DEFAULT over the settlement leaf). */
export function settlementSighash(plan: SettlementPlan, req: SettlementRequest): Uint8Array {
  const leaf = req.vault.settlementLeaves![req.slot]!;
  return plan.tx.preimageWitnessV1(
    0,
    [req.vault.script],
    SigHash.DEFAULT,
    [req.utxo.amount],
    -1,
    leaf.script,
    TAPSCRIPT_LEAF_VERSION,
  );
}

/** The finished settlement from the group's signature: witness `[sig, leaf, control block]`. */
export function finishSettlement(
  plan: SettlementPlan,
  req: SettlementRequest,
  signature: Uint8Array,
): Transaction {
  const leaf = req.vault.settlementLeaves![req.slot]!;
  plan.tx.updateInput(0, { finalScriptWitness: [signature, leaf.script, leaf.controlBlock] }, true);
  return plan.tx;
}
