// The one place the composition root (app.ts) turns GUARDIAN_NETWORK into the guardian's signer:
// `off` is this server's own key, exactly as before; `local` and `external` coordinate the t-of-n
// network whose chain of published sets is in GUARDIAN_DIR (set-chain.ts). The first set's group
// key is pinned in the database the first time, so a set on disk later swapped for one with
// another key (whose guardians could not sign the vaults already open) stops the start instead of
// orphaning every vault; a rotation's next set is followed from it by its handover. The newest set
// the database has seen is recorded too: a GUARDIAN_DIR whose chain stops short of it (the old
// network's directory again) would leave the vaults already moved to it unsigned, and stops the start.
import type { Kysely } from 'kysely';
import type { ServerConfig } from '../config';
import { localSigner, type GuardianSigner } from '../cosign/signer';
import type { GuardianKeys } from '../store/keys';
import type { Database } from '../store/schema';
import { getOrCreateSetting, getSetting, putSetting } from '../store/settings';
import { hex } from '@scure/base';
import { networkSigner } from './network-signer';
import { treasurySetOf } from './treasury-set';
import {
  loadGuardianNetwork,
  readSetFiles,
  verifyChain,
  type GuardianNetworkFiles,
} from './set-chain';

const PINNED_GROUP_KEY = 'guardian_network_group_key';
/** `<version>:<group key>` of the newest set this database's server has coordinated. */
const NEWEST_SET = 'guardian_network_newest_set';

/** The chain from GUARDIAN_DIR, its first set the pinned key, not short of the newest recorded. */
export async function pinnedNetwork(
  dir: string,
  db: Kysely<Database>,
): Promise<GuardianNetworkFiles> {
  const first = verifyChain(readSetFiles(dir).slice(0, 1))[0]!;
  const pinned = await getOrCreateSetting(db, PINNED_GROUP_KEY, () => first.groupKey!);
  if (pinned !== first.groupKey)
    throw new Error(
      `The guardian sets in ${dir} start at group key ${first.groupKey} (set ${first.version}), but ` +
        `this database's vaults commit to ${pinned}: point GUARDIAN_DIR at that network, with each ` +
        'older set as guardian-set-v<N>.json after a rotation (or start on a fresh database)',
    );
  const files = loadGuardianNetwork(dir, pinned);
  const chain = [...files.older, files.set];
  const recorded = await getSetting(db, NEWEST_SET);
  if (recorded !== null) {
    const [version, key] = recorded.split(':');
    const same = chain.find((s) => s.version === Number(version));
    if (!same || same.groupKey !== key)
      throw new Error(
        `This database has signed with guardian set ${version} (group key ${key}), which the ` +
          `chain in ${dir} does not hold: point GUARDIAN_DIR at the newest network's directory`,
      );
  }
  await putSetting(db, NEWEST_SET, `${files.set.version}:${files.set.groupKey}`);
  return files;
}

export async function guardianSignerOf(
  config: Pick<ServerConfig, 'guardianNetwork'>,
  keys: GuardianKeys,
  db: Kysely<Database>,
): Promise<GuardianSigner> {
  const { mode, dir } = config.guardianNetwork;
  if (mode === 'off') return localSigner(keys.guardianSecretKey);
  const files = await pinnedNetwork(dir, db);
  // The treasury's set: the first until the operator moves it (treasury-set.ts).
  const treasury = await treasurySetOf(db, [...files.older, files.set]);
  const signer = networkSigner({ ...files, preprocess: config.guardianNetwork.oneRound !== false });
  return { ...signer, treasuryPubkey: hex.decode(treasury.groupKey!) };
}

/**
 * The keys as /api/config, the devnet and the reindex use them: `guardPubkey` is the signer's (the
 * newest set's, which every new vault output commits to), and with the network the treasury is a
 * group key too (cosign/treasury-output.ts): the first set's, which it stays under after a
 * rotation until the operator moves it (then the set it moved to: treasury-set.ts).
 */
export function servedKeys(keys: GuardianKeys, signer: GuardianSigner): GuardianKeys {
  const toHex = (key: Uint8Array) => Buffer.from(key).toString('hex');
  const guardPubkey = toHex(signer.guardPubkey);
  if (signer.kind === 'local') return { ...keys, guardPubkey };
  const treasuryPubkey = toHex(
    signer.treasuryPubkey ?? signer.olderGuardPubkeys?.[0] ?? signer.guardPubkey,
  );
  return { ...keys, guardPubkey, treasuryPubkey, treasuryIsGroupKey: true };
}
