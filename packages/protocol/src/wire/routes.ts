// The route table of the public HTTP API: for each route its method and path (route-paths.ts),
// the schemas of its path parameters, query and body, and the schema of its answer. The server
// registers its routes from it (validation at the edge, serialisation by the answer's schema),
// the web app calls through it, the tests check answers against it, and /api/openapi.json is
// generated from it.
import * as z from 'zod';
import { keyLookups } from './route-lookups';
import { hexOf, timePeriodSchema, vaultActionSchema } from './fields';
import {
  bitcoinPriceSchema,
  configSchema,
  historyPointSchema,
  liquidatedVaultSchema,
  operationQuoteSchema,
  oracleQuoteSchema,
  priceHistorySchema,
  telegramNotifyAcceptedSchema,
  telegramNotifyBodySchema,
  vaultHistoryPageSchema,
  vaultSchema,
} from './http';
import { guardianNetworkSchema } from './network';
import { ROUTE_PATHS, type RouteName } from './route-paths';
import type { RouteSchemas } from './route-schema';
import { ACCOUNT_ROUTES } from './routes-accounts';
import { OPS_ROUTES } from './routes-ops';

export type { RouteSchemas } from './route-schema';

/** The most records one history page holds, and how many when the client does not say. */
export const HISTORY_PAGE_MAX = 100;
export const HISTORY_PAGE_DEFAULT = 20;

/** A key as hex in either case, read in lower case. */
const pubkeyParam = hexOf(32).transform((s) => s.toLowerCase());
const vaultIdParam = z.string().min(1).max(100);

const vaultOfKey = keyLookups(
  'The vault of a key',
  'it has none',
  z.object({ pubkey: pubkeyParam }),
  vaultSchema,
);

/** A history cursor is `<timestamp>.<id>` of a page's oldest record (its `next`). */
export const historyCursorSchema = z
  .string()
  .regex(/^\d{1,15}\.\d{1,15}$/, 'expected a cursor from an earlier page');

/** A query's number: sent as text, read as a number. */
const queryInt = () => z.coerce.number<number>().int();

const HOT_ROUTES = {
  health: {
    summary: 'Whether the server answers, and how old its price is.',
    response: z.object({
      status: z.literal('ok'),
      network: z.string(),
      price_time: z.number().int().nullable(),
      price_stale: z.boolean(),
    }),
  },
  config: {
    summary: 'Every URL and configurable constant the web app uses.',
    response: configSchema,
  },
  network: {
    summary: 'The guardian set this server coordinates, and each guardian’s health.',
    response: guardianNetworkSchema,
  },
  bitcoinPrice: {
    summary: 'The oracle’s Bitcoin price in US dollars, and whether it is stale.',
    response: bitcoinPriceSchema,
  },
  priceHistory: {
    summary: 'The price over a period, and its change in percent.',
    query: z.object({ timePeriod: timePeriodSchema }),
    response: priceHistorySchema,
  },
  oracleQuote: {
    summary: 'A signed price quote for a liquidation threshold and a stamp.',
    query: z.object({
      th: queryInt().min(0).max(Number.MAX_SAFE_INTEGER),
      ts: queryInt().min(0).max(0xffff_ffff),
    }),
    response: oracleQuoteSchema,
  },
  vaults: vaultOfKey.inQuery,
  vaultByPubkey: vaultOfKey.inPath,
  vaultHistory: {
    summary: 'One page of a vault’s history, newest first; `before` is an earlier page’s `next`.',
    params: z.object({ vaultId: vaultIdParam }),
    query: z.object({
      limit: queryInt().min(1).max(HISTORY_PAGE_MAX).default(HISTORY_PAGE_DEFAULT),
      before: historyCursorSchema.optional(),
    }),
    response: vaultHistoryPageSchema,
  },
  vaultPoints: {
    summary: 'A vault’s locked bitcoin and borrowed UNIT over a period (the year without one).',
    params: z.object({ vaultId: vaultIdParam }),
    query: z.object({ timePeriod: timePeriodSchema.default('1y') }),
    response: z.array(historyPointSchema),
  },
  liquidations: {
    summary: 'The liquidated vaults, with what a repossessor needs to spend them.',
    response: z.array(liquidatedVaultSchema),
  },
  operationQuote: {
    summary: 'What an action costs in fees at a fee rate.',
    query: z.object({
      action: vaultActionSchema,
      feeRate: z.coerce.number<number>().positive().max(10_000),
      inputs: queryInt().min(0).max(500).optional(),
    }),
    response: operationQuoteSchema,
  },
  notify: {
    summary: 'Announces a transaction to the Telegram chats of its signed-in owner.',
    body: telegramNotifyBodySchema,
    status: 202,
    response: telegramNotifyAcceptedSchema,
  },
} as const satisfies Record<string, RouteSchemas>;

const SCHEMAS = {
  ...HOT_ROUTES,
  ...ACCOUNT_ROUTES,
  ...OPS_ROUTES,
} as const satisfies Record<RouteName, RouteSchemas>;

type Table = {
  [K in RouteName]: (typeof ROUTE_PATHS)[K] & (typeof SCHEMAS)[K];
};

/** Every route of the public HTTP API. */
export const API_ROUTES = Object.fromEntries(
  Object.entries(ROUTE_PATHS).map(([name, at]) => [name, { ...at, ...SCHEMAS[name as RouteName] }]),
) as Table;

export type ApiRoutes = Table;
export type ApiRoute = Table[RouteName];

type Field<K extends RouteName, F extends string> = F extends keyof Table[K]
  ? Table[K][F] extends z.ZodType
    ? Table[K][F]
    : never
  : never;
type InputOf<S> = S extends z.ZodType ? z.input<S> : undefined;
type OutputOf<S> = S extends z.ZodType ? z.output<S> : undefined;

/** What a caller sends: path parameters, query and body, as the caller writes them. */
export type RouteParams<K extends RouteName> = InputOf<Field<K, 'params'>>;
export type RouteQuery<K extends RouteName> = InputOf<Field<K, 'query'>>;
export type RouteBody<K extends RouteName> = InputOf<Field<K, 'body'>>;
/** What the server reads once they are validated. */
export type RouteParamsParsed<K extends RouteName> = OutputOf<Field<K, 'params'>>;
export type RouteQueryParsed<K extends RouteName> = OutputOf<Field<K, 'query'>>;
export type RouteBodyParsed<K extends RouteName> = OutputOf<Field<K, 'body'>>;
/** The answer. */
export type RouteResponse<K extends RouteName> = z.output<Table[K]['response']>;

/** The table's route whose method and path match a request's (query string ignored), or null. */
export function routeOfRequest(method: string, pathname: string): RouteName | null {
  for (const [name, route] of Object.entries(ROUTE_PATHS)) {
    if (route.method !== method.toUpperCase()) continue;
    const literal = route.path.replace(/\./g, '\\.');
    const pattern = new RegExp(`^${literal.replace(/:[A-Za-z]+/g, '[^/]+')}$`);
    if (pattern.test(pathname)) return name as RouteName;
  }
  return null;
}
