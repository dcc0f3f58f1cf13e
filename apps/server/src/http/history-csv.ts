// GET /api/vaults/:vaultId/history.csv: the vault's whole history as a CSV download. The rows are
// read in keyset batches (timestamp, id) and written as they come, so a long history never sits in
// memory, and each batch is one bounded query. The export is anonymous and can be long (200,000
// records are ~48 MB), so it is made cheap for the server: the next batch is read only when the
// client has taken the last (the response is piped, so the socket's drain paces the reads), the
// exports take turns with the rest of the server (one piece of one export per turn of the event
// loop, a batch's read or a slice of its lines, so a request waits for at most one piece), a client may run few exports at once and the server
// a bounded number in all (429 with Retry-After beyond), and a reader that takes the file too
// slowly, or for too long, is cut off.
import { Readable } from 'node:stream';
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { ServerResponse } from 'node:http';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
import {
  HISTORY_CSV_HEADER,
  csvLine,
  historyCsvCells,
  historyRowStepper,
  type HistoryStepRecord,
  type PriceInput,
} from '@unit/protocol';
import type { Oracle } from '../oracle/oracle';
import type { Database } from '../store/schema';
import { getVault, type VaultHistoryRow } from '../store/vaults';
import { notFound } from './errors';
import { tableRoute } from './table-route';
import { clientKey } from './client-key';
import { takeTurns } from './turns';

export const HISTORY_CSV_BATCH = 200;
/** Lines written in one turn of the event loop: a batch's read and its lines are a turn's work each. */
const CSV_SLICE = 50;

export interface CsvExportLimits {
  /** Exports one client address (IPv6: its /64) may run at once. */
  perClient?: number;
  /** Exports this instance runs at once (`npm run bench -w @unit/server` measures ten). */
  total?: number;
  /** What a refused client is told to wait (the Retry-After header), in seconds. */
  retryAfterSeconds?: number;
  /** A reader is cut off when it has taken less than `minBytesPerWindow` in this long. */
  windowMs?: number;
  minBytesPerWindow?: number;
  /** An export is cut off after this long, however fast its reader. */
  maxMs?: number;
}

export const CSV_EXPORT_DEFAULTS = {
  perClient: 2,
  total: 10,
  retryAfterSeconds: 10,
  windowMs: 30_000,
  // 1 MiB in 30 s (35 KB/s): 48 MB then takes under 25 minutes, past maxMs, so a slow link
  // gets a cut file rather than holding a slot for an hour.
  minBytesPerWindow: 1024 * 1024,
  maxMs: 15 * 60_000,
} as const satisfies Required<CsvExportLimits>;

/** Unsent text the export's own stream may hold before it waits for the socket's drain. */
const STREAM_BUFFER_BYTES = 64 * 1024;

export interface CsvExports {
  /** Exports running now. */
  active(): number;
  /** History records read by exports since the start (the backpressure test watches it). */
  rowsRead(): number;
  /** Exports refused for the limits since the start. */
  refused(): number;
}

/** The columns a CSV line is made of, and the keyset cursor's. */
const CSV_COLUMNS = [
  'id',
  'timestamp',
  'action',
  'btc_amt',
  'unit_amt',
  'vault_amount',
  'amount_borrowed',
  'oracle_price',
  'transaction_id',
  'confirmed',
] as const;

type CsvRow = Pick<VaultHistoryRow, (typeof CSV_COLUMNS)[number]>;

/**
 * One batch of the vault's history after the keyset cursor, oldest first: only the columns the
 * CSV shows (the outputs and scripts it does not show were two fifths of the batch's read).
 */
async function historyBatch(
  db: Kysely<Database>,
  vaultId: string,
  after: { timestamp: number; id: number } | null,
  limit: number,
): Promise<CsvRow[]> {
  let query = db.selectFrom('vault_history').select(CSV_COLUMNS).where('vault_id', '=', vaultId);
  // The leading `timestamp >=` lets the (vault_id, timestamp, id) index start at the cursor: with
  // the OR alone SQLite walks the vault's rows from the oldest on every batch, which made a long
  // export quadratic (50 ms a batch 200,000 rows in).
  if (after)
    query = query
      .where('timestamp', '>=', after.timestamp)
      .where((eb) => eb.or([eb('timestamp', '>', after.timestamp), eb('id', '>', after.id)]));
  return query.orderBy('timestamp').orderBy('id').limit(limit).execute();
}

const stepRecord = (row: CsvRow): HistoryStepRecord => ({
  timestamp: row.timestamp,
  action: row.action,
  btc_amt: row.btc_amt,
  unit_amt: row.unit_amt,
  vault_amount: row.vault_amount,
  amount_borrowed: row.amount_borrowed,
  transaction_id: row.transaction_id,
  confirmed: Boolean(row.confirmed),
});

