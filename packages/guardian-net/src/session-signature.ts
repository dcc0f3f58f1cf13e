// A signing session's signature from its members' shares: R's x coordinate and the shares' sum
// (aggregate.ts), checked once by the coordinator's `check`. Each guardian sends R's x beside its
// share; when all agree the signature takes it, else (or when it fails) this process computes R
// itself. Null when neither checks: the caller then verifies each share, to name who cheated
// (RFC 9591, section 5.3).
import type { NonceCommitments } from '@noble/curves/abstract/frost.js';
import { groupCommitmentX, signatureOf } from './aggregate';
import { bytesToHex, parseHex } from './canonical';
import type { GuardianSet } from './guardian-set';

export async function sessionSignature(
  ctx: { set: GuardianSet; check(signature: Uint8Array): boolean | Promise<boolean> },
  shares: readonly { share: Uint8Array; rx: string | null }[],
  list: NonceCommitments[],
  message: Uint8Array,
): Promise<Uint8Array | null> {
  const sum = shares.map((s) => s.share);
  const first = shares[0]!.rx;
  const told =
    first !== null && /^[0-9a-f]{64}$/.test(first) && shares.every((s) => s.rx === first)
      ? first
      : null;
  if (told !== null) {
    const candidate = signatureOf(parseHex(told, 32), sum);
    if (await ctx.check(candidate)) return candidate;
  }
  let rx: string | null = null;
  try {
    rx = bytesToHex(groupCommitmentX(ctx.set.groupKey!, list, message));
  } catch {
    rx = null;
  }
  if (rx === null || rx === told) return null;
  const candidate = signatureOf(parseHex(rx, 32), sum);
  return (await ctx.check(candidate)) ? candidate : null;
}
