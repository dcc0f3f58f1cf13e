// Missions and referrals over HTTP with signed-in users: missions read what the vault history
// proves (also actions done before the mission was started), and a referral counts once the
// referred user has opened a vault.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ActionCodeColumn } from '../src/store';
import {
  REFERRAL_LEVELS,
  type CommunityAwardDto,
  type CommunityDto,
  type MissionDto,
  type UserDto,
} from '@unit/protocol';
import { appendVaultHistory, insertVault } from '../src/store';
import { postAs, signIn, testAccount, type TestAccount } from './accounts';
import { getJson, startTestApp, type RunningApp } from './support';

let server: RunningApp;
beforeAll(async () => {
  server = await startTestApp();
});
afterAll(async () => {
  await server.stop();
});

let vaults = 0;
/** A vault of `owner` with history records, as the guardian writes them. */
async function vaultWith(
  owner: TestAccount,
  actions: Array<{ action: ActionCodeColumn; vault_amount?: number }>,
  status: 'active' | 'repossessed' = 'active',
): Promise<string> {
  vaults++;
  const vaultId = vaults.toString(16).padStart(64, '0');
  await insertVault(server.store.db, {
    vault_id: vaultId,
    vault_tag: vaultId.slice(0, 8),
    vault_pubkey: vaults.toString(16).padStart(64, 'a'),
    name: 'Vault',
    creation_account: owner.address,
    runes_account: owner.taprootAddress,
    btc_locked: 1_000_000,
    unit_borrowed: 10_000,
    vault_txid: vaultId,
    vault_vout: 0,
    threshold_cents: 1_000_000,
    stamp: 1_700_000_000,
    status,
    created_at: 1_700_000_000 + vaults,
  });
  for (const [i, { action, vault_amount }] of actions.entries()) {
    const txid = `${vaultId.slice(0, 60)}${i.toString(16).padStart(4, '0')}`;
    await appendVaultHistory(server.store.db, {
      vault_id: vaultId,
      timestamp: 1_700_000_000 + i,
      action,
      btc_amt: 1_000,
      unit_amt: 0,
      vault_amount: vault_amount ?? 1_000_000,
      amount_borrowed: 10_000,
      oracle_price: 95_000,
      transaction_id: txid,
      utxo: `${txid}:0`,
      utxo_script: '',
      liquidation_hash: null,
      liquidation_threshold: null,
      confirmed: 1,
    });
  }
  return vaultId;
}

const missions = async (address: string) =>
  (await getJson(`${server.url}/api/missions?address=${address}`)).body as MissionDto[];
const done = (list: MissionDto[]) =>
  list.filter((m) => m.completed_tasks >= m.mission_tasks).map((m) => m.id);

describe('missions', () => {
  it('count every action the history holds, before any Start or Verify', async () => {
    const alice = testAccount(0x41);
    expect(done(await missions(alice.address))).toEqual([]);
    await vaultWith(alice, [
      { action: 'o' },
      { action: 'd' },
      { action: 'b' },
      { action: 'r' },
      { action: 'w' },
    ]);
    expect(done(await missions(alice.address))).toEqual(['1', '2', '3', '4', '5']);
  });

  it('verify records what is proven and answers what is not', async () => {
    const bob = testAccount(0x42);
    await vaultWith(bob, [{ action: 'o' }]);
    const cookie = await signIn(server.url, bob);
    const open = await postAs(cookie, `${server.url}/api/missions/1/verify`, {
      address: bob.address,
    });
    expect(open.body).toMatchObject({ id: '1', completed_tasks: 1 });
    const repay = await postAs(cookie, `${server.url}/api/missions/4/verify`, {
      address: bob.address,
    });
    expect(repay.body).toMatchObject({ id: '4', completed_tasks: 0 });
    const unknown = await postAs(cookie, `${server.url}/api/missions/99/verify`, {
      address: bob.address,
    });
    expect(unknown.status).toBe(404);
  });

  it("counts the claimant's repossession, not the liquidated vault's own record", async () => {
    const loser = testAccount(0x43);
    const claimant = testAccount(0x44);
    await vaultWith(
      loser,
      [{ action: 'o' }, { action: 'l' }, { action: 'x', vault_amount: 0 }],
      'repossessed',
    );
    await vaultWith(claimant, [{ action: 'o' }, { action: 'x', vault_amount: 2_000_000 }]);
    expect(done(await missions(loser.address))).toEqual(['1']);
    expect(done(await missions(claimant.address))).toEqual(['1', '6']);
  });
});

