// A guardian's store on both databases: the SQLite file always, and PostgreSQL when the test run has
// one (TEST_DATABASE_URL, as scripts/ensure-postgres.sh prints), each test in a fresh schema.
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { GuardianStore, type NodeStore } from './store';
import { chooseNodeStore, PgGuardianStore } from './store-pg';

const PG_URL = process.env.TEST_DATABASE_URL;

const dirs: string[] = [];
function freshDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'guardian-store-'));
  dirs.push(dir);
  return dir;
}
const freshPath = () => join(freshDir(), 'store.sqlite');
const schemas: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
afterAll(async () => {
  if (!PG_URL || schemas.length === 0) return;
  const client = new pg.Client({ connectionString: PG_URL, connectionTimeoutMillis: 5_000 });
  await client.connect();
  for (const s of schemas) await client.query(`DROP SCHEMA IF EXISTS ${s} CASCADE`);
  await client.end();
});

/** Opens a store at `where` (made by `fresh`), as a guardian process does at its start. */
interface Backend {
  fresh(): string;
  open(where: string): Promise<NodeStore>;
}
const sqlite: Backend = {
  fresh: freshPath,
  open: (path) => Promise.resolve(new GuardianStore(path)),
};
const postgres: Backend = {
  fresh: () => {
    const schema = `pgstore_${randomBytes(6).toString('hex')}`;
    schemas.push(schema);
    return schema;
  },
  open: async (schema) => {
    const store = new PgGuardianStore(PG_URL!, schema);
    await store.open();
    return store;
  },
};
const backends: [string, Backend][] = [['SQLite', sqlite]];
if (PG_URL) backends.push(['PostgreSQL', postgres]);

const S = 'ab'.repeat(32);

describe.each(backends)('a guardian store on %s and its nonce states', (_name, b) => {
  it('issues one nonce per attempt and spends it once', async () => {
    const store = await b.open(b.fresh());
    expect(await store.recordIssuedNonce(S, 1, '02aa', '02bb')).toBe(true);
    expect(await store.recordIssuedNonce(S, 1, '02cc', '02dd')).toBe(false);
    expect(await store.spendNonce(S, 1)).toBe(true);
    expect(await store.spendNonce(S, 1)).toBe(false);
    expect(await store.nonce(S, 1)).toMatchObject({ status: 'spent', hiding: '02aa', attempt: 1 });
    await store.close();
  });

  it('spends a preprocessed nonce once, filed under the session it signs, and stamps the session', async () => {
    const store = await b.open(b.fresh());
    const pre = 'pre:02aa';
    expect(await store.recordIssuedNonce(pre, 0, '02aa', '02bb')).toBe(true);
    await store.recordDecision(S, '00', true, null);
    expect(await store.spendPreprocessed(pre, S, 100_170)).toBe(true);
    expect(await store.spendPreprocessed(pre, S, 100_171)).toBe(false);
    expect(await store.nonce(pre, 0)).toBeUndefined();
    expect(await store.nonce(S, 100_170)).toMatchObject({ status: 'spent', hiding: '02aa' });
    expect(await store.lastSignedAt()).not.toBeNull();
    // Burned (abandoned), it can no longer be spent.
    await store.recordIssuedNonce('pre:02cc', 0, '02cc', '02dd');
    await store.abandonNonce('pre:02cc', 0);
    expect(await store.spendPreprocessed('pre:02cc', S, 100_204)).toBe(false);
    await store.close();
  });

  it('abandons every issued nonce on restart, and an abandoned one cannot be spent', async () => {
    const where = b.fresh();
    const before = await b.open(where);
    await before.recordIssuedNonce(S, 1, '02aa', '02bb');
    await before.recordIssuedNonce(S, 2, '02cc', '02dd');
    await before.spendNonce(S, 2);
    await before.close();
    const after = await b.open(where);
    expect(await after.abandonIssuedNonces()).toBe(1);
    expect((await after.nonce(S, 1))?.status).toBe('abandoned');
    expect((await after.nonce(S, 2))?.status).toBe('spent');
    expect(await after.spendNonce(S, 1)).toBe(false);
    await after.abandonNonce(S, 2); // a spent nonce stays spent
    expect((await after.allNonces()).map((r) => r.status)).toEqual(['abandoned', 'spent']);
    await after.close();
  });

  it('keeps an approval, decides a refusal again, and remembers message nonces once', async () => {
    const store = await b.open(b.fresh());
    expect((await store.recordDecision(S, '00', false, 'no')).approved).toBe(0);
    expect(await store.recordDecision(S, '00', false, 'still no')).toMatchObject({
      reason: 'still no',
    });
    // Another message on the session changes nothing, refused or not.
    expect(await store.recordDecision(S, '11', true, null)).toMatchObject({
      approved: 0,
      message: '00',
    });
    expect(await store.recordDecision(S, '00', true, null)).toMatchObject({
      approved: 1,
      reason: null,
    });
    expect(await store.recordDecision(S, '00', false, 'no')).toMatchObject({ approved: 1 });
    const now = Date.now();
    expect(await store.rememberMessage('k', 'n1', now)).toBe(true);
    expect(await store.rememberMessage('k', 'n1', now)).toBe(false);
    expect(await store.rememberMessage('other', 'n1', now)).toBe(true);
    await store.close();
  });

  it('keeps remembered messages, decisions and the signing time across a reopen', async () => {
    const where = b.fresh();
    const before = await b.open(where);
    const now = Date.now();
    expect(await before.rememberMessage('k', 'n1', now)).toBe(true);
    await before.recordDecision(S, '00', true, null);
    await before.recordIssuedNonce(S, 0, '02aa', '02bb');
    await before.spendNonce(S, 0);
    await before.close();
    const after = await b.open(where);
    expect(await after.rememberMessage('k', 'n1', now)).toBe(false);
    const session = await after.session(S);
    expect(session).toMatchObject({ approved: 1, message: '00' });
    expect(session!.signed_at).toBeGreaterThanOrEqual(session!.created_at);
    expect(typeof session!.created_at).toBe('number');
    await after.close();
  });
});

