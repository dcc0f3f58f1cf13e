// Missions, users and referral levels (SPEC §3 Mission, User, Referral levels; SPEC §4 Mission
// actions). A mission is verified against what the chain-backed vault history records, so a
// completion cannot be claimed by asking.
import type { Kysely } from 'kysely';
import {
  REFERRAL_LEVELS,
  referralLevel,
  type ActionCode,
  type MissionAction,
  type MissionDto,
  type PublicUserDto,
  type UserDto,
} from '@unit/protocol';
import type { Database } from '../store/schema';
import {
  completeMission,
  completedMissions,
  countReferrals,
  ensureUser,
  getUser,
  getUserByReferralCode,
  type UserRow,
} from '../store/users';

interface MissionDefinition {
  id: string;
  title: string;
  action: MissionAction;
  /** The vault history action that proves the mission done. */
  proof: ActionCode;
}

export const MISSIONS: readonly MissionDefinition[] = [
  { id: '1', title: 'Open your vault', action: 'create-vault', proof: 'o' },
  { id: '2', title: 'Deposit BTC into your vault', action: 'deposit', proof: 'd' },
  { id: '3', title: 'Borrow UNIT', action: 'borrow', proof: 'b' },
  { id: '4', title: 'Repay UNIT', action: 'repay', proof: 'r' },
  { id: '5', title: 'Withdraw BTC', action: 'withdraw', proof: 'w' },
  { id: '6', title: 'Repossess a liquidated vault', action: 'repossess', proof: 'x' },
];

async function toUserDto(db: Kysely<Database>, user: UserRow): Promise<UserDto> {
  const referrals = await countReferrals(db, user.address);
  const level = referralLevel(referrals);
  return {
    address: user.address,
    discord_id: user.discord_id,
    twitter_id: user.twitter_id,
    telegram_id: user.telegram_id,
    referral_code: user.referral_code,
    referred_by: user.referred_by,
    referrals,
    level,
    level_title: level ? REFERRAL_LEVELS[level].title : null,
    postage_sats: level ? REFERRAL_LEVELS[level].postage_sats : null,
  };
}

/**
 * The user of `address` as `viewer` may see it: the owner's view to the owner's session, what a
 * profile shows to anyone else (linked ids are the owner's alone).
 */
export async function findUser(
  db: Kysely<Database>,
  address: string,
  viewer: string | null,
): Promise<PublicUserDto | UserDto | null> {
  const user = await getUser(db, address);
  if (!user) return null;
  const own = await toUserDto(db, user);
  if (viewer === address) return own;
  const { address: a, referrals, level, level_title, postage_sats } = own;
  return { address: a, referrals, level, level_title, postage_sats } satisfies PublicUserDto;
}

/** Registers the address (idempotent); a referral code names the referrer, never oneself. */
export async function registerUser(
  db: Kysely<Database>,
  address: string,
  referralCode: string | null,
): Promise<UserDto> {
  const referrer = referralCode ? await getUserByReferralCode(db, referralCode) : null;
  return toUserDto(db, await ensureUser(db, address, referrer?.address ?? null));
}

/**
 * The vault-history actions that prove missions for the address: every action of the vaults it
 * opened, whenever it happened, so an action done before Start still counts. The liquidated
 * vault's own `x` record (it holds nothing afterwards) proves no repossess mission: only the
 * claimant's, whose vault holds the claimed collateral.
 */
async function provenActions(db: Kysely<Database>, address: string): Promise<Set<ActionCode>> {
  const rows = await db
    .selectFrom('vault_history')
    .innerJoin('vaults', 'vaults.vault_id', 'vault_history.vault_id')
    .select('vault_history.action')
    .distinct()
    .where('vaults.creation_account', '=', address)
    .where((eb) =>
      eb.or([eb('vault_history.action', '!=', 'x'), eb('vault_history.vault_amount', '>', 0)]),
    )
    // At most the eight action codes.
    .limit(10)
    .execute();
  return new Set(rows.map((r) => r.action as ActionCode));
}

export async function listMissions(db: Kysely<Database>, address: string): Promise<MissionDto[]> {
  const [recorded, proven] = await Promise.all([
    completedMissions(db, address),
    provenActions(db, address),
  ]);
  const done = new Set(recorded);
  return MISSIONS.map((m) => ({
    id: m.id,
    title: m.title,
    action: m.action,
    mission_tasks: 1,
    completed_tasks: done.has(m.id) || proven.has(m.proof) ? 1 : 0,
  }));
}

/**
 * Checks the mission against the history of the vaults the address opened and records it done
 * when the proving action is there. Null for an unknown mission.
 */
export async function verifyMission(
  db: Kysely<Database>,
  missionId: string,
  address: string,
): Promise<MissionDto | null> {
  const mission = MISSIONS.find((m) => m.id === missionId);
  if (!mission) return null;
  await ensureUser(db, address);
  if ((await provenActions(db, address)).has(mission.proof)) {
    await completeMission(db, address, mission.id);
  }
  const missions = await listMissions(db, address);
  return missions.find((m) => m.id === missionId) ?? null;
}
