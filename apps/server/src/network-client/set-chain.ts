// The guardian sets this server coordinates, read from GUARDIAN_DIR: after a rotation
// (docs/protocol.md, "Guardian rotation") the newest set signs new vaults, and each older set still
// signs the vaults that commit to its key until their next action moves them. The layout, as
// `guardian rotate` leaves the next network's directory:
//   guardian-set.json          the newest set (what `guardian local --dir` runs)
//   guardian-set-v<N>.json     each older set N still live, back to the first
//   coordinator/identity.json  this server's coordinator identity (the same in every set)
// The chain is checked link by link as `verifySetChain` does (each set names the one before it and
// carries its handover), starting from the first set, which must be the pinned key when one is given.
// After a resharing (`guardian reshare`: members changed, key kept) the set it replaced keeps its
// file as an older set, but its guardians no longer sign for it: `signingSets` drops it.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadIdentity, verifySet, type GuardianSet, type Identity } from '@unit/guardian-net';

export interface GuardianNetworkFiles {
  /** The newest set: new vaults commit to its key. */
  set: GuardianSet;
  /** The older sets of the chain, oldest first (empty before any rotation). */
  older: GuardianSet[];
  identity: Identity;
}

const OLDER = /^guardian-set-v([1-9][0-9]{0,9})\.json$/;

function readSet(path: string): unknown {
  try {
    return JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new Error(
      `No readable guardian set at ${path} (${(error as Error).message}); create one with ` +
        '`npm run guardian -- dkg --dir <dir>` or point GUARDIAN_DIR at the network’s directory',
      { cause: error },
    );
  }
}

/** The raw sets in `dir`, oldest first: each `guardian-set-v<N>.json` by N, then `guardian-set.json`. */
export function readSetFiles(dir: string): unknown[] {
  const older = (existsSync(dir) ? readdirSync(dir) : [])
    .map((name) => ({ name, m: OLDER.exec(name) }))
    .filter((f) => f.m)
    .map((f) => ({ version: Number(f.m![1]), path: join(dir, f.name) }))
    .sort((a, b) => a.version - b.version);
  return [...older.map((f) => readSet(f.path)), readSet(join(dir, 'guardian-set.json'))];
}

/**
 * Every set in the chain verified (structure, FROST consistency, every member's signature, and
 * from the second on its `previous` and the handover of t guardians of the set before), oldest
 * first. `pinnedGroupKey` is the first set's key: the one this database's first vaults commit to.
 */
export function verifyChain(raws: unknown[], pinnedGroupKey?: string): GuardianSet[] {
  const sets: GuardianSet[] = [];
  for (const raw of raws) {
    const previous = sets.at(-1);
    try {
      sets.push(previous ? verifySet(raw, { previous }) : verifySet(raw, pinnedGroupKey));
    } catch (error) {
      const which = previous ? `the set after version ${previous.version}` : 'the first set';
      throw new Error(`The guardian set chain is broken at ${which}: ${(error as Error).message}`, {
        cause: error,
      });
    }
  }
  return sets;
}

/**
 * The sets of `chain` (oldest first) that still sign: a set followed by a later one with the same
 * group key (a resharing: members changed, key kept) is retired by its guardians, so the later one
 * signs every vault under that key.
 */
export function signingSets(chain: readonly GuardianSet[]): GuardianSet[] {
  return chain.filter(
    (s) => !chain.some((later) => later.version > s.version && later.groupKey === s.groupKey),
  );
}

/**
 * The chain of published sets and this server's coordinator identity from GUARDIAN_DIR (the layout
 * at the head of this file), pinned, when given, to the first set's group key.
 */
export function loadGuardianNetwork(dir: string, pinnedGroupKey?: string): GuardianNetworkFiles {
  const sets = verifyChain(readSetFiles(dir), pinnedGroupKey);
  const set = sets.at(-1)!;
  const identity = loadIdentity(join(dir, 'coordinator', 'identity.json'));
  // `guardian rotate` keeps the coordinators; a chain whose sets name others is not ours to sign.
  for (const s of sets)
    if (!s.coordinators.some((c) => c.identityKey === identity.publicKey))
      throw new Error(
        `The identity in ${dir}/coordinator is not a coordinator of guardian set ${s.version}`,
      );
  return { set, older: sets.slice(0, -1), identity };
}