describe.skipIf(!PG_URL)('a guardian store on PostgreSQL, asked twice at once', () => {
  it('gives a nonce, spends it and accepts a message nonce for one of two processes only', async () => {
    const schema = postgres.fresh();
    // Two pools: two connections racing as two processes would (the rows are the arbiter).
    const [a, c] = [await postgres.open(schema), await postgres.open(schema)];
    for (let attempt = 0; attempt < 10; attempt++) {
      const issued = await Promise.all([
        a.recordIssuedNonce(S, attempt, '02aa', '02bb'),
        c.recordIssuedNonce(S, attempt, '02cc', '02dd'),
      ]);
      expect(issued.filter(Boolean)).toHaveLength(1);
      const spent = await Promise.all([a.spendNonce(S, attempt), c.spendNonce(S, attempt)]);
      expect(spent.filter(Boolean)).toHaveLength(1);
      const seen = await Promise.all([
        a.rememberMessage('k', `n${attempt}`, Date.now()),
        c.rememberMessage('k', `n${attempt}`, Date.now()),
      ]);
      expect(seen.filter(Boolean)).toHaveLength(1);
    }
    const decisions = await Promise.all([
      a.recordDecision('cd'.repeat(32), '00', true, null),
      c.recordDecision('cd'.repeat(32), '11', true, null),
    ]);
    // Whichever came first holds the session; the other message reads it back, unchanged.
    expect(decisions[0]).toEqual(decisions[1]);
    await Promise.all([a.close(), c.close()]);
  });
});

describe('choosing a guardian store', () => {
  it('is SQLite, readable by its guardian only, without a database-url file', async () => {
    const dir = freshDir();
    const { store, kind } = chooseNodeStore({ dir });
    expect(kind).toBe('sqlite');
    await store.close();
    expect(statSync(join(dir, 'store.sqlite')).mode & 0o777).toBe(0o600);
  });

  it('commits message and decision rows unsynced, and the nonce rows with a full sync', () => {
    const store = new GuardianStore(freshPath());
    store.rememberMessage('k', 'n1', Date.now());
    expect(store.db.pragma('synchronous', { simple: true })).toBe(2);
    store.close();
  });

  it('is PostgreSQL from a database-url file of its owner only, never quoting the URL', () => {
    const dir = freshDir();
    const file = join(dir, 'database-url');
    const url = 'postgres://guardian:s3cret@127.0.0.1:1/none';
    writeFileSync(file, `${url}\n`, { mode: 0o644 });
    chmodSync(file, 0o644);
    expect(() => chooseNodeStore({ dir })).toThrow(/chmod 600/);
    try {
      chooseNodeStore({ dir });
    } catch (e) {
      expect((e as Error).message).not.toContain('s3cret');
    }
    chmodSync(file, 0o600);
    const chosen = chooseNodeStore({ dir });
    expect(chosen.kind).toBe('postgres');
    void chosen.store.close();
    writeFileSync(file, 'mysql://x');
    expect(() => chooseNodeStore({ dir })).toThrow(/postgres:\/\//);
    expect(() => chooseNodeStore({ dir, databaseUrlFile: join(dir, 'missing') })).toThrow();
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
