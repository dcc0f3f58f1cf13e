// GET /api/vaults/:vaultId/history.csv: the vault's whole history as a CSV download. The rows are
// read in keyset batches (timestamp, id) and written as they come, so a long history never sits in
// memory, and each batch is one bounded query.
import { Readable } from 'node:stream';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
import * as z from 'zod';
import {
  HISTORY_CSV_HEADER,
  csvLine,
  historyCsvCells,
  historyRowStepper,
  type PriceInput,
} from '@unit/protocol';
import type { Oracle } from '../oracle/oracle';
import type { Database } from '../store/schema';
import { getVault, toHistoryDto, type VaultHistoryRow } from '../store/vaults';
import { notFound, parseInput } from './errors';

export const HISTORY_CSV_BATCH = 500;

const params = z.object({ vaultId: z.string().min(1).max(100) });

/** One batch of the vault's history after the keyset cursor, oldest first. */
async function historyBatch(
  db: Kysely<Database>,
  vaultId: string,
  after: { timestamp: number; id: number } | null,
  limit: number,
): Promise<VaultHistoryRow[]> {
  let query = db.selectFrom('vault_history').selectAll().where('vault_id', '=', vaultId);
  if (after)
    query = query.where((eb) =>
      eb.or([
        eb('timestamp', '>', after.timestamp),
        eb.and([eb('timestamp', '=', after.timestamp), eb('id', '>', after.id)]),
      ]),
    );
  return query.orderBy('timestamp').orderBy('id').limit(limit).execute();
}

/** The CSV text of the vault's history, header first, as lines produced batch by batch. */
export async function* historyCsvLines(
  db: Kysely<Database>,
  vaultId: string,
  explorerTxUrl: (txid: string) => string,
  currentPriceUsd: PriceInput,
  batchSize = HISTORY_CSV_BATCH,
): AsyncGenerator<string> {
  yield csvLine(HISTORY_CSV_HEADER);
  const next = historyRowStepper();
  let cursor: { timestamp: number; id: number } | null = null;
  for (;;) {
    const rows = await historyBatch(db, vaultId, cursor, batchSize);
    let chunk = '';
    for (const row of rows) {
      // The record's own oracle price (whole USD); 0 means none was known then.
      const price = Number(row.oracle_price) > 0 ? Number(row.oracle_price) : currentPriceUsd;
      chunk += csvLine(
        historyCsvCells(next(toHistoryDto(row), price), explorerTxUrl(row.transaction_id)),
      );
    }
    if (chunk) yield chunk;
    if (rows.length < batchSize) return;
    const last = rows[rows.length - 1]!;
    cursor = { timestamp: Number(last.timestamp), id: Number(last.id) };
  }
}

function explorerRoot(explorerUrl: string, request: FastifyRequest): string {
  const root = explorerUrl.replace(/\/+$/, '');
  // A spreadsheet has no page to resolve a relative link against: make the devnet's absolute.
  return root.startsWith('/') ? `${request.protocol}://${request.host}${root}` : root;
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
): void {
  app.get('/api/vaults/:vaultId/history.csv', async (request, reply) => {
    const { vaultId } = parseInput(params, request.params);
    const vault = await getVault(db, vaultId);
    if (!vault) throw notFound('No such vault');
    const root = explorerRoot(explorerUrl, request);
    const lines = historyCsvLines(
      db,
      vault.vault_id,
      (txid) => `${root}/tx/${txid}`,
      oracle.price().priceCents / 100,
    );
    return reply
      .type('text/csv; charset=utf-8')
      .header('Content-Disposition', `attachment; filename="vault-${vault.vault_tag}-history.csv"`)
      .header('Cache-Control', 'no-store')
      .send(Readable.from(lines));
  });
}
