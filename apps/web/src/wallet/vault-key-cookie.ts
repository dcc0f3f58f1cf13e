// The public key of the connected wallet's vault, kept in a cookie so that the server can put that
// vault's first data in the page of the next visit (apps/server/src/http/first-page.ts) before any
// script knows the wallet. A public key only: it is what GET /api/vaults?pubkey= is asked anyway.
export const VAULT_KEY_COOKIE = 'unit_vault_key';
const YEAR_SECONDS = 365 * 24 * 60 * 60;

const current = (): string | null =>
  document.cookie.match(new RegExp(`(?:^|;\\s*)${VAULT_KEY_COOKIE}=([^;]*)`))?.[1] ?? null;

/** The vault key remembered in this browser, as the server reads it; null without one. */
export function rememberedVaultKey(): string | null {
  if (typeof document === 'undefined') return null;
  const key = current();
  return key !== null && /^[0-9a-f]{64}$/.test(key) ? key : null;
}

/** Remembers the vault key (null: forgets it); a key the server would not read is not kept. */
export function rememberVaultKey(pubkey: string | null): void {
  if (typeof document === 'undefined') return;
  const keep = pubkey !== null && /^[0-9a-f]{64}$/.test(pubkey) ? pubkey : null;
  if (current() === keep) return;
  const secure = window.location.protocol === 'https:' ? '; Secure' : '';
  document.cookie = keep
    ? `${VAULT_KEY_COOKIE}=${keep}; Path=/; Max-Age=${YEAR_SECONDS}; SameSite=Lax${secure}`
    : `${VAULT_KEY_COOKIE}=; Path=/; Max-Age=0; SameSite=Lax${secure}`;
}
