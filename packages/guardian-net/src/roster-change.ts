// What a resharing's and a repair's roster messages share: the refusal they answer with, the
// comparison of two JSON bodies by their canonical form, and the head of the roster,
// {session, current, next}, parsed and the current set verified before anything else is read.
import { canonicalJson, type Json } from './canonical';
import { checkSession } from './dkg-share-box';
import { ProtocolError } from './envelope';
import { parseSetBody, verifySet, type GuardianSet, type GuardianSetBody } from './guardian-set';

export function refuse(message: string): never {
  throw new ProtocolError('refused', message);
}

export const sameJson = (a: unknown, b: unknown) =>
  canonicalJson(JSON.parse(JSON.stringify(a)) as Json) ===
  canonicalJson(JSON.parse(JSON.stringify(b)) as Json);

/** A roster's {session, current, next} (`what` names it in the refusal); the rest stays in `body`. */
export function parseRosterHead(
  raw: unknown,
  what: string,
): { body: Record<string, unknown>; session: string; current: GuardianSet; next: GuardianSetBody } {
  const body = (raw ?? {}) as Record<string, unknown>;
  const session = checkSession(body.session);
  try {
    return { body, session, current: verifySet(body.current), next: parseSetBody(body.next) };
  } catch (e) {
    return refuse(`bad ${what}: ${(e as Error).message}`);
  }
}
