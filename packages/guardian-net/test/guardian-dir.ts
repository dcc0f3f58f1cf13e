// A guardian's directory as a real DKG and rotation leave it, made in-process from a trusted
// dealer's shares (fast, and enough for the tests of a guardian's own checks): its identity, each
// set it holds with its share, signed by every member.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { bytesToHex } from '../src/canonical';
import { frost, frostIdentifier, groupKeyXOnly, publicToJson, writeShareFile } from '../src/frost';
import {
  previousOf,
  signSet,
  verifySet,
  type GuardianSet,
  type GuardianSetBody,
} from '../src/guardian-set';
import { newIdentity, type Identity } from '../src/identity';
import { ensureOracleSecret } from '../src/oracle/threshold-oracle';
import { writeSecretFile } from '../src/secret-file';
import { setFiles } from '../src/set-files';

export interface DealtSet {
  set: GuardianSet;
  identities: Identity[];
  secrets: Record<string, ReturnType<typeof frost.trustedDealer>['secretShares'][string]>;
}

/**
 * A set's roster with no FROST package: guardian i + 1 holds `identities[i]` and listens on loopback
 * at `basePort + i`.
 */
export function rosterBody(
  version: number,
  t: number,
  identities: Identity[],
  basePort: number,
  coordinators: GuardianSetBody['coordinators'],
): GuardianSetBody {
  return {
    kind: 'unit/guardian-set',
    version,
    t,
    n: identities.length,
    members: identities.map((k, i) => ({
      id: i + 1,
      name: `guardian-${i + 1}`,
      identityKey: k.publicKey,
      url: `http://127.0.0.1:${basePort + i}`,
    })),
    coordinators,
  };
}

/** A set of `identities.length` members, t of them signing, coordinated by `coordinator`. */
export function dealSet(
  version: number,
  t: number,
  identities: Identity[],
  coordinator: Identity,
  previous?: GuardianSet,
): DealtSet {
  const n = identities.length;
  const dealt = frost.trustedDealer(
    { min: t, max: n },
    identities.map((_, i) => frostIdentifier(i + 1)),
  );
  const pub = publicToJson(dealt.public);
  const coordinators = [{ name: 'coordinator', identityKey: coordinator.publicKey }];
  const body: GuardianSetBody = {
    ...rosterBody(version, t, identities, 41_000 + version * 100, coordinators),
    frost: pub,
    groupKey: groupKeyXOnly(pub),
    ...(previous ? { previous: previousOf(previous) } : {}),
  };
  const signatures = Object.fromEntries(
    identities.map((k, i) => [String(i + 1), signSet(body, k.secretKey)]),
  );
  return { set: verifySet({ ...body, signatures }), identities, secrets: dealt.secretShares };
}

/** Writes guardian `id`'s directory holding `sets` (oldest first) as set-files.ts lays them out. */
export function writeGuardianDir(dir: string, id: number, sets: DealtSet[]): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const identity = sets[0]!.identities[id - 1]!;
  writeSecretFile(
    join(dir, 'identity.json'),
    JSON.stringify({ secretKey: bytesToHex(identity.secretKey) }),
  );
  // An installed guardian's directory holds its oracle secret beside its identity (installed-dir.ts).
  ensureOracleSecret(join(dir, 'oracle.json'));
  sets.forEach(({ set, secrets }, i) => {
    const files = i === 0 ? setFiles(dir) : setFiles(dir, set.version);
    const secret = secrets[frostIdentifier(id)]!;
    writeShareFile(files.share, { guardianId: id, secret, groupKey: set.groupKey! });
    writeFileSync(files.set, JSON.stringify(set));
  });
}

export const identities = (n: number): Identity[] => Array.from({ length: n }, newIdentity);
