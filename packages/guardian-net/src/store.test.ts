import { afterEach, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GuardianStore } from './store';

const dirs: string[] = [];
function freshPath(): string {
  const dir = mkdtempSync(join(tmpdir(), 'guardian-store-'));
  dirs.push(dir);
  return join(dir, 'store.sqlite');
}
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const S = 'ab'.repeat(32);

describe('a guardian store and its nonce states', () => {
  it('is readable by its guardian only', () => {
    const path = freshPath();
    new GuardianStore(path).close();
    expect(statSync(path).mode & 0o777).toBe(0o600);
  });

  it('issues one nonce per attempt and spends it once', () => {
    const store = new GuardianStore(freshPath());
    expect(store.recordIssuedNonce(S, 1, '02aa', '02bb')).toBe(true);
    expect(store.recordIssuedNonce(S, 1, '02cc', '02dd')).toBe(false);
    expect(store.spendNonce(S, 1)).toBe(true);
    expect(store.spendNonce(S, 1)).toBe(false);
    expect(store.nonce(S, 1)).toMatchObject({ status: 'spent', hiding: '02aa' });
    store.close();
  });

  it('abandons every issued nonce on restart, and an abandoned one cannot be spent', () => {
    const path = freshPath();
    const before = new GuardianStore(path);
    before.recordIssuedNonce(S, 1, '02aa', '02bb');
    before.recordIssuedNonce(S, 2, '02cc', '02dd');
    before.spendNonce(S, 2);
    before.close();
    const after = new GuardianStore(path);
    expect(after.abandonIssuedNonces()).toBe(1);
    expect(after.nonce(S, 1)?.status).toBe('abandoned');
    expect(after.nonce(S, 2)?.status).toBe('spent');
    expect(after.spendNonce(S, 1)).toBe(false);
    after.close();
  });

  it('keeps an approval, decides a refusal again, and remembers message nonces once', () => {
    const store = new GuardianStore(freshPath());
    expect(store.recordDecision(S, '00', false, 'no').approved).toBe(0);
    expect(store.recordDecision(S, '00', false, 'still no')).toMatchObject({ reason: 'still no' });
    // Another message on the session changes nothing, refused or not.
    expect(store.recordDecision(S, '11', true, null)).toMatchObject({ approved: 0, message: '00' });
    expect(store.recordDecision(S, '00', true, null)).toMatchObject({ approved: 1, reason: null });
    expect(store.recordDecision(S, '00', false, 'no')).toMatchObject({ approved: 1, reason: null });
    const now = Date.now();
    expect(store.rememberMessage('k', 'n1', now)).toBe(true);
    expect(store.rememberMessage('k', 'n1', now)).toBe(false);
    expect(store.rememberMessage('other', 'n1', now)).toBe(true);
    store.close();
  });

  it('keeps remembered messages and decisions across a reopen, and syncs nonce rows fully', () => {
    const path = freshPath();
    const before = new GuardianStore(path);
    const now = Date.now();
    expect(before.rememberMessage('k', 'n1', now)).toBe(true);
    before.recordDecision(S, '00', true, null);
    // The message and decision rows commit without their own fsync; the nonce rows still have one.
    expect(before.db.pragma('synchronous', { simple: true })).toBe(2);
    before.close();
    const after = new GuardianStore(path);
    expect(after.rememberMessage('k', 'n1', now)).toBe(false);
    expect(after.session(S)).toMatchObject({ approved: 1 });
    after.close();
  });

  it('keeps its last price and last signature time across a reopen', () => {
    const path = freshPath();
    const before = new GuardianStore(path);
    expect(before.fact('lastPrice')).toBeNull();
    expect(before.lastSignedAt()).toBeNull();
    before.putFact('lastPrice', '{"priceCents":1}');
    before.putFact('lastPrice', '{"priceCents":6500000}');
    before.recordDecision(S, '00', true, null);
    before.recordIssuedNonce(S, 1, '02aa', '02bb');
    const t0 = Date.now();
    before.spendNonce(S, 1);
    before.close();
    const after = new GuardianStore(path);
    expect(after.fact('lastPrice')).toBe('{"priceCents":6500000}');
    expect(after.lastSignedAt()).toBeGreaterThanOrEqual(t0);
    expect(after.lastSignedAt()).toBeLessThanOrEqual(Date.now());
    after.close();
  });
});
