// The owner's exit from a vault of layout 2 (docs/protocol.md, "Leaving without the guardians"),
// from facts anyone can read on chain: the vault output (its script and amount), the exit height
// and the exit's sibling hash (both in the state record of the transaction that wrote the output)
// and the owner's key (the wallet's own). The output is rebuilt from these and must be the one on
// chain, so a wrong key, height or branch is refused before anything is signed.
import { schnorr } from '@noble/curves/secp256k1.js';
import {
  SigHash,
  TAPROOT_UNSPENDABLE_KEY,
  TaprootControlBlock,
  Transaction,
} from '@scure/btc-signer';
import { tapLeafHash } from '@scure/btc-signer/payment.js';
import {
  compareBytes,
  concatBytes,
  equalBytes,
  tagSchnorr,
  taprootTweakPubkey,
  type BTC_NETWORK,
} from '@scure/btc-signer/utils.js';
import { DUST_LIMIT_SATS, lockTimeReaches } from '@unit/protocol';
import { addressNetworkOf, addressToScript } from './address';
import { exitLeafScript } from './term-leaves';
import { TAPSCRIPT_LEAF_VERSION } from './vault-script';

/** The vault input's nSequence: not final (so CLTV is enforced), opted in to replacement. */
export const EXIT_SEQUENCE = 0xfffffffd;
/** The highest fee rate an exit takes, sat/vB: a typo above it would hand the vault to a miner. */
export const EXIT_MAX_FEE_RATE = 1_000;
/** Weight of the exit input's witness: count, 64-byte signature, leaf script, 65-byte control block. */
export function exitWitnessWeight(leafScriptLength: number): number {
  return 1 + (1 + 64) + (1 + leafScriptLength) + (1 + 65);
}

export type ExitRefusal =
  'not-a-vault' | 'foreign-script' | 'before-term' | 'bad-fee' | 'bad-address' | 'dust';

/** A refusal of the exit, before anything is signed: `message` is a full sentence for the owner. */
export class ExitError extends Error {
  constructor(
    readonly reason: ExitRefusal,
    message: string,
  ) {
    super(message);
    this.name = 'ExitError';
  }
}

export interface ExitFacts {
  /** The owner's x-only key. */
  vaultPubkey: Uint8Array;
  exitHeight: number;
  /** The exit leaf's one sibling: the hash of the rest of the vault's tree. */
  exitBranch: Uint8Array;
}

export interface ExitLeafProof {
  script: Uint8Array;
  controlBlock: Uint8Array;
  /** The vault output script these facts make. */
  outputScript: Uint8Array;
}

/** The exit leaf, its control block and the output script the facts commit to. */
export function exitLeafProof({ vaultPubkey, exitHeight, exitBranch }: ExitFacts): ExitLeafProof {
  if (exitBranch.length !== 32)
    throw new ExitError('not-a-vault', 'The exit branch must be 32 bytes.');
  const script = exitLeafScript(exitHeight, vaultPubkey);
  const leaf = tapLeafHash(script, TAPSCRIPT_LEAF_VERSION);
  const root =
    compareBytes(leaf, exitBranch) < 0
      ? tagSchnorr('TapBranch', leaf, exitBranch)
      : tagSchnorr('TapBranch', exitBranch, leaf);
  const [outputKey, parity] = taprootTweakPubkey(TAPROOT_UNSPENDABLE_KEY, root);
  return {
    script,
    controlBlock: concatBytes(
      Uint8Array.of(TAPSCRIPT_LEAF_VERSION | parity),
      TAPROOT_UNSPENDABLE_KEY,
      exitBranch,
    ),
    outputScript: concatBytes(Uint8Array.of(0x51, 0x20), outputKey),
  };
}

export interface ExitRequest extends ExitFacts {
  /** The vault output to spend, as the chain shows it. */
  utxo: { txid: string; vout: number; script: Uint8Array; amount: bigint };
  /** Where the whole vault goes, less the fee. */
  toAddress: string;
  /** sat/vB, a whole number from 1 to EXIT_MAX_FEE_RATE. */
  feeRate: number;
  /** The chain's height now: the exit is refused before its height. */
  tipHeight: number;
  network: BTC_NETWORK;
}

export interface ExitPlan {
  tx: Transaction;
  proof: ExitLeafProof;
  feeSats: bigint;
  sendSats: bigint;
  vsize: number;
}

const OUTPUT_FIXED_VBYTES = 9; // amount (8) and script length (1)
const TX_FIXED_WEIGHT = 4 * (4 + 1 + 1 + 4) + 2; // version, counts, locktime; segwit marker and flag
const INPUT_FIXED_VBYTES = 32 + 4 + 1 + 4; // outpoint, empty scriptSig, sequence

