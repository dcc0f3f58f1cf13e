// What one signing reports (its events, its result, why it failed) and how a failed call to a
// guardian is named: shared by the signing run (signing-run.ts) and its callers.
import type { Exclusion, ExclusionCause } from './roast';
import { RemoteError } from './transport';

export type SignEvent =
  /** `guardian` is sent its first call about this signing (a decision, or decision and share) */
  | { kind: 'asked'; guardian: number }
  | { kind: 'decision'; guardian: number; approved: boolean; reason: string | null }
  | { kind: 'committed'; sessionId: string; attempt: number; signers: number[] }
  | { kind: 'excluded'; attempt: number; guardian: number; reason: string; cause: ExclusionCause }
  | { kind: 'signed'; attempt: number; signers: number[] };

export interface SignResult {
  /** BIP-340 signature (64 bytes) under the group key */
  signature: Uint8Array;
  signers: number[];
  /** the ROAST sessions started (at most n - t + 1) */
  attempts: number;
  /** guardians named and left out, with why */
  excluded: Exclusion[];
  decisions: { guardian: number; approved: boolean; reason: string | null }[];
}

/** Not enough guardians approved or stayed for a signature; nothing was signed. */
export class QuorumError extends Error {
  constructor(
    message: string,
    readonly sessionId: string,
    readonly decisions: SignResult['decisions'],
    readonly excluded: SignResult['excluded'],
  ) {
    super(message);
  }
}

export function describe(e: unknown): string {
  const err = e as Error & { code?: string };
  if (err.name === 'TimeoutError') return 'timed out';
  const cause = (err as { cause?: { code?: string } }).cause;
  if (cause?.code) return `unreachable (${cause.code})`;
  return err.code ? `${err.code}: ${err.message}` : err.message;
}

/** What a failed call says of its guardian. */
export function causeOf(e: unknown): ExclusionCause {
  if ((e as Error).name === 'TimeoutError') return 'stalled';
  if (e instanceof RemoteError) return 'refused';
  return 'unreachable';
}
