import { afterEach, describe, expect, it, vi } from 'vitest';
import { createLeatherAdapter } from '../../src/wallet/adapters/leather';
import { EXTENSION_FACTS, onDemand } from '../../src/wallet/adapters/on-demand';
import { createUnisatAdapter } from '../../src/wallet/adapters/unisat';
import { createXverseAdapter } from '../../src/wallet/adapters/xverse';
import type { WalletAdapter } from '../../src/wallet/types';
import { installFakeLeather, installFakeUnisat, installFakeXverse } from './fake-providers';

afterEach(() => {
  delete (window as { XverseProviders?: unknown }).XverseProviders;
  delete window.unisat;
  delete window.LeatherProvider;
});

describe('extension wallets loaded on demand', () => {
  const real: Record<keyof typeof EXTENSION_FACTS, () => WalletAdapter> = {
    xverse: () => createXverseAdapter(),
    unisat: () => createUnisatAdapter(),
    leather: () => createLeatherAdapter(undefined, 'signet'),
  };

  it.each(Object.keys(real) as (keyof typeof real)[])(
    '%s: the facts read before loading are those of its adapter',
    (id) => {
      const adapter = real[id]();
      const facts = EXTENSION_FACTS[id];
      expect(facts.id).toBe(adapter.id);
      expect(facts.reconnectsSilently).toBe(adapter.reconnectsSilently);
      expect(facts.switches).toBe(typeof adapter.switchNetwork === 'function');
      expect(facts.isInstalled()).toBe(false);
      expect(adapter.isInstalled()).toBe(false);
      if (id === 'xverse') installFakeXverse();
      else if (id === 'unisat') installFakeUnisat();
      else installFakeLeather();
      expect(facts.isInstalled()).toBe(true);
      expect(adapter.isInstalled()).toBe(true);
    },
  );

  it('loads the adapter once, on first use, and answers as it does', async () => {
    installFakeUnisat();
    const load = vi.fn(async () => createUnisatAdapter());
    const adapter = onDemand(EXTENSION_FACTS.unisat, load);
    expect(adapter.isInstalled()).toBe(true);
    await adapter.disconnect();
    expect(load).not.toHaveBeenCalled();
    const account = await adapter.connect();
    expect(account).toEqual(await createUnisatAdapter().connect());
    expect(await adapter.network()).toBe(await createUnisatAdapter().network());
    expect(load).toHaveBeenCalledTimes(1);
  });

  it('tries a failed download again on the next use', async () => {
    installFakeUnisat();
    const load = vi
      .fn<() => Promise<WalletAdapter>>()
      .mockRejectedValueOnce(new Error('offline'))
      .mockImplementation(async () => createUnisatAdapter());
    const adapter = onDemand(EXTENSION_FACTS.unisat, load);
    await expect(adapter.accounts()).rejects.toThrow('offline');
    expect(await adapter.connect()).toEqual(await createUnisatAdapter().connect());
    expect(load).toHaveBeenCalledTimes(2);
  });

  it('subscribes once loaded, and not at all when unsubscribed first', async () => {
    installFakeUnisat();
    const subscribe = vi.fn(() => () => undefined);
    const load = async () => ({ ...createUnisatAdapter(), subscribe });
    const early = onDemand(EXTENSION_FACTS.unisat, load);
    early.subscribe({})();
    await early.network();
    expect(subscribe).not.toHaveBeenCalled();
    const late = onDemand(EXTENSION_FACTS.unisat, load);
    late.subscribe({});
    await late.network();
    expect(subscribe).toHaveBeenCalledTimes(1);
  });
});
