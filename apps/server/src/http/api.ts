// The /api routes of prices, the oracle, vaults, liquidations, operation quotes, Telegram and
// health. Inputs are validated with zod at the edge; handlers get typed values.
import type { FastifyInstance } from 'fastify';
import type { Kysely } from 'kysely';
import { bytesToHex } from '@noble/hashes/utils.js';
import {
  DEFAULT_CONFIG_CONSTANTS,
  vaultTermAt,
  defaultPaymentInputs,
  estimateVsize,
  operationCostSats,
  VAULT_MAX_ORACLE_COUNT,
  type ConfigDto,
} from '@unit/protocol';
import type { ServerConfig } from '../config';
import { INDEXER_PROXY_PREFIX } from './indexer-proxy';
import { StalePriceError, type Oracle } from '../oracle/oracle';
import type { TelegramNotifier } from '../notify/telegram';
import type { Database } from '../store/schema';
import type { GuardianKeys } from '../store/keys';
import { treasuryOutputOf } from '../cosign/treasury-output';
import { NETWORK, TEST_NETWORK } from '@scure/btc-signer';
import {
  getVault,
  getVaultByPubkey,
  toHistoryDto,
  toVaultDto,
  vaultHistoryPage,
  vaultPointsBetween,
  type HistoryCursor,
} from '../store/vaults';
import type { VaultKeyRow } from '../cosign/vault-guard-key';
import { periodRange, TIME_PERIODS } from '../oracle/intervals';
import type { NetworkExclusionDto } from '@unit/protocol/wire';
import { tableRoute } from './table-route';
import { sendCachedAnswer, type AnswerCache } from './answer-cache';
import { registerOpenApiRoute } from './openapi-route';
import { listLiquidations } from '../store/liquidations';
import { DomainError } from '../errors';
import { notFound } from './errors';
import { WRITE_LIMIT } from './security';
import { requireSession } from '../auth/sessions';
import { registerNetworkRoutes, type NetworkRouteOptions } from './network-routes';
import { registerPriceQuorumRoute, setsFromDir } from './price-quorum';
import { registerTransactionFateRoute } from './transaction-fate';

export interface ApiDeps {
  config: ServerConfig;
  db: Kysely<Database>;
  oracle: Oracle;
  keys: GuardianKeys;
  notifier: TelegramNotifier;
  /** The UNIT rune id once the chain knows it (the devnet etches it at genesis). */
  unitRuneId(): string;
  /** A vault's own guardian key (an older set's until it moves: rotation); default `keys.guardPubkey`. */
  vaultGuardPubkey?(row: VaultKeyRow): Promise<string>;
  /** Network mode: the guardians last left out of a signing, for GET /api/network. */
  recentExclusions?: () => NetworkExclusionDto[];
  /** The chain's tip height: a quote carries the term of a vault written now (vault-term.ts). */
  tipHeight?(): Promise<number>;
  /** GET /api/network's cache period and health time-out; default theirs. */
  network?: NetworkRouteOptions;
  /** The hot per-vault answers, kept until their vault changes (answer-cache.ts); none: read each time. */
  answers?: AnswerCache;
}

/** A history cursor, `<timestamp>.<id>` of a page's oldest record (checked by the route table). */
function cursorOf(text: string): HistoryCursor {
  const [timestamp, id] = text.split('.').map(Number) as [number, number];
  return { timestamp, id };
}

/** The last treasury address computed, with the key and network it is of. */
let treasuryAddressKept: { of: string; address: string } | null = null;

/**
 * The treasury's address, computed again only when its key or network changes: the taproot tweak
 * behind it is about 1.5 ms of the event loop, on every page's first request.
 */
function treasuryAddressOf(keys: ApiDeps['keys'], mainnet: boolean): string {
  const of = `${keys.treasuryPubkey}:${keys.treasuryIsGroupKey === true}:${mainnet}`;
  if (treasuryAddressKept?.of !== of) {
    const address = treasuryOutputOf(keys, mainnet ? NETWORK : TEST_NETWORK).address;
    treasuryAddressKept = { of, address };
  }
  return treasuryAddressKept.address;
}

