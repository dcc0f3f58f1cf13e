// The one check of the group's signatures on a request: the finished transaction by `verifyInputs`
// against the chain's prevouts, the check cosign.ts makes before any broadcast, made here once every
// session of the request has its signature, instead of a BIP-340 verification of each signature by
// the coordinator and then the same verification again in `verifyInputs`. A session whose input
// fails on its signature is answered false: its coordinator checks the shares, names the guardian
// that cheated and signs again without it, and the transaction is checked again with the new one.
import { schnorr } from '@noble/curves/secp256k1.js';
import { Transaction } from '@scure/btc-signer';
import { hex } from '@scure/base';
import { verifyInputs, type Prevout } from '@unit/bitcoin';

const PSBT_OPTS = { allowUnknownOutputs: true } as const;

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

  /** The request's transaction parsed once; used as is by the first check, parsed again after. */
  private parsed: Transaction | null;

  constructor(
    /** the request's transaction, without the group's signatures, and its PSBT */
    tx: Transaction,
    private readonly psbt: Uint8Array,
    private readonly sessions: readonly CheckedSession[],
    private readonly place: (tx: Transaction, session: number, signature: Uint8Array) => void,
    private readonly prevouts: readonly Prevout[],
  ) {
    this.parsed = tx;
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
    const tx = this.parsed ?? Transaction.fromPSBT(this.psbt, PSBT_OPTS);
    this.parsed = null;
    for (const [index, signature] of this.candidates) this.place(tx, index, signature);
    let raw: string | null = null;
    let failedInput: number | null = null;
    try {
      // @unit/bitcoin's `finalize`, on the parsed transaction itself: no PSBT written and read again.
      for (let i = 0; i < tx.inputsLength; i++)
        if (!tx.getInput(i).finalScriptWitness) tx.finalizeIdx(i);
      raw = hex.encode(tx.extract());
      // The bytes to broadcast, parsed again and checked input by input against the chain's prevouts.
      const verified = verifyInputs(raw, [...this.prevouts]);
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
