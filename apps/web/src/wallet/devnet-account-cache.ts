// The devnet wallet's public account (its addresses and public keys), kept beside its key so that
// a reload reconnects without downloading and running the curve and address code: deriving it
// again took about a second on a slow phone, before the dashboard could ask for its vault. Kept for
// the one key it was derived from, named by a SHA-256 of that key (WebCrypto: nothing to download);
// a replaced key, or a browser without WebCrypto, derives the account anew.
import { DEVNET_KEY_STORAGE } from './devnet-storage';
import type { WalletAccount } from './types';

export const DEVNET_ACCOUNT_STORAGE = 'unit.wallet.devnet-account';
const FIELDS = [
  'satsAddress',
  'satsPublicKey',
  'vaultPubkey',
  'runesAddress',
  'runesPublicKey',
] as const;

async function fingerprint(secretHex: string): Promise<string | null> {
  const subtle = globalThis.crypto?.subtle;
  if (!subtle) return null;
  try {
    const tagged = new TextEncoder().encode(`unit/devnet/account:${secretHex}`);
    const digest = new Uint8Array(await subtle.digest('SHA-256', tagged));
    return Array.from(digest, (b) => b.toString(16).padStart(2, '0')).join('');
  } catch {
    return null;
  }
}

const storedKey = (storage: Storage): string | null => {
  const key = storage.getItem(DEVNET_KEY_STORAGE);
  return key && /^[0-9a-f]{64}$/.test(key) ? key : null;
};

/** The account kept for the stored key, or null when there is none for it. */
export async function keptDevnetAccount(storage: Storage): Promise<WalletAccount | null> {
  const key = storedKey(storage);
  const raw = storage.getItem(DEVNET_ACCOUNT_STORAGE);
  if (!key || !raw) return null;
  try {
    const kept = JSON.parse(raw) as { for?: unknown; account?: Record<string, unknown> };
    const account = kept.account;
    if (!account || FIELDS.some((f) => typeof account[f] !== 'string')) return null;
    const mine = await fingerprint(key);
    if (mine === null || kept.for !== mine) return null;
    return Object.fromEntries(FIELDS.map((f) => [f, account[f]])) as unknown as WalletAccount;
  } catch {
    return null;
  }
}

/** Keeps the account derived from the stored key (nothing when WebCrypto is missing). */
export async function keepDevnetAccount(storage: Storage, account: WalletAccount): Promise<void> {
  const key = storedKey(storage);
  const mine = key && (await fingerprint(key));
  if (!mine) return;
  const kept = Object.fromEntries(FIELDS.map((f) => [f, account[f]]));
  storage.setItem(DEVNET_ACCOUNT_STORAGE, JSON.stringify({ for: mine, account: kept }));
}
