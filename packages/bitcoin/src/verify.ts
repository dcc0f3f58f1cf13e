// Signature checks for the devnet: every input of a transaction must be one of the standard spends
// our users and the guardian make, with valid signatures over the real sighash. Anything else is
// refused as non-standard, so the devnet is never more permissive than the networks it stands for.
import { schnorr, secp256k1 } from '@noble/curves/secp256k1.js';
import type { Transaction } from '@scure/btc-signer';
import { hex } from '@scure/base';
import { tapLeafHash } from '@scure/btc-signer/payment.js';
import {
  compareBytes,
  concatBytes,
  equalBytes,
  hash160,
  tagSchnorr,
  taprootTweakPubkey,
} from '@scure/btc-signer/utils.js';
import { classifyScript } from './script-type';
import { parseTransaction, type TransactionLike } from './transaction';
import { classifyVaultLeaf, TAPSCRIPT_LEAF_VERSION } from './vault-script';
import { classifyCommitmentLeaf } from './rune-commitment';

function commitmentLeaf(script: Uint8Array): { kind: 'commitment'; pubkey: Uint8Array } | null {
  const leaf = classifyCommitmentLeaf(script);
  return leaf ? { kind: 'commitment', pubkey: leaf.pubkey } : null;
}

export interface Prevout {
  script: Uint8Array;
  amount: bigint;
}

export type VerifyReason =
  | 'non-standard'
  | 'missing-witness'
  | 'unexpected-script-sig'
  | 'pubkey-mismatch'
  | 'bad-sighash-type'
  | 'bad-signature'
  | 'bad-control-block'
  | 'wrong-preimage'
  | 'unsatisfied-locktime';

export type VerifyResult = { ok: true } | { ok: false; input: number; reason: VerifyReason };

const SIGHASH_DEFAULT = 0x00;
/** ALL, NONE, SINGLE, each alone or with ANYONECANPAY: the types consensus defines. */
const SIGHASH_TYPES = new Set([0x01, 0x02, 0x03, 0x81, 0x82, 0x83]);
const ANNEX_TAG = 0x50;
const MAX_PREIMAGE = 520;
/** Below it an nLockTime is a block height (BIP65 compares like with like). */
const LOCKTIME_THRESHOLD = 500_000_000;
/** An input with this nSequence is final: its transaction's nLockTime is not enforced (BIP65). */
const SEQUENCE_FINAL = 0xffffffff;

type Check = VerifyReason | null;

/**
 * What an earlier `verifyInputs` pass over the same transaction found, so a later pass skips the
 * arithmetic and not the check: each signature that held, keyed by its key, the sighash the later
 * pass computes itself and the signature's bytes (any other triple is verified again), and each
 * Taproot tweak's result. The coordinator checks the user's signatures while the guardians sign,
 * then checks the finished transaction with this (apps/server network-client/final-check.ts).
 */
export class VerifyMemo {
  private readonly held = new Set<string>();
  private readonly tweaks = new Map<string, [Uint8Array, number]>();

  /** `verify()`, unless this exact (key, message, signature) held before; records when it holds. */
  signature(parts: Uint8Array[], verify: () => boolean): boolean {
    const key = parts.map(hex.encode).join(':');
    if (this.held.has(key)) return true;
    const ok = verify();
    if (ok) this.held.add(key);
    return ok;
  }

  tweak(internal: Uint8Array, root: Uint8Array): [Uint8Array, number] {
    const key = `${hex.encode(internal)}:${hex.encode(root)}`;
    let found = this.tweaks.get(key);
    if (!found) {
      found = taprootTweakPubkey(internal, root);
      this.tweaks.set(key, found);
    }
    return found;
  }
}

/** No memo: every check made. */
const NO_MEMO = {
  signature: (_parts: Uint8Array[], verify: () => boolean) => verify(),
  tweak: (internal: Uint8Array, root: Uint8Array) => taprootTweakPubkey(internal, root),
} as const;
type Memo = Pick<VerifyMemo, 'signature' | 'tweak'>;

function checkEcdsa(
  signature: Uint8Array,
  pubkey: Uint8Array,
  sighash: (hashType: number) => Uint8Array,
  memo: Memo,
): Check {
  if (signature.length < 9) return 'bad-signature';
  const hashType = signature[signature.length - 1]!;
  if (!SIGHASH_TYPES.has(hashType)) return 'bad-sighash-type';
  try {
    const message = sighash(hashType);
    const der = signature.subarray(0, -1);
    const ok = memo.signature([pubkey, message, der], () =>
      secp256k1.verify(der, message, pubkey, {
        prehash: false,
        format: 'der',
        lowS: true, // standardness: high-S signatures are malleable and not relayed
      }),
    );
    return ok ? null : 'bad-signature';
  } catch {
    return 'bad-signature';
  }
}

