// The wallet is this app's edge to a browser extension; tests stand a controllable fake wallet in
// its place with the same public contract as src/wallet/index.ts (and its screens, ./controls.ts).
import { useSyncExternalStore, type ReactNode } from 'react';
import type { WalletAccount, WalletId } from '../src/wallet';
// Drawing only: the real marks stand in the fake's picker and menu.
import { WalletMark } from '../src/wallet/WalletMark';

interface FakeState {
  status: 'disconnected' | 'connecting' | 'connected';
  walletId: WalletId | null;
  account: WalletAccount | null;
}

let state: FakeState = { status: 'disconnected', walletId: null, account: null };
const listeners = new Set<() => void>();
const set = (next: FakeState) => {
  state = next;
  listeners.forEach((l) => l());
};

export const FAKE_ACCOUNT: WalletAccount = {
  satsAddress: 'tb1qfakeaddress000000000000000000000000000',
  satsPublicKey: '02'.padEnd(66, 'a'),
  vaultPubkey: 'b'.repeat(64),
  runesAddress: 'tb1pfakerunes0000000000000000000000000000000000000000000',
  runesPublicKey: 'c'.repeat(64),
};

export const fakeWallet = {
  connectAs(account: WalletAccount = FAKE_ACCOUNT) {
    set({ status: 'connected', walletId: 'devnet', account });
  },
  reset() {
    set({ status: 'disconnected', walletId: null, account: null });
  },
};

function useWallet() {
  const s = useSyncExternalStore(
    (l) => {
      listeners.add(l);
      return () => listeners.delete(l);
    },
    () => state,
  );
  return {
    ...s,
    restoring: false,
    error: null,
    available: [],
    network: 'devnet' as const,
    wrongNetwork: null,
    connect: async (_id: WalletId) => fakeWallet.connectAs(),
    disconnect: () => fakeWallet.reset(),
    signPsbt: async (psbt: string) => psbt,
    signMessage: async (m: string) => m,
  };
}

function WalletProvider({ children }: { children: ReactNode }) {
  return <>{children}</>;
}

function WalletPicker({ open }: { open: boolean; onOpenChange: (open: boolean) => void }) {
  return open ? (
    <div role="dialog" aria-label="Wallet picker">
      <button type="button" onClick={() => fakeWallet.connectAs()}>
        Devnet wallet
      </button>
    </div>
  ) : null;
}

function WalletChoices() {
  return (
    <ul aria-label="Wallets">
      <li>
        <button type="button" onClick={() => fakeWallet.connectAs()}>
          Connect Devnet wallet
        </button>
      </li>
    </ul>
  );
}

function DevnetControls() {
  return null;
}

export const walletModule = {
  useWallet,
  WalletProvider,
  WalletPicker,
  WalletChoices,
  DevnetControls,
  WalletMark,
};
