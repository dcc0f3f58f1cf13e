// Which guardian set's key the treasury (`OP_1 <group key>`) is under, in network mode. Before any
// rotation it is the only set's. After a rotation it stays under the older set's key until the
// operator moves it (`npm run operator -- treasury move`, operator/treasury-move.ts), which records
// the set it moved to here once the move is broadcast; a server started after that (and the
// operator's other commands) reserve, read and split the treasury under that set's key. Recorded,
// not read from the chain: anyone can send sats or a rune to the next set's treasury address, and
// that must not move the server's treasury.
import type { Kysely } from 'kysely';
import type { GuardianSet } from '@unit/guardian-net';
import type { Database } from '../store/schema';
import { getSetting, putSetting } from '../store/settings';

/** `<version>:<group key>` of the set the treasury was last moved to. */
const TREASURY_SET = 'guardian_network_treasury_set';

/** The set of `chain` (oldest first) the treasury is under: the recorded one, else the first. */
export async function treasurySetOf(
  db: Kysely<Database>,
  chain: readonly GuardianSet[],
): Promise<GuardianSet> {
  const recorded = await getSetting(db, TREASURY_SET);
  if (recorded === null) return chain[0]!;
  const [version, key] = recorded.split(':');
  const set = chain.find((s) => s.version === Number(version) && s.groupKey === key);
  if (!set)
    throw new Error(
      `The treasury was moved to guardian set ${version} (group key ${key}), which the chain of ` +
        'sets in GUARDIAN_DIR does not hold: point GUARDIAN_DIR at the newest network’s directory',
    );
  return set;
}

/** After a move's broadcast: the treasury is under `set` from now on. */
export async function recordTreasurySet(db: Kysely<Database>, set: GuardianSet): Promise<void> {
  await putSetting(db, TREASURY_SET, `${set.version}:${set.groupKey}`);
}
