// With RUNES_API=ord the web app cannot read runes from ord itself (ord answers its own shapes and
// sends no CORS headers): it reads them here, in the shapes of this product's routes, through the
// server's Chain (EsploraChain with the ord adapter). /api/config names these routes as its
// runesUrl and ordinalsUrl. Each answer is kept a few seconds per address, since one read costs
// ord a request per output.
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { BTC_NETWORK } from '@scure/btc-signer/utils.js';
import { isValidAddress } from '@unit/bitcoin';
import { CHAIN_UNAVAILABLE_MESSAGE, ChainUnavailableError, type Chain } from '../chain/port';
import type { EventBus } from '../cluster/bus';
import { tableRoute } from './table-route';

export const INDEXER_PROXY_PREFIX = '/api/indexer';
const CACHE_MS = 5_000;
const MAX_CACHED = 10_000;
/** Reads of ord in flight at once; past it a new address is refused (503) rather than queued. */
export const MAX_INDEXER_READS = 8;

export class IndexerBusyError extends Error {}

/**
 * One pending or recent read per key; the oldest entries go first past MAX_CACHED. `clear` forgets
 * them all: a new block changes what every address holds.
 */
function cached<T>(
  read: (key: string) => Promise<T>,
): ((key: string) => Promise<T>) & { clear(): void } {
  const entries = new Map<string, { at: number; value: Promise<T> }>();
  let inFlight = 0;
  const get = (key: string) => {
    const now = Date.now();
    const hit = entries.get(key);
    if (hit && now - hit.at < CACHE_MS) return hit.value;
    if (inFlight >= MAX_INDEXER_READS) return Promise.reject(new IndexerBusyError());
    inFlight += 1;
    const value = read(key).finally(() => {
      inFlight -= 1;
    });
    value.catch(() => entries.delete(key));
    entries.delete(key);
    entries.set(key, { at: now, value });
    if (entries.size > MAX_CACHED) entries.delete(entries.keys().next().value!);
    return value;
  };
  return Object.assign(get, { clear: () => entries.clear() });
}

/**
 * `forget` drops every cached answer; call it on each block, or the page's refresh on that block
 * reads the answer from before it (the rehearsal's UNIT of a just-confirmed open showed 0 till the
 * next block).
 */
/**
 * The proxy, emptied on every block: the page refreshes on a block and must not read the answer
 * from before it. Returns the stop of that subscription.
 */
export function registerOrdIndexer(
  app: FastifyInstance,
  chain: Chain,
  network: BTC_NETWORK,
  bus: EventBus,
): () => void {
  const indexer = registerIndexerProxy(app, chain, network);
  return bus.subscribe((event) => {
    if (event.type === 'block') indexer.forget();
  });
}

export function registerIndexerProxy(
  app: FastifyInstance,
  chain: Chain,
  network: BTC_NETWORK,
): { forget(): void } {
  const unitOutputs = cached((address) => chain.unitOutputs(address));
  const paymentUtxos = cached((address) => chain.paymentUtxos(address));
  const unavailable = (reply: FastifyReply, error: unknown) =>
    error instanceof IndexerBusyError
      ? reply
          .code(503)
          .send({ error: 'The runes indexer is busy, try again', code: 'rate_limited' })
      : error instanceof ChainUnavailableError
        ? // The network is down or slow: said as every other route says it (the rehearsal showed
          // "The runes indexer did not answer", a 502 'internal', during an outage).
          reply.code(503).send({ error: CHAIN_UNAVAILABLE_MESSAGE, code: 'chain_unavailable' })
        : reply.code(502).send({ error: 'The runes indexer did not answer', code: 'internal' });

  tableRoute(app, 'indexerOutputs', async ({ params: { address }, request, reply }) => {
    if (!isValidAddress(address, network))
      return reply.code(400).send({ error: 'Invalid Bitcoin address', code: 'bad_request' });
    try {
      return await unitOutputs(address);
    } catch (error) {
      request.log.warn({ err: error }, 'runes indexer read failed');
      return unavailable(reply, error);
    }
  });
  tableRoute(app, 'indexerUtxos', async ({ params: { address }, request, reply }) => {
    if (!isValidAddress(address, network))
      return reply.code(400).send({ error: 'Invalid Bitcoin address', code: 'bad_request' });
    try {
      return await paymentUtxos(address);
    } catch (error) {
      request.log.warn({ err: error }, 'runes indexer read failed');
      return unavailable(reply, error);
    }
  });
  return {
    forget: () => {
      unitOutputs.clear();
      paymentUtxos.clear();
    },
  };
}
