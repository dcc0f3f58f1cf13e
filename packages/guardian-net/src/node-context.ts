// The set (or DKG roster) a guardian message names, and what the guardian holds for it: the node's
// handlers ask for the part they need and refuse, with the protocol's code, when it is not there.
import type { DkgRounds } from './dkg-rounds';
import type { GuardianSetBody } from './guardian-set';
import { ProtocolError } from './envelope';
import type { Ready, SigningRounds } from './signing-rounds';

/** A set this guardian holds a share of, and its signing sessions. */
export interface Installed extends Ready {
  signing: SigningRounds;
}

/** The set (or DKG roster) a message's `setVersion` names. */
export interface Context {
  body: GuardianSetBody;
  installed?: Installed;
  dkg?: DkgRounds;
}

/** A DKG message: only while this guardian is in that roster's DKG. */
export function needDkg(ctx: Context): DkgRounds {
  if (!ctx.dkg) throw new ProtocolError('not-allowed', 'this guardian already has a share');
  return ctx.dkg;
}

/** A signing message: only for a set this guardian holds a share of. */
export function needReady(ctx: Context): Installed {
  if (!ctx.installed) throw new ProtocolError('not-ready', 'this guardian has no share yet');
  return ctx.installed;
}