/** A BIP340 signature: 64 bytes (SIGHASH_DEFAULT) or 65 with an explicit type byte. */
function checkSchnorr(
  signature: Uint8Array,
  pubkey: Uint8Array,
  sighash: (hashType: number) => Uint8Array,
  memo: Memo,
): Check {
  let hashType = SIGHASH_DEFAULT;
  if (signature.length === 65) {
    hashType = signature[64]!;
    if (!SIGHASH_TYPES.has(hashType)) return 'bad-sighash-type';
  } else if (signature.length !== 64) {
    return 'bad-signature';
  }
  try {
    const message = sighash(hashType);
    const bip340 = signature.subarray(0, 64);
    return memo.signature([pubkey, message, bip340], () => schnorr.verify(bip340, message, pubkey))
      ? null
      : 'bad-signature';
  } catch {
    return 'bad-signature';
  }
}

/** P2WPKH (native or nested): witness `[sig, pubkey]` with hash160(pubkey) == program. */
function checkWitnessPubkeyHash(
  tx: Transaction,
  idx: number,
  program: Uint8Array,
  amount: bigint,
  witness: Uint8Array[] | undefined,
  memo: Memo,
): Check {
  if (!witness || witness.length === 0) return 'missing-witness';
  if (witness.length !== 2) return 'non-standard';
  const [signature, pubkey] = witness as [Uint8Array, Uint8Array];
  // Policy: segwit v0 keys must be compressed.
  if (pubkey.length !== 33 || (pubkey[0] !== 0x02 && pubkey[0] !== 0x03)) return 'non-standard';
  if (!equalBytes(hash160(pubkey), program)) return 'pubkey-mismatch';
  // BIP143 script code of P2WPKH: the P2PKH script of the key hash.
  const scriptCode = concatBytes(
    new Uint8Array([0x76, 0xa9, 0x14]),
    program,
    new Uint8Array([0x88, 0xac]),
  );
  return checkEcdsa(
    signature,
    pubkey,
    (hashType) => tx.preimageWitnessV0(idx, scriptCode, hashType, amount),
    memo,
  );
}

/** The script a scriptSig pushes when it is exactly one direct push, else null. */
function singlePush(scriptSig: Uint8Array): Uint8Array | null {
  const length = scriptSig[0];
  if (length === undefined || length < 1 || length > 0x4b || scriptSig.length !== 1 + length)
    return null;
  return scriptSig.subarray(1);
}

/** The Taproot Merkle root a control block proves for a leaf, or null when malformed. */
function controlBlockRoot(controlBlock: Uint8Array, leafScript: Uint8Array): Uint8Array | null {
  if (
    controlBlock.length < 33 ||
    (controlBlock.length - 33) % 32 !== 0 ||
    controlBlock.length > 33 + 32 * 128
  )
    return null;
  let node = tapLeafHash(leafScript, TAPSCRIPT_LEAF_VERSION);
  for (let offset = 33; offset < controlBlock.length; offset += 32) {
    const sibling = controlBlock.subarray(offset, offset + 32);
    node =
      compareBytes(node, sibling) < 0
        ? tagSchnorr('TapBranch', node, sibling)
        : tagSchnorr('TapBranch', sibling, node);
  }
  return node;
}

