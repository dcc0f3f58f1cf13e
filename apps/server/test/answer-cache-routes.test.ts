// The hot per-vault reads answered from the answer cache (src/http/answer-cache.ts): the same bytes
// as a fresh read, each checked against the route table's schema (getJson), and a change of the
// vault seen at once when the bus tells of it, whichever instance made it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertVault, setVaultStatus } from '../src/store';
import { getJson, startTestApp, type RunningApp } from './support';
import { smallVault } from './rows';

const key = '3c'.repeat(32);
const vaultId = '4d'.repeat(32);
let web: RunningApp;

beforeAll(async () => {
  web = await startTestApp();
  await insertVault(web.store.db, smallVault(vaultId, key, 'Cached'));
});
afterAll(() => web.stop());

const text = async (url: string) => (await fetch(`${web.url}${url}`)).text();

describe('the per-vault answers kept until their vault changes', () => {
  it('answers the same bytes from the cache as read afresh', async () => {
    for (const url of [`/api/vaults?pubkey=${key}`, `/api/vaults/${vaultId}/history?limit=20`]) {
      const first = await getJson(`${web.url}${url}`);
      expect(first.status).toBe(200);
      expect(await text(url)).toBe(JSON.stringify(first.body));
      expect((await getJson(`${web.url}${url}`)).body).toEqual(first.body);
    }
    expect((await getJson(`${web.url}/api/vaults/${'5e'.repeat(32)}/history`)).status).toBe(404);
  });

  it("shows the vault's change once the bus tells of it", async () => {
    const url = `/api/vaults?pubkey=${key}`;
    expect(((await getJson(`${web.url}${url}`)).body as { status: string }[])[0]!.status).toBe('active'); // prettier-ignore
    await setVaultStatus(web.store.db, vaultId, 'liquidated');
    await web.cluster.bus.publish({ type: 'vault', data: { vault_id: vaultId, kind: 'liquidation' } }); // prettier-ignore
    expect(((await getJson(`${web.url}${url}`)).body as { status: string }[])[0]!.status).toBe('liquidated'); // prettier-ignore
  });

  it('tells a wallet of its new vault once any vault changes', async () => {
    const other = '6f'.repeat(32);
    const url = `/api/vaults?pubkey=${other}`;
    expect((await getJson(`${web.url}${url}`)).body).toEqual([]);
    await insertVault(web.store.db, {
      vault_id: '7a'.repeat(32),
      vault_tag: 'tag2',
      vault_pubkey: other,
      name: 'New',
      creation_account: 'tb1qother',
      runes_account: 'tb1pother',
      btc_locked: 1_000,
      unit_borrowed: 0,
      vault_txid: '7a'.repeat(32),
      vault_vout: 0,
      threshold_cents: 0,
      stamp: 0,
      status: 'active',
      created_at: 1_700_000_001,
    });
    await web.cluster.bus.publish({ type: 'vault', data: { vault_id: '7a'.repeat(32), kind: 'action' } }); // prettier-ignore
    expect((await getJson(`${web.url}${url}`)).body).toHaveLength(1);
  });
});
