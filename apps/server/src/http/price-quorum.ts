// GET /api/price-quorum/:commitment: anyone can audit a network-mode state record's price quorum
// (docs/protocol.md, "Auditing a record's price quorum"). The record's last 32 bytes are on the
// chain; the signed prices they hash are kept by the app when it co-signs (store/price-quorums.ts).
// The answer gives those prices and whether they verify: their hash is the commitment, each is
// signed by its guardian's identity key for its set's version (signedPriceProblem, the guardians'
// own check), and together they are a quorum of that set (priceQuorumProblem, the quote rule).
//
// The route is public: its param is checked before any read, it reads one row by primary key, and
// it is rate limited per client address. The sets are read from GUARDIAN_DIR and verified, then
// kept; a version they lack is looked for again at most every SETS_RETRY_MS.
import type { FastifyInstance } from 'fastify';
import type { Kysely } from 'kysely';
import type { GuardianSetBody } from '@unit/guardian-net';
import { signedPriceProblem } from '@unit/guardian-net/price';
import { medianCents, priceQuorumProblem } from '@unit/protocol';
import type { GuardianPriceDto } from '@unit/protocol/wire';
import type { GuardianNetworkConfig } from '../config';
import { readSetFiles, verifyChain } from '../network-client/set-chain';
import type { Database } from '../store/schema';
import { getPriceQuorum, priceQuorumHex } from '../store/price-quorums';
import { notFound } from './errors';
import { tableRoute } from './table-route';

/** Lookups per client address per minute: an auditor's script, not a flood. */
export const PRICE_QUORUM_READS_PER_MINUTE = 60;
const SETS_RETRY_MS = 5_000;

export type SetsSource = (version: number) => Promise<GuardianSetBody | undefined>;

/**
 * The set of a version from the chain in GUARDIAN_DIR, every link verified; none with
 * GUARDIAN_NETWORK=off. The chain read is kept, and read again (at most every SETS_RETRY_MS) only
 * when it lacks the version asked for: after a rotation, or when the first read failed.
 */
export function setsFromDir(network: Pick<GuardianNetworkConfig, 'mode' | 'dir'>): SetsSource {
  let kept: readonly GuardianSetBody[] = [];
  let readAt = -Infinity;
  return (version) => {
    if (network.mode === 'off') return Promise.resolve(undefined);
    const held = kept.find((s) => s.version === version);
    if (held || Date.now() - readAt < SETS_RETRY_MS) return Promise.resolve(held);
    readAt = Date.now();
    try {
      kept = verifyChain(readSetFiles(network.dir));
    } catch {
      // A missing or broken chain: the answer says no set of that version is held.
    }
    return Promise.resolve(kept.find((s) => s.version === version));
  };
}

/** Why `prices` are not the quorum kept under `commitment` for one of `sets`, or null. */
export function priceQuorumAuditProblem(
  commitment: string,
  prices: readonly GuardianPriceDto[],
  set: GuardianSetBody | undefined,
): string | null {
  if (priceQuorumHex(prices) !== commitment) return 'the prices do not hash to the commitment';
  if (!set) return `this server holds no guardian set of version ${prices[0]!.setVersion}`;
  for (let i = 1; i < prices.length; i++)
    if (prices[i]!.guardian <= prices[i - 1]!.guardian)
      return 'the prices are not in guardian id order';
  for (const p of prices) {
    const problem = signedPriceProblem(set, p);
    if (problem) return `guardian ${p.guardian}: ${problem}`;
  }
  // Fresh together, judged at the newest stamp, as a guardian judges a quote's evidence.
  const now = Math.max(...prices.map((p) => p.time));
  const median = medianCents(prices.map((p) => p.priceCents));
  return priceQuorumProblem(prices, median, { t: set.t, now });
}

export function registerPriceQuorumRoute(
  app: FastifyInstance,
  db: Kysely<Database>,
  sets: SetsSource,
): void {
  const limit = { rateLimit: { max: PRICE_QUORUM_READS_PER_MINUTE, timeWindow: '1 minute' } };
  tableRoute(
    app,
    'priceQuorum',
    async ({ params: { commitment } }) => {
      const stored = await getPriceQuorum(db, commitment);
      if (!stored) throw notFound('No price quorum with this commitment is known to this server');
      const { prices } = stored;
      const setVersion = prices[0]!.setVersion;
      const set = await sets(setVersion);
      const problem = priceQuorumAuditProblem(commitment, prices, set);
      return {
        commitment,
        set_version: setVersion,
        threshold: set?.t ?? null,
        prices,
        price_cents: medianCents(prices.map((p) => p.priceCents)),
        time: Math.min(...prices.map((p) => p.time)),
        verified: problem === null,
        problem,
        recorded_at: stored.createdAt,
      };
    },
    { config: limit },
  );
}
