// A set dealt in-process (guardian-dir.ts) whose members answer at the given URLs, signed again by
// every member: for networks whose ports (or relays in front of them) are chosen at run time.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { signSet, verifySet } from '../src/guardian-set';
import { ensureIdentity, type Identity } from '../src/identity';
import { dealSet, identities, writeGuardianDir, type DealtSet } from './guardian-dir';

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

/**
 * A network directory as `guardian dkg --dir <dir> --base-port <port>` leaves it (the coordinator's
 * identity, the published set, and each member's directory with its identity, oracle secret, set
 * and share), its key dealt in-process: for the suites that test what a network does once it
 * exists, not how its key was made (the DKG among processes has suites of its own). A DKG among
 * three processes is seconds of CPU; this is milliseconds. `http` only for a test of the plain
 * local-development mode.
 */
export function dealNetworkDir(
  dir: string,
  n: number,
  t: number,
  basePort: number,
  scheme: 'https' | 'http' = 'https',
): DealtSet {
  mkdirSync(join(dir, 'coordinator'), { recursive: true, mode: 0o700 });
  const coordinator = ensureIdentity(join(dir, 'coordinator', 'identity.json'));
  const urls = Array.from({ length: n }, (_, i) => `${scheme}://127.0.0.1:${basePort + i}`);
  const dealt = dealSetAt(urls, t, coordinator);
  for (let id = 1; id <= n; id++) writeGuardianDir(join(dir, `guardian-${id}`), id, [dealt]);
  writeFileSync(join(dir, 'guardian-set.json'), JSON.stringify(dealt.set, null, 2));
  return dealt;
}
