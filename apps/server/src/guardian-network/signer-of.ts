// The one place the composition root (app.ts) turns GUARDIAN_NETWORK into the guardian's signer:
// `off` is this server's own key, exactly as before; `local` and `external` coordinate the t-of-n
// network whose published set is in GUARDIAN_DIR. The group key is pinned in the database the
// first time, so a set on disk later swapped for one with another key (whose guardians could not
// sign the vaults already open) stops the start instead of orphaning every vault.
import type { Kysely } from 'kysely';
import type { ServerConfig } from '../config';
import { localSigner, type GuardianSigner } from '../guardian/signer';
import type { GuardianKeys } from '../store/keys';
import type { Database } from '../store/schema';
import { getOrCreateSetting } from '../store/settings';
import { loadGuardianNetwork, networkSigner } from './network-signer';

const PINNED_GROUP_KEY = 'guardian_network_group_key';

export async function guardianSignerOf(
  config: Pick<ServerConfig, 'guardianNetwork'>,
  keys: GuardianKeys,
  db: Kysely<Database>,
): Promise<GuardianSigner> {
  const { mode, dir } = config.guardianNetwork;
  if (mode === 'off') return localSigner(keys.guardianSecretKey);
  const files = loadGuardianNetwork(dir);
  const pinned = await getOrCreateSetting(db, PINNED_GROUP_KEY, () => files.set.groupKey!);
  if (pinned !== files.set.groupKey)
    throw new Error(
      `The guardian set in ${dir} has group key ${files.set.groupKey}, but this database's vaults ` +
        `commit to ${pinned}: point GUARDIAN_DIR at that network (or start on a fresh database)`,
    );
  return networkSigner(files);
}

/**
 * The keys as /api/config, the devnet and the reindex use them: `guardPubkey` is the signer's, and
 * with the network the treasury is the group key too (guardian/treasury-output.ts).
 */
export function servedKeys(keys: GuardianKeys, signer: GuardianSigner): GuardianKeys {
  const guardPubkey = Buffer.from(signer.guardPubkey).toString('hex');
  if (signer.kind === 'local') return { ...keys, guardPubkey };
  return { ...keys, guardPubkey, treasuryPubkey: guardPubkey, treasuryIsGroupKey: true };
}