/** Refuses what the exit cannot be: each refusal says what to do. */
function checkExit(req: ExitRequest, proof: ExitLeafProof): Uint8Array {
  if (!equalBytes(proof.outputScript, req.utxo.script))
    throw new ExitError(
      'foreign-script',
      'This output is not the vault these facts describe: check the vault id and that the wallet holds the vault key.',
    );
  if (!lockTimeReaches(req.tipHeight, req.exitHeight))
    throw new ExitError(
      'before-term',
      `The exit opens at block ${req.exitHeight} and the chain is at block ${req.tipHeight}: wait ${req.exitHeight - req.tipHeight} more blocks and try again.`,
    );
  if (!Number.isInteger(req.feeRate) || req.feeRate < 1 || req.feeRate > EXIT_MAX_FEE_RATE)
    throw new ExitError(
      'bad-fee',
      `The fee rate must be a whole number of sat/vB from 1 to ${EXIT_MAX_FEE_RATE}: enter another.`,
    );
  try {
    return addressToScript(req.toAddress.trim(), req.network);
  } catch {
    const other = addressNetworkOf(req.toAddress.trim());
    throw new ExitError(
      'bad-address',
      other
        ? `${req.toAddress.trim()} is a ${other} address, not one of the network the vault is on: enter an address of that network.`
        : 'The address to send the vault to is not a Bitcoin address: copy it again from the wallet that will receive the vault.',
    );
  }
}

/**
 * The unsigned exit: one input (the vault, through its exit leaf, nLockTime = exit height), one
 * output (the whole vault less the fee). Throws an ExitError before anything is signed.
 */
export function planExit(req: ExitRequest): ExitPlan {
  const proof = exitLeafProof(req);
  const payTo = checkExit(req, proof);
  const weight =
    TX_FIXED_WEIGHT +
    4 * (INPUT_FIXED_VBYTES + OUTPUT_FIXED_VBYTES + payTo.length) +
    exitWitnessWeight(proof.script.length);
  const vsize = Math.ceil(weight / 4);
  const feeSats = BigInt(vsize * req.feeRate);
  const sendSats = req.utxo.amount - feeSats;
  if (sendSats < BigInt(DUST_LIMIT_SATS))
    throw new ExitError(
      'dust',
      `The vault holds ${req.utxo.amount} sats and a fee of ${feeSats} sats (${vsize} vB at ${req.feeRate} sat/vB) would leave less than ${DUST_LIMIT_SATS} sats to send: lower the fee rate.`,
    );
  const tx = new Transaction({ lockTime: req.exitHeight, allowUnknownInputs: true });
  tx.addInput({
    txid: req.utxo.txid,
    index: req.utxo.vout,
    sequence: EXIT_SEQUENCE,
    witnessUtxo: { script: req.utxo.script, amount: req.utxo.amount },
    tapLeafScript: [
      [
        TaprootControlBlock.decode(proof.controlBlock),
        concatBytes(proof.script, Uint8Array.of(TAPSCRIPT_LEAF_VERSION)),
      ],
    ],
  });
  tx.addOutput({ script: payTo, amount: sendSats });
  return { tx, proof, feeSats, sendSats, vsize };
}

/** The exit's sighash (SIGHASH_DEFAULT over the exit leaf): what the owner's key signs. */
export function exitSighash(plan: Pick<ExitPlan, 'tx' | 'proof'>): Uint8Array {
  const input = plan.tx.getInput(0);
  const utxo = input.witnessUtxo!;
  return plan.tx.preimageWitnessV1(
    0,
    [utxo.script],
    SigHash.DEFAULT,
    [utxo.amount],
    -1,
    plan.proof.script,
    TAPSCRIPT_LEAF_VERSION,
  );
}

/** The finished exit from the owner's signature: witness `[sig, exit leaf, control block]`. */
export function finishExit(
  plan: Pick<ExitPlan, 'tx' | 'proof'>,
  signature: Uint8Array,
): Transaction {
  if (signature.length !== 64) throw new Error('an exit signature is 64 bytes (SIGHASH_DEFAULT)');
  plan.tx.updateInput(
    0,
    { finalScriptWitness: [signature, plan.proof.script, plan.proof.controlBlock] },
    true,
  );
  return plan.tx;
}

/** Signs and finishes the exit with the owner's secret key (the command's `--key-file`). */
export function signExit(plan: Pick<ExitPlan, 'tx' | 'proof'>, secretKey: Uint8Array): Transaction {
  return finishExit(plan, schnorr.sign(exitSighash(plan), secretKey, new Uint8Array(32)));
}