export function configDto(deps: ApiDeps): ConfigDto {
  const { config, keys, notifier } = deps;
  return {
    network: config.network,
    ...config.services,
    // With ord as the runes indexer the page reads runes through this server (indexer-proxy.ts).
    ...(config.runesApi === 'ord' && config.network !== 'devnet'
      ? { runesUrl: INDEXER_PROXY_PREFIX, ordinalsUrl: INDEXER_PROXY_PREFIX }
      : {}),
    guardianUrl: '/guardian',
    // This product's own docs and links (config.ts), not another protocol's sites
    docsUrl: config.links.docs,
    social: {
      twitter: config.links.twitter,
      discord: config.links.discord,
      telegram: config.links.telegram,
    },
    guardPubkey: keys.guardPubkey,
    treasuryPubkey: keys.treasuryPubkey,
    treasuryAddress: treasuryAddressOf(keys, config.network === 'mainnet'),
    unitRuneId: deps.unitRuneId(),
    telegramBot: notifier.botUsername,
    constants: {
      ...DEFAULT_CONFIG_CONSTANTS,
      speedUpAfterSeconds: config.speedUpAfterSeconds,
      // Layout 2: every record carries the term (40 bytes), the web sizes fees with it.
      vaultTerm: { ...config.vaultTerm },
      // The guardian network's records commit to the price quorum: the web sizes fees with it.
      ...(config.guardianNetwork.mode === 'off' ? {} : { priceQuorum: true }),
    },
  };
}

/** Layout 2 in estimateVsize: every record carries the term, a vault spent may be layout 2. */
const LAYOUT_2 = { term: true, spentTermed: true } as const;

/** Layout 2: the quote carries the term of a vault output written at the chain's tip now. */
async function withTerm<Q extends object>(quote: Q, deps: ApiDeps) {
  if (!deps.tipHeight) return quote;
  // Each guardian checks it against its own tip (vault-term.ts, TERM_TIP_TOLERANCE_BLOCKS).
  const term = vaultTermAt(await deps.tipHeight(), deps.config.vaultTerm);
  return { ...quote, term: { settle_height: term.settleHeight, exit_height: term.exitHeight } };
}

