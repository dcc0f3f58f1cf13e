// One address per Discord or Twitter account in the store, on SQLite and, with
// TEST_DATABASE_URL, PostgreSQL: migration 0410 resolves links made twice before it (the earliest
// registered address keeps the account) and its unique index refuses a second address, also when
// two link at once.
import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { accountMigrations } from '../src/auth/migrations';
import { migrateToLatest, openStore, type Store } from '../src/store';
import { ensureUser, getUser, linkUserAccounts } from '../src/store/users';
import { postAs, signIn, testAccount } from './accounts';
import { startFakeProvider } from './oauth-provider';
import { startTestApp } from './support';

const pgUrl = process.env.TEST_DATABASE_URL;
const dialects: Array<[string, () => Promise<Store>]> = [
  ['SQLite', () => openStore({ file: ':memory:' })],
  ...(pgUrl
    ? ([
        [
          'PostgreSQL',
          () =>
            openStore({ databaseUrl: pgUrl, schema: `social_${randomBytes(6).toString('hex')}` }),
        ],
      ] as Array<[string, () => Promise<Store>]>)
    : []),
];
const stores: Store[] = [];
afterAll(async () => {
  for (const store of stores) await store.close();
});

describe.each(dialects)('social accounts on %s', (_name, open) => {
  it('keeps the earliest holder of an account linked twice before the migration', async () => {
    const store = await open();
    stores.push(store);
    const { db } = store;
    const { '0410_one_address_per_social_account': _unique, ...before } = accountMigrations;
    await migrateToLatest(db, before);
    for (const [address, created] of [
      ['tb1qfirst', 1],
      ['tb1qsecond', 2],
      ['tb1qthird', 3],
    ] as const) {
      await ensureUser(db, address, null, created);
    }
    await linkUserAccounts(db, 'tb1qfirst', { discord_id: 'D' });
    await linkUserAccounts(db, 'tb1qsecond', { discord_id: 'D', twitter_id: 'T' });
    await linkUserAccounts(db, 'tb1qthird', { twitter_id: 'T', telegram_id: 'C' });

    await migrateToLatest(db, accountMigrations);
    const linked = async (address: string) => {
      const user = await getUser(db, address);
      return [user?.discord_id, user?.twitter_id, user?.telegram_id];
    };
    expect(await linked('tb1qfirst')).toEqual(['D', null, null]);
    expect(await linked('tb1qsecond')).toEqual([null, 'T', null]);
    expect(await linked('tb1qthird')).toEqual([null, null, 'C']);

    // From now on the index refuses a second address, also two at once; one address may still
    // re-link its own account, and unlinked users (NULLs) are many.
    await expect(linkUserAccounts(db, 'tb1qthird', { discord_id: 'D' })).rejects.toThrow();
    await linkUserAccounts(db, 'tb1qfirst', { discord_id: 'D' });
    await ensureUser(db, 'tb1qfourth');
    await ensureUser(db, 'tb1qfifth');
    const raced = await Promise.allSettled(
      ['tb1qfourth', 'tb1qfifth'].map((address) =>
        linkUserAccounts(db, address, { twitter_id: 'NEW' }),
      ),
    );
    expect(raced.map((r) => r.status).sort()).toEqual(['fulfilled', 'rejected']);
  });
});

describe.runIf(pgUrl)('two addresses linking one Discord account at once on PostgreSQL', () => {
  it('links one and tells the other the account is taken', async () => {
    const discord = await startFakeProvider({
      clientId: 'discord-app',
      secret: 'discord-secret',
      accountId: '41771983423143937',
      profile: (id) => ({ id }),
    });
    const app = await startTestApp(
      {
        DATABASE_URL: pgUrl!,
        DISCORD_CLIENT_ID: 'discord-app',
        DISCORD_CLIENT_SECRET: 'discord-secret',
        DISCORD_API_ROOT: discord.url,
      },
      { databaseSchema: `social_app_${randomBytes(6).toString('hex')}` },
    );
    try {
      const flows = await Promise.all(
        [testAccount(0x4a), testAccount(0x4b)].map(async (account) => {
          const cookie = await signIn(app.url, account);
          const started = await postAs(cookie, `${app.url}/api/oauth/discord/start`, {});
          const back = discord.approve((started.body as { url: string }).url);
          return { cookie, back: back.replace(/^https?:\/\/[^/]+/, app.url) };
        }),
      );
      const landed = await Promise.all(
        flows.map(async ({ cookie, back }) => {
          const res = await fetch(back, { redirect: 'manual', headers: { cookie } });
          return res.headers.get('location');
        }),
      );
      expect(landed.sort()).toEqual([
        '/missions?link_error=discord&reason=taken',
        '/missions?linked=discord',
      ]);
      const holders = await app.store.db
        .selectFrom('users')
        .select('address')
        .where('discord_id', '=', '41771983423143937')
        .execute();
      expect(holders).toHaveLength(1);
    } finally {
      await app.stop();
      await discord.close();
    }
  });
});
