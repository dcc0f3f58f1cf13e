// Who reads what of a user, over HTTP against the real app: anyone reads what
// a profile shows; the linked Discord, Twitter and Telegram ids, the referral code and the referrer
// are answered to the address's own session only.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UserDto } from '@unit/protocol';
import { linkUserAccounts } from '../src/store';
import { postAs, signIn, testAccount } from './accounts';
import { startTestApp, type RunningApp } from './support';

let server: RunningApp;
const alice = testAccount(0x45);
const mallory = testAccount(0x46);
let aliceCookie: string;
let malloryCookie: string;

beforeAll(async () => {
  server = await startTestApp();
  aliceCookie = await signIn(server.url, alice);
  malloryCookie = await signIn(server.url, mallory);
  await postAs(aliceCookie, `${server.url}/api/users`, { address: alice.address });
  await linkUserAccounts(server.store.db, alice.address, {
    discord_id: '80351110224678912',
    twitter_id: '2244994945',
    telegram_id: '123456789',
  });
});
afterAll(async () => {
  await server.stop();
});

const read = async (cookie: string | null) => {
  const headers: Record<string, string> = cookie ? { cookie } : {};
  const one = await fetch(`${server.url}/api/users/${alice.address}`, { headers });
  const list = await fetch(`${server.url}/api/users?address=${alice.address}`, { headers });
  expect(one.status).toBe(200);
  const [listed] = (await list.json()) as unknown[];
  const single = (await one.json()) as unknown;
  expect(listed).toEqual(single);
  return single as Record<string, unknown>;
};

describe('a user read', () => {
  it('answers only the profile to anyone but the owner', async () => {
    for (const cookie of [null, malloryCookie, 'unit_session=made-up']) {
      expect(await read(cookie)).toEqual({
        address: alice.address,
        referrals: 0,
        level: null,
        level_title: null,
        postage_sats: null,
      });
    }
  });

  it("answers the linked accounts and the referral code to the owner's session", async () => {
    const own = (await read(aliceCookie)) as unknown as UserDto;
    expect(own).toMatchObject({
      address: alice.address,
      discord_id: '80351110224678912',
      twitter_id: '2244994945',
      telegram_id: '123456789',
      referred_by: null,
      referrals: 0,
    });
    expect(own.referral_code).toMatch(/^[0-9a-f]{10}$/);
  });
});