describe('referrals', () => {
  it('count referred users who opened a vault, and move the level', async () => {
    const referrer = testAccount(0x51);
    const friend = testAccount(0x52);
    const idler = testAccount(0x53);
    // The web app's lookup answers a list: empty before registering, not a 404.
    const listed = async () =>
      (await getJson(`${server.url}/api/users?address=${referrer.address}`)).body as UserDto[];
    expect(await listed()).toEqual([]);
    expect((await getJson(`${server.url}/api/users/${referrer.address}`)).status).toBe(404);
    expect((await getJson(`${server.url}/api/users?address=not%20an%20address`)).status).toBe(400);
    const me = await postAs(await signIn(server.url, referrer), `${server.url}/api/users`, {
      address: referrer.address,
      referral_code: null,
    });
    expect(me.status).toBe(201);
    const code = (me.body as UserDto).referral_code;
    // Anyone reads what a profile shows; the linked accounts and the code are the owner's
    // (this read answered them to anyone).
    const { address, referrals, level, level_title, postage_sats } = me.body as UserDto;
    expect(await listed()).toEqual([{ address, referrals, level, level_title, postage_sats }]);

    // Referring oneself gives nothing; the friend and the idler register with the code.
    await postAs(await signIn(server.url, referrer), `${server.url}/api/users`, {
      address: referrer.address,
      referral_code: code,
    });
    for (const account of [friend, idler]) {
      const res = await postAs(await signIn(server.url, account), `${server.url}/api/users`, {
        address: account.address,
        referral_code: code,
      });
      expect((res.body as UserDto).referred_by).toBe(referrer.address);
    }
    const user = async () =>
      (await getJson(`${server.url}/api/users/${referrer.address}`)).body as UserDto;
    expect(await user()).toMatchObject({ referrals: 0, level: null, postage_sats: null });

    await vaultWith(friend, [{ action: 'o' }]);
    expect(await user()).toMatchObject({
      referrals: 1,
      level: 'level_one',
      level_title: 'Nebula',
      postage_sats: REFERRAL_LEVELS.level_one.postage_sats,
    });
  });
});

describe('roles and badges', () => {
  const community = async (address: string) =>
    (await getJson(`${server.url}/api/users/${address}/community`)).body as CommunityDto;
  const earned = (awards: CommunityAwardDto[]) => awards.filter((a) => a.earned).map((a) => a.id);

  it('are earned by the rules in configuration, each shown with how to earn it', async () => {
    const whale = testAccount(0x61);
    const newcomer = testAccount(0x62);
    expect((await getJson(`${server.url}/api/users/${whale.address}/community`)).status).toBe(404);
    for (const account of [whale, newcomer]) {
      await postAs(await signIn(server.url, account), `${server.url}/api/users`, {
        address: account.address,
      });
    }
    await server.store.db
      .updateTable('vaults')
      .set({ btc_locked: 150_000_000 })
      .where(
        'vault_id',
        '=',
        await vaultWith(whale, [
          { action: 'o' },
          { action: 'd' },
          { action: 'b' },
          { action: 'r' },
          { action: 'w' },
          { action: 'x', vault_amount: 150_000_000 },
        ]),
      )
      .execute();
    await server.store.db
      .updateTable('users')
      .set({ telegram_id: '9001' })
      .where('address', '=', whale.address)
      .execute();

    const rich = await community(whale.address);
    expect(rich.roles.map((r) => r.title)).toEqual([
      'Genesis',
      'Prime',
      'Optimizer',
      'Exponent',
      'Anomaly',
    ]);
    expect(earned(rich.roles)).toEqual(['genesis', 'prime', 'optimizer', 'anomaly']);
    expect(rich.badges).toHaveLength(9);
    // Every vault here borrows the same 100 UNIT: none is larger, so all rank in the top 10.
    expect(earned(rich.badges)).toEqual(['boost', 'low-ordinal', 'top-ordinal', 'top-rune']);
    expect(rich.badges.find((b) => b.id === 'mog-dante')?.how).toBe(
      'Link your Twitter (X) account.',
    );

    const fresh = await community(newcomer.address);
    expect(earned(fresh.roles)).toEqual(['genesis']);
    expect(earned(fresh.badges)).toEqual([]);
  });
});
