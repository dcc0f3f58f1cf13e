// A set dealt in-process (guardian-dir.ts) whose members answer at the given URLs, signed again by
// every member: for networks whose ports (or relays in front of them) are chosen at run time.
import { signSet, verifySet } from '../src/guardian-set';
import type { Identity } from '../src/identity';
import { dealSet, identities, type DealtSet } from './guardian-dir';

export function dealSetAt(urls: string[], t: number, coordinator: Identity): DealtSet {
  const keys = identities(urls.length);
  const dealt = dealSet(1, t, keys, coordinator);
  const { signatures: _s, ...body } = dealt.set;
  body.members = body.members.map((m, i) => ({ ...m, url: urls[i]! }));
  const signatures = Object.fromEntries(
    keys.map((k, i) => [String(i + 1), signSet(body, k.secretKey)]),
  );
  return { ...dealt, set: verifySet({ ...body, signatures }) };
}
