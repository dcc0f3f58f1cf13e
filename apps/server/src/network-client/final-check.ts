// The one check of the group's signatures on a request: the finished transaction by `verifyInputs`
// against the chain's prevouts, the check cosign.ts makes before any broadcast, made here once every
// session of the request has its signature, instead of a BIP-340 verification of each signature by
// the coordinator and then the same verification again in `verifyInputs`. A session whose input
// fails on its signature is answered false: its coordinator checks the shares, names the guardian
// that cheated and signs again without it, and the transaction is checked again with the new one.
// While the guardians sign, the same `verifyInputs` code checks what needs no group signature (the
// user's signatures, the Taproot tweaks) on the transaction with placeholders for the group's, and
// records what held (VerifyMemo): the finished transaction is still checked whole, input by input,
// its sighashes computed again, and only those exact signatures are not verified a second time.
import { schnorr } from '@noble/curves/secp256k1.js';
import { Transaction } from '@scure/btc-signer';
import { hex } from '@scure/base';
import { equalBytes } from '@scure/btc-signer/utils.js';
import { recordInputs, verifyInputs, VerifyMemo, type Prevout } from '@unit/bitcoin';

/**
 * The working copies skip btc-signer's checks of each input's scripts and Taproot commitments
 * against the PSBT's own witnessUtxo (a tweak per leaf, at every parse, update and finalize): the
 * bytes were read with them (cosign.ts readPsbt, network-signer.ts), and `verifyInputs` checks
 * each control block and script again against the chain's prevouts, which decide.
 */
export const FINAL_PSBT_OPTS = { allowUnknownOutputs: true, disableScriptCheck: true } as const;
const PSBT_OPTS = FINAL_PSBT_OPTS;

export interface CheckedSession {
  input: number;
  message: Uint8Array;
  /** the x-only key whose signature the input takes (its guardian set's group key) */
  key: Uint8Array;
}

export class FinalCheck {
  private readonly candidates = new Map<number, Uint8Array>();
  private readonly waiting = new Map<number, (holds: boolean) => void>();
  /** The finished transaction once it passed `verifyInputs`; null until then (or if it failed). */
  finished: { raw: string } | null = null;

  /**
   * The finished transaction with a placeholder for each of the group's signatures, and where each
   * one sits in its input's witness: the check puts the signatures there, no PSBT step left to do.
   */
  private template: { tx: Transaction; slots: number[] } | null = null;
  private readonly memo = new VerifyMemo();

  constructor(
    /** the request's PSBT parsed with FINAL_PSBT_OPTS, for `precheck` to finish (it is changed) */
    private tx: Transaction | null,
    /** the request's PSBT, without the group's signatures */
    private readonly psbt: Uint8Array,
    private readonly sessions: readonly CheckedSession[],
    private readonly place: (tx: Transaction, session: number, signature: Uint8Array) => void,
    private readonly prevouts: readonly Prevout[],
  ) {}

  /**
   * Finishes the transaction with a placeholder (a signature no key makes) for each of the group's,
   * checks every signature that is not the group's and records what held for the final check.
   * Called while the guardians compute; it decides nothing (the final check does), so it may run
   * or not, and any step that fails here is left to the final check to find again and name.
   */
  precheck(): void {
    const tx = this.tx ?? Transaction.fromPSBT(this.psbt, PSBT_OPTS);
    this.tx = null;
    const placeholder = new Uint8Array(64);
    let complete = true;
    this.sessions.forEach((_, index) => {
      try {
        this.place(tx, index, placeholder);
      } catch {
        complete = false; // no revealed secret
      }
    });
    for (let i = 0; i < tx.inputsLength; i++)
      try {
        if (!tx.getInput(i).finalScriptWitness) tx.finalizeIdx(i);
      } catch {
        complete = false; // a missing user signature
      }
    recordInputs(tx, this.prevouts, this.memo);
    const slots = this.sessions.map(
      (s) =>
        tx
          .getInput(s.input)
          .finalScriptWitness?.findIndex((item) => equalBytes(item, placeholder)) ?? -1,
    );
    if (complete && slots.every((slot) => slot !== -1)) this.template = { tx, slots };
  }

  /** The finished transaction's bytes with these signatures: from the template, else from the PSBT. */
  private finish(): string {
    if (this.template) {
      const { tx, slots } = this.template;
      for (const [index, signature] of this.candidates) {
        const { input } = this.sessions[index]!;
        const witness = [...tx.getInput(input).finalScriptWitness!];
        witness[slots[index]!] = signature;
        tx.updateInput(input, { finalScriptWitness: witness }, true);
      }
      return hex.encode(tx.extract());
    }
    const tx = Transaction.fromPSBT(this.psbt, PSBT_OPTS);
    for (const [index, signature] of this.candidates) this.place(tx, index, signature);
    // @unit/bitcoin's `finalize`, on the parsed transaction itself: no PSBT written and read again.
    for (let i = 0; i < tx.inputsLength; i++)
      if (!tx.getInput(i).finalScriptWitness) tx.finalizeIdx(i);
    return hex.encode(tx.extract());
  }

  /** Session `index`'s signature: resolves once the whole transaction was checked with it. */
  check(index: number, signature: Uint8Array): Promise<boolean> {
    return new Promise((resolve) => {
      this.candidates.set(index, signature);
      this.waiting.set(index, resolve);
      if (this.candidates.size === this.sessions.length) this.run();
    });
  }

  private run(): void {
    let raw: string | null = null;
    let failedInput: number | null = null;
    try {
      raw = this.finish();
      // The bytes to broadcast, parsed again and checked input by input against the chain's prevouts.
      const verified = verifyInputs(raw, [...this.prevouts], this.memo);
      if (!verified.ok) failedInput = verified.input;
    } catch {
      // A missing user signature: not the guardians' to answer for; cosign.ts says what is missing.
    }
    const index = this.sessions.findIndex((s) => s.input === failedInput);
    // An input the group signs failed: the group's signature, unless it holds by itself (then the
    // owner's signature in the same witness is the bad one). Checked only on this failure path.
    if (
      index !== -1 &&
      !schnorr.verify(
        this.candidates.get(index)!,
        this.sessions[index]!.message,
        this.sessions[index]!.key,
      )
    ) {
      this.candidates.delete(index);
      const resolve = this.waiting.get(index)!;
      this.waiting.delete(index);
      resolve(false);
      return;
    }
    if (raw !== null && failedInput === null) this.finished = { raw };
    for (const resolve of this.waiting.values()) resolve(true);
    this.waiting.clear();
  }
}