function checkTaproot(
  tx: Transaction,
  idx: number,
  outputKey: Uint8Array,
  prevouts: readonly Prevout[],
  witness: Uint8Array[] | undefined,
  memo: Memo,
): Check {
  if (!witness || witness.length === 0) return 'missing-witness';
  const scripts = prevouts.map((p) => p.script);
  const amounts = prevouts.map((p) => p.amount);
  const last = witness[witness.length - 1]!;
  // An annex is consensus-valid but not standard: refuse it.
  if (witness.length >= 2 && last[0] === ANNEX_TAG) return 'non-standard';

  if (witness.length === 1) {
    return checkSchnorr(
      last,
      outputKey,
      (hashType) => tx.preimageWitnessV1(idx, scripts, hashType, amounts),
      memo,
    );
  }

  const controlBlock = last;
  const leafScript = witness[witness.length - 2]!;
  const stack = witness.slice(0, -2);
  if ((controlBlock[0]! & 0xfe) !== TAPSCRIPT_LEAF_VERSION) return 'non-standard';
  // A rune etching's reveal spends its commitment leaf: one signature of the leaf's key.
  const leaf = classifyVaultLeaf(leafScript) ?? commitmentLeaf(leafScript);
  if (!leaf) return 'non-standard';
  const root = controlBlockRoot(controlBlock, leafScript);
  if (!root) return 'bad-control-block';
  try {
    const [tweaked, parity] = memo.tweak(controlBlock.subarray(1, 33), root);
    if (!equalBytes(tweaked, outputKey) || parity !== (controlBlock[0]! & 1))
      return 'bad-control-block';
  } catch {
    return 'bad-control-block';
  }
  const leafSighash = (hashType: number) =>
    tx.preimageWitnessV1(idx, scripts, hashType, amounts, -1, leafScript, TAPSCRIPT_LEAF_VERSION);

  if (leaf.kind === 'commitment') {
    if (stack.length !== 1) return 'non-standard';
    return checkSchnorr(stack[0]!, leaf.pubkey, leafSighash, memo);
  }
  if (leaf.kind === 'update') {
    // The script pops the vault signature first (top of the stack), then the guardian's.
    if (stack.length !== 2) return 'non-standard';
    const [guardSig, vaultSig] = stack as [Uint8Array, Uint8Array];
    return (
      checkSchnorr(vaultSig, leaf.vaultPubkey, leafSighash, memo) ??
      checkSchnorr(guardSig, leaf.guardPubkey, leafSighash, memo)
    );
  }
  if (leaf.kind === 'timelock') {
    // OP_CHECKLOCKTIMEVERIFY as BIP65: a height-typed nLockTime at or past the leaf's height, on
    // an input whose nSequence leaves the lock enforced; the node's finality check (the devnet's
    // isFinalTx) then keeps the transaction out until the chain reaches that nLockTime.
    if (stack.length !== 1) return 'non-standard';
    const lockTime = tx.lockTime;
    if (
      lockTime >= LOCKTIME_THRESHOLD ||
      lockTime < leaf.height ||
      (tx.getInput(idx).sequence ?? SEQUENCE_FINAL) === SEQUENCE_FINAL
    )
      return 'unsatisfied-locktime';
    return checkSchnorr(stack[0]!, leaf.pubkey, leafSighash, memo);
  }
  // Liquidation: the revealed secret on top, the guardian's signature under it.
  if (stack.length !== 2) return 'non-standard';
  const [guardSig, preimage] = stack as [Uint8Array, Uint8Array];
  if (preimage.length > MAX_PREIMAGE || !equalBytes(hash160(preimage), leaf.thresholdHash))
    return 'wrong-preimage';
  return checkSchnorr(guardSig, leaf.guardPubkey, leafSighash, memo);
}

function checkInput(tx: Transaction, idx: number, prevouts: readonly Prevout[], memo: Memo): Check {
  const input = tx.getInput(idx);
  const prevout = prevouts[idx]!;
  const scriptSig = input.finalScriptSig ?? new Uint8Array();
  const witness = input.finalScriptWitness;
  switch (classifyScript(prevout.script)) {
    case 'p2wpkh':
      if (scriptSig.length !== 0) return 'unexpected-script-sig';
      return checkWitnessPubkeyHash(
        tx,
        idx,
        prevout.script.subarray(2),
        prevout.amount,
        witness,
        memo,
      );
    case 'p2sh': {
      // Only P2SH-P2WPKH: the scriptSig pushes `0014<keyhash>` and nothing else.
      const redeem = singlePush(scriptSig);
      if (!redeem || classifyScript(redeem) !== 'p2wpkh') return 'non-standard';
      if (!equalBytes(hash160(redeem), prevout.script.subarray(2, 22))) return 'pubkey-mismatch';
      return checkWitnessPubkeyHash(tx, idx, redeem.subarray(2), prevout.amount, witness, memo);
    }
    case 'p2tr':
      if (scriptSig.length !== 0) return 'unexpected-script-sig';
      return checkTaproot(tx, idx, prevout.script.subarray(2), prevouts, witness, memo);
    default:
      return 'non-standard';
  }
}

/**
 * Checks every input's scriptSig and witness against its prevout (same order as the inputs).
 * The first failing input is reported. With a memo, what an earlier pass over the same transaction
 * found to hold is not computed again, and what this pass finds to hold is recorded (VerifyMemo).
 */
export function verifyInputs(
  txHexOrTx: TransactionLike,
  prevouts: readonly Prevout[],
  memo?: VerifyMemo,
): VerifyResult {
  const tx = parseTransaction(txHexOrTx);
  if (prevouts.length !== tx.inputsLength)
    throw new Error(`verifyInputs: ${tx.inputsLength} inputs but ${prevouts.length} prevouts`);
  for (let input = 0; input < tx.inputsLength; input++) {
    const reason = checkInput(tx, input, prevouts, memo ?? NO_MEMO);
    if (reason) return { ok: false, input, reason };
  }
  return { ok: true };
}

/**
 * The earlier pass of a memo: every input checked, none reported, what holds recorded. For a
 * transaction not finished yet (the group's signatures still to come), so a failing input is not
 * an answer here; `verifyInputs` on the finished one is.
 */
export function recordInputs(
  tx: Transaction,
  prevouts: readonly Prevout[],
  memo: VerifyMemo,
): void {
  if (prevouts.length !== tx.inputsLength) return;
  for (let input = 0; input < tx.inputsLength; input++) {
    try {
      checkInput(tx, input, prevouts, memo);
    } catch {
      // An input not finished: nothing recorded for it.
    }
  }
}