/** The CSV text of the vault's history, header first, as lines produced a slice at a time. */
export async function* historyCsvLines(
  db: Kysely<Database>,
  vaultId: string,
  explorerTxUrl: (txid: string) => string,
  currentPriceUsd: PriceInput,
  batchSize = HISTORY_CSV_BATCH,
  onRows: (count: number) => void = () => undefined,
  turn: () => Promise<unknown> = nextTurn,
): AsyncGenerator<string> {
  yield csvLine(HISTORY_CSV_HEADER);
  const next = historyRowStepper();
  let cursor: { timestamp: number; id: number } | null = null;
  for (;;) {
    // SQLite answers synchronously and a fast reader never pushes back: without a turn before each
    // piece of work a long export would run to its end in one go, and exports started together
    // would read their first batches in one go, while every other request waited. A batch's read
    // takes a turn, and its lines are written a slice per turn after it.
    await turn();
    const rows = await historyBatch(db, vaultId, cursor, batchSize);
    onRows(rows.length);
    for (let from = 0; from < rows.length; from += CSV_SLICE) {
      await turn();
      let chunk = '';
      for (const row of rows.slice(from, from + CSV_SLICE)) {
        // The record's own oracle price (whole USD); 0 means none was known then.
        const price = Number(row.oracle_price) > 0 ? Number(row.oracle_price) : currentPriceUsd;
        chunk += csvLine(
          historyCsvCells(next(stepRecord(row), price), explorerTxUrl(row.transaction_id)),
        );
      }
      yield chunk;
    }
    if (rows.length < batchSize) return;
    const last = rows[rows.length - 1]!;
    cursor = { timestamp: Number(last.timestamp), id: Number(last.id) };
  }
}

/**
 * The lines as bytes: a chunk waiting in the stream's or the socket's buffer is then outside V8's
 * young heap, which every minor garbage collection copies. As text, ten exports' buffered chunks
 * made those collections hold the event loop for 40 ms and more.
 */
async function* asBytes(lines: AsyncIterable<string>): AsyncGenerator<Buffer> {
  for await (const text of lines) yield Buffer.from(text, 'utf8');
}

function explorerRoot(explorerUrl: string, request: FastifyRequest): string {
  const root = explorerUrl.replace(/\/+$/, '');
  // A spreadsheet has no page to resolve a relative link against: make the devnet's absolute.
  return root.startsWith('/') ? `${request.protocol}://${request.host}${root}` : root;
}

/** Turns for the exports: one batch of one export per turn of the event loop (turns.ts). */
export { takeTurns as exportTurns } from './turns';

/** Cuts off a reader that takes too little in a window, or holds the export too long. */
function watchReader(res: ServerResponse, limits: Required<CsvExportLimits>): () => void {
  const socket = res.socket;
  const started = Date.now();
  let mark = socket?.bytesWritten ?? 0;
  const timer = setInterval(() => {
    const written = socket?.bytesWritten ?? 0;
    if (written - mark < limits.minBytesPerWindow || Date.now() - started >= limits.maxMs)
      res.destroy();
    mark = written;
  }, limits.windowMs);
  timer.unref();
  return () => clearInterval(timer);
}

/**
 * `explorerUrl` is the explorer's root (absolute on real networks, '/explorer' on the devnet); the
 * oracle's current price stands in for records whose own price is missing (SPEC §8).
 */
export function registerHistoryCsvRoute(
  app: FastifyInstance,
  db: Kysely<Database>,
  explorerUrl: string,
  oracle: Pick<Oracle, 'price'>,
  options: CsvExportLimits = {},
): CsvExports {
  const limits = { ...CSV_EXPORT_DEFAULTS, ...options };
  const perClient = new Map<string, number>();
  let active = 0;
  let rowsRead = 0;
  let refused = 0;
  const turn = takeTurns();

  const release = (client: string) => {
    active--;
    const left = (perClient.get(client) ?? 1) - 1;
    if (left > 0) perClient.set(client, left);
    else perClient.delete(client);
  };

  tableRoute(app, 'historyCsv', async ({ params: { vaultId }, request, reply }) => {
    const client = clientKey(request.ip);
    // Cheap refusals first, before any query: the slot is taken here, synchronously, so requests
    // arriving together cannot all pass the check.
    if (active >= limits.total || (perClient.get(client) ?? 0) >= limits.perClient) {
      refused++;
      return reply.code(429).header('Retry-After', String(limits.retryAfterSeconds)).send({
        error: 'Too many history exports are running; try again in a few seconds',
        code: 'rate_limited',
      });
    }
    active++;
    perClient.set(client, (perClient.get(client) ?? 0) + 1);
    let released = false;
    let stopWatching = () => undefined as void;
    const releaseOnce = () => {
      stopWatching();
      if (!released) release(client);
      released = true;
    };
    // The slot is the response's until it is done, however it ends (sent, refused, cut off).
    reply.raw.once('close', releaseOnce);
    try {
      const vault = await getVault(db, vaultId);
      if (!vault) throw notFound('No such vault');
      const root = explorerRoot(explorerUrl, request);
      const lines = historyCsvLines(
        db,
        vault.vault_id,
        (txid) => `${root}/tx/${txid}`,
        oracle.price().priceCents / 100,
        HISTORY_CSV_BATCH,
        (count) => (rowsRead += count),
        turn,
      );
      stopWatching = watchReader(reply.raw, limits);
      return reply
        .type('text/csv; charset=utf-8')
        .header(
          'Content-Disposition',
          `attachment; filename="vault-${vault.vault_tag}-history.csv"`,
        )
        .header('Cache-Control', 'no-store')
        .send(
          Readable.from(asBytes(lines), {
            objectMode: false,
            highWaterMark: STREAM_BUFFER_BYTES,
          }),
        );
    } catch (err) {
      releaseOnce();
      throw err;
    }
  });

  return { active: () => active, rowsRead: () => rowsRead, refused: () => refused };
}
