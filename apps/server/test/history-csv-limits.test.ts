// GET /api/vaults/:id/history.csv under load, against the real app and database: a client may run
// one export at once here and the server two (429 with Retry-After beyond, before any query), a
// slot is free again when its export ends however it ends, a reader that stops reading stops the
// reads (the response waits for the socket's drain), and a reader too slow is cut off.
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Kysely } from 'kysely';
import { insertVault } from '../src/store/vaults';
import { exportTurns } from '../src/http/history-csv';
import type { Database } from '../src/store/schema';
import { startTestApp, type RunningApp } from './support';

const RECORDS = 100_000;
const vaultId = 'd7'.repeat(32);
const csvPath = `/api/vaults/${vaultId}/history.csv`;

async function seed(db: Kysely<Database>): Promise<void> {
  await insertVault(db, {
    vault_id: vaultId,
    vault_tag: 'd7d7d7d7',
    vault_pubkey: 'ab'.repeat(32),
    name: 'Load',
    creation_account: 'tb1qowner000000000000000000000000000000',
    runes_account: 'tb1powner000000000000000000000000000000',
    btc_locked: 100_000_000,
    unit_borrowed: 1_000_000,
    vault_txid: 'aa'.repeat(32),
    vault_vout: 0,
    threshold_cents: 1,
    stamp: 1_760_000_000,
    status: 'active',
    created_at: 1_760_000_000,
  });
  for (let from = 0; from < RECORDS; from += 1_000) {
    await db
      .insertInto('vault_history')
      .values(
        Array.from({ length: 1_000 }, (_, k) => {
          const i = from + k;
          const txid = i.toString(16).padStart(64, '0');
          return {
            vault_id: vaultId,
            timestamp: 1_760_000_000 + i,
            action: i === 0 ? 'o' : 'd',
            btc_amt: 1_000,
            unit_amt: 0,
            vault_amount: 100_000_000 + i,
            amount_borrowed: 1_000_000,
            oracle_price: 95_000,
            transaction_id: txid,
            utxo: `${txid}:0`,
            utxo_script: '',
            liquidation_hash: null,
            liquidation_threshold: null,
            confirmed: 1,
          };
        }),
      )
      .execute();
  }
}

interface Download {
  status: number;
  headers: http.IncomingHttpHeaders;
  /** Bytes and lines read so far, and the first 64 KiB as text. */
  bytes(): number;
  head(): string;
  lines(): number;
  /** Starts (or resumes) reading; resolves at the end of the body or when the server cuts it. */
  read(): Promise<'end' | 'cut'>;
  close(): void;
}

/** Every download a test opened, closed after it so that a failed test leaves no slot taken. */
const opened: Download[] = [];

/** A GET from `localAddress` that reads nothing until read() is called. */
function request(url: string, localAddress: string): Promise<Download> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { localAddress, agent: false }, (res) => {
      res.pause();
      let bytes = 0;
      let lines = 0;
      let head = '';
      res.on('data', (chunk: Buffer) => {
        if (head.length < 65_536) head += chunk.toString('utf8');
        bytes += chunk.length;
        for (let i = chunk.indexOf(10); i >= 0; i = chunk.indexOf(10, i + 1)) lines++;
      });
      const finished = new Promise<'end' | 'cut'>((done) => {
        res.once('end', () => done('end'));
        res.once('aborted', () => done('cut'));
        res.once('error', () => done('cut'));
        res.once('close', () => done(res.complete ? 'end' : 'cut'));
      });
      const download: Download = {
        status: res.statusCode ?? 0,
        headers: res.headers,
        bytes: () => bytes,
        head: () => head,
        lines: () => lines,
        read: () => {
          res.resume();
          return finished;
        },
        close: () => req.destroy(),
      };
      opened.push(download);
      resolve(download);
    });
    req.on('error', reject);
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The value once it has not changed for `quietMs` (quiet), or what it is after `maxMs`. */
async function steady(
  value: () => number,
  quietMs: number,
  maxMs: number,
): Promise<{ value: number; quiet: boolean }> {
  const started = Date.now();
  let last = value();
  let since = Date.now();
  while (Date.now() - since < quietMs && Date.now() - started < maxMs) {
    await sleep(250);
    const now = value();
    if (now !== last) [last, since] = [now, Date.now()];
  }
  return { value: last, quiet: Date.now() - since >= quietMs };
}

async function eventually<T>(attempt: () => Promise<T>, ok: (value: T) => boolean): Promise<T> {
  let value = await attempt();
  for (let i = 0; !ok(value) && i < 50; i++) {
    await sleep(50);
    value = await attempt();
  }
  return value;
}

