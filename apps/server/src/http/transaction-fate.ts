// GET /api/transactions/:txid: what became of a transaction the guardians co-signed, read from the
// request the app keeps (guardian_requests, indexed by txid). The web app's pending list asks it for
// an entry no confirmed record completed: a transaction that will never be mined (a repossession
// its liquidated vault's owner beat by the exit, one whose input a mined transaction spent, one the
// chain refused) has its request failed with the reason, and the list drops it and says why.
//
// The route is public: its param is checked before any read, it reads at most one request and one
// history record by indexed columns, and it is rate limited per client address. The reason it
// gives is the one recorded after the transaction was sent, never an error of the co-signing
// itself (those requests have no txid).
import type { FastifyInstance } from 'fastify';
import type { Kysely } from 'kysely';
import type { TransactionFailureCause } from '@unit/protocol';
import { EXIT_WON_REASON, INPUT_SPENT_REASON } from '../store';
import type { Database } from '../store/schema';
import { notFound } from './errors';
import { tableRoute } from './table-route';

/** Lookups per client address per minute: a page asks once per pending entry on each change. */
export const TRANSACTION_FATE_READS_PER_MINUTE = 120;
/** The longest reason given: a chain's refusal is one line, anything longer is cut. */
const REASON_MAX = 200;

const CAUSES = new Map<string, TransactionFailureCause>([
  [EXIT_WON_REASON, 'exit'],
  [INPUT_SPENT_REASON, 'input_spent'],
]);

export function registerTransactionFateRoute(app: FastifyInstance, db: Kysely<Database>): void {
  const limit = { rateLimit: { max: TRANSACTION_FATE_READS_PER_MINUTE, timeWindow: '1 minute' } };
  tableRoute(
    app,
    'transactionFate',
    async ({ params: { txid } }) => {
      // A retried request may share a txid with its failed attempt: the newest row tells.
      const request = await db
        .selectFrom('guardian_requests')
        .select(['state', 'error'])
        .where('txid', '=', txid)
        .orderBy('updated_at', 'desc')
        .limit(1)
        .executeTakeFirst();
      if (!request) throw notFound('No transaction with this id was co-signed by this server');
      if (request.state === 'failed') {
        const error = request.error ?? '';
        return {
          txid,
          status: 'failed' as const,
          cause: CAUSES.get(error) ?? ('other' as const),
          reason: error ? error.slice(0, REASON_MAX) : null,
        };
      }
      const confirmed =
        request.state === 'broadcast' &&
        (await db
          .selectFrom('vault_history')
          .select('id')
          .where('transaction_id', '=', txid)
          .where('confirmed', '=', 1)
          .limit(1)
          .executeTakeFirst()) !== undefined;
      return { txid, status: confirmed ? 'confirmed' : 'pending', cause: null, reason: null };
    },
    { config: limit },
  );
}
