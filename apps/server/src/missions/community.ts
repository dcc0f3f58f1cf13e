// Roles and badges of a user (SPEC §3), evaluated from the rules in community-rules.ts against
// what the store knows: the user, its vaults and their history, its referrals. Every query is a
// count or reads one account's rows.
import type { Kysely } from 'kysely';
import type { CommunityAwardDto, CommunityDto } from '@unit/protocol';
import type { Database } from '../store/schema';
import { countReferrals, getUser, type UserRow } from '../store/users';
import { BADGE_RULES, ROLE_RULES, type AwardRule, type Requirement } from './community-rules';
import { listMissions } from './missions';

type Evaluate = (requirement: Requirement) => Promise<boolean>;

function evaluator(db: Kysely<Database>, user: UserRow): Evaluate {
  // Facts are read once and only when a rule asks for them.
  const memo = new Map<string, Promise<unknown>>();
  const once = <T>(key: string, read: () => Promise<T>): Promise<T> => {
    if (!memo.has(key)) memo.set(key, read());
    return memo.get(key) as Promise<T>;
  };
  const vault = () =>
    once('vault', () =>
      db
        .selectFrom('vaults')
        .select(['vault_id', 'btc_locked', 'unit_borrowed', 'created_at'])
        .where('creation_account', '=', user.address)
        .where('status', '=', 'active')
        .orderBy('created_at', 'desc')
        .limit(1)
        .executeTakeFirst(),
    );
  const count = async (query: Promise<{ n: number | string | bigint } | undefined>) =>
    Number((await query)?.n ?? 0);

  return async (r) => {
    switch (r.kind) {
      case 'early-user':
        return (
          (await count(
            db
              .selectFrom('users')
              .select((eb) => eb.fn.countAll<number>().as('n'))
              .where('created_at', '<', user.created_at)
              .executeTakeFirst(),
          )) < r.within
        );
      case 'early-vault': {
        const first = await db
          .selectFrom('vaults')
          .select('created_at')
          .where('creation_account', '=', user.address)
          .orderBy('created_at')
          .limit(1)
          .executeTakeFirst();
        if (!first) return false;
        const before = await count(
          db
            .selectFrom('vaults')
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .where('created_at', '<', first.created_at)
            .executeTakeFirst(),
        );
        return before < r.within;
      }
      case 'referrals':
        return (await once('referrals', () => countReferrals(db, user.address))) >= r.min;
      case 'actions':
        return (
          (await count(
            db
              .selectFrom('vault_history')
              .innerJoin('vaults', 'vaults.vault_id', 'vault_history.vault_id')
              .select((eb) => eb.fn.countAll<number>().as('n'))
              .where('vaults.creation_account', '=', user.address)
              .where('vault_history.action', '=', r.action)
              // the liquidated vault's own x record is not a repossession by its owner
              .where((eb) =>
                eb.or([
                  eb('vault_history.action', '!=', 'x'),
                  eb('vault_history.vault_amount', '>', 0),
                ]),
              )
              .executeTakeFirst(),
          )) >= r.min
        );
      case 'missions': {
        const missions = await once('missions', () => listMissions(db, user.address));
        return missions.filter((m) => m.completed_tasks >= m.mission_tasks).length >= r.min;
      }
      case 'collateral':
        return Number((await vault())?.btc_locked ?? 0) >= r.minSats;
      case 'top-collateral':
      case 'top-debt': {
        const own = await vault();
        const column = r.kind === 'top-collateral' ? 'btc_locked' : 'unit_borrowed';
        const mine = Number(own?.[column] ?? 0);
        if (!own || mine <= 0) return false;
        const larger = await count(
          db
            .selectFrom('vaults')
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .where('status', '=', 'active')
            .where(column, '>', mine)
            .executeTakeFirst(),
        );
        return larger < r.top;
      }
      case 'linked':
        return r.accounts.every((account) => user[`${account}_id`] !== null);
      case 'unavailable':
        return false;
    }
  };
}

async function awards(rules: readonly AwardRule[], evaluate: Evaluate) {
  const out: CommunityAwardDto[] = [];
  for (const rule of rules) {
    out.push({
      id: rule.id,
      title: rule.title,
      how: rule.how,
      earned: await evaluate(rule.requirement),
    });
  }
  return out;
}

/** The roles and badges of a registered user; null when the address has not registered. */
export async function communityOf(
  db: Kysely<Database>,
  address: string,
): Promise<CommunityDto | null> {
  const user = await getUser(db, address);
  if (!user) return null;
  const evaluate = evaluator(db, user);
  return { roles: await awards(ROLE_RULES, evaluate), badges: await awards(BADGE_RULES, evaluate) };
}