export function registerApiRoutes(app: FastifyInstance, deps: ApiDeps): void {
  const { config, db, oracle, keys, notifier } = deps;
  const guardKeyOf = deps.vaultGuardPubkey ?? (() => Promise.resolve(keys.guardPubkey));

  tableRoute(app, 'health', () => {
    const price = oracle.latest();
    return {
      status: 'ok' as const,
      network: config.network,
      price_time: price?.timestamp ?? null,
      price_stale: oracle.stale,
    };
  });

  tableRoute(app, 'config', () => configDto(deps));
  registerOpenApiRoute(app);
  registerNetworkRoutes(app, config.guardianNetwork, keys.guardPubkey, {
    ...deps.network,
    ...(deps.recentExclusions ? { recentExclusions: deps.recentExclusions } : {}),
  });
  registerPriceQuorumRoute(app, db, setsFromDir(config.guardianNetwork));
  registerTransactionFateRoute(app, db);

  // The hottest route (every open page polls it): serialised by its schema.
  tableRoute(app, 'bitcoinPrice', () => {
    const { priceCents, timestamp } = withFreshPrice(() => oracle.price());
    const reason = oracle.staleCause;
    return {
      USD: priceCents / 100,
      time: timestamp,
      stale: reason !== null,
      stale_reason: reason,
    };
  });

  // The oracle keeps each period's JSON until the next tick: sent as is.
  tableRoute(app, 'priceHistory', async ({ query: { timePeriod }, reply }) => {
    const json = await oracle.historyJson(timePeriod);
    return reply.type('application/json; charset=utf-8').send(json);
  });

  // The oracle's key and a threshold hash, without a price: what a guardian reads at its start
  // (before any quorum exists) and while it decides (never waiting on the guardians' prices).
  tableRoute(app, 'thresholdHash', async ({ query: { th, ts } }) => {
    return {
      oracle_pubkey: oracle.pubkey,
      threshold_hash: bytesToHex(oracle.thresholdHash(th, ts)),
      // With the network: the guardians' hashes, the first in `threshold_hash`.
      ...(await oracle.networkCommitment(th, ts)),
    };
  });

  tableRoute(app, 'oracleQuote', async ({ query: { th, ts } }) => {
    // A stamp from the future would let a quote outlive its 300 s.
    if (ts > Math.floor(Date.now() / 1000) + 60) {
      throw new DomainError('bad_request', 'ts is in the future');
    }
    // A stale price rejects with StalePriceError, a DomainError 'no_price' as withFreshPrice makes.
    return withTerm(await oracle.withOracleHashes(await oracle.quoteFresh(th, ts)), deps);
  });

  registerDevnetPriceRoutes(app, config, oracle);

  // The web app's own lookup: a wallet without a vault is an ordinary answer ([]), not a 404 the
  // browser logs as an error on every poll; by-pubkey keeps its 404 for callers that
  // expect the vault to exist (SPEC §8 'A 404 is treated as a distinct not-found case').
  tableRoute(app, 'vaults', ({ query: { pubkey }, reply }) =>
    sendCachedAnswer(deps.answers, reply, `vaults ${pubkey}`, async () => {
      const vault = await getVaultByPubkey(db, pubkey);
      const answer = vault ? [toVaultDto(vault, await guardKeyOf(vault))] : [];
      return { answer, vaultId: vault?.vault_id ?? null };
    }),
  );

  tableRoute(app, 'vaultByPubkey', async ({ params: { pubkey } }) => {
    const vault = await getVaultByPubkey(db, pubkey);
    if (!vault) throw notFound('No vault for this public key');
    return toVaultDto(vault, await guardKeyOf(vault));
  });

  tableRoute(app, 'vaultHistory', ({ params: { vaultId }, query: { limit, before }, reply }) =>
    // The newest page is the one every open dashboard polls: older pages are read each time.
    sendCachedAnswer(
      before ? undefined : deps.answers,
      reply,
      `history ${vaultId} ${limit}`,
      async () => {
        if (!(await getVault(db, vaultId))) throw notFound('No such vault');
        const page = await vaultHistoryPage(db, vaultId, limit, before ? cursorOf(before) : null);
        const answer = {
          records: page.records.map(toHistoryDto),
          next: page.next ? `${page.next.timestamp}.${page.next.id}` : null,
          state_before: page.stateBefore,
        };
        return { answer, vaultId: vaultId.toLowerCase() };
      },
    ),
  );

  // SPEC §9: the period's buckets; without a period, the year (the widest chart).
  // Kept as the history page is: its query is a millisecond of the loop, asked by every open chart.
  // The buckets' start is in the key, so a kept answer never outlives its buckets.
  tableRoute(app, 'vaultPoints', ({ params: { vaultId }, query: { timePeriod }, reply }) => {
    const { buckets, seconds } = TIME_PERIODS[timePeriod];
    const { from } = periodRange(timePeriod, Math.floor(Date.now() / 1000));
    return sendCachedAnswer(
      deps.answers,
      reply,
      `points ${vaultId} ${timePeriod} ${from}`,
      async () => {
        if (!(await getVault(db, vaultId))) throw notFound('No such vault');
        const answer = await vaultPointsBetween(db, vaultId, from, seconds, buckets);
        return { answer, vaultId: vaultId.toLowerCase() };
      },
    );
  });

  // Each liquidated vault's own guardian key (an older set's if it never moved: rotation), which
  // the web's repossess builds the liquidated vault's input with.
  tableRoute(app, 'liquidations', async () => {
    const list = await listLiquidations(db);
    return Promise.all(list.map(async (l) => ({ ...l, guard_pubkey: await guardKeyOf(l) })));
  });

  registerOperationQuoteRoute(app, config);

  tableRoute(
    app,
    'notify',
    async ({ body: dto, request }) => {
      // Only the address's signed-in owner may announce its transactions.
      await requireSession(db, request, dto.address);
      const queued = await notifier.notify(dto);
      return { queued, enabled: notifier.enabled };
    },
    { config: WRITE_LIMIT },
  );
}

