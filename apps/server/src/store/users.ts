// Users of the missions area (SPEC §3 User), their referrals and completed missions.
import { randomBytes } from 'node:crypto';
import type { Kysely, Selectable } from 'kysely';
import type { Int64 } from './schema';
import type { Database, UsersTable } from './schema';
import { rowWhere } from './rows';

// Tables of migration 0400_accounts (auth/migrations.ts), merged into the store's schema here so
// the shared schema file stays untouched.
declare module './schema' {
  interface Database {
    auth_challenges: AuthChallengesTable;
    sessions: SessionsTable;
    oauth_states: OAuthStatesTable;
  }
}

export interface AuthChallengesTable {
  nonce: string;
  address: string;
  message: string;
  expires_at: Int64;
  used_at: Int64 | null;
}

export interface SessionsTable {
  token_hash: string;
  address: string;
  created_at: Int64;
  expires_at: Int64;
}

export interface OAuthStatesTable {
  /** SHA-256 of the state, hex (auth/oauth.ts) */
  state: string;
  provider: 'discord' | 'twitter';
  address: string;
  /** the PKCE verifier sealed under a key derived from the state (auth/oauth.ts) */
  code_verifier: string;
  expires_at: Int64;
}

export type UserRow = Selectable<UsersTable>;

export async function getUser(db: Kysely<Database>, address: string): Promise<UserRow | null> {
  return rowWhere(db, 'users', 'address', address);
}

export async function getUserByReferralCode(
  db: Kysely<Database>,
  code: string,
): Promise<UserRow | null> {
  return rowWhere(db, 'users', 'referral_code', code);
}

/** Returns the user, creating it (with a fresh referral code) on first sight. */
export async function ensureUser(
  db: Kysely<Database>,
  address: string,
  referredBy: string | null = null,
  now = Math.floor(Date.now() / 1000),
): Promise<UserRow> {
  const existing = await getUser(db, address);
  if (existing) return existing;
  await db
    .insertInto('users')
    .values({
      address,
      discord_id: null,
      twitter_id: null,
      telegram_id: null,
      referral_code: randomBytes(5).toString('hex'),
      referred_by: referredBy === address ? null : referredBy,
      created_at: now,
    })
    .onConflict((oc) => oc.column('address').doNothing())
    .execute();
  const user = await getUser(db, address);
  if (!user) throw new Error(`user ${address} vanished`);
  return user;
}

export async function linkUserAccounts(
  db: Kysely<Database>,
  address: string,
  links: Partial<Pick<UserRow, 'discord_id' | 'twitter_id' | 'telegram_id'>>,
): Promise<void> {
  if (Object.keys(links).length === 0) return;
  await db.updateTable('users').set(links).where('address', '=', address).execute();
}

/**
 * Referrals that count toward a level: users the address referred who have opened a vault (a
 * throwaway address that only registered counts for nothing).
 */
export async function countReferrals(db: Kysely<Database>, address: string): Promise<number> {
  const row = await db
    .selectFrom('users')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('referred_by', '=', address)
    .where(({ exists, selectFrom }) =>
      exists(
        selectFrom('vaults')
          .select('vaults.vault_id')
          .whereRef('vaults.creation_account', '=', 'users.address'),
      ),
    )
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function completeMission(
  db: Kysely<Database>,
  address: string,
  missionId: string,
  now = Math.floor(Date.now() / 1000),
): Promise<void> {
  await db
    .insertInto('mission_completions')
    .values({ address, mission_id: missionId, completed_at: now })
    .onConflict((oc) => oc.columns(['address', 'mission_id']).doNothing())
    .execute();
}

export async function completedMissions(db: Kysely<Database>, address: string): Promise<string[]> {
  const rows = await db
    .selectFrom('mission_completions')
    .select('mission_id')
    .where('address', '=', address)
    .execute();
  return rows.map((r) => r.mission_id);
}
