// The accounts routes on PostgreSQL (skipped without TEST_DATABASE_URL; CI provides it): the
// challenge race, sessions guarding writes, referral counting, roles and badges, and Telegram link
// codes spent once under concurrency.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CommunityDto, UserDto } from '@unit/protocol';
import { consumeLinkCode, createLinkCode, insertVault } from '../src/store';
import { challenge, postAs, signIn, testAccount } from './accounts';
import { getJson, postJson, startTestApp, type RunningApp } from './support';

const pgUrl = process.env.TEST_DATABASE_URL;

describe.runIf(pgUrl)('accounts on PostgreSQL', () => {
  let app: RunningApp;
  beforeAll(async () => {
    app = await startTestApp(
      { DATABASE_URL: pgUrl! },
      { databaseSchema: `accounts_${randomBytes(6).toString('hex')}` },
    );
  });
  afterAll(async () => {
    await app.stop();
  });

  it('gives one session for a challenge however many verifies race', async () => {
    const alice = testAccount(0x81);
    const { message } = await challenge(app.url, alice.address);
    const body = { address: alice.address, message, signature: alice.sign(message) };
    const answers = await Promise.all(
      Array.from({ length: 6 }, () => postJson(`${app.url}/api/auth/verify`, body)),
    );
    expect(answers.map((a) => a.status).sort()).toEqual([200, 401, 401, 401, 401, 401]);
  });

  it('spends a Telegram link code once under concurrency', async () => {
    const code = randomBytes(18).toString('base64url');
    await createLinkCode(app.store.db, {
      code,
      address: 'tb1qsomeone',
      expires_at: Math.floor(Date.now() / 1000) + 60,
    });
    const spent = await Promise.all(
      Array.from({ length: 5 }, () => consumeLinkCode(app.store.db, code)),
    );
    expect(spent.filter((a) => a !== null)).toEqual(['tb1qsomeone']);
  });

  it('counts a referral once the referred user opens a vault, and evaluates the awards', async () => {
    const referrer = testAccount(0x82);
    const friend = testAccount(0x83);
    const mine = await postAs(await signIn(app.url, referrer), `${app.url}/api/users`, {
      address: referrer.address,
    });
    const code = (mine.body as UserDto).referral_code;
    const other = await postAs(null, `${app.url}/api/users`, { address: friend.address });
    expect(other.status).toBe(401);
    await postAs(await signIn(app.url, friend), `${app.url}/api/users`, {
      address: friend.address,
      referral_code: code,
    });
    const user = async () =>
      (await getJson(`${app.url}/api/users/${referrer.address}`)).body as UserDto;
    expect((await user()).referrals).toBe(0);
    await insertVault(app.store.db, {
      vault_id: 'ab'.repeat(32),
      vault_tag: 'abababab',
      vault_pubkey: 'cd'.repeat(32),
      name: 'Friend',
      creation_account: friend.address,
      runes_account: friend.taprootAddress,
      btc_locked: 200_000_000,
      unit_borrowed: 1_000,
      vault_txid: 'ab'.repeat(32),
      vault_vout: 0,
      threshold_cents: 1,
      stamp: 1,
      status: 'active',
      created_at: 1,
    });
    expect(await user()).toMatchObject({ referrals: 1, level: 'level_one' });
    const awards = (await getJson(`${app.url}/api/users/${friend.address}/community`))
      .body as CommunityDto;
    expect(awards.roles.filter((r) => r.earned).map((r) => r.id)).toEqual(['genesis', 'prime']);
  });
});
