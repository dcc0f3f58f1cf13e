// The devnet wallet's kept account (src/wallet/devnet-account-cache.ts): a reload reconnects to the
// account its key derives, without deriving it; a replaced key is never answered with the old one.
import { beforeEach, describe, expect, it } from 'vitest';
import { createDevnetAdapter } from '../../src/wallet/adapters/devnet';
import { DEVNET_ACCOUNT_STORAGE, keptDevnetAccount } from '../../src/wallet/devnet-account-cache';
import { devnetAccountOf } from '../../src/wallet/adapters/devnet';
import { DEVNET_KEY_STORAGE } from '../../src/wallet/devnet-storage';

beforeEach(() => localStorage.clear());

const adapter = () =>
  createDevnetAdapter({ network: 'devnet', storage: localStorage, requestFaucet: async () => {} });

describe("the devnet wallet's kept account", () => {
  it('is the account its key derives, and a reconnect answers it', async () => {
    const first = await adapter().connect();
    expect(await keptDevnetAccount(localStorage)).toEqual(first);
    expect(await adapter().connect({ silent: true })).toEqual(first);
  });

  it('is not used for another key', async () => {
    await adapter().connect();
    const other = '11'.repeat(32);
    localStorage.setItem(DEVNET_KEY_STORAGE, other);
    expect(await keptDevnetAccount(localStorage)).toBeNull();
    const account = await adapter().connect({ silent: true });
    expect(account).toEqual(await devnetAccountOf(Uint8Array.from({ length: 32 }, () => 0x11)));
  });

  it('is not used when it was tampered with', async () => {
    const first = await adapter().connect();
    const kept = JSON.parse(localStorage.getItem(DEVNET_ACCOUNT_STORAGE)!);
    localStorage.setItem(
      DEVNET_ACCOUNT_STORAGE,
      JSON.stringify({ ...kept, account: { ...kept.account, vaultPubkey: 42 } }),
    );
    expect(await keptDevnetAccount(localStorage)).toBeNull();
    expect(await adapter().connect({ silent: true })).toEqual(first);
  });
});
