import { act, renderHook, waitFor } from '@testing-library/react';
import type { Network } from '@unit/protocol';
import type { ReactNode } from 'react';
import { afterEach, describe, expect, it } from 'vitest';
import { createDevnetAdapter } from '../../src/wallet/adapters/devnet';
import { useWallet, WalletProvider } from '../../src/wallet';
import { REMEMBERED_WALLET_STORAGE } from '../../src/wallet/WalletProvider';
import type { WalletAdapter, WalletId } from '../../src/wallet/types';
import { addressesOf, testConfig, userKeys } from './fixtures';
import { installFakeLeather, installFakeUnisat, installFakeXverse } from './fake-providers';

afterEach(() => {
  delete (window as { XverseProviders?: unknown }).XverseProviders;
  delete window.unisat;
  delete window.LeatherProvider;
  localStorage.clear();
});

function renderWallet(network: Network, adapters?: Partial<Record<WalletId, WalletAdapter>>) {
  const config = testConfig(network);
  const wrapper = ({ children }: { children: ReactNode }) => (
    <WalletProvider config={config} adapters={adapters}>
      {children}
    </WalletProvider>
  );
  return renderHook(() => useWallet(), { wrapper });
}

describe('WalletProvider', () => {
  it('connects Xverse on signet and exposes the account and network', async () => {
    installFakeXverse();
    const { result } = renderWallet('signet');
    await act(() => result.current.connect('xverse'));
    expect(result.current.status).toBe('connected');
    expect(result.current.walletId).toBe('xverse');
    expect(result.current.network).toBe('signet');
    expect(result.current.account?.satsAddress).toBe(addressesOf(userKeys).payment.address);
    expect(localStorage.getItem(REMEMBERED_WALLET_STORAGE)).toBe('xverse');
  });

  it('keeps a mainnet wallet out on signet, explains it, and connects after switching', async () => {
    installFakeXverse({ network: 'Mainnet' });
    const { result } = renderWallet('signet');
    await act(() => result.current.connect('xverse'));
    expect(result.current.status).toBe('disconnected');
    expect(result.current.account).toBeNull();
    expect(result.current.error).toBe(
      'Your wallet is on Bitcoin mainnet, but this app runs on Signet. Switch the wallet to Signet to continue.',
    );
    expect(result.current.wrongNetwork?.canSwitch).toBe(true);
    await act(() => result.current.switchNetwork!());
    expect(result.current.status).toBe('connected');
    expect(result.current.account?.satsAddress).toMatch(/^tb1q/);
    expect(result.current.error).toBeNull();
  });

  it('never hands out a mainnet address on a test network, even from a wallet without a network query', async () => {
    installFakeLeather({ network: 'mainnet' });
    const { result } = renderWallet('devnet');
    await act(() => result.current.connect('leather'));
    expect(result.current.account).toBeNull();
    expect(result.current.error).toContain('Bitcoin mainnet');
    expect(result.current.wrongNetwork?.canSwitch).toBe(false);
    expect(result.current.switchNetwork).toBeUndefined();
  });

  it('refuses a Taproot payment address on a test network (SPEC §5 testnet address rule)', async () => {
    installFakeUnisat({ addressType: 'p2tr' });
    const { result } = renderWallet('signet');
    await act(() => result.current.connect('unisat'));
    expect(result.current.account).toBeNull();
    expect(result.current.error).toBe(
      'This app needs a native SegWit (tb1q…) payment address on test networks. Switch the wallet account to Native SegWit and connect again.',
    );
  });

  it('treats a cancelled connection as a reset, without an error', async () => {
    const fake = installFakeXverse();
    fake.rejectNext = true;
    const { result } = renderWallet('signet');
    await act(() => result.current.connect('xverse'));
    expect(result.current.status).toBe('disconnected');
    expect(result.current.error).toBeNull();
    expect(result.current.walletId).toBeNull();
  });

  it('says which extension is missing', async () => {
    const { result } = renderWallet('signet');
    await act(() => result.current.connect('unisat'));
    expect(result.current.error).toBe('Unisat is not installed in this browser.');
  });

  it('reconnects the remembered wallet silently after a reload', async () => {
    const fake = installFakeUnisat();
    const first = renderWallet('signet');
    await act(() => first.result.current.connect('unisat'));
    first.unmount();
    const second = renderWallet('signet');
    // Until the reconnect settles the page must not take the user for a new one.
    expect(second.result.current.restoring).toBe(true);
    await waitFor(() => expect(second.result.current.status).toBe('connected'));
    expect(second.result.current.restoring).toBe(false);
    expect(second.result.current.walletId).toBe('unisat');
    expect(fake.granted).toBe(true);
  });

  it('stops restoring when the remembered extension never appears', async () => {
    localStorage.setItem(REMEMBERED_WALLET_STORAGE, 'unisat');
    const { result } = renderWallet('signet');
    expect(result.current.restoring).toBe(true);
    await waitFor(() => expect(result.current.restoring).toBe(false), { timeout: 5_000 });
    expect(result.current.status).toBe('disconnected');
  });

  it('has nothing to restore for a first visit', () => {
    const { result } = renderWallet('signet');
    expect(result.current.restoring).toBe(false);
  });

  it('forgets the wallet on disconnect and when the wallet revokes the account', async () => {
    const fake = installFakeUnisat();
    const { result } = renderWallet('signet');
    await act(() => result.current.connect('unisat'));
    fake.granted = false;
    await act(async () => fake.emit('accountsChanged'));
    await waitFor(() => expect(result.current.status).toBe('disconnected'));
    expect(localStorage.getItem(REMEMBERED_WALLET_STORAGE)).toBeNull();
  });

  it('offers the devnet faucet only while the devnet wallet is connected', async () => {
    const paid: string[] = [];
    const devnet = createDevnetAdapter({
      network: 'devnet',
      requestFaucet: async (address) => void paid.push(address),
    });
    const { result } = renderWallet('devnet', { devnet });
    expect(result.current.fund).toBeUndefined();
    expect(result.current.available.map((w) => w.id)).toContain('devnet');
    await act(() => result.current.connect('devnet'));
    expect(result.current.fund).toBeTypeOf('function');
    await act(() => result.current.fund!());
    expect(paid).toEqual([
      result.current.account!.satsAddress,
      result.current.account!.satsAddress,
    ]);
  });

  it('refuses to sign before a wallet is connected', async () => {
    const { result } = renderWallet('signet');
    await expect(result.current.signPsbt('cHNidP8=', { signInputs: [0] })).rejects.toThrow(
      'Connect a wallet first.',
    );
  });
});