const pgUrl = process.env.TEST_DATABASE_URL;
const databases: {
  name: string;
  env: Record<string, string>;
  schema: { databaseSchema?: string };
}[] = [
  { name: 'SQLite', env: {}, schema: {} },
  ...(pgUrl
    ? [
        {
          name: 'PostgreSQL',
          env: { DATABASE_URL: pgUrl },
          schema: { databaseSchema: `exports_${randomBytes(6).toString('hex')}` },
        },
      ]
    : []),
];

describe.each(databases)('CSV export limits on $name', ({ env, schema }) => {
  let unit: RunningApp;
  beforeAll(async () => {
    unit = await startTestApp(env, { ...schema, exports: { perClient: 1, total: 2 } });
    await seed(unit.store.db);
  }, 60_000);
  afterEach(async () => {
    for (const download of opened.splice(0)) download.close();
    await eventually(
      async () => unit.exports.active(),
      (n) => n === 0,
    );
  });
  afterAll(() => unit?.stop());

  it('refuses a second export per client and a third in all, with Retry-After, until one ends', async () => {
    const first = await request(unit.url + csvPath, '127.0.0.2');
    expect(first.status).toBe(200);
    const again = await request(unit.url + csvPath, '127.0.0.2');
    expect(again.status).toBe(429);
    expect(again.headers['retry-after']).toBe('10');
    const body = JSON.parse(await readAll(again)) as { code: string };
    expect(body.code).toBe('rate_limited');

    const second = await request(unit.url + csvPath, '127.0.0.3');
    expect(second.status).toBe(200);
    const third = await request(unit.url + csvPath, '127.0.0.4');
    expect(third.status).toBe(429);
    expect(third.headers['retry-after']).toBe('10');
    third.close();
    expect(unit.exports.active()).toBe(2);

    // Readers that have stopped reading stop the reads: once the sockets' buffers are full the
    // server waits for their drain, and the two exports have read far less than one whole history.
    // The buffers fill in steps (the kernel grows a socket's buffer as it goes) and a loaded machine
    // may pause a step for half a second, so the reads count as stopped after 2 s without one.
    const reads = await steady(() => unit.exports.rowsRead(), 2_000, 30_000);
    expect(reads.quiet).toBe(true);
    expect(reads.value).toBeLessThan(RECORDS);

    // Read to its end, the first export is whole, and its slot is free again.
    expect(await first.read()).toBe('end');
    expect(first.lines()).toBe(RECORDS + 1);
    const later = await eventually(
      () => request(unit.url + csvPath, '127.0.0.4'),
      (d) => d.status === 200 || (d.close(), false),
    );
    expect(later.status).toBe(200);
    // A client that hangs up frees its slot as well.
    second.close();
    later.close();
    await eventually(
      async () => unit.exports.active(),
      (n) => n === 0,
    );
    expect(unit.exports.active()).toBe(0);
  }, 60_000);

  it('frees the slot of a refused or missing vault at once', async () => {
    for (let i = 0; i < 3; i++) {
      const res = await request(`${unit.url}/api/vaults/nope/history.csv`, '127.0.0.5');
      expect(res.status).toBe(404);
      await readAll(res);
    }
  });
});

describe('CSV export of a reader too slow', () => {
  let unit: RunningApp;
  beforeAll(async () => {
    unit = await startTestApp(
      {},
      { exports: { windowMs: 300, minBytesPerWindow: 64 * 1024 * 1024 } },
    );
    await seed(unit.store.db);
  }, 60_000);
  afterAll(() => unit?.stop());

  it('is cut off and its slot freed', async () => {
    const slow = await request(unit.url + csvPath, '127.0.0.6');
    expect(slow.status).toBe(200);
    await sleep(1_000);
    expect(await slow.read()).toBe('cut');
    expect(slow.lines()).toBeLessThan(RECORDS + 1);
    await eventually(
      async () => unit.exports.active(),
      (n) => n === 0,
    );
    expect(unit.exports.active()).toBe(0);
  }, 30_000);
});

describe('exportTurns', () => {
  it('lets one waiter go per turn of the event loop, in order, with other work between', async () => {
    const turn = exportTurns();
    const order: string[] = [];
    const waits = ['a', 'b', 'c'].map((name) => turn().then(() => order.push(name)));
    // Queued behind the first turn: it runs before the second export may.
    setImmediate(() => order.push('other'));
    await Promise.all(waits);
    expect(order).toEqual(['a', 'other', 'b', 'c']);
  });
});

/** The whole body of a small answer (an error). */
async function readAll(download: Download): Promise<string> {
  await download.read();
  return download.head();
}