/** GET /api/quote: the fee of an action of the app's layout, for the web's "Available" estimate. */
function registerOperationQuoteRoute(app: FastifyInstance, config: ApiDeps['config']): void {
  tableRoute(app, 'operationQuote', ({ query: { action, feeRate, inputs } }) => {
    // A withdraw pays its fee from the vault; every other action spends at least one payment UTXO.
    const paymentInputs = inputs ?? defaultPaymentInputs(action);
    // With the guardians as oracles a liquidated vault has up to three liquidation leaves.
    const network = config.guardianNetwork.mode !== 'off';
    const oracles = network ? VAULT_MAX_ORACLE_COUNT : 1;
    // ...and every state record commits to the quote's price quorum (32 bytes more).
    // ...and the record carries the term (layout 2), the vault spent counted as layout 2 (the larger).
    const shape = { action, paymentInputs, oracles, quorumCommitment: network, ...LAYOUT_2 };
    const cost = operationCostSats({ ...shape, feeRate });
    return {
      action,
      fee_rate: feeRate,
      vsize: estimateVsize(shape),
      operation_cost_sats: Number(cost),
    };
  });
}

/** The devnet's price controls: its market (what its guardians read) and setting it. */
function registerDevnetPriceRoutes(
  app: FastifyInstance,
  config: ApiDeps['config'],
  oracle: ApiDeps['oracle'],
): void {
  // Refused before the body is read: off the devnet the answer is the same whatever is sent.
  const devnetOnly = (message: string) => async () => {
    if (config.network !== 'devnet') throw new DomainError('not_devnet', message);
  };
  // The devnet's market, which its guardians read (`devnet@<app>`, the shape of /api/bitcoin-price):
  // in network mode the devnet's price sets it, and the app's price is the guardians' quorum.
  tableRoute(app, 'devnetMarket', async () => {
    if (config.network !== 'devnet') throw new DomainError('not_devnet', 'Only on the devnet');
    const { priceCents, timestamp } = await oracle.marketPrice();
    return { USD: priceCents / 100, time: timestamp, stale: false };
  });

  tableRoute(
    app,
    'devnetPrice',
    async ({ body: { usd } }) => {
      const point = await oracle.setPrice(Math.round(usd * 100));
      return { USD: point.priceCents / 100, time: point.timestamp };
    },
    { config: WRITE_LIMIT, preHandler: devnetOnly('The price can only be set on the devnet') },
  );

  // A price source that stops answering (off mode's simulated feed): the price goes stale as a live
  // feed's does, so the paused dashboard can be seen end to end; `running: true` ticks again.
  tableRoute(
    app,
    'devnetPriceFeed',
    async ({ body: { running } }) => {
      await oracle.setFeedRunning(running);
      return { running, stale: oracle.stale, stale_reason: oracle.staleCause };
    },
    {
      config: WRITE_LIMIT,
      preHandler: devnetOnly('The price feed can only be stopped on the devnet'),
    },
  );
}

/** No price at all, or a stale one where a fresh one is needed: 503 no_price, not a failure. */
function withFreshPrice<T>(read: () => T): T {
  try {
    return read();
  } catch (error) {
    if (error instanceof StalePriceError) throw new DomainError('no_price', error.message);
    throw error;
  }
}
